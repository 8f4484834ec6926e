// expert_cache.h — the streaming engine's RAM expert cache: a fixed number
// of equal slots in one arena (the memory the RAM budget leaves after the
// trunk, the KV state and the I/O buffers), keyed by (MoE layer, expert).
//
// A slot is empty, loading (reads in flight) or ready. Slots in use by the
// compute (pinned) or loading are never evicted. Eviction policies:
//   lru  the ready, unpinned slot used longest ago;
//   lfu  the ready, unpinned slot whose expert has been needed least often
//        (counts kept per expert for the whole run, so popularity learnt
//        before an eviction survives it — the policy zipf routing rewards);
//        ties go to the least recently used.
// Victim search is a scan over the slots: a cache holds thousands of slots
// at most and a token needs a few hundred lookups, far below the cost of
// one expert read. Single-threaded (the engine thread).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engines/executor/model_loader.h"
#include "vocab/expected.h"

namespace moebench {

enum class CachePolicy { kLru, kLfu };
Expected<CachePolicy> parse_cache_policy(const std::string& name);

class ExpertCache {
 public:
  enum class State { kEmpty, kLoading, kReady };
  static constexpr int kNone = -1;

  // `slots` slots of `slot_bytes` (a multiple of 4096) each.
  static Expected<ExpertCache> create(std::size_t slots, std::uint64_t slot_bytes, CachePolicy policy);

  std::size_t slots() const { return state_.size(); }
  std::uint64_t slot_bytes() const { return slot_bytes_; }
  std::uint8_t* slot_data(int slot) const { return arena_.data() + static_cast<std::uint64_t>(slot) * slot_bytes_; }
  const HugeArena& arena() const { return arena_; }

  // The slot holding (layer, expert), or kNone.
  int find(int layer, int expert) const;
  // A slot for (layer, expert), evicting a victim if needed; the slot is
  // left in state kLoading. kNone when every slot is pinned or loading.
  int claim(int layer, int expert);
  void set_ready(int slot) { state_[static_cast<std::size_t>(slot)] = State::kReady; }
  // Forgets the slot's contents (a read failed).
  void drop(int slot);
  State state(int slot) const { return state_[static_cast<std::size_t>(slot)]; }

  // A use at the moment of need: recency and frequency.
  void touch(int slot, int layer, int expert);
  void pin(int slot) { ++pins_[static_cast<std::size_t>(slot)]; }
  bool pinned(int slot) const { return pins_[static_cast<std::size_t>(slot)] > 0; }
  void unpin(int slot) {
    if (pins_[static_cast<std::size_t>(slot)] > 0) --pins_[static_cast<std::size_t>(slot)];
  }
  std::uint64_t evictions() const { return evictions_; }

 private:
  static std::uint64_t key(int layer, int expert) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(layer)) << 32) | static_cast<std::uint32_t>(expert);
  }
  HugeArena arena_;
  std::uint64_t slot_bytes_ = 0;
  CachePolicy policy_ = CachePolicy::kLru;
  std::vector<State> state_;
  std::vector<int> pins_;
  std::vector<std::uint64_t> slot_key_;
  std::vector<std::uint64_t> last_use_;
  std::unordered_map<std::uint64_t, int> where_;
  std::unordered_map<std::uint64_t, std::uint64_t> uses_;  // lfu counts, per expert, whole run
  std::uint64_t clock_ = 0;
  std::uint64_t evictions_ = 0;
};

}  // namespace moebench
