// test_file.h — the file each storage probe reads: real data (never
// sparse, so every read reaches the device), reused between runs when it is
// present and valid, and never half-valid: it is written through AtomicFile
// (vocab/file_io.h: temporary name, fsync, rename, directory fsync).
//
// Layout: 1 MiB blocks of xorshift64 data seeded by (seed, block index);
// the first 64 bytes carry a header (magic, size, seed). Validity on reuse =
// header matches and 16 sampled blocks regenerate identically.
#pragma once

#include <cstdint>
#include <string>

#include "vocab/expected.h"
#include "vocab/progress.h"

namespace moebench {

inline constexpr std::uint64_t kTestFileBlockBytes = 1ull << 20;
inline constexpr const char* kTestFileName = "moebench-probe.dat";

struct TestFile {
  std::string path;
  std::uint64_t size_bytes = 0;
  bool reused = false;
  bool direct_io = true;  // O_DIRECT honoured by this filesystem
  double write_s = 0;     // time to create it (0 when reused)
};

// Creates (or reuses) DIR/moebench-probe.dat of `size_bytes` (rounded up to
// 1 MiB). Errors: DIR missing or not writable, too little free space (the
// message gives both figures and what to do), write failures.
Expected<TestFile> prepare_test_file(const std::string& dir, std::uint64_t size_bytes, Progress& progress);


// Fills `out` (n bytes, n a multiple of 8) with block `index` of the data stream.
void fill_test_block(std::uint64_t seed, std::uint64_t index, unsigned char* out, std::size_t n);

}  // namespace moebench
