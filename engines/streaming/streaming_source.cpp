// streaming_source.cpp — see streaming_source.h.
#include "engines/streaming/streaming_source.h"

#include <algorithm>
#include <chrono>

namespace moebench {

namespace {
constexpr std::uint64_t kAlign = 4096;
std::uint64_t down(std::uint64_t v) { return v / kAlign * kAlign; }
std::uint64_t up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
}  // namespace

ExpertReadPlan plan_expert_read(const std::vector<const ExpertTable*>& tables, bool stripe, int layer, int expert) {
  ExpertReadPlan p;
  const int drive = stripe ? expert % static_cast<int>(tables.size()) : 0;
  const ExpertTable& t = *tables[static_cast<std::size_t>(drive)];
  const ExpertLocation& L = t.loc[static_cast<std::size_t>(layer) * static_cast<std::size_t>(t.experts) +
                                  static_cast<std::size_t>(expert)];
  p.drive = stripe ? drive : kAnyDrive;
  if (t.packed) {
    // One aligned record: gate‖up‖down, padded to 4096.
    p.reads = 1;
    p.offset[0] = down(L.offset[0]);
    p.bytes[0] = up(L.offset[2] + L.bytes[2]) - p.offset[0];
    for (int m = 0; m < 3; ++m) p.view_pos[m] = L.offset[m] - p.offset[0];
    p.span = p.bytes[0];
    return p;
  }
  // Split tensors: one aligned read per slice (an unaligned slice reads the
  // few KiB around it; those bytes are counted, as a real engine's would be).
  p.reads = 3;
  std::uint64_t cursor = 0;
  for (int m = 0; m < 3; ++m) {
    p.offset[m] = down(L.offset[m]);
    p.bytes[m] = up(L.offset[m] + L.bytes[m]) - p.offset[m];
    p.slot_pos[m] = cursor;
    p.view_pos[m] = cursor + (L.offset[m] - p.offset[m]);
    cursor += p.bytes[m];
  }
  p.span = cursor;
  return p;
}

StreamingSource::StreamingSource(std::vector<const ExpertTable*> tables, bool stripe, ExpertCache& cache,
                                 ExpertIo& io, const std::string& prefetch, int moe_layers, std::uint64_t seed)
    : tables_(std::move(tables)), stripe_(stripe), cache_(cache), io_(io), prefetch_(prefetch != "off"),
      rng_(seed * 0x9e3779b97f4a7c15ull + 1), moe_layers_(moe_layers) {
  if (prefetch.rfind("pregate:", 0) == 0) pregate_ = std::stod(prefetch.substr(8));
  origin_.assign(cache_.slots(), Origin::kNone);
  pending_.assign(cache_.slots(), 0);
  stalled_.assign(cache_.slots(), 0);
  plan_.assign(cache_.slots(), {});
  last_.assign(static_cast<std::size_t>(moe_layers), {});
}

Status StreamingSource::submit(int slot, int layer, int expert) {
  const std::size_t s = static_cast<std::size_t>(slot);
  plan_[s] = plan_expert_read(tables_, stripe_, layer, expert);
  const ExpertReadPlan& p = plan_[s];
  for (int i = 0; i < p.reads; ++i) {
    ReadRequest r;
    r.tag = static_cast<std::uint64_t>(slot) * 4 + static_cast<std::uint64_t>(i);
    r.drive = p.drive;
    r.offset = p.offset[i];
    r.bytes = p.bytes[i];
    r.dest = cache_.slot_data(slot) + p.slot_pos[i];
    if (Status st = io_.submit(r); !st) {
      // Reads already in flight land in this slot: wait for them before it
      // can be handed out again.
      for (int j = 0; j < i; ++j) (void)io_.wait(static_cast<std::uint64_t>(slot) * 4 + static_cast<std::uint64_t>(j));
      origin_[s] = Origin::kNone;
      cache_.drop(slot);
      return st;
    }
  }
  pending_[s] = 1;
  stalled_[s] = 0;
  return Status::success();
}

Status StreamingSource::await(int slot) {
  const std::size_t s = static_cast<std::size_t>(slot);
  if (!pending_[s]) return Status::success();
  Status result = Status::success();
  for (int i = 0; i < plan_[s].reads; ++i) {
    Status st = io_.wait(static_cast<std::uint64_t>(slot) * 4 + static_cast<std::uint64_t>(i));
    if (!st && result) result = st;
  }
  pending_[s] = 0;
  if (!result) {
    origin_[s] = Origin::kNone;
    cache_.drop(slot);
    return result;
  }
  cache_.set_ready(slot);
  return Status::success();
}

bool StreamingSource::landed(std::size_t slot) {
  for (int i = 0; i < plan_[slot].reads; ++i) {
    if (!io_.done(slot * 4 + static_cast<std::uint64_t>(i))) return false;
  }
  return true;
}

void StreamingSource::reap() {
  for (std::size_t s = 0; s < pending_.size(); ++s) {
    if (!pending_[s] || origin_[s] != Origin::kPrefetch) continue;
    if (landed(s)) (void)await(static_cast<int>(s));  // a failed prefetch just frees its slot
  }
}

Status StreamingSource::issue_prefetches() {
  std::size_t done = 0;
  for (; done < prefetch_queue_.size(); ++done) {
    const int e = prefetch_queue_[done];
    if (cache_.find(prefetch_layer_, e) != ExpertCache::kNone) continue;
    const int s = cache_.claim(prefetch_layer_, e);
    if (s == ExpertCache::kNone) break;  // no slot free now: retry on the next release
    origin_[static_cast<std::size_t>(s)] = Origin::kPrefetch;
    if (Status st = submit(s, prefetch_layer_, e); !st) {
      prefetch_queue_.clear();  // do not retry a failing submit on every release
      return st;
    }
    ++prefetches;
  }
  prefetch_queue_.erase(prefetch_queue_.begin(), prefetch_queue_.begin() + static_cast<std::ptrdiff_t>(done));
  if (done > 0) io_.flush();
  return Status::success();
}

Status StreamingSource::layer_routed(int layer, const std::vector<int>& experts) {
  if (prefetch_) reap();
  if (layer == prefetch_layer_) prefetch_queue_.clear();  // the real routing is known now
  // Every missing expert of the layer goes to the drives now, before the
  // shared experts compute; slots are pinned until their expert is used.
  // First pin what is already here (ready or landing), so that claiming
  // slots for the missing ones can never evict an expert this layer needs.
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
    const int s = cache_.claim(layer, e);
    if (s == ExpertCache::kNone) {  // all slots busy: acquire() fetches it after earlier releases
      ++unslotted_;
      continue;
    }
    origin_[static_cast<std::size_t>(s)] = Origin::kNeed;
    if (Status st = submit(s, layer, e); !st) return st;
    cache_.pin(s);
  }
  if (prefetch_ && pregate_ < 0 && moe_layers_ > 0) {
    // The next MoE layer (the first one, for the next token, after the last
    // layer), guessed from what the previous batch used there. What does not
    // fit now is issued as this layer's experts are released.
    prefetch_layer_ = (layer + 1) % moe_layers_;
    prefetch_queue_ = last_[static_cast<std::size_t>(prefetch_layer_)];
    if (Status st = issue_prefetches(); !st) return st;
  }
  last_[static_cast<std::size_t>(layer)] = experts;
  io_.flush();
  return Status::success();
}

