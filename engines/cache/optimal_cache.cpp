// optimal_cache.cpp — see optimal_cache.h.
#include "engines/cache/optimal_cache.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace moebench {

void NeedTrace::add(int layer, const std::vector<int>& experts) {
  for (int e : experts) {
    keys_.push_back((static_cast<std::uint64_t>(static_cast<std::uint32_t>(layer)) << 32) |
                    static_cast<std::uint32_t>(e));
  }
  step_end_.push_back(keys_.size());
}

OptimalCounts optimal_hits(const NeedTrace& trace, std::size_t slots, std::size_t from_step, std::size_t to_step) {
  OptimalCounts out;
  const std::vector<std::uint64_t>& keys = trace.keys();
  const std::size_t n = keys.size();
  to_step = std::min(to_step, trace.steps());
  if (from_step >= to_step) return out;
  const std::size_t lo = trace.need_index(from_step), hi = trace.need_index(to_step);
  out.needs = hi - lo;
  if (slots == 0) return out;

  // next[i]: the index of the next need of keys[i]'s expert, or `never`.
  constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> next(n, kNever);
  {
    std::unordered_map<std::uint64_t, std::size_t> later;
    later.reserve(std::min<std::size_t>(n, 1u << 20));
    for (std::size_t i = n; i-- > 0;) {
      auto [it, fresh] = later.try_emplace(keys[i], i);
      if (!fresh) {
        next[i] = it->second;
        it->second = i;
      }
    }
  }

  // The cached experts ordered by their next need; `at` maps a cached
  // expert to its entry's next-need index. Experts never needed again carry
  // distinct sentinels above every real index, so they sort last.
  std::set<std::pair<std::size_t, std::uint64_t>> by_next;
  std::unordered_map<std::uint64_t, std::size_t> at;
  at.reserve(std::min<std::size_t>(slots, n) * 2 + 1);
  // Needs past the window only inform next[]: the replay stops at hi.
  for (std::size_t i = 0; i < hi; ++i) {
    const std::uint64_t k = keys[i];
    const std::size_t nx = next[i] == kNever ? kNever - i : next[i];  // distinct sentinel per need
    if (auto it = at.find(k); it != at.end()) {
      if (i >= lo) ++out.hits;
      by_next.erase({it->second, k});
      it->second = nx;
      by_next.insert({nx, k});
      continue;
    }
    if (at.size() >= slots) {
      const auto victim = std::prev(by_next.end());
      at.erase(victim->second);
      by_next.erase(victim);
    }
    at.emplace(k, nx);
    by_next.insert({nx, k});
  }
  return out;
}

OptimalCounts learned_set_hits(const NeedTrace& trace, std::size_t slots, std::size_t learn_from, std::size_t learn_to,
                               std::size_t from_step, std::size_t to_step) {
  OptimalCounts out;
  to_step = std::min(to_step, trace.steps());
  learn_to = std::min(learn_to, trace.steps());
  if (from_step >= to_step) return out;
  const std::vector<std::uint64_t>& keys = trace.keys();
  std::unordered_map<std::uint64_t, std::uint64_t> uses;
  for (std::size_t i = trace.need_index(std::min(learn_from, learn_to)); i < trace.need_index(learn_to); ++i) ++uses[keys[i]];
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked(uses.begin(), uses.end());  // (key, uses)
  const std::size_t keep = std::min(slots, ranked.size());
  // Most used first; ties by key, so the set does not depend on hash order.
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                    [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  std::unordered_set<std::uint64_t> held;
  for (std::size_t i = 0; i < keep; ++i) held.insert(ranked[i].first);
  const std::size_t lo = trace.need_index(from_step), hi = trace.need_index(to_step);
  out.needs = hi - lo;
  for (std::size_t i = lo; i < hi; ++i) out.hits += held.count(keys[i]);
  return out;
}

}  // namespace moebench
