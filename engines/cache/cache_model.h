// cache_model.h — the one cache model: what the streaming engine does with
// its expert cache, as code that both the engine's StreamingSource
// (engines/streaming/streaming_source.cpp, real reads) and the cost model's
// replay (model/hit_rate.cpp, reads that land at once) drive, so
// the replay cannot drift from what is measured.
//
// The policy, per MoE layer of a forward pass:
//   routed    the router has chosen: pin every chosen expert already here
//             (ready or landing) first, so claiming slots for the missing
//             ones can never evict one this layer needs; then claim a slot
//             and start the load of each missing one (pinned); what finds
//             no slot is loaded when it is needed, after earlier releases.
//             prefetch=next-layer then queues the experts the previous
//             batch used in the next MoE layer (the first, after the last)
//             and issues what fits;
//   upcoming  prefetch=pregate:P: a simulated predictor names each of the
//             layer's real experts with probability P, else a wrong one
//             (drawn uniformly), and queues the guess;
//   acquire   the need of one expert: its slot, else claim one (the loader
//             may make room by letting a prefetch land), else an error;
//   count_use the accounting of DESIGN.md at the moment of need: cached
//             before the need = hit; read for it = miss; prefetched = miss,
//             hidden when it landed before the need;
//   release   unpin; queued prefetches go out when a slot may have come
//             free and every need of the layer has a slot;
//   (every routed step is also recorded in `trace`, for the offline optimum)
//   pick      which of the remaining experts to compute next: the first
//             whose reads have landed, else the first with a slot, else
//             the first (the executor's order).
// Eviction itself is the ExpertCache's (lru or lfu, engines/cache/expert_cache.h).
//
// What differs between its two drivers is only the CacheLoader: when reads
// land (settle, ready_now) and whether a need can wait for a slot (make_room).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/cache/expert_cache.h"
#include "engines/cache/optimal_cache.h"
#include "vocab/expected.h"

namespace moebench {

// prefetch=off | next-layer | pregate:P.
struct PrefetchSpec {
  bool on = false;
  double pregate = -1;  // predictor accuracy P; < 0 = next-layer (or off)
};
PrefetchSpec parse_prefetch(const std::string& prefetch);

// How slots are filled: the streaming source reads from the drives, the
// replay lands every read at once.
class CacheLoader {
 public:
  virtual ~CacheLoader() = default;
  // Starts the reads of (layer, expert) into `slot` (claimed: kLoading). On
  // an error the model forgets the slot.
  virtual Status load(int slot, int layer, int expert) = 0;
  // The loads started so far may go to the drives.
  virtual void flush() {}
  // Before a layer's needs are looked up (prefetch on): mark the prefetches
  // that have landed ready, so they can be used or evicted. Never blocks.
  virtual void settle() {}
  // The slot's reads have all landed (never blocks).
  virtual bool ready_now(int) { return true; }
  // No slot can be claimed for a need: wait for one unpinned prefetch in
  // flight to land (it becomes evictable); false when there is none.
  virtual bool make_room() { return false; }
};

// The accounting of a prefetch: its read counts in `reads` (and
// `prefetches`) when it starts, whatever comes of it. A need that then
// finds it is a miss (the bytes were read for it), hidden when the read
// landed before the need, and counts in `prefetches_used`. A prefetched
// expert evicted before any need counts in `wasted_reads`; one still cached
// unused when a run ends is counted by the driver (unused_prefetches()), so
// prefetches = prefetches_used + wasted + still in flight to a need.
struct CacheCounts {
  std::uint64_t hits = 0, misses = 0, misses_hidden = 0;
  std::uint64_t prefetches = 0;      // loads started by a prefetch
  std::uint64_t prefetches_used = 0; // prefetched experts a need used
  std::uint64_t reads = 0;           // loads started (needs + prefetches)
  std::uint64_t wasted_reads = 0;    // prefetched, evicted before any need
};

class CacheModel {
 public:
  enum class Origin : std::uint8_t { kNone, kNeed, kPrefetch };

  CacheModel(ExpertCache& cache, CacheLoader& loader, const std::string& prefetch, int moe_layers,
             int experts_per_layer, std::uint64_t seed);

  Status routed(int layer, const std::vector<int>& experts);
  void upcoming(int layer, const std::vector<int>& experts);
  // The slot of a needed expert, loading it (pinned) when it has none.
  Expected<int> acquire(int layer, int expert);
  // The need of the expert in `slot` is served: counts it, then the slot
  // holds a plain cached expert.
  void count_use(int slot, int layer, int expert, bool landed_before_need);
  void release(int layer, int expert);
  int pick(int layer, const std::vector<int>& candidates);
  // Holds (layer, expert) for the whole run (a hot set, engines/cache/
  // hot_set.h): a slot claimed and loaded before the first token, pinned
  // for good, so its needs are hits and it is never evicted. Not counted in
  // `counts` (load time). The driver waits for the slot's reads to land.
  Expected<int> hold(int layer, int expert);

  // Building blocks for a driver's own recovery paths.
  int claim(int layer, int expert);  // ExpertCache::claim, counting wasted prefetches
  Status load(int slot, int layer, int expert, Origin why);  // a need's slot is pinned
  void forget(int slot);             // a read failed: the slot is empty
  Origin origin(int slot) const { return origin_[static_cast<std::size_t>(slot)]; }
  bool prefetch_on() const { return prefetch_.on; }
  // Slots holding a prefetched expert no need has used yet.
  std::uint64_t unused_prefetches() const;

  CacheCounts counts;
  // Every routed step, in order: what the offline optimum (optimal_cache.h)
  // replays with the same slots.
  NeedTrace trace;

 private:
  Status issue_prefetches();
  std::uint64_t next_random();

  ExpertCache& cache_;
  CacheLoader& loader_;
  PrefetchSpec prefetch_;
  int moe_layers_;
  int experts_per_layer_;
  std::uint64_t rng_;
  std::vector<Origin> origin_;          // per slot: why it was loaded (until first use)
  int unslotted_ = 0;                   // this layer's needs still without a slot
  std::vector<std::vector<int>> last_;  // per layer: the experts the previous batch used
  int prefetch_layer_ = -1;             // layer the queued prefetches are for
  std::vector<int> prefetch_queue_;     // its predicted experts not yet issued
};

}  // namespace moebench
