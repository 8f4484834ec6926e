// hit_rate.cpp — see hit_rate.h.
#include "engines/analytic/hit_rate.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engines/cache/cache_model.h"
#include "engines/routing/routing.h"

namespace moebench {

namespace {

// P(N <= c − 1) for a count N with mean mu and variance var (normal, with
// continuity correction).
double below(double mu, double var, double c) {
  if (var <= 1e-12) return mu <= c - 1 + 1e-9 ? 1.0 : 0.0;
  return 0.5 * std::erfc(-((c - 0.5 - mu) / std::sqrt(var)) / std::sqrt(2.0));
}

// Per-token probabilities with how many experts (all layers) have each.
using Histogram = std::vector<std::pair<double, double>>;
Histogram histogram(const std::vector<std::vector<double>>& p) {
  std::map<double, double> h;
  for (const auto& layer : p) {
    for (double pe : layer) {
      if (pe > 0) h[std::min(pe, 1.0)] += 1;
    }
  }
  return {h.begin(), h.end()};
}

// The share of needs that hit, given per-gap survival probabilities
// survive[g−1]: Σ_e p_e Σ_g p_e (1−p_e)^(g−1) survive_g ÷ Σ_e p_e.
double weighted_hits(const Histogram& h, const std::vector<double>& survive) {
  double hit = 0, need = 0;
  for (const auto& [pc, n] : h) {
    double stay = 1, x = 0;  // (1 − p)^(g−1)
    for (double sv : survive) {
      x += pc * stay * sv;
      stay *= 1 - pc;
      if (stay < 1e-12) break;
    }
    hit += n * pc * x;
    need += n * pc;
  }
  return need > 0 ? hit / need : 0.0;
}

// Survival by gap g = 1, 2, ...: the expert is still cached when fewer than
// `slots` distinct other experts were used since its last use. Those are:
// the other layers' experts over g tokens; its own layer's over g − 1
// tokens; and the experts its layer used after it in the token it was last
// used (about half of the other k − 1, less those reused since). The count
// is a sum of nearly independent indicators: normal, mean and variance from
// the per-expert probabilities.
std::vector<double> survival(const CacheShape& s, const Histogram& h) {
  std::vector<double> out;
  const double L = std::max(1, s.moe_layers);
  const double c = static_cast<double>(s.slots);
  const double w_other = (L - 1) / L, w_own = 1 / L;
  for (int g = 1; g < 1000000; ++g) {
    double mu = 0, var = 0, stay_own = 0;
    for (const auto& [pc, n] : h) {
      const double other = 1 - std::pow(1 - pc, g), own = 1 - std::pow(1 - pc, g - 1);
      mu += n * (w_other * other + w_own * own);
      var += n * (w_other * other * (1 - other) + w_own * own * (1 - own));
      stay_own += n * pc * std::pow(1 - pc, g - 1);
    }
    mu += 0.5 * (static_cast<double>(s.k) - 1) * stay_own / L / std::max(1, s.k);
    const double surv = below(mu, var, c);
    out.push_back(surv);
    if (surv < 1e-9) break;
  }
  return out;
}

}  // namespace

double uniform_lru_hit_rate(const CacheShape& s) {
  if (s.slots >= static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts)) return 1.0;
  const std::vector<std::vector<double>> p(static_cast<std::size_t>(s.moe_layers),
                                           std::vector<double>(static_cast<std::size_t>(s.experts),
                                                               static_cast<double>(s.k) / s.experts));
  const Histogram h = histogram(p);
  return weighted_hits(h, survival(s, h));
}

double che_lru_hit_rate(const CacheShape& s, const std::vector<std::vector<double>>& p) {
  if (s.slots >= static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts)) return 1.0;
  const Histogram h = histogram(p);
  return weighted_hits(h, survival(s, h));
}

