// streaming_source.h — the streaming engine's ExpertSource: expert cache +
// ExpertIo + where each expert lives on the drive set, with the hit/miss
// accounting of DESIGN.md (counted at the moment of need; a prefetched
// expert that is ready when needed is a miss hidden by prefetch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/cache/expert_cache.h"
#include "engines/executor/executor.h"
#include "engines/io/expert_io.h"

namespace moebench {

// How one expert's bytes are read into a slot: up to three reads, each
// 4096-aligned, and where gate/up/down start within the slot.
struct ExpertReadPlan {
  int drive = kAnyDrive;
  int reads = 0;
  std::uint64_t offset[3] = {0, 0, 0};
  std::uint64_t bytes[3] = {0, 0, 0};
  std::uint64_t slot_pos[3] = {0, 0, 0};   // where read i lands in the slot
  std::uint64_t view_pos[3] = {0, 0, 0};   // where gate/up/down start in the slot
  std::uint64_t span = 0;                  // bytes of the slot used
};

// tables[d] is drive d's expert table; stripe: expert e lives on e mod D.
ExpertReadPlan plan_expert_read(const std::vector<const ExpertTable*>& tables, bool stripe, int layer, int expert);

class StreamingSource final : public ExpertSource {
 public:
  // prefetch: "off", "next-layer" (the previous token's experts of the next
  // layer) or "pregate:P" (a simulated pre-gating predictor: each of the next
  // layer's real experts named with probability P, else a wrong one).
  StreamingSource(std::vector<const ExpertTable*> tables, bool stripe, ExpertCache& cache, ExpertIo& io,
                  const std::string& prefetch, int moe_layers, std::uint64_t seed);
  Status layer_routed(int moe_layer, const std::vector<int>& experts) override;
  void layer_upcoming(int moe_layer, const std::vector<int>& experts) override;
  Expected<ExpertWeights> acquire(int moe_layer, int expert) override;
  void release(int moe_layer, int expert) override;
  int pick_ready(int moe_layer, const std::vector<int>& candidates) override;

  std::uint64_t hits = 0, misses = 0, misses_hidden = 0, prefetches = 0;
  double io_wait_s = 0;

 private:
  enum class Origin : std::uint8_t { kNone, kNeed, kPrefetch };
  Status submit(int slot, int layer, int expert);
  Status await(int slot);
  // Every read of the slot's pending load has completed (reaps, never blocks).
  bool landed(std::size_t slot);
  // Marks prefetched slots whose reads have all landed as ready (so they
  // can be used or evicted); never blocks.
  void reap();
  // Issues queued prefetches into slots that are free or evictable now.
  Status issue_prefetches();

  std::vector<const ExpertTable*> tables_;
  bool stripe_;
  ExpertCache& cache_;
  ExpertIo& io_;
  bool prefetch_;
  double pregate_ = -1;     // predictor accuracy, < 0 = next-layer mode
  std::uint64_t rng_;
  int moe_layers_;
  std::vector<Origin> origin_;          // per slot: why it was loaded (until first use)
  std::vector<char> pending_;           // per slot: reads in flight
  std::vector<char> stalled_;           // per slot: its landing was waited for (not hidden)
  int unslotted_ = 0;                   // this layer's needs still without a slot
  std::vector<ExpertReadPlan> plan_;    // per slot
  std::vector<std::vector<int>> last_;  // per layer: the experts the previous batch used
  int prefetch_layer_ = -1;             // layer the queued prefetches are for
  std::vector<int> prefetch_queue_;     // its predicted experts not yet issued
};

}  // namespace moebench
