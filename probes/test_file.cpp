// test_file.cpp — see test_file.h.
#include "probes/test_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "vocab/file_io.h"
#include "vocab/units.h"

namespace moebench {
namespace {

constexpr char kMagic[16] = {'M', 'O', 'E', 'B', 'E', 'N', 'C', 'H', '-', 'P', 'R', 'O', 'B', 'E', '-', '1'};
constexpr std::uint64_t kSeed = 0x6d6f6562656e6368ull;  // "moebench"
constexpr std::uint64_t kChunkBytes = 16 * kTestFileBlockBytes;

struct Header {
  char magic[16];
  std::uint64_t size_bytes;
  std::uint64_t seed;
};

void stamp_header(unsigned char* block0, std::uint64_t size_bytes) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.size_bytes = size_bytes;
  h.seed = kSeed;
  std::memcpy(block0, &h, sizeof h);
}

bool valid_existing(const std::string& path, std::uint64_t size_bytes, bool& direct) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size_bytes) return false;
  // Not sparse: allocated blocks cover the size.
  if (static_cast<std::uint64_t>(st.st_blocks) * 512 < size_bytes) return false;
  const int fd = open_read_uncached(path, direct);
  if (fd < 0) return false;
  AlignedBytes got = aligned_bytes(kTestFileBlockBytes), want = aligned_bytes(kTestFileBlockBytes);
  const std::uint64_t blocks = size_bytes / kTestFileBlockBytes;
  bool ok = true;
  for (int s = 0; s < 16 && ok; ++s) {
    const std::uint64_t idx = s == 0 ? 0 : (blocks - 1) * static_cast<std::uint64_t>(s) / 15;
    if (pread(fd, got.get(), kTestFileBlockBytes, static_cast<off_t>(idx * kTestFileBlockBytes)) !=
        static_cast<ssize_t>(kTestFileBlockBytes)) {
      ok = false;
      break;
    }
    fill_test_block(kSeed, idx, want.get(), kTestFileBlockBytes);
    if (idx == 0) stamp_header(want.get(), size_bytes);
    ok = std::memcmp(got.get(), want.get(), kTestFileBlockBytes) == 0;
  }
  ::close(fd);
  return ok;
}

}  // namespace

void fill_test_block(std::uint64_t seed, std::uint64_t index, unsigned char* out, std::size_t n) {
  std::uint64_t x = seed ^ (index * 0x9e3779b97f4a7c15ull) ^ 0x2545f4914f6cdd1dull;
  if (x == 0) x = 1;
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(out + i, &x, 8);
  }
}

Expected<TestFile> prepare_test_file(const std::string& dir, std::uint64_t size_bytes, Progress& progress) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return make_error(dir + ": drive directory does not exist (create it, or pass a directory on the drive to probe)");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return make_error(dir + ": drive directory is not writable (the probe needs to write its test file there)");
  }
  size_bytes = (size_bytes + kTestFileBlockBytes - 1) / kTestFileBlockBytes * kTestFileBlockBytes;
  TestFile tf;
  tf.path = (std::filesystem::path(dir) / kTestFileName).string();
  tf.size_bytes = size_bytes;
  if (valid_existing(tf.path, size_bytes, tf.direct_io)) {
    tf.reused = true;
    return tf;
  }
  auto avail = free_bytes(dir);
  if (!avail) return avail.error();
  struct stat st {};
  const std::uint64_t old = stat(tf.path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  const std::uint64_t margin = 512ull << 20;
  if (*avail + old < size_bytes + margin) {
    return make_error(dir + ": the probe's test file needs " + format_bytes(static_cast<double>(size_bytes)) +
                      " plus " + format_bytes(static_cast<double>(margin)) + " headroom, but only " +
                      format_bytes(static_cast<double>(*avail + old)) +
                      " is free; free space or pass a smaller --file-size");
  }
  // O_DIRECT where the filesystem allows (tmpfs may refuse it); a fixed
  // temporary name, so an interrupted attempt's leftover is replaced, not kept.
  AtomicFileOptions fo;
  fo.direct = true;
  fo.unique = false;
  auto file = AtomicFile::create(tf.path, fo);
  if (!file) return make_error(file.error().message + " (the probe's test file)");
  AlignedBytes buf = aligned_bytes(kChunkBytes);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t off = 0; off < size_bytes; off += kChunkBytes) {
    const std::uint64_t n = std::min(kChunkBytes, size_bytes - off);
    for (std::uint64_t b = 0; b < n; b += kTestFileBlockBytes) {
      fill_test_block(kSeed, (off + b) / kTestFileBlockBytes, buf.get() + b, kTestFileBlockBytes);
    }
    if (off == 0) stamp_header(buf.get(), size_bytes);
    if (Status w = file->pwrite_all(buf.get(), n, off); !w) {
      return make_error("writing the probe's test file failed: " + w.error().message);
    }
    progress.phase("writing test file " + tf.path, static_cast<double>(off + n) / static_cast<double>(size_bytes));
  }
  if (Status c = file->commit(); !c) return c.error();
  tf.write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bool direct = false;
  const int check = open_read_uncached(tf.path, direct);
  if (check >= 0) ::close(check);
  tf.direct_io = direct;
  return tf;
}

}  // namespace moebench
