// file_lock_test.cpp — FileLock takes turns across open files: while one
// holder has the lock file, another open file description of it cannot
// take it; once the holder goes, it can. (The lock belongs to the open file
// description, so a second open() in this process stands for a second
// process.)
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "vocab/file_lock.h"

#include "test_support.h"

using namespace moebench;

namespace {

// Whether a fresh open of `path` can take the lock now (without waiting).
bool lockable_now(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  struct flock lk {};
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  const bool got = ::fcntl(fd, F_OFD_SETLK, &lk) == 0;
  const int err = errno;
  ::close(fd);
  if (!got) CHECK((err == EAGAIN || err == EACCES));
  return got;
}

}  // namespace

TEST_CASE("file lock: one holder at a time", "[file_io]") {
  testing::TempDir dir;
  const std::string path = dir.file("make.lock");
  {
    auto held = FileLock::acquire(path);
    REQUIRE(held);
    CHECK_FALSE(lockable_now(path));
    FileLock moved = std::move(*held);  // the lock moves with the object
    CHECK_FALSE(lockable_now(path));
  }
  CHECK(lockable_now(path));
  // Taken again after release, by FileLock itself.
  CHECK(FileLock::acquire(path));
  auto missing = FileLock::acquire(dir.file("no/such/dir/x.lock"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("cannot open the lock file") != std::string::npos);
}
