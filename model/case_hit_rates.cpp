// case_hit_rates.cpp — see case_hit_rates.h.
#include "model/case_hit_rates.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "model/engine_families.h"

namespace moebench {

namespace {

// Hit rates of the locality routing for full-size shapes cost a replay of
// ~10^5 needs (hit_rate.h); the slot count is rounded to two significant
// digits (the curve is smooth) and each answer is kept under its key.
template <class Compute>
double memoized_hits(const CacheShape& shape, const std::string& extra, Compute compute) {
  static std::mutex mu;
  static std::map<std::string, double> memo;
  CacheShape s = shape;
  if (s.slots >= 100) {
    const double mag = std::pow(10.0, std::floor(std::log10(static_cast<double>(s.slots))) - 1);
    s.slots = static_cast<std::size_t>(std::llround(static_cast<double>(s.slots) / mag) * mag);
  }
  const std::string key = std::to_string(s.moe_layers) + "/" + std::to_string(s.experts) + "/" + std::to_string(s.k) + "/" +
                          std::to_string(s.slots) + "/" + extra;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  const double v = compute(s);
  std::lock_guard<std::mutex> lock(mu);
  memo[key] = v;
  return v;
}

}  // namespace

double memo_hit_rate(const CacheShape& shape, const std::string& routing) {
  return memoized_hits(shape, "steady/" + routing, [&](const CacheShape& s) {
    EstimateBudget budget;
    budget.measured_needs = 50000;
    auto h = estimate_hits(s, routing, "off", CachePolicy::kLru, 1, "", budget);
    return h ? h->hit_rate : uniform_lru_hit_rate(shape);
  });
}

double cold_run_hit_rate(const CacheShape& shape, const std::string& routing, const std::string& family, std::int64_t prompt,
                         std::int64_t gen, double steady) {
  const auto pass = family_prefill_chunk(family);
  const std::int64_t chunk = std::clamp<std::int64_t>(pass ? pass->tokens : 512, 1, std::max<std::int64_t>(1, prompt));
  const std::string extra = "cold/" + routing + "/" + std::to_string(prompt) + "/" + std::to_string(chunk) + "/" + std::to_string(gen);
  return memoized_hits(shape, extra, [&](const CacheShape& s) {
    ReplayPlan plan;
    plan.routing = routing;
    plan.seed = 1;
    plan.prompt_tokens = prompt;
    plan.gen_tokens = gen;
    plan.chunk = static_cast<std::size_t>(chunk);
    auto counts = fast_replay(s, plan);
    return counts && counts->decode.needs() > 0
               ? static_cast<double>(counts->decode.hits) / static_cast<double>(counts->decode.needs())
               : steady;
  });
}

}  // namespace moebench
