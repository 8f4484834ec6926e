// cache_model_test.cpp — the one cache model (engines/cache/cache_model.h)
// that the streaming engine's StreamingSource and the cost model's replay
// both drive: what is a hit, a miss and a hidden miss, what a layer pins,
// what prefetch loads, and how a need waits for a slot. Each test drives
// the model the way the executor does: routed, then for each expert
// acquire → count_use → release.
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>
#include <utility>

#include "model/hit_rate.h"
#include "engines/cache/cache_model.h"

using namespace moebench;

namespace {

// A loader whose reads land only when the test says so (a drive the test
// controls), recording every load.
class HeldLoader final : public CacheLoader {
 public:
  explicit HeldLoader(ExpertCache& cache) : cache_(cache) {}
  Status load(int slot, int layer, int expert) override {
    loads.push_back({layer, expert});
    in_flight.insert(slot);
    if (instant) land(slot);
    return Status::success();
  }
  bool ready_now(int slot) override { return in_flight.count(slot) == 0; }
  bool make_room() override {
    for (int s : in_flight) {
      if (!cache_.pinned(s)) {
        land(s);
        ++waits;
        return true;
      }
    }
    return false;
  }
  void land(int slot) {
    in_flight.erase(slot);
    cache_.set_ready(slot);
  }
  bool instant = true;
  std::vector<std::pair<int, int>> loads;
  std::set<int> in_flight;
  int waits = 0;

 private:
  ExpertCache& cache_;
};

// One MoE layer of one forward pass, in the executor's order; every read
// lands before its need (count_use's flag) unless `landed` says otherwise.
void layer(CacheModel& m, int l, std::vector<int> experts, bool landed = true) {
  REQUIRE(m.routed(l, experts));
  while (!experts.empty()) {
    const int at = std::max(0, m.pick(l, experts));
    const int e = experts[static_cast<std::size_t>(at)];
    experts.erase(experts.begin() + at);
    auto slot = m.acquire(l, e);
    REQUIRE(slot);
    m.count_use(*slot, l, e, landed);
    m.release(l, e);
  }
}

}  // namespace

TEST_CASE("an expert read for its need is a miss, one already cached a hit", "[cache]") {
  auto cache = ExpertCache::create(4, 4096, CachePolicy::kLru);
  REQUIRE(cache);
  HeldLoader loader(*cache);
  CacheModel m(*cache, loader, "off", 2, 8, 0);
  layer(m, 0, {1, 2});
  CHECK(m.counts.misses == 2);
  CHECK(m.counts.hits == 0);
  layer(m, 0, {2, 3});
  CHECK(m.counts.hits == 1);    // 2 stayed
  CHECK(m.counts.misses == 3);  // 3 was read
  CHECK(m.counts.reads == 3);
  CHECK(loader.loads == std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 3}});
}

TEST_CASE("a layer pins the experts it needs before it claims slots for the missing ones", "[cache]") {
  // Two slots, both full with (0,1) and (0,2); the layer needs 1 and 5. LRU
  // alone would evict 1 (used first), but 1 is pinned: 2 goes.
  auto cache = ExpertCache::create(2, 4096, CachePolicy::kLru);
  REQUIRE(cache);
  HeldLoader loader(*cache);
  CacheModel m(*cache, loader, "off", 1, 8, 0);
  layer(m, 0, {1, 2});
  layer(m, 0, {1, 5});
  CHECK(m.counts.hits == 1);
  CHECK(cache->find(0, 1) != ExpertCache::kNone);
  CHECK(cache->find(0, 2) == ExpertCache::kNone);
}

