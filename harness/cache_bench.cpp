// cache_bench.cpp — see cache_bench.h.
#include "harness/cache_bench.h"

#include <algorithm>
#include <filesystem>

#include "engines/cache/expert_cache.h"
#include "engines/routing/routing.h"
#include "model/hit_rate.h"
#include "model/routing_fit.h"
#include "vocab/stats.h"
#include "vocab/text.h"

namespace moebench {

Expected<CacheOptimumBench> measure_cache_optimum(const ModelCard& card, const std::string& trace_dir, int gen_tokens) {
  const int L = card.moe_layers(), E = card.moe.experts, k = card.moe.active;
  if (L < 1 || E < 1 || k < 1) return make_error("benchmark 7: the card has no routed experts");
  const RoutingShape shape{L, E, k};
  // The trace: the default real-model routing, recorded and replayed as a file.
  const std::string real = default_real_routing();
  const std::string trace = (std::filesystem::path(trace_dir) / "real-routing.trace").string();
  {
    auto gen = make_routing(real, shape, 7);
    if (!gen) return gen.error();
    // The run's 1 + gen tokens, then as many again for a hot set's calibration.
    if (Status st = write_routing_trace(trace, **gen, shape, 2 * gen_tokens + 1); !st) return st.error();
  }
  const std::vector<std::pair<std::string, std::string>> routings = {
      {"uniform", "uniform"}, {"zipf:1.1", "zipf:1.1"}, {"sticky:0.5", "sticky:0.5"},
      {"trace (recorded " + real + ")", "trace:" + trace}};
  // Each policy alone, and with half the slots held by a hot set learned
  // from as many calibration tokens as the run has (the hot_set axis).
  const std::string hot = "learned:" + std::to_string(gen_tokens) + ",0.5";
  struct Policy {
    std::string name;
    CachePolicy policy;
    std::string hot_set;
  };
  const std::vector<Policy> policies = {{"lru", CachePolicy::kLru, "off"},
                                        {"lfu", CachePolicy::kLfu, "off"},
                                        {"lru+hot", CachePolicy::kLru, hot},
                                        {"lfu+hot", CachePolicy::kLfu, hot}};
  CacheOptimumBench out;
  const std::size_t all = static_cast<std::size_t>(L) * static_cast<std::size_t>(E);
  for (const auto& [label, spec] : routings) {
    BenchLine line{"7 hit rate / offline optimum (Belady), " + label + ", cache 25 % and 50 % of experts", "", "",
                   "", {}, false, 0};
    std::vector<double> learned_share;
    for (double share : {0.25, 0.5}) {
      CacheOptimumRow row;
      row.routing = label;
      row.slots_share = share;
      row.slots = std::max<std::size_t>(static_cast<std::size_t>(k), static_cast<std::size_t>(share * static_cast<double>(all)));
      double best = 0;
      for (const Policy& pol : policies) {
        ReplayPlan plan;
        plan.routing = spec;
        plan.policy = pol.policy;
        plan.hot_set = pol.hot_set;
        plan.seed = 42;
        plan.prompt_tokens = 1;
        plan.gen_tokens = gen_tokens;
        auto r = simulate_cache({L, E, k, row.slots}, plan);
        if (!r) return make_error("benchmark 7, " + label + ": " + r.error().message);
        const double needs = static_cast<double>(r->decode.needs());
        const double hit = static_cast<double>(r->decode.hits) / needs;
        row.policies.emplace_back(pol.name, hit);
        best = std::max(best, hit);
        row.optimal = static_cast<double>(r->decode.optimal_hits) / needs;  // the same needs whatever the policy
        row.learned_set = static_cast<double>(r->decode.learned_set_hits) / static_cast<double>(std::max<std::uint64_t>(1, r->decode.learned_set_needs));
      }
      line.ratios.push_back(row.optimal > 0 ? best / row.optimal : 1.0);
      learned_share.push_back(row.optimal > 0 ? row.learned_set / row.optimal : 1.0);
      std::string m = line.measured.empty() ? "" : "; ";
      for (const auto& [name, hit] : row.policies) m += name + " " + format_fixed(hit, 3) + " ";
      line.measured += m + "(" + format_fixed(100 * share, 0) + " %)";
      line.reference += std::string(line.reference.empty() ? "" : "; ") + "optimal " + format_fixed(row.optimal, 3) +
                        ", learned hot set " + format_fixed(row.learned_set, 3);
      out.rows.push_back(std::move(row));
    }
    // The target: within 5 % of what pinning a hot set learned from earlier
    // needs reaches (against the optimum): the ceiling of online policies
    // under independent routing; under reuse (sticky, traces) recency should
    // beat it.
    line.limit = 0.95 * median(learned_share);
    line.target = ">= " + format_fixed(line.limit, 3) + " (0.95 × learned hot set ÷ optimum)";
    out.lines.push_back(std::move(line));
  }
  return out;
}

}  // namespace moebench
