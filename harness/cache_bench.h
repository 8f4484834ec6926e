// cache_bench.h — bench-engines' benchmark 7: the expert cache's hit rate
// against the best any replacement policy could reach, per routing model.
//
// For each routing model (uniform; zipf:1.1, popularity skew; sticky:0.5,
// token-to-token reuse; and a trace recorded from the default real-model
// routing, locality P,S, replayed as a file) the main card's geometry is
// replayed through the streaming engine's own cache model (model/hit_rate.h:
// simulate_cache, which drives engines/cache/cache_model.h) with the cache
// at 25 % and 50 % of all experts, under each eviction policy; beside it,
// Belady's MIN on the very same needs and slots (engines/cache/
// optimal_cache.h), and the hits a hot set learned from the first half of
// the decode needs gets on the second half (learned residency's ceiling).
// The line's ratio is the best policy's decode hit rate ÷ the optimum's
// (≤ 1; 1 − it is what a better policy could still win); its target is 0.95
// × the learned set's ÷ the optimum's: under independent routing no online
// policy does better than holding the most popular experts.
// Deterministic (seeded replays): measured once.
#pragma once

#include <string>
#include <vector>

#include "harness/engine_bench.h"
#include "vocab/expected.h"
#include "vocab/model_card.h"

namespace moebench {

struct CacheOptimumRow {
  std::string routing;
  double slots_share = 0;  // of all routed experts (L·E)
  std::size_t slots = 0;
  std::vector<std::pair<std::string, double>> policies;  // policy name → decode hit rate
  double optimal = 0;    // Belady's MIN on the same needs and slots
  double learned_set = 0;  // a hot set learned from the first half of decode, on the second (optimal_cache.h)
};

struct CacheOptimumBench {
  std::vector<CacheOptimumRow> rows;
  std::vector<BenchLine> lines;  // one per routing model
};

// `trace_dir` receives the recorded trace; `gen_tokens` decode tokens per replay.
Expected<CacheOptimumBench> measure_cache_optimum(const ModelCard& card, const std::string& trace_dir,
                                                  int gen_tokens = 512);

}  // namespace moebench
