// expert_cache.cpp — see expert_cache.h.
#include "engines/cache/expert_cache.h"

namespace moebench {

Expected<CachePolicy> parse_cache_policy(const std::string& name) {
  if (name == "lru") return CachePolicy::kLru;
  if (name == "lfu") return CachePolicy::kLfu;
  return make_error("unknown cache policy \"" + name + "\"; expected lru or lfu");
}

Expected<ExpertCache> ExpertCache::create(std::size_t slots, std::uint64_t slot_bytes, CachePolicy policy) {
  if (slot_bytes == 0 || slot_bytes % 4096 != 0) return make_error("expert cache slot size must be a multiple of 4096");
  ExpertCache c;
  auto arena = HugeArena::allocate(static_cast<std::uint64_t>(slots) * slot_bytes);
  if (!arena) return arena.error();
  c.arena_ = std::move(*arena);
  c.slot_bytes_ = slot_bytes;
  c.policy_ = policy;
  c.state_.assign(slots, State::kEmpty);
  c.pins_.assign(slots, 0);
  c.slot_key_.assign(slots, 0);
  c.last_use_.assign(slots, 0);
  return c;
}

int ExpertCache::find(int layer, int expert) const {
  const auto it = where_.find(key(layer, expert));
  return it == where_.end() ? kNone : it->second;
}

int ExpertCache::claim(int layer, int expert) {
  int victim = kNone;
  for (std::size_t s = 0; s < state_.size(); ++s) {
    if (state_[s] == State::kEmpty) {
      victim = static_cast<int>(s);
      break;
    }
  }
  if (victim == kNone) {
    std::uint64_t best_uses = 0, best_time = 0;
    for (std::size_t s = 0; s < state_.size(); ++s) {
      if (state_[s] != State::kReady || pins_[s] > 0) continue;
      const std::uint64_t u = policy_ == CachePolicy::kLfu ? uses_[slot_key_[s]] : 0;
      if (victim == kNone || u < best_uses || (u == best_uses && last_use_[s] < best_time)) {
        victim = static_cast<int>(s);
        best_uses = u;
        best_time = last_use_[s];
      }
    }
    if (victim == kNone) return kNone;
    where_.erase(slot_key_[static_cast<std::size_t>(victim)]);
    ++evictions_;
  }
  const std::size_t v = static_cast<std::size_t>(victim);
  slot_key_[v] = key(layer, expert);
  where_[slot_key_[v]] = victim;
  state_[v] = State::kLoading;
  last_use_[v] = ++clock_;
  return victim;
}

void ExpertCache::drop(int slot) {
  const std::size_t s = static_cast<std::size_t>(slot);
  where_.erase(slot_key_[s]);
  state_[s] = State::kEmpty;
  pins_[s] = 0;
}

void ExpertCache::touch(int slot, int layer, int expert) {
  last_use_[static_cast<std::size_t>(slot)] = ++clock_;
  ++uses_[key(layer, expert)];
}

}  // namespace moebench
