// hit_rate.h — expert-cache hit rates without running an engine.
//
// Three ways, from cheapest to most faithful:
//   uniform_lru_hit_rate  closed form: uniform routing, LRU, steady state;
//   che_lru_hit_rate      computed: any per-expert popularity (zipf), LRU,
//                         steady state (Che's characteristic-time method);
//   simulate_cache        replay: a routing generator (any spec, traces
//                         included) through the streaming engine's own cache
//                         policy (engines/cache/cache_model.h: the code the
//                         StreamingSource runs) in the executor's call order,
//                         every read landing at once — counting hits, misses,
//                         hidden misses and reads per window (prefill, decode).
//
// The closed form. The cache holds `slots` experts shared by L MoE layers;
// each layer of each token needs k of E experts, each with probability
// p = k/E, independently across tokens. An expert needed at token t and last
// used g tokens earlier survives under LRU when fewer than C' = slots − k
// other experts were used since (the k slots of the layer being served are
// pinned): in those g tokens the other L−1 layers used
// (L−1)·E·(1−(1−p)^g) distinct experts and its own layer E·(1−(1−p)^(g−1)).
// With G the largest (real) gap for which that count stays below C', an
// expert is a hit when g ≤ G, so  hit = 1 − (1−p)^G  (G found by bisection
// of a monotone function; with slots ≥ L·E every expert stays, hit = 1).
// Che's method is the same with per-expert probabilities p_le.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/cache/expert_cache.h"
#include "vocab/expected.h"

namespace moebench {

struct CacheShape {
  int moe_layers = 0;
  int experts = 0;  // per MoE layer
  int k = 0;        // active per token per layer
  std::size_t slots = 0;
};

double uniform_lru_hit_rate(const CacheShape& s);

// p[l][e]: probability that one token's layer l uses expert e (each layer's
// probabilities sum to k).
double che_lru_hit_rate(const CacheShape& s, const std::vector<std::vector<double>>& p);

// Per-token inclusion probabilities of a routing spec, estimated by drawing
// `tokens` tokens from the generator (exact for uniform: k/E).
Expected<std::vector<std::vector<double>>> routing_popularity(const std::string& routing, const CacheShape& s,
                                                              std::uint64_t seed, int tokens,
                                                              const std::string& base_dir = "");

struct ReplayPlan {
  std::string routing = "uniform";
  std::string prefetch = "off";  // off | next-layer | pregate:P
  CachePolicy policy = CachePolicy::kLru;
  std::uint64_t seed = 0;         // the engine's routing seed
  std::uint64_t source_seed = 0;  // the streaming source's (pregate's wrong guesses)
  std::int64_t prompt_tokens = 1;
  std::int64_t gen_tokens = 1;
  std::size_t chunk = 512;       // prefill chunk (tokens per forward pass)
  std::string base_dir;          // for trace paths
};

struct WindowCounts {
  std::uint64_t hits = 0, misses = 0, misses_hidden = 0;
  std::uint64_t reads = 0;        // expert records read (needs + prefetches)
  std::uint64_t wasted_reads = 0; // prefetched, evicted or never needed
  std::uint64_t needs() const { return hits + misses; }
};

struct ReplayCounts {
  WindowCounts prefill, decode;
};

// Replays one run of the point (prefill in chunks, then gen_tokens − 1
// decode tokens) through an ExpertCache of s.slots slots, starting cold as
// the engine does. Prefetched experts count as misses, hidden ones as
// misses_hidden (the engine's accounting; a prefetch is assumed to land
// before its need).
Expected<ReplayCounts> simulate_cache(const CacheShape& s, const ReplayPlan& plan);

}  // namespace moebench
