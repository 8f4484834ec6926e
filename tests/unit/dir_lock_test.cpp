// dir_lock_test.cpp — one writer per results directory (vocab/dir_lock.h):
// a second writer is refused with the holder's pid, host and command, and
// the directory is free again the moment the holder lets go.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "test_support.h"
#include "vocab/dir_lock.h"

using namespace moebench;

TEST_CASE("a second writer of one results directory is refused, naming the holder", "[dir-lock]") {
  testing::TempDir dir;
  {
    auto first = DirLock::acquire(dir.path(), "moebench run ci --out r");
    REQUIRE(first);
    auto second = DirLock::acquire(dir.path(), "moebench run ci --out r --resume");
    REQUIRE_FALSE(second);
    CHECK_THAT(second.error().message, Catch::Contains("pid " + std::to_string(getpid())) &&
                                           Catch::Contains("moebench run ci --out r)") &&
                                           Catch::Contains("another --out"));
  }
  // The holder gone (its descriptor closed), the directory is free.
  auto again = DirLock::acquire(dir.path(), "moebench run ci --out r --resume");
  CHECK(again);
}

TEST_CASE("a directory that cannot hold the lock file is a clear error", "[dir-lock]") {
  auto none = DirLock::acquire("/nonexistent-moebench-dir", "moebench run");
  REQUIRE_FALSE(none);
  CHECK_THAT(none.error().message, Catch::Contains("/nonexistent-moebench-dir/.moebench.lock"));
}
