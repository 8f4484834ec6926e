// file_io.h — the one place that writes files. Outputs are replaced
// atomically (temporary file in the same directory, fsync, rename, fsync of
// the directory), so a crash leaves either the old file or the new one,
// never half of one. Appends for the journal are single write() calls
// followed by fsync.
#pragma once

#include <string>
#include <string_view>

#include "harness/expected.h"

namespace moebench {

Status write_file_atomic(const std::string& path, std::string_view content);
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
