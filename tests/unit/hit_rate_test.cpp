// hit_rate_test.cpp — the analytic hit rates: the uniform closed form and
// Che's computation against a replay through the engine's own cache.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "model/hit_rate.h"

using namespace moebench;

namespace {
double simulated_decode_hit_rate(const CacheShape& s, const std::string& routing, std::int64_t tokens,
                                 CachePolicy policy = CachePolicy::kLru) {
  ReplayPlan plan;
  plan.routing = routing;
  plan.policy = policy;
  plan.seed = 12345;
  plan.prompt_tokens = 1;
  plan.gen_tokens = tokens;
  auto c = simulate_cache(s, plan);
  REQUIRE(c);
  return static_cast<double>(c->decode.hits) / static_cast<double>(c->decode.needs());
}
}  // namespace

TEST_CASE("uniform LRU closed form matches the replay through the engine's cache", "[analytic]") {
  struct Case {
    int L, E, k;
    std::size_t slots;
  };
  const Case cases[] = {{2, 64, 16, 32},  {2, 64, 16, 48},  {2, 64, 16, 64},  {2, 64, 16, 100},
                        {4, 64, 8, 40},   {4, 64, 8, 128},  {6, 32, 16, 40},  {6, 32, 16, 120},
                        {8, 256, 8, 300}, {8, 256, 8, 1200}};
  for (const Case& c : cases) {
    const CacheShape s{c.L, c.E, c.k, c.slots};
    const double closed = uniform_lru_hit_rate(s);
    const double sim = simulated_decode_hit_rate(s, "uniform", 4000);
    INFO("L=" << c.L << " E=" << c.E << " k=" << c.k << " slots=" << c.slots << ": closed " << closed << ", simulated "
              << sim << ", naive slots/(L*E) " << static_cast<double>(c.slots) / (c.L * c.E));
    CHECK(std::fabs(closed - sim) <= 0.03);
  }
}

TEST_CASE("the closed form is not the naive cached fraction: layers share the cache", "[analytic]") {
  // 120 slots of 192 experts: 62.5 % of the experts fit, but six layers
  // push 96 fresh experts through the cache every token, so an expert is
  // found again only if its own layer reused it within about a token or two.
  const CacheShape s{6, 32, 16, 120};
  CHECK(uniform_lru_hit_rate(s) < 0.56);
  CHECK(uniform_lru_hit_rate(s) > 0.44);
}

TEST_CASE("a cache holding every expert hits always, one holding a layer never does under uniform routing", "[analytic]") {
  CHECK(uniform_lru_hit_rate({2, 64, 16, 128}) == 1.0);
  CHECK(uniform_lru_hit_rate({2, 64, 16, 16}) < 0.01);
  CHECK(simulated_decode_hit_rate({2, 64, 16, 16}, "uniform", 200) == 0.0);
  CHECK(simulated_decode_hit_rate({2, 64, 16, 128}, "uniform", 200) > 0.97);  // only the cold start misses
}

TEST_CASE("Che's computation equals the closed form for uniform popularity", "[analytic]") {
  const CacheShape s{4, 64, 8, 100};
  auto p = routing_popularity("uniform", s, 1, 0);
  REQUIRE(p);
  CHECK(che_lru_hit_rate(s, *p) == Approx(uniform_lru_hit_rate(s)).margin(1e-9));
}

TEST_CASE("Che's computation for zipf routing matches the replay", "[analytic]") {
  for (const std::size_t slots : {std::size_t{40}, std::size_t{80}, std::size_t{160}}) {
    const CacheShape s{4, 64, 8, slots};
    auto p = routing_popularity("zipf:1.1", s, 12345, 20000);
    REQUIRE(p);
    const double che = che_lru_hit_rate(s, *p);
    const double sim = simulated_decode_hit_rate(s, "zipf:1.1", 4000);
    INFO("slots " << slots << ": Che " << che << ", simulated " << sim);
    CHECK(std::fabs(che - sim) <= 0.04);
  }
}

TEST_CASE("LFU beats LRU under zipf routing in the replay", "[analytic]") {
  const CacheShape s{4, 64, 8, 64};
  CHECK(simulated_decode_hit_rate(s, "zipf:1.2", 3000, CachePolicy::kLfu) >
        simulated_decode_hit_rate(s, "zipf:1.2", 3000, CachePolicy::kLru));
}

TEST_CASE("replay counts: a cyclic trace never hits, prefill reads each distinct expert of a chunk once", "[analytic]") {
  const std::string path = "hit_rate_test_cyclic.trace";
  {
    std::ofstream out(path);
    out << "moebench-trace v1 layers=2 experts=8 k=2\n";
    for (int t = 0; t < 4; ++t) out << 2 * t << "," << 2 * t + 1 << " | " << 2 * t << "," << 2 * t + 1 << "\n";
  }
  ReplayPlan plan;
  plan.routing = "trace:" + path;
  plan.prompt_tokens = 4;  // one chunk: all 8 experts of each layer, each once
  plan.gen_tokens = 9;
  plan.chunk = 4;
  auto c = simulate_cache({2, 8, 2, 6}, plan);
  REQUIRE(c);
  CHECK(c->prefill.needs() == 16);
  CHECK(c->prefill.reads == 16);
  CHECK(c->decode.hits == 0);
  CHECK(c->decode.misses == 8 * 4);
  std::remove(path.c_str());
}

TEST_CASE("pregate prefetch turns misses into hidden misses at the rate of the predictor", "[analytic]") {
  ReplayPlan plan;
  plan.routing = "uniform";
  plan.prefetch = "pregate:0.9";
  plan.gen_tokens = 2000;
  auto c = simulate_cache({4, 64, 8, 48}, plan);
  REQUIRE(c);
  const double hidden = static_cast<double>(c->decode.misses_hidden) / static_cast<double>(c->decode.misses);
  CHECK(hidden > 0.8);
  CHECK(hidden < 0.95);
  CHECK(c->decode.reads > c->decode.misses);  // wrong guesses cost reads
}

TEST_CASE("a cache below one layer's k is refused", "[analytic]") {
  ReplayPlan plan;
  auto c = simulate_cache({2, 64, 16, 15}, plan);
  REQUIRE_FALSE(c);
  CHECK(c.error().message.find("15 slots") != std::string::npos);
}
