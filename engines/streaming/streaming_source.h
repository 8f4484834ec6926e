// streaming_source.h — the streaming engine's ExpertSource: expert cache +
// ExpertIo + where each expert lives on the drive set, with the hit/miss
// accounting of DESIGN.md (counted at the moment of need; a prefetched
// expert that is ready when needed is a miss hidden by prefetch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/cache/cache_model.h"
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

// The cache policy is the CacheModel's (engines/cache/cache_model.h), the
// same code the cost model's replay drives; this class is its loader: reads
// through ExpertIo, landing when the drives deliver.
class StreamingSource final : public ExpertSource, private CacheLoader {
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
  // Loads and pins a hot set (engines/cache/hot_set.h) before the first
  // token, waiting for every read; returns the slots held.
  Expected<std::size_t> hold(const std::vector<std::pair<int, int>>& experts);

  // hits, misses, misses_hidden, prefetches (DESIGN.md's accounting).
  const CacheCounts& counts() const { return model_.counts; }
  // Every routed step so far (for the offline optimum, optimal_cache.h).
  const NeedTrace& trace() const { return model_.trace; }
  double io_wait_s = 0;

 private:
  // CacheLoader.
  Status load(int slot, int layer, int expert) override;
  void flush() override { io_.flush(); }
  void settle() override;  // reaps landed prefetches
  bool ready_now(int slot) override;
  bool make_room() override;

  Status await(int slot);
  // Every read of the slot's pending load has completed (reaps, never blocks).
  bool landed(std::size_t slot);

  std::vector<const ExpertTable*> tables_;
  bool stripe_;
  ExpertCache& cache_;
  ExpertIo& io_;
  CacheModel model_;
  std::vector<char> pending_;           // per slot: reads in flight
  std::vector<char> stalled_;           // per slot: its landing was waited for (not hidden)
  std::vector<ExpertReadPlan> plan_;    // per slot
};

}  // namespace moebench
