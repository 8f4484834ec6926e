// dir_lock.h — one writer per results directory. A writer takes an
// exclusive flock(2) on DIR/.moebench.lock and holds it while it runs; the
// kernel drops it when the process ends however it ends (kill -9 included),
// so a lock can never go stale. Inside the file the holder writes its pid,
// host, start time and command, so a second writer's refusal names who
// holds the directory. (flock on NFS is per host on old kernels: shards on a
// shared filesystem write to their own directories.)
#pragma once

#include <string>

#include "vocab/expected.h"

namespace moebench {

class DirLock {
 public:
  // `command`: what the holder runs (shown to a second writer).
  static Expected<DirLock> acquire(const std::string& dir, const std::string& command);

  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

 private:
  DirLock() = default;
  int fd_ = -1;
};

}  // namespace moebench
