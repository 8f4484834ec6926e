// file_lock.h — a cross-process exclusive lock on a file: the few
// places where two moebench processes could write the same files at once
// (shards of one sweep making one container in a shared drive directory)
// take turns instead.
#pragma once

#include <string>

#include "vocab/expected.h"

namespace moebench {

// An exclusive advisory lock on the file `path` (created when missing; an
// open-file-description lock, which NFS forwards to the server), held until
// the object goes: processes that would write the same files (shards
// of one sweep making one container) take turns. Blocks while another
// process holds it.
class FileLock {
 public:
  static Expected<FileLock> acquire(const std::string& path);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace moebench