void StreamingSource::layer_upcoming(int layer, const std::vector<int>& experts) {
  if (pregate_ < 0) return;
  // The simulated predictor: each real expert named with probability P,
  // otherwise a uniformly drawn wrong one (a miss that wastes a read).
  auto next = [this] {
    rng_ += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = rng_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const int experts_per_layer = tables_[0]->experts;
  std::vector<int> guess;
  for (int e : experts) {
    if (static_cast<double>(next() >> 11) * 0x1.0p-53 < pregate_) {
      guess.push_back(e);
    } else {
      int wrong = e;
      for (int tries = 0; tries < 64 && (wrong == e || std::find(experts.begin(), experts.end(), wrong) != experts.end()); ++tries) {
        wrong = static_cast<int>(next() % static_cast<std::uint64_t>(experts_per_layer));
      }
      guess.push_back(wrong);
    }
  }
  prefetch_layer_ = layer;
  prefetch_queue_ = std::move(guess);
  (void)issue_prefetches();
}

Expected<ExpertWeights> StreamingSource::acquire(int layer, int expert) {
  int s = cache_.find(layer, expert);
  if (s == ExpertCache::kNone) {
    s = cache_.claim(layer, expert);
    if (s == ExpertCache::kNone) {
      // Slots held by prefetches for later layers (not pinned) still in
      // flight: let one land at a time (it becomes evictable), retry.
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t p = 0; p < pending_.size() && s == ExpertCache::kNone; ++p) {
        if (!pending_[p] || origin_[p] != Origin::kPrefetch || cache_.pinned(static_cast<int>(p))) continue;
        (void)await(static_cast<int>(p));
        stalled_[p] = 1;  // waited for, not hidden
        s = cache_.claim(layer, expert);
      }
      io_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (s == ExpertCache::kNone) {
      return make_error("expert cache: every slot is in use; the budget leaves fewer slots than one layer needs");
    }
    if (unslotted_ > 0) --unslotted_;
    origin_[static_cast<std::size_t>(s)] = Origin::kNeed;
    if (Status st = submit(s, layer, expert); !st) return st.error();
    cache_.pin(s);
  }
  const std::size_t si = static_cast<std::size_t>(s);
  // Landed before the need: ready, or every read already complete.
  bool was_ready = cache_.state(s) == ExpertCache::State::kReady && !pending_[si] && !stalled_[si];
  if (pending_[si]) was_ready = landed(si);
  if (pending_[si]) {
    const bool prefetched = origin_[si] == Origin::kPrefetch;
    const auto t0 = std::chrono::steady_clock::now();
    Status st = await(s);
    if (!st && prefetched) {
      // A failed prefetch is not the need's failure: read it on demand once.
      s = cache_.claim(layer, expert);
      if (s == ExpertCache::kNone) return st.error();
      origin_[static_cast<std::size_t>(s)] = Origin::kNeed;
      if (Status again = submit(s, layer, expert); !again) return again.error();
      cache_.pin(s);
      st = await(s);
      was_ready = false;
    }
    io_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st) return st.error();
  }
  const std::size_t sj = static_cast<std::size_t>(s);
  switch (origin_[sj]) {
    case Origin::kNone: ++hits; break;                 // in the cache before this need
    case Origin::kNeed: ++misses; break;               // read for this need
    case Origin::kPrefetch:
      ++misses;
      if (was_ready) ++misses_hidden;                  // prefetch landed before the need
      break;
  }
  origin_[sj] = Origin::kNone;  // from now on a plain cached expert
  cache_.touch(s, layer, expert);
  const ExpertReadPlan& p = plan_[sj];
  const int drive = stripe_ ? expert % static_cast<int>(tables_.size()) : 0;
  const ExpertTable& t = *tables_[static_cast<std::size_t>(drive)];
  const ExpertLocation& L = t.loc[static_cast<std::size_t>(layer) * static_cast<std::size_t>(t.experts) +
                                  static_cast<std::size_t>(expert)];
  ExpertWeights w;
  TensorView* views[3] = {&w.gate, &w.up, &w.down};
  for (int m = 0; m < 3; ++m) {
    views[m]->data = cache_.slot_data(s) + p.view_pos[m];
    views[m]->format = L.format;
    views[m]->rows = L.rows[m];
    views[m]->row_len = L.row_len[m];
  }
  return w;
}

int StreamingSource::pick_ready(int layer, const std::vector<int>& candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int s = cache_.find(layer, candidates[i]);
    if (s == ExpertCache::kNone) continue;
    const std::size_t si = static_cast<std::size_t>(s);
    if (!pending_[si]) return static_cast<int>(i);  // cached before, or already awaited
    if (landed(si)) return static_cast<int>(i);
  }
  // Nothing landed yet: wait for one that has a slot and reads in flight
  // before one that has no slot at all.
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (cache_.find(layer, candidates[i]) != ExpertCache::kNone) return static_cast<int>(i);
  }
  return -1;
}

void StreamingSource::release(int layer, int expert) {
  const int s = cache_.find(layer, expert);
  if (s != ExpertCache::kNone) cache_.unpin(s);
  // A slot may have come free: queued prefetches go to the drives now, while
  // the rest of this layer and the next layer's attention compute. A failed
  // prefetch submit is dropped; the expert is read on demand if needed.
  if (prefetch_ && unslotted_ == 0 && !prefetch_queue_.empty()) (void)issue_prefetches();
}

}  // namespace moebench
