// file_io.h — the one place that writes files. Outputs are replaced
// atomically (temporary file in the same directory, fsync, rename, fsync of
// the directory), so a crash leaves either the old file or the new one,
// never half of one. Appends for the journal are single write() calls
// followed by fsync.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "harness/expected.h"

namespace moebench {

Status write_file_atomic(const std::string& path, std::string_view content);

// Buffers for O_DIRECT I/O: 4096-aligned, size rounded up to 4096, freed
// with std::free. Their pages are not touched here.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<unsigned char[], FreeDeleter>;
AlignedBytes aligned_bytes(std::size_t n);

// Opens `path` for reading past the page cache: O_DIRECT where the
// filesystem honours it, F_NOCACHE on macOS, else a plain open (direct is
// then false, and the caller's figures may include cached reads). -1 on error
// with errno set.
int open_read_uncached(const std::string& path, bool& direct);
Expected<std::string> read_file(const std::string& path);
Status ensure_directory(const std::string& path);

// An append-only file whose every append reaches the disk before returning.
class DurableAppender {
 public:
  DurableAppender() = default;
  ~DurableAppender();
  DurableAppender(const DurableAppender&) = delete;
  DurableAppender& operator=(const DurableAppender&) = delete;
  DurableAppender(DurableAppender&& other) noexcept;
  DurableAppender& operator=(DurableAppender&& other) noexcept;

  // Opens for appending after truncating to `keep_bytes` (drops a torn
  // trailing line left by a crash); creates the file if missing.
  static Expected<DurableAppender> open(const std::string& path, std::uint64_t keep_bytes,
                                        bool truncate_all);
  Status append(std::string_view data);  // write fully, then fsync
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace moebench
