// expert_cache_test.cpp — the expert cache's slot bookkeeping and its two
// eviction policies, on known access sequences.
#include <catch2/catch.hpp>

#include "engines/cache/expert_cache.h"

using namespace moebench;

namespace {
// Brings (layer, expert) in as the engine does: claim, land, use, release.
int use(ExpertCache& c, int layer, int expert) {
  int s = c.find(layer, expert);
  if (s == ExpertCache::kNone) {
    s = c.claim(layer, expert);
    if (s == ExpertCache::kNone) return s;
    c.set_ready(s);
  }
  c.touch(s, layer, expert);
  return s;
}
}  // namespace

TEST_CASE("LRU evicts the expert used longest ago", "[cache]") {
  auto c = ExpertCache::create(3, 4096, CachePolicy::kLru);
  REQUIRE(c);
  use(*c, 0, 1);
  use(*c, 0, 2);
  use(*c, 0, 3);
  use(*c, 0, 1);  // 2 is now the oldest
  use(*c, 0, 4);
  CHECK(c->find(0, 2) == ExpertCache::kNone);
  CHECK(c->find(0, 1) != ExpertCache::kNone);
  CHECK(c->find(0, 3) != ExpertCache::kNone);
  CHECK(c->find(0, 4) != ExpertCache::kNone);
  CHECK(c->evictions() == 1);
}

TEST_CASE("LFU keeps the experts needed most often, across evictions", "[cache]") {
  auto c = ExpertCache::create(2, 4096, CachePolicy::kLfu);
  REQUIRE(c);
  for (int i = 0; i < 5; ++i) use(*c, 0, 7);  // popular
  use(*c, 0, 8);
  use(*c, 0, 9);  // evicts 8 (1 use), not 7 (5 uses)
  CHECK(c->find(0, 7) != ExpertCache::kNone);
  CHECK(c->find(0, 8) == ExpertCache::kNone);
  // 8 comes back and is used twice: 9 (1 use) goes, 7 still stays.
  use(*c, 0, 8);
  use(*c, 0, 8);
  CHECK(c->find(0, 7) != ExpertCache::kNone);
  CHECK(c->find(0, 9) == ExpertCache::kNone);
}

TEST_CASE("pinned and loading slots are never evicted, a full cache says so", "[cache]") {
  auto c = ExpertCache::create(2, 4096, CachePolicy::kLru);
  REQUIRE(c);
  const int a = c->claim(1, 0);  // loading
  const int b = use(*c, 1, 1);
  c->pin(b);
  CHECK(c->claim(1, 2) == ExpertCache::kNone);
  c->set_ready(a);
  const int d = c->claim(1, 2);  // a is ready and unpinned now
  CHECK(d == a);
  CHECK(c->find(1, 0) == ExpertCache::kNone);
  c->unpin(b);
  c->drop(d);
  CHECK(c->find(1, 2) == ExpertCache::kNone);
  CHECK(c->state(d) == ExpertCache::State::kEmpty);
}

TEST_CASE("slots are distinct, aligned regions of one arena", "[cache]") {
  auto c = ExpertCache::create(4, 8192, CachePolicy::kLru);
  REQUIRE(c);
  for (int s = 0; s < 4; ++s) {
    CHECK(reinterpret_cast<std::uintptr_t>(c->slot_data(s)) % 4096 == 0);
    CHECK(c->slot_data(s) == c->arena().data() + 8192 * s);
  }
  CHECK_FALSE(ExpertCache::create(4, 1000, CachePolicy::kLru));
  CHECK_FALSE(parse_cache_policy("fifo"));
}
