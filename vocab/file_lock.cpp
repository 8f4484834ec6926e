// file_lock.cpp — see file_lock.h.
#include "vocab/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace moebench {

Expected<FileLock> FileLock::acquire(const std::string& path) {
  struct stat st {};
  const bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  const int fd = dir ? ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                     : ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(path + ": cannot open the lock file: " + std::strerror(errno));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return make_error(path + ": cannot lock: " + std::strerror(err));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace moebench
