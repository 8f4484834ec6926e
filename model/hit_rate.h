// hit_rate.h — expert-cache hit rates without running an engine.
//
// Four ways, from cheapest to most faithful:
//   uniform_lru_hit_rate  closed form: uniform routing, LRU, steady state;
//   che_lru_hit_rate      computed: any per-expert popularity (zipf), LRU,
//                         steady state (Che's characteristic-time method);
//   simulate_cache        replay: a routing generator (any spec, traces
//                         included) through the streaming engine's own cache
//                         policy (engines/cache/cache_model.h: the code the
//                         StreamingSource runs) in the executor's call order,
//                         every read landing at once — counting hits, misses,
//                         hidden misses and reads per window (prefill, decode);
//   fast_replay /         the same replay with an ordered index in place of the
//   estimate_hits         cache's slot scan (same counts, O(log slots) per
//                         need), so full-size models (Kimi K3: 92 × 896, k=16,
//                         10^5 slots) replay in a bounded number of needs;
//                         estimate_hits is its steady state, the one call the
//                         cost model makes for any routing.
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

// Distinct experts one MoE layer computes in a forward pass of `tokens`
// tokens under uniform routing: E·(1 − (1 − k/E)^tokens) (a prefill chunk,
// a batch of streams; k for one token).
double distinct_experts_uniform(double experts, double active, double tokens);

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
  std::string hot_set = "off";   // experts held from load (engines/cache/hot_set.h), learned with `seed`
};

struct WindowCounts {
  std::uint64_t hits = 0, misses = 0, misses_hidden = 0;
  std::uint64_t reads = 0;           // expert records read (needs + prefetches): all of them cost I/O
  std::uint64_t prefetches = 0;      // of those, reads a prefetch started
  std::uint64_t prefetches_used = 0; // prefetched experts a need then used (hidden or not)
  // Prefetch reads no need used: evicted unused during the window, plus (for
  // the run's last window) those still cached unused when the run ends.
  std::uint64_t wasted_reads = 0;
  // Hits of Belady's MIN on the same needs and slots (engines/cache/
  // optimal_cache.h); decode, simulate_cache only (fast_replay leaves it 0).
  std::uint64_t optimal_hits = 0;
  // A hot set of slots − k experts (k slots stay free for a layer's misses)
  // learned from the first half of the window's needs, counted on the second
  // half (optimal_cache.h: learned_set_hits); decode, simulate_cache only.
  std::uint64_t learned_set_hits = 0, learned_set_needs = 0;
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

// How the fast replay partitions the slots: one cache shared by every layer
// (the streaming engine's), or s.slots / L slots per layer (engines that keep
// an LRU per layer; used to fit published figures of such engines).
enum class CachePartition { kShared, kPerLayer };

// simulate_cache's counts, computed without the ExpertCache: the same
// CacheModel steps (pin, claim, load, prefetch next-layer / pregate:P with
// the same predictor stream, count_use, release) over an ordered index of
// the evictable experts, so each lookup, claim and touch is O(log slots)
// instead of an O(slots) victim scan. Equal to simulate_cache (tests).
Expected<ReplayCounts> fast_replay(const CacheShape& s, const ReplayPlan& plan,
                                   CachePartition partition = CachePartition::kShared);

// Steady-state decode hit rates of a routing through the engine's cache
// policy, for the cost model. Per need (a need = one expert of one layer of
// one decode token, L·k per token):
struct HitEstimate {
  std::string routing;            // canonical name of the routing model (rows name it)
  std::string method;             // how it was computed, for the derivation
  double hit_rate = 0;            // cached before the need / needs
  double hidden_share = 0;        // misses whose read a prefetch started and landed before the need / misses
  double reads_per_need = 0;      // expert records read / needs: (1 − hit) + wasted_per_need, up to window ends
  double prefetch_per_need = 0;   // reads a prefetch started / needs
  double wasted_per_need = 0;     // prefetch reads no need used / needs: each costs a read (I/O) and held a slot
  std::int64_t warmup_tokens = 0; // decode tokens run before counting
  std::int64_t measured_tokens = 0;
  std::uint64_t needs = 0;        // needs counted
};

// The estimator's bound on work: warm-up runs until 2 × slots + 32·L·k needs
// have passed (long enough for the cache to fill and turn over twice), then
// `measured_needs` needs (at least 32 tokens) are counted. The cost is
// O((2·slots + 32·L·k + measured_needs) · log slots) plus the generator's
// O(needs): for Kimi K3 (1,472 needs per token) at 10^5 slots, about
// 5.4·10^5 needs.
struct EstimateBudget {
  std::uint64_t measured_needs = 200000;
};

// Prefetch as the sweep's axis: off | next-layer | pregate:P. The routing
// seed drives the routing, `seed` + 1 the simulated predictor's guesses.
// A prefetch that guesses right turns a miss into a hidden miss (its read
// still counts, in reads_per_need); one that guesses wrong costs a read and
// the slot it took (the eviction shows in hit_rate).
Expected<HitEstimate> estimate_hits(const CacheShape& s, const std::string& routing, const std::string& prefetch,
                                    CachePolicy policy, std::uint64_t seed, const std::string& base_dir = "",
                                    const EstimateBudget& budget = {},
                                    CachePartition partition = CachePartition::kShared);

}  // namespace moebench
