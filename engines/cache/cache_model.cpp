// cache_model.cpp — see cache_model.h.
#include "engines/cache/cache_model.h"

#include <algorithm>

namespace moebench {

PrefetchSpec parse_prefetch(const std::string& prefetch) {
  PrefetchSpec p;
  p.on = prefetch != "off";
  if (prefetch.rfind("pregate:", 0) == 0) p.pregate = std::stod(prefetch.substr(8));
  return p;
}

CacheModel::CacheModel(ExpertCache& cache, CacheLoader& loader, const std::string& prefetch, int moe_layers,
                       int experts_per_layer, std::uint64_t seed)
    : cache_(cache), loader_(loader), prefetch_(parse_prefetch(prefetch)), moe_layers_(moe_layers),
      experts_per_layer_(experts_per_layer), rng_(seed * 0x9e3779b97f4a7c15ull + 1) {
  origin_.assign(cache_.slots(), Origin::kNone);
  last_.assign(static_cast<std::size_t>(std::max(0, moe_layers)), {});
}

int CacheModel::claim(int layer, int expert) {
  const std::uint64_t before = cache_.evictions();
  const int slot = cache_.claim(layer, expert);
  if (slot == ExpertCache::kNone) return slot;
  // The slot reused: a prefetch evicted before its need was a wasted read.
  if (cache_.evictions() > before && origin_[static_cast<std::size_t>(slot)] == Origin::kPrefetch) ++counts.wasted_reads;
  origin_[static_cast<std::size_t>(slot)] = Origin::kNone;
  return slot;
}

Status CacheModel::load(int slot, int layer, int expert, Origin why) {
  origin_[static_cast<std::size_t>(slot)] = why;
  if (Status st = loader_.load(slot, layer, expert); !st) {
    forget(slot);
    return st;
  }
  ++counts.reads;
  if (why == Origin::kPrefetch) {
    ++counts.prefetches;
  } else {
    cache_.pin(slot);
  }
  return Status::success();
}

void CacheModel::forget(int slot) {
  origin_[static_cast<std::size_t>(slot)] = Origin::kNone;
  cache_.drop(slot);
}

Status CacheModel::issue_prefetches() {
  std::size_t done = 0;
  for (; done < prefetch_queue_.size(); ++done) {
    const int e = prefetch_queue_[done];
    if (cache_.find(prefetch_layer_, e) != ExpertCache::kNone) continue;
    const int s = claim(prefetch_layer_, e);
    if (s == ExpertCache::kNone) break;  // no slot free now: retry on the next release
    if (Status st = load(s, prefetch_layer_, e, Origin::kPrefetch); !st) {
      prefetch_queue_.clear();  // do not retry a failing load on every release
      return st;
    }
  }
  prefetch_queue_.erase(prefetch_queue_.begin(), prefetch_queue_.begin() + static_cast<std::ptrdiff_t>(done));
  if (done > 0) loader_.flush();
  return Status::success();
}

Status CacheModel::routed(int layer, const std::vector<int>& experts) {
  trace.add(layer, experts);
  if (prefetch_.on) loader_.settle();
  if (layer == prefetch_layer_) prefetch_queue_.clear();  // the real routing is known now
  std::vector<int> missing;
  for (int e : experts) {
    const int s = cache_.find(layer, e);
    if (s == ExpertCache::kNone) {
      missing.push_back(e);
    } else {
      cache_.pin(s);
    }
  }
  unslotted_ = 0;
  for (int e : missing) {
    const int s = claim(layer, e);
    if (s == ExpertCache::kNone) {  // all slots busy: acquire() loads it after earlier releases
      ++unslotted_;
      continue;
    }
    if (Status st = load(s, layer, e, Origin::kNeed); !st) return st;
  }
  if (prefetch_.on && prefetch_.pregate < 0 && moe_layers_ > 0) {
    // The next MoE layer (the first one, for the next token, after the last
    // layer), guessed from what the previous batch used there. What does not
    // fit now is issued as this layer's experts are released.
    prefetch_layer_ = (layer + 1) % moe_layers_;
    prefetch_queue_ = last_[static_cast<std::size_t>(prefetch_layer_)];
    if (Status st = issue_prefetches(); !st) return st;
  }
  last_[static_cast<std::size_t>(layer)] = experts;
  loader_.flush();
  return Status::success();
}

std::uint64_t CacheModel::next_random() {
  rng_ += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = rng_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void CacheModel::upcoming(int layer, const std::vector<int>& experts) {
  if (prefetch_.pregate < 0) return;
  std::vector<int> guess;
  for (int e : experts) {
    if (static_cast<double>(next_random() >> 11) * 0x1.0p-53 < prefetch_.pregate) {
      guess.push_back(e);
    } else {
      int wrong = e;
      for (int tries = 0; tries < 64 && (wrong == e || std::find(experts.begin(), experts.end(), wrong) != experts.end());
           ++tries) {
        wrong = static_cast<int>(next_random() % static_cast<std::uint64_t>(experts_per_layer_));
      }
      guess.push_back(wrong);
    }
  }
  prefetch_layer_ = layer;
  prefetch_queue_ = std::move(guess);
  (void)issue_prefetches();  // a failed prefetch is dropped; the expert is read on demand if needed
}

Expected<int> CacheModel::acquire(int layer, int expert) {
  int s = cache_.find(layer, expert);
  if (s != ExpertCache::kNone) return s;
  s = claim(layer, expert);
  while (s == ExpertCache::kNone && loader_.make_room()) s = claim(layer, expert);
  if (s == ExpertCache::kNone) {
    return make_error("expert cache: every slot is in use; the budget leaves fewer slots than one layer needs");
  }
  if (unslotted_ > 0) --unslotted_;
  if (Status st = load(s, layer, expert, Origin::kNeed); !st) return st.error();
  return s;
}

void CacheModel::count_use(int slot, int layer, int expert, bool landed_before_need) {
  const std::size_t s = static_cast<std::size_t>(slot);
  switch (origin_[s]) {
    case Origin::kNone: ++counts.hits; break;    // in the cache before this need
    case Origin::kNeed: ++counts.misses; break;  // read for this need
    case Origin::kPrefetch:
      ++counts.misses;
      ++counts.prefetches_used;
      if (landed_before_need) ++counts.misses_hidden;  // prefetch landed before the need
      break;
  }
  origin_[s] = Origin::kNone;  // from now on a plain cached expert
  cache_.touch(slot, layer, expert);
}

std::uint64_t CacheModel::unused_prefetches() const {
  return static_cast<std::uint64_t>(std::count(origin_.begin(), origin_.end(), Origin::kPrefetch));
}

void CacheModel::release(int layer, int expert) {
  const int s = cache_.find(layer, expert);
  if (s != ExpertCache::kNone) cache_.unpin(s);
  // A slot may have come free: queued prefetches go out now, while the rest
  // of this layer and the next layer's attention compute.
  if (prefetch_.on && unslotted_ == 0 && !prefetch_queue_.empty()) (void)issue_prefetches();
}

Expected<int> CacheModel::hold(int layer, int expert) {
  if (cache_.find(layer, expert) != ExpertCache::kNone) return make_error("hot set: expert held twice");
  const int s = claim(layer, expert);
  if (s == ExpertCache::kNone) return make_error("hot set: no free slot for the held experts");
  origin_[static_cast<std::size_t>(s)] = Origin::kNone;
  if (Status st = loader_.load(s, layer, expert); !st) {
    forget(s);
    return st.error();
  }
  cache_.pin(s);  // never released: held for the run
  return s;
}

int CacheModel::pick(int layer, const std::vector<int>& candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int s = cache_.find(layer, candidates[i]);
    if (s != ExpertCache::kNone && loader_.ready_now(s)) return static_cast<int>(i);
  }
  // Nothing landed yet: one that has a slot and reads in flight before one
  // that has no slot at all.
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (cache_.find(layer, candidates[i]) != ExpertCache::kNone) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace moebench