TEST_CASE("next-layer prefetch reads the previous token's experts of the next layer, hidden when landed", "[cache]") {
  // Three MoE layers, each needing its expert 1 every token, and two
  // slots: without prefetch the three would evict each other. With it, each
  // layer's routing reads the next layer's expert into the slot it frees.
  auto cache = ExpertCache::create(2, 4096, CachePolicy::kLru);
  REQUIRE(cache);
  HeldLoader loader(*cache);
  CacheModel m(*cache, loader, "next-layer", 3, 8, 0);
  // Token 1: three plain misses; layer 2's routing prefetches layer 0's
  // expert 1 into the slot of layer 1's (layer 2's own is pinned).
  layer(m, 0, {1});
  layer(m, 1, {1});
  layer(m, 2, {1});
  CHECK(m.counts.misses == 3);
  CHECK(m.counts.prefetches == 1);
  CHECK(cache->find(0, 1) != ExpertCache::kNone);
  CHECK(cache->find(1, 1) == ExpertCache::kNone);
  // Token 2: every need was prefetched by the layer before and landed.
  layer(m, 0, {1});
  layer(m, 1, {1});
  layer(m, 2, {1});
  CHECK(m.counts.hits == 0);
  CHECK(m.counts.misses == 6);
  CHECK(m.counts.misses_hidden == 3);
  CHECK(m.counts.prefetches == 4);
  CHECK(m.counts.reads == 3 + 4);  // three needs, four prefetches
  CHECK(m.counts.wasted_reads == 0);
}

TEST_CASE("a need with no free slot lets a prefetch in flight land, and a prefetch evicted unused is wasted", "[cache]") {
  // One slot; a predictor that always guesses wrong (pregate:0) fills it
  // with a read that has not landed when the layer routes.
  auto cache = ExpertCache::create(1, 4096, CachePolicy::kLru);
  REQUIRE(cache);
  HeldLoader loader(*cache);
  loader.instant = false;
  CacheModel m(*cache, loader, "pregate:0", 1, 8, 7);
  m.upcoming(0, {1});
  CHECK(m.counts.prefetches == 1);
  REQUIRE(loader.in_flight.size() == 1);
  REQUIRE(m.routed(0, {1}));  // no slot can be claimed while the read flies
  CHECK(m.pick(0, {1}) == -1);
  auto s = m.acquire(0, 1);
  REQUIRE(s);
  CHECK(loader.waits == 1);           // the prefetch had to land first
  CHECK(m.counts.wasted_reads == 1);  // and was evicted unused
  CHECK(loader.loads.back() == std::pair<int, int>{0, 1});
  loader.land(*s);
  m.count_use(*s, 0, 1, false);
  m.release(0, 1);
  CHECK(m.counts.misses == 1);
  CHECK(m.counts.misses_hidden == 0);

  // With no prefetch to wait for, a need that finds every slot pinned is an
  // error, not a silent skip.
  auto one = ExpertCache::create(1, 4096, CachePolicy::kLru);
  REQUIRE(one);
  HeldLoader l2(*one);
  CacheModel busy(*one, l2, "off", 1, 8, 0);
  REQUIRE(busy.routed(0, {1, 2}));  // 1 takes the slot (pinned), 2 finds none
  CHECK_FALSE(busy.acquire(0, 2));
}

TEST_CASE("the replay is the cache model with every read landing at once", "[cache][analytic]") {
  // simulate_cache drives the same CacheModel: its counts equal a direct
  // drive of the model over the same routes.
  const std::vector<std::vector<int>> tokens = {{1, 2, 5, 6}, {1, 3, 5, 7}, {2, 3, 6, 7}, {1, 2, 5, 6}};
  const std::string path = "cache_model_test.trace";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    std::fputs("moebench-trace v1 layers=2 experts=8 k=2\n", f);
    for (const auto& t : tokens) std::fprintf(f, "%d,%d | %d,%d\n", t[0], t[1], t[2], t[3]);
    std::fclose(f);
  }
  ReplayPlan plan;
  plan.routing = "trace:" + path;
  plan.prefetch = "next-layer";
  plan.prompt_tokens = 1;
  plan.gen_tokens = 4;
  auto r = simulate_cache({2, 8, 2, 3}, plan);
  REQUIRE(r);

  auto cache = ExpertCache::create(3, 4096, CachePolicy::kLru);
  REQUIRE(cache);
  HeldLoader loader(*cache);
  CacheModel m(*cache, loader, "next-layer", 2, 8, 0);
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    if (t == 1) m.counts = {};  // the first token is the prefill
    layer(m, 0, {tokens[t][0], tokens[t][1]});
    layer(m, 1, {tokens[t][2], tokens[t][3]});
  }
  CHECK(r->decode.hits == m.counts.hits);
  CHECK(r->decode.misses == m.counts.misses);
  CHECK(r->decode.misses_hidden == m.counts.misses_hidden);
  CHECK(r->decode.reads == m.counts.reads);
  CHECK(r->decode.needs() == 3 * 4);
  std::remove(path.c_str());
}
