// file_lock.cpp — see file_lock.h. An open-file-description lock
// (fcntl F_OFD_SETLKW) on the whole file: it belongs to this open file, not
// to the process, and NFS forwards it to the server's lock manager, so
// processes on different nodes sharing a directory take turns too.
#include "vocab/file_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace moebench {

Expected<FileLock> FileLock::acquire(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(path + ": cannot open the lock file: " + std::strerror(errno));
  struct flock lk {};
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
  while (::fcntl(fd, F_OFD_SETLKW, &lk) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return make_error(path + ": cannot lock: " + std::strerror(err));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the description releases its lock
}

}  // namespace moebench
