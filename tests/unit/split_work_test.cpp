// split_work_test.cpp — share_work: every item visited exactly once in
// chunks, whether the loop is split between two threads or run here; an
// exception from a chunk reaches the caller.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "vocab/split_work.h"

using namespace moebench;

TEST_CASE("share_work visits every item once in whole chunks", "[split_work]") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{511}, std::size_t{512}, std::size_t{513},
                              std::size_t{100000}}) {
    std::vector<std::atomic<int>> visits(n);
    std::atomic<int> calls{0};
    share_work(n, 512, [&](std::size_t from, std::size_t to) {
      ++calls;
      REQUIRE(from < to);
      REQUIRE(to <= n);
      REQUIRE((from % 512 == 0 || (from == 0 && to == n)));
      for (std::size_t i = from; i < to; ++i) ++visits[i];
    });
    INFO("n = " << n);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(visits[i] == 1);
    // One call for a loop of one chunk or less, else one per chunk (or one for all of it without a thread).
    const int chunks = static_cast<int>((n + 511) / 512);
    CHECK((calls == chunks || (calls == 1 && n > 0)));
  }
}

TEST_CASE("share_work rethrows a chunk's exception once both threads stopped", "[split_work]") {
  // in_flight counts chunks being worked on: when share_work returns (by
  // throwing), no chunk may still be running on the other thread. (How many
  // chunks ran before the throw depends on when the worker thread started —
  // under qemu it may start last — so that count is not asserted.)
  std::atomic<int> in_flight{0};
  CHECK_THROWS_AS(share_work(10000, 1,
                             [&](std::size_t from, std::size_t to) {
                               ++in_flight;
                               if (from == 40) {
                                 --in_flight;
                                 throw std::runtime_error("item 40");
                               }
                               --in_flight;
                             }),
                  std::runtime_error);
  CHECK(in_flight == 0);
}
