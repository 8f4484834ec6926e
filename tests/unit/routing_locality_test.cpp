// routing_locality_test.cpp — the locality:P,S routing model (temporal reuse
// over popularity skew), the fast replay and steady-state estimator of hit
// rates, the accounting of prefetch reads, and the fit of (P, S) to the
// published hit rates in tests/data/published/hit_rates.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model/hit_rate.h"
#include "model/routing_fit.h"
#include "engines/cache/cache_model.h"
#include "engines/routing/routing.h"

using namespace moebench;

namespace {

std::unique_ptr<RoutingGenerator> make(const std::string& spec, const RoutingShape& shape, std::uint64_t seed) {
  auto g = make_routing(spec, shape, seed);
  if (!g) FAIL(g.error().message);
  return std::move(g).value();
}

std::string routing_error(const std::string& spec, const RoutingShape& shape) {
  auto g = make_routing(spec, shape, 1);
  return g ? "" : g.error().message;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The share of a layer's experts that the previous token used in that layer.
double observed_reuse(RoutingGenerator& g, const RoutingShape& s, int tokens) {
  std::vector<int> prev, ids;
  g.next_token(prev);
  std::uint64_t reused = 0, total = 0;
  for (int t = 1; t < tokens; ++t) {
    g.next_token(ids);
    for (int l = 0; l < s.moe_layers; ++l) {
      const auto b = prev.begin() + l * s.k, e = prev.begin() + (l + 1) * s.k;
      for (int j = 0; j < s.k; ++j) reused += std::find(b, e, ids[static_cast<std::size_t>(l * s.k + j)]) != e ? 1 : 0;
      total += static_cast<std::uint64_t>(s.k);
    }
    prev = ids;
  }
  return static_cast<double>(reused) / static_cast<double>(total);
}

ReplayPlan plan_of(const std::string& routing, const std::string& prefetch, CachePolicy policy, std::int64_t prompt,
                   std::int64_t gen, std::size_t chunk) {
  ReplayPlan p;
  p.routing = routing;
  p.prefetch = prefetch;
  p.policy = policy;
  p.seed = 77;
  p.source_seed = 5;
  p.prompt_tokens = prompt;
  p.gen_tokens = gen;
  p.chunk = chunk;
  return p;
}

void check_equal(const WindowCounts& a, const WindowCounts& b) {
  CHECK(a.hits == b.hits);
  CHECK(a.misses == b.misses);
  CHECK(a.misses_hidden == b.misses_hidden);
  CHECK(a.reads == b.reads);
  CHECK(a.prefetches == b.prefetches);
  CHECK(a.prefetches_used == b.prefetches_used);
  CHECK(a.wasted_reads == b.wasted_reads);
}

double decode_hit_rate(const ReplayCounts& c) {
  return c.decode.needs() ? static_cast<double>(c.decode.hits) / static_cast<double>(c.decode.needs()) : 0;
}

}  // namespace

TEST_CASE("locality routing: spec, canonical name and errors", "[routing][locality]") {
  const RoutingShape s{2, 16, 2};
  CHECK(make("locality:0.30,0.80", s, 1)->describe() == "locality:0.3,0.8");
  CHECK(make("locality:1,0", s, 1)->describe() == "locality:1,0");
  CHECK(canonical_locality_routing(0.35, 1.0) == "locality:0.35,1");
  const std::string usage = "locality needs a reuse probability P in [0, 1] and a popularity exponent S >= 0";
  for (const char* bad : {"locality", "locality:", "locality:0.3", "locality:1.5,0.8", "locality:-0.1,1", "locality:0.3,-1",
                          "locality:0.3,x", "locality:0.3,0.8,1", "locality:nan,1", "locality:0.3,inf"}) {
    INFO(bad);
    CHECK(contains(routing_error(bad, s), "routing \"" + std::string(bad) + "\": " + usage));
  }
  CHECK(check_locality_routing("locality:0.3,0.8").empty());
  CHECK_FALSE(check_locality_routing("zipf:1").empty());
  CHECK(contains(routing_error("locality:0.3,0.8", {2, 16, 17}), "cannot pick k=17 distinct experts out of 16"));
  CHECK(default_real_routing().rfind("locality:", 0) == 0);
  CHECK(check_locality_routing(default_real_routing()).empty());
}

TEST_CASE("locality routing is deterministic per seed, distinct and in range", "[routing][locality]") {
  const RoutingShape s{6, 64, 8};
  for (const char* spec : {"locality:0.3,0.8", "locality:0.9,0", "locality:0,1.2", "locality:1,1"}) {
    INFO(spec);
    auto a = make(spec, s, 42), b = make(spec, s, 42), c = make(spec, s, 43);
    std::vector<int> ia, ib, ic;
    bool differs = false;
    for (int t = 0; t < 300; ++t) {
      a->next_token(ia);
      b->next_token(ib);
      c->next_token(ic);
      REQUIRE(ia == ib);
      differs = differs || ia != ic;
      REQUIRE(ia.size() == static_cast<std::size_t>(s.moe_layers * s.k));
      for (int l = 0; l < s.moe_layers; ++l) {
        std::set<int> layer(ia.begin() + l * s.k, ia.begin() + (l + 1) * s.k);
        REQUIRE(layer.size() == static_cast<std::size_t>(s.k));
        REQUIRE(*layer.begin() >= 0);
        REQUIRE(*layer.rbegin() < s.experts);
      }
    }
    CHECK(differs);
  }
  // k == E: every layer takes every expert, whatever P says.
  auto all = make("locality:0.5,1", {2, 8, 8}, 3);
  std::vector<int> ids;
  for (int t = 0; t < 20; ++t) {
    all->next_token(ids);
    CHECK(std::set<int>(ids.begin(), ids.begin() + 8).size() == 8);
  }
}

TEST_CASE("locality routing reuses the previous token's experts with probability P", "[routing][locality]") {
  // S = 0: a fresh draw hits the previous set by chance, about (1 − P)·k/E.
  const RoutingShape s{4, 1024, 8};
  for (const double p : {0.0, 0.25, 0.6, 0.95}) {
    auto g = make(canonical_locality_routing(p, 0), s, 9);
    const double observed = observed_reuse(*g, s, 3000);
    const double expected = p + (1 - p) * 8.0 / 1024;
    INFO("P " << p << ": observed " << observed << ", expected " << expected);
    CHECK(std::fabs(observed - expected) < 0.015);
  }
  // P = 1 repeats the previous token's set exactly.
  auto same = make("locality:1,0.5", s, 2);
  std::vector<int> a, b;
  same->next_token(a);
  same->next_token(b);
  for (int l = 0; l < s.moe_layers; ++l) {
    CHECK(std::set<int>(a.begin() + l * 8, a.begin() + (l + 1) * 8) == std::set<int>(b.begin() + l * 8, b.begin() + (l + 1) * 8));
  }
}

TEST_CASE("locality routing's fresh draws follow Zipf(S) over a per-layer permutation", "[routing][locality]") {
  // P = 0, S = 1.2, k = 1: the most used expert of each layer is drawn with
  // probability 1/H where H = sum of 1/r^1.2; layers rank experts differently.
  const RoutingShape s{3, 64, 1};
  auto g = make("locality:0,1.2", s, 5);
  std::vector<std::vector<int>> counts(3, std::vector<int>(64, 0));
  std::vector<int> ids;
  const int tokens = 40000;
  for (int t = 0; t < tokens; ++t) {
    g->next_token(ids);
    for (int l = 0; l < 3; ++l) ++counts[static_cast<std::size_t>(l)][static_cast<std::size_t>(ids[static_cast<std::size_t>(l)])];
  }
  double h = 0;
  for (int r = 1; r <= 64; ++r) h += 1 / std::pow(r, 1.2);
  std::set<int> tops;
  for (const auto& c : counts) {
    const auto top = std::max_element(c.begin(), c.end());
    CHECK(static_cast<double>(*top) / tokens == Approx(1 / h).margin(0.01));
    tops.insert(static_cast<int>(top - c.begin()));
  }
  CHECK(tops.size() > 1);
}

TEST_CASE("the fast replay equals the exact replay through the engine's cache", "[hitrate][cache]") {
  struct Case {
    CacheShape s;
    const char* routing;
    const char* prefetch;
    CachePolicy policy;
    std::int64_t prompt, gen;
    std::size_t chunk;
  };
  const Case cases[] = {
      {{4, 32, 4, 40}, "locality:0.4,0.8", "off", CachePolicy::kLru, 6, 200, 3},
      {{4, 32, 4, 40}, "locality:0.4,0.8", "off", CachePolicy::kLfu, 1, 200, 1},
      {{4, 32, 4, 24}, "uniform", "next-layer", CachePolicy::kLru, 4, 150, 2},
      {{4, 32, 4, 24}, "locality:0.7,0.5", "next-layer", CachePolicy::kLfu, 1, 150, 1},
      {{3, 64, 8, 40}, "locality:0.5,1", "pregate:0.8", CachePolicy::kLru, 5, 150, 5},
      {{3, 64, 8, 200}, "zipf:1.1", "pregate:0.3", CachePolicy::kLru, 1, 150, 1},
      {{2, 16, 2, 3}, "sticky:0.6", "next-layer", CachePolicy::kLru, 1, 100, 1},
      {{2, 16, 4, 64}, "locality:0.3,0.8", "off", CachePolicy::kLru, 3, 50, 3},  // every expert fits
  };
  for (const Case& c : cases) {
    INFO(c.routing << " " << c.prefetch << " policy " << (c.policy == CachePolicy::kLfu ? "lfu" : "lru") << " slots "
                   << c.s.slots);
    const ReplayPlan plan = plan_of(c.routing, c.prefetch, c.policy, c.prompt, c.gen, c.chunk);
    auto exact = simulate_cache(c.s, plan);
    auto fast = fast_replay(c.s, plan);
    REQUIRE(exact);
    REQUIRE(fast);
    check_equal(fast->prefill, exact->prefill);
    check_equal(fast->decode, exact->decode);
  }
  CHECK_FALSE(fast_replay({2, 64, 16, 15}, ReplayPlan{}));
  CHECK_FALSE(fast_replay({4, 64, 8, 28}, ReplayPlan{}, CachePartition::kPerLayer));  // 7 per layer < k
}

TEST_CASE("the steady-state estimator agrees with a long exact replay", "[hitrate]") {
  for (const std::size_t slots : {std::size_t{24}, std::size_t{48}, std::size_t{96}}) {
    const CacheShape s{4, 32, 4, slots};
    auto exact = simulate_cache(s, plan_of("locality:0.4,0.8", "off", CachePolicy::kLru, 1, 3000, 1));
    REQUIRE(exact);
    auto est = estimate_hits(s, "locality:0.4,0.8", "off", CachePolicy::kLru, 77);
    REQUIRE(est);
    INFO("slots " << slots << ": estimate " << est->hit_rate << ", replay " << decode_hit_rate(*exact));
    CHECK(std::fabs(est->hit_rate - decode_hit_rate(*exact)) < 0.02);
    CHECK(est->routing == "locality:0.4,0.8");
    CHECK(est->reads_per_need == Approx(1 - est->hit_rate).margin(1e-12));  // no prefetch: a read per miss
    CHECK(est->wasted_per_need == 0);
    CHECK(est->needs >= 200000);
    CHECK(contains(est->method, "locality:0.4,0.8"));
  }
  // Uniform stays the pessimistic bound: the estimator agrees with the
  // closed form.
  const CacheShape u{4, 64, 8, 128};
  auto est = estimate_hits(u, "uniform", "off", CachePolicy::kLru, 3);
  REQUIRE(est);
  CHECK(std::fabs(est->hit_rate - uniform_lru_hit_rate(u)) < 0.03);
}

TEST_CASE("estimated hit rates rise with the cache and locality beats uniform", "[hitrate]") {
  // Kimi K3's geometry at full size: 92 MoE layers, 896 experts, k = 16.
  double last = -1;
  for (const std::size_t slots : {std::size_t{1000}, std::size_t{2500}, std::size_t{6000}, std::size_t{20000}}) {
    EstimateBudget budget;
    budget.measured_needs = 30000;
    const CacheShape s{92, 896, 16, slots};
    auto loc = estimate_hits(s, "locality:0.3,0.8", "off", CachePolicy::kLru, 1, "", budget);
    auto uni = estimate_hits(s, "uniform", "off", CachePolicy::kLru, 1, "", budget);
    REQUIRE(loc);
    REQUIRE(uni);
    INFO("slots " << slots << ": locality " << loc->hit_rate << ", uniform " << uni->hit_rate);
    CHECK(loc->hit_rate >= last - 0.005);
    // Below one token's L·k = 1,472 needs, LRU keeps nothing a token later
    // (the knee kimi-k3-in-c measured): both are 0 there.
    if (slots > 1472) {
      CHECK(loc->hit_rate > uni->hit_rate + 0.1);
    } else {
      CHECK(loc->hit_rate < 0.01);
    }
    last = loc->hit_rate;
  }
  CHECK(last > 0.3);
}

TEST_CASE("prefetch reads: a right guess hides a miss, a wrong one is a wasted read", "[hitrate][cache]") {
  const CacheShape s{4, 64, 8, 48};
  // A predictor that is always wrong: nearly every prefetch is wasted (a
  // wrong guess is only used when a later token happens to need it).
  auto wrong = estimate_hits(s, "locality:0.3,0.8", "pregate:0", CachePolicy::kLru, 4);
  REQUIRE(wrong);
  INFO("wrong: hit " << wrong->hit_rate << " hidden " << wrong->hidden_share << " prefetch/need " << wrong->prefetch_per_need
                     << " wasted/need " << wrong->wasted_per_need << " reads/need " << wrong->reads_per_need);
  CHECK(wrong->hidden_share < 0.2);
  CHECK(wrong->prefetch_per_need > 0.5);  // a guess per need, read unless already cached
  CHECK(wrong->wasted_per_need > 0.8 * wrong->prefetch_per_need);
  CHECK(wrong->wasted_per_need <= wrong->prefetch_per_need);
  // Reads: a miss read on demand, or a prefetch (used by a miss, or wasted).
  const double on_demand = (1 - wrong->hit_rate) * (1 - wrong->hidden_share);
  CHECK(wrong->reads_per_need == Approx(on_demand + wrong->prefetch_per_need).margin(1e-9));
  // Always right: every miss is hidden and almost no read is wasted.
  auto right = estimate_hits(s, "locality:0.3,0.8", "pregate:1", CachePolicy::kLru, 4);
  REQUIRE(right);
  INFO("right: hit " << right->hit_rate << " hidden " << right->hidden_share << " wasted/need " << right->wasted_per_need);
  CHECK(right->hidden_share == Approx(1.0).margin(0.02));
  CHECK(right->wasted_per_need < 0.02);
  // Wrong guesses cost slots too: the plain hit rate drops below no prefetch.
  auto off = estimate_hits(s, "locality:0.3,0.8", "off", CachePolicy::kLru, 4);
  REQUIRE(off);
  CHECK(wrong->hit_rate < off->hit_rate);
  CHECK(wrong->reads_per_need > off->reads_per_need);

  // The exact replay counts prefetches used, and the ones never used — evicted
  // or still cached when the run ends — as wasted:
  // prefetches = used + wasted.
  for (const char* prefetch : {"pregate:0.5", "next-layer"}) {
    // 20 slots: fewer than a token's 32 needs, so next-layer has something to fetch.
    auto r = simulate_cache({4, 64, 8, 20}, plan_of("locality:0.5,0.8", prefetch, CachePolicy::kLru, 1, 300, 1));
    REQUIRE(r);
    INFO(prefetch);
    CHECK(r->decode.prefetches > 0);
    CHECK(r->decode.prefetches_used == r->decode.misses_hidden);  // every read lands at once in the replay
    CHECK(r->decode.prefetches + r->prefill.prefetches ==
          r->decode.prefetches_used + r->prefill.prefetches_used + r->decode.wasted_reads + r->prefill.wasted_reads);
  }
}

TEST_CASE("an expert prefetched and never needed is wasted even if never evicted", "[cache]") {
  // Two layers, a cache holding everything: a wrong guess is never evicted,
  // yet its read bought nothing in the run.
  const std::string path = "routing_locality_test.trace";
  {
    std::ofstream out(path);
    out << "moebench-trace v1 layers=2 experts=8 k=1\n";
    for (int t = 0; t < 4; ++t) out << "1 | 2\n";
  }
  ReplayPlan plan = plan_of("trace:" + path, "pregate:0", CachePolicy::kLru, 1, 4, 1);
  auto r = simulate_cache({2, 8, 1, 16}, plan);
  auto f = fast_replay({2, 8, 1, 16}, plan);
  REQUIRE(r);
  REQUIRE(f);
  CHECK(r->decode.hits == 6);
  CHECK(r->decode.prefetches_used == 0);
  CHECK(r->decode.wasted_reads + r->prefill.wasted_reads == r->decode.prefetches + r->prefill.prefetches);
  CHECK(r->decode.wasted_reads > 0);
  check_equal(f->decode, r->decode);
  std::remove(path.c_str());
}

TEST_CASE("published hit rates: the file loads, every figure is cited, the halves are stable", "[hitrate][fit]") {
  auto points = load_published_hit_rates(MOEBENCH_TEST_DATA "/published/hit_rates.json");
  REQUIRE(points);
  CHECK(points->size() >= 12);
  std::set<std::string> sources, ids;
  std::size_t fit = 0;
  for (const PublishedHitRate& p : *points) {
    INFO(p.id);
    CHECK_FALSE(p.source.empty());
    CHECK_FALSE(p.quote.empty());
    CHECK(p.hit_rate >= 0);
    CHECK(p.hit_rate <= 1);
    sources.insert(p.source.substr(0, p.source.find(':', 8)));
    ids.insert(p.id);
    fit += in_fit_half(p.id) ? 1 : 0;
  }
  CHECK(ids.size() == points->size());
  CHECK(sources.size() >= 3);
  CHECK(fit > 0);
  CHECK(fit < points->size());
  CHECK(in_fit_half("k3c-ladder-96gb") == in_fit_half(std::string("k3c-ladder-") + "96gb"));
}

TEST_CASE("the fit on the published hit rates reproduces the default routing", "[hitrate][fit]") {
  auto points = load_published_hit_rates(MOEBENCH_TEST_DATA "/published/hit_rates.json");
  REQUIRE(points);
  auto fit = fit_locality_routing(*points);
  REQUIRE(fit);
  std::ostringstream table;
  for (const FitResidual& r : fit->residuals) {
    table << (r.fit_half ? "\n  fit     " : "\n  holdout ") << r.id << ": measured " << r.measured << ", predicted "
          << r.predicted;
  }
  INFO("fitted " << fit->routing << " (default " << default_real_routing() << "); rmse fit " << fit->fit_rmse << " holdout "
                 << fit->holdout_rmse << "; uniform " << fit->uniform_fit_rmse << " / " << fit->uniform_holdout_rmse
                 << "; " << fit->fit_points << " fit, " << fit->holdout_points << " holdout, " << fit->grid_evaluations
                 << " grid points");
  double p = 0, s = 0;
  REQUIRE(check_locality_routing(default_real_routing(), &p, &s).empty());
  const FitOptions o;
  CHECK(std::fabs(fit->reuse - p) <= o.reuse_step + 1e-9);
  CHECK(std::fabs(fit->exponent - s) <= o.exponent_step + 1e-9);
  // Locality explains the measurements; uniform routing does not.
  CHECK(fit->fit_rmse < fit->uniform_fit_rmse);
  CHECK(fit->holdout_rmse < fit->uniform_holdout_rmse);
  CHECK(fit->fit_points + fit->holdout_points + fit->skipped == points->size());
  CHECK(fit->holdout_points > 0);
  WARN("fitted " << fit->routing << " rmse fit " << fit->fit_rmse << " holdout " << fit->holdout_rmse << " (uniform "
                 << fit->uniform_fit_rmse << " / " << fit->uniform_holdout_rmse << ")" << table.str());
}
