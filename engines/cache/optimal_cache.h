// optimal_cache.h — the best hit rate any replacement policy could reach:
// Belady's MIN over the needs a run actually made, with the same slots.
//
// A NeedTrace records the needs in the order the cache saw them: one step
// per MoE layer of a forward pass (CacheModel::routed), each step the
// distinct experts that layer needed. MIN then replays them as one flat
// sequence: a need whose expert is cached is a hit; a miss loads it, and
// when every slot is taken, first evicts the cached expert whose next need
// lies farthest ahead (never needed again counts as farthest).
//
// Why it bounds every policy of the streaming engine (engines/cache/
// cache_model.h): the engine's accounting counts a prefetched expert's
// first use as a miss, so prefetching never turns a miss into a hit, and
// any schedule of loads can be made lazy (each load moved to its need)
// without losing a hit — the classic argument that MIN is optimal among
// all demand and prefetching policies for this count. The engine also pins
// a layer's experts while they compute; MIN ignores the pins, which can only
// raise its count. So achieved ÷ optimal ≤ 1, and 1 − that ratio is what a
// better policy could still win on this routing.
//
// Cost: O(N log slots) time and O(N) memory for N needs (one reverse scan
// for the next-use index, one ordered set of the cached experts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace moebench {

class NeedTrace {
 public:
  void add(int layer, const std::vector<int>& experts);
  std::size_t steps() const { return step_end_.size(); }
  std::size_t needs() const { return keys_.size(); }
  // Flat index of step `step`'s first need (steps() gives needs()).
  std::size_t need_index(std::size_t step) const { return step == 0 ? 0 : step_end_[step - 1]; }
  const std::vector<std::uint64_t>& keys() const { return keys_; }

 private:
  std::vector<std::uint64_t> keys_;      // (layer << 32) | expert, in need order
  std::vector<std::size_t> step_end_;    // per step: one past its last need
};

struct OptimalCounts {
  std::uint64_t hits = 0, needs = 0;  // within the window asked for
  double hit_rate() const { return needs > 0 ? static_cast<double>(hits) / static_cast<double>(needs) : 0.0; }
};

// MIN over the whole trace with `slots` slots, starting empty as the engine
// does; hits and needs counted for steps [from_step, to_step). Earlier steps
// warm the cache under MIN's own choices; later ones inform its choices.
OptimalCounts optimal_hits(const NeedTrace& trace, std::size_t slots, std::size_t from_step, std::size_t to_step);

// A learned hot set: the `slots` experts needed most often in the learning
// steps [learn_from, learn_to), held (pinned before the window) through the
// steps [from_step, to_step) that are counted. Under independent routing
// (uniform, zipf) no online policy beats holding the truly most popular
// experts; a set learned from earlier needs estimates them without looking
// at the needs it is judged on (a set chosen from the judged needs
// themselves would overfit: above 1/4 hits with a quarter of the experts
// cached under uniform routing). What pinning a learned hot set at load
// reaches at best.
OptimalCounts learned_set_hits(const NeedTrace& trace, std::size_t slots, std::size_t learn_from, std::size_t learn_to,
                               std::size_t from_step, std::size_t to_step);

}  // namespace moebench