Expected<std::vector<std::vector<double>>> routing_popularity(const std::string& routing, const CacheShape& s,
                                                              std::uint64_t seed, int tokens,
                                                              const std::string& base_dir) {
  std::vector<std::vector<double>> p(static_cast<std::size_t>(s.moe_layers),
                                     std::vector<double>(static_cast<std::size_t>(s.experts), 0.0));
  if (routing == "uniform") {
    for (auto& layer : p) std::fill(layer.begin(), layer.end(), static_cast<double>(s.k) / s.experts);
    return p;
  }
  auto gen = make_routing(routing, RoutingShape{s.moe_layers, s.experts, s.k}, seed, base_dir);
  if (!gen) return gen.error();
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {
    (*gen)->next_token(ids);
    for (int l = 0; l < s.moe_layers; ++l) {
      for (int j = 0; j < s.k; ++j) p[static_cast<std::size_t>(l)][static_cast<std::size_t>(ids[static_cast<std::size_t>(l * s.k + j)])] += 1;
    }
  }
  for (auto& layer : p) {
    for (double& v : layer) v /= std::max(1, tokens);
  }
  return p;
}

namespace {

// The streaming source's loader with every read landing at once: the slot
// is ready the moment it is claimed, so a need never waits for a slot.
class InstantLoader final : public CacheLoader {
 public:
  explicit InstantLoader(ExpertCache& cache) : cache_(cache) {}
  Status load(int slot, int, int) override {
    cache_.set_ready(slot);
    return Status::success();
  }

 private:
  ExpertCache& cache_;
};

WindowCounts window(const CacheCounts& c) {
  WindowCounts w;
  w.hits = c.hits;
  w.misses = c.misses;
  w.misses_hidden = c.misses_hidden;
  w.reads = c.reads;
  w.wasted_reads = c.wasted_reads;
  return w;
}

}  // namespace

Expected<ReplayCounts> simulate_cache(const CacheShape& s, const ReplayPlan& plan) {
  if (s.slots < static_cast<std::size_t>(s.k)) {
    return make_error("cache simulation: " + std::to_string(s.slots) + " slots cannot hold one layer's " +
                      std::to_string(s.k) + " experts");
  }
  const std::size_t all = static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts);
  auto cache = ExpertCache::create(std::min(s.slots, all), 4096, plan.policy);
  if (!cache) return cache.error();
  auto gen = make_routing(plan.routing, RoutingShape{s.moe_layers, s.experts, s.k}, plan.seed, plan.base_dir);
  if (!gen) return gen.error();
  InstantLoader loader(*cache);
  CacheModel model(*cache, loader, plan.prefetch, s.moe_layers, s.experts, plan.source_seed);
  std::vector<std::vector<int>> routes;
  auto distinct_of = [&](int l) {
    std::vector<int> ids;
    for (const auto& r : routes) ids.insert(ids.end(), r.begin() + static_cast<std::ptrdiff_t>(l * s.k),
                                            r.begin() + static_cast<std::ptrdiff_t>((l + 1) * s.k));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  };
  // The executor's calls, in its order (engines/executor/executor.cpp).
  auto forward = [&](std::size_t batch) -> Status {
    routes.assign(batch, {});
    for (auto& r : routes) (*gen)->next_token(r);
    for (int l = 0; l < s.moe_layers; ++l) {
      if (l == 0) model.upcoming(0, distinct_of(0));
      std::vector<int> remaining = distinct_of(l);
      if (Status st = model.routed(l, remaining); !st) return st;
      if (l + 1 < s.moe_layers) model.upcoming(l + 1, distinct_of(l + 1));
      while (!remaining.empty()) {
        const int ready = model.pick(l, remaining);
        const std::size_t at = ready >= 0 ? static_cast<std::size_t>(ready) : 0;
        const int e = remaining[at];
        remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(at));
        auto slot = model.acquire(l, e);
        if (!slot) return slot.error();
        model.count_use(*slot, l, e, true);  // every read landed before its need
        model.release(l, e);
      }
    }
    return Status::success();
  };
  ReplayCounts out;
  const std::int64_t prompt = std::max<std::int64_t>(1, plan.prompt_tokens);
  for (std::int64_t done = 0; done < prompt;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(std::max<std::size_t>(1, plan.chunk)), prompt - done));
    if (Status st = forward(n); !st) return st.error();
    done += static_cast<std::int64_t>(n);
  }
  out.prefill = window(model.counts);
  model.counts = {};
  for (std::int64_t t = 1; t < std::max<std::int64_t>(1, plan.gen_tokens); ++t) {
    if (Status st = forward(1); !st) return st.error();
  }
  out.decode = window(model.counts);
  return out;
}

}  // namespace moebench
