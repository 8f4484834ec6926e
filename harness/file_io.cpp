// file_io.cpp — see file_io.h. POSIX only (Linux and macOS).
#include "harness/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace moebench {
namespace {

std::string errno_text() { return std::strerror(errno); }

Status write_all(int fd, std::string_view data, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(path + ": write failed: " + errno_text() + " (disk full? check free space)");
    }
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

void fsync_dir(const std::string& file_path) {
  std::filesystem::path dir = std::filesystem::path(file_path).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

AlignedBytes aligned_bytes(std::size_t n) {
  const std::size_t rounded = (std::max<std::size_t>(n, 1) + 4095) / 4096 * 4096;
  return AlignedBytes(static_cast<unsigned char*>(std::aligned_alloc(4096, rounded)));
}

int open_read_uncached(const std::string& path, bool& direct) {
#ifdef O_DIRECT
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd >= 0) {
    direct = true;
    return fd;
  }
#endif
  direct = false;
  const int plain = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
#ifdef F_NOCACHE
  if (plain >= 0 && fcntl(plain, F_NOCACHE, 1) == 0) direct = true;  // macOS
#endif
  return plain;
}

Status ensure_directory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return make_error(path + ": cannot create directory: " + ec.message());
  return Status::success();
}

Status write_file_atomic(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(path + ": cannot create " + tmp + ": " + errno_text() +
                      " (is the directory writable?)");
  }
  Status st = write_all(fd, content, tmp);
  if (st && ::fsync(fd) != 0) st = make_error(tmp + ": fsync failed: " + errno_text());
  ::close(fd);
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = make_error(path + ": cannot rename " + tmp + " into place: " + errno_text());
  }
  if (!st) {
    ::unlink(tmp.c_str());
    return st;
  }
  fsync_dir(path);
  return Status::success();
}

Expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open file: " + errno_text());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

DurableAppender::~DurableAppender() {
  if (fd_ >= 0) ::close(fd_);
}

DurableAppender::DurableAppender(DurableAppender&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

DurableAppender& DurableAppender::operator=(DurableAppender&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

Expected<DurableAppender> DurableAppender::open(const std::string& path, std::uint64_t keep_bytes,
                                                bool truncate_all) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (truncate_all ? O_TRUNC : 0), 0644);
  if (fd < 0) return make_error(path + ": cannot open for writing: " + errno_text());
  if (!truncate_all && ::ftruncate(fd, static_cast<off_t>(keep_bytes)) != 0) {
    ::close(fd);
    return make_error(path + ": cannot truncate the torn last line: " + errno_text());
  }
  if (::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return make_error(path + ": seek failed: " + errno_text());
  }
  DurableAppender a;
  a.fd_ = fd;
  a.path_ = path;
  return a;
}

Status DurableAppender::append(std::string_view data) {
  if (fd_ < 0) return make_error("journal is not open");
  Status st = write_all(fd_, data, path_);
  if (!st) return st;
  if (::fsync(fd_) != 0) return make_error(path_ + ": fsync failed: " + errno_text());
  return Status::success();
}

}  // namespace moebench
