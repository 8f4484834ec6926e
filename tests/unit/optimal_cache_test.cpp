// optimal_cache_test.cpp — Belady's MIN over recorded needs: the textbook
// case by hand, optimality against an exhaustive search, the window, and
// the bound it sets on the engine's own policies in the replay.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <set>

#include "engines/cache/optimal_cache.h"
#include "harness/cache_bench.h"
#include "model/hit_rate.h"
#include "test_support.h"
#include "vocab/model_card.h"

using namespace moebench;

namespace {

NeedTrace one_layer(const std::vector<int>& needs) {
  NeedTrace t;
  for (int e : needs) t.add(0, {e});
  return t;
}

// The most hits any sequence of evictions reaches: every choice tried.
std::uint64_t exhaustive_best(const std::vector<int>& needs, std::size_t slots) {
  std::function<std::uint64_t(std::size_t, std::set<int>)> go = [&](std::size_t i, std::set<int> cached) {
    if (i == needs.size()) return std::uint64_t{0};
    const int e = needs[i];
    if (cached.count(e)) return 1 + go(i + 1, cached);
    if (cached.size() < slots) {
      cached.insert(e);
      return go(i + 1, cached);
    }
    std::uint64_t best = 0;
    for (int victim : cached) {
      std::set<int> next = cached;
      next.erase(victim);
      next.insert(e);
      best = std::max(best, go(i + 1, next));
    }
    return best;
  };
  return go(0, {});
}

}  // namespace

TEST_CASE("MIN on the textbook reference string: 5 hits of 12 with 3 slots", "[cache][optimal]") {
  // 1 2 3 4 1 2 5 1 2 3 4 5 with 3 frames: MIN faults 7 times (LRU: 10).
  // By hand: 1 2 3 cold; 4 evicts 3 (next needed farthest, at position 10);
  // 1 2 hit; 5 evicts 4 (position 11); 1 2 hit; 3 and 4 miss; 5 hits.
  const NeedTrace t = one_layer({1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5});
  const OptimalCounts all = optimal_hits(t, 3, 0, t.steps());
  CHECK(all.needs == 12);
  CHECK(all.hits == 5);
  // The window counts only its steps; earlier ones warm the cache.
  const OptimalCounts tail = optimal_hits(t, 3, 7, t.steps());
  CHECK(tail.needs == 5);
  CHECK(tail.hits == 3);  // positions 7..11: 1 and 2 hit, 3 and 4 miss, 5 hits
}

TEST_CASE("MIN equals an exhaustive search over every eviction choice", "[cache][optimal]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    std::vector<int> needs(11);
    for (int& e : needs) e = static_cast<int>(rng() % 6);
    const std::size_t slots = 1 + rng() % 3;
    const NeedTrace t = one_layer(needs);
    INFO("round " << round << ", slots " << slots);
    CHECK(optimal_hits(t, slots, 0, t.steps()).hits == exhaustive_best(needs, slots));
  }
}

TEST_CASE("MIN keys experts by layer and counts every need of a step", "[cache][optimal]") {
  NeedTrace t;
  t.add(0, {1, 2});
  t.add(1, {1, 2});  // the same ids in another layer are other experts
  t.add(0, {1, 2});
  CHECK(t.steps() == 3);
  CHECK(t.needs() == 6);
  CHECK(t.need_index(2) == 4);
  CHECK(optimal_hits(t, 4, 0, 3).hits == 2);  // everything fits: only the re-use of layer 0 hits
  CHECK(optimal_hits(t, 2, 0, 3).hits == 1);  // 2 slots: layer 1's needs evict one of layer 0's
  CHECK(optimal_hits(t, 0, 0, 3).hits == 0);
  CHECK(optimal_hits(t, 4, 3, 3).needs == 0);
}

TEST_CASE("no policy of the engine's cache beats the optimum on the same routing", "[cache][optimal][analytic]") {
  // The replay drives the engine's own CacheModel; MIN over the needs it
  // recorded bounds LRU and LFU, with and without prefetch.
  for (const char* routing : {"uniform", "zipf:1.1", "sticky:0.5"}) {
    for (CachePolicy policy : {CachePolicy::kLru, CachePolicy::kLfu}) {
      for (const char* prefetch : {"off", "next-layer"}) {
        ReplayPlan plan;
        plan.routing = routing;
        plan.policy = policy;
        plan.prefetch = prefetch;
        plan.seed = 3;
        plan.prompt_tokens = 16;
        plan.gen_tokens = 64;
        plan.chunk = 8;
        auto r = simulate_cache({4, 32, 4, 40}, plan);
        REQUIRE(r);
        INFO(routing << " " << (policy == CachePolicy::kLru ? "lru" : "lfu") << " " << prefetch);
        CHECK(r->decode.needs() == 63 * 4 * 4);
        CHECK(r->decode.optimal_hits >= r->decode.hits);
        CHECK(r->decode.optimal_hits <= r->decode.needs());
        CHECK(r->decode.optimal_hits > 0);
      }
    }
  }
}

TEST_CASE("bench-engines line 7: every routing model, both cache sizes, the optimum above each policy", "[cache][optimal][bench]") {
  auto peer = testing::shipped_store().card("peer-qwen3moe");
  REQUIRE(peer);
  auto scaled = apply_scale(*peer, *parse_scale("layers=4"));
  REQUIRE(scaled);
  auto bench = measure_cache_optimum(*scaled, ".", 128);
  REQUIRE(bench);
  CHECK(bench->lines.size() == 4);
  REQUIRE(bench->rows.size() == 8);
  for (const CacheOptimumRow& row : bench->rows) {
    INFO(row.routing << " at " << row.slots_share << ": optimal " << row.optimal);
    for (const auto& [name, hit] : row.policies) {
      INFO(name << " " << hit);
      CHECK(hit <= row.optimal + 1e-12);
    }
    CHECK(row.slots == static_cast<std::size_t>(row.slots_share * scaled->moe_layers() * scaled->moe.experts));
  }
  for (const BenchLine& l : bench->lines) {
    CHECK(l.ratios.size() == 2);
    CHECK(l.median_ratio() <= 1.0);
  }
  std::remove("real-routing.trace");
}

TEST_CASE("a hot set learned from earlier needs, counted on later ones", "[cache][optimal]") {
  // Learn on 1 1 2 3 (expert 1 most used), hold 1 slot, count on 1 2 1.
  const NeedTrace t = one_layer({1, 1, 2, 3, 1, 2, 1});
  const OptimalCounts held = learned_set_hits(t, 1, 0, 4, 4, 7);
  CHECK(held.needs == 3);
  CHECK(held.hits == 2);
  CHECK(learned_set_hits(t, 2, 0, 4, 4, 7).hits == 3);  // ties (2, 3) go to the smaller key: 2
  CHECK(learned_set_hits(t, 5, 4, 4, 4, 7).hits == 0);  // nothing learned, nothing held
}
