// dir_lock.cpp — see dir_lock.h.
#include "vocab/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <utility>

namespace moebench {

namespace {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The holder's line, as it wrote it (at most one line, bounded).
std::string holder_of(int fd) {
  char buf[512];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "another process (it has not written its name yet)";
  std::string s(buf, static_cast<std::size_t>(n));
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

Expected<DirLock> DirLock::acquire(const std::string& dir, const std::string& command) {
  const std::string path = (std::filesystem::path(dir) / ".moebench.lock").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return make_error(path + ": cannot open the results directory's lock: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string who = err == EWOULDBLOCK ? holder_of(fd) : std::string();
    ::close(fd);
    if (err != EWOULDBLOCK) return make_error(path + ": cannot lock the results directory: " + std::strerror(err));
    return make_error(dir + " is being written by " + who +
                      ": two writers would interleave one journal; wait for it to finish, or write to another --out");
  }
  char host[256] = "unknown host";
  if (::gethostname(host, sizeof host) != 0) std::strcpy(host, "unknown host");
  host[sizeof host - 1] = '\0';
  const std::string line = "pid " + std::to_string(::getpid()) + " on " + host + " since " + now_utc() + " (" + command + ")\n";
  // The name is a courtesy for a second writer: failing to write it does not stop this one.
  if (::ftruncate(fd, 0) == 0) {
    const ssize_t w = ::pwrite(fd, line.data(), line.size(), 0);
    (void)w;
  }
  DirLock lock;
  lock.fd_ = fd;
  return lock;
}

DirLock::DirLock(DirLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace moebench
