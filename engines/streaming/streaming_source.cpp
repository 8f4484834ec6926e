// streaming_source.cpp — see streaming_source.h.
#include "engines/streaming/streaming_source.h"

#include "engines/executor/weight_layout.h"

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
    : tables_(std::move(tables)), stripe_(stripe), cache_(cache), io_(io),
      model_(cache, *this, prefetch, moe_layers, tables_[0]->experts, seed) {
  pending_.assign(cache_.slots(), 0);
  stalled_.assign(cache_.slots(), 0);
  plan_.assign(cache_.slots(), {});
}

Status StreamingSource::load(int slot, int layer, int expert) {
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
      // can be handed out again (the model then forgets the slot).
      for (int j = 0; j < i; ++j) (void)io_.wait(static_cast<std::uint64_t>(slot) * 4 + static_cast<std::uint64_t>(j));
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
    model_.forget(slot);
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

void StreamingSource::settle() {
  for (std::size_t s = 0; s < pending_.size(); ++s) {
    if (!pending_[s] || model_.origin(static_cast<int>(s)) != CacheModel::Origin::kPrefetch) continue;
    if (landed(s)) (void)await(static_cast<int>(s));  // a failed prefetch just frees its slot
  }
}

bool StreamingSource::ready_now(int slot) {
  const std::size_t s = static_cast<std::size_t>(slot);
  return !pending_[s] || landed(s);  // cached before, already awaited, or every read complete
}

bool StreamingSource::make_room() {
  // Slots held by prefetches for later layers (not pinned) still in flight:
  // let one land (it becomes evictable).
  for (std::size_t p = 0; p < pending_.size(); ++p) {
    if (!pending_[p] || model_.origin(static_cast<int>(p)) != CacheModel::Origin::kPrefetch ||
        cache_.pinned(static_cast<int>(p))) {
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    (void)await(static_cast<int>(p));
    stalled_[p] = 1;  // waited for, not hidden
    io_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return true;
  }
  return false;
}

Status StreamingSource::layer_routed(int layer, const std::vector<int>& experts) {
  // Every missing expert of the layer goes to the drives now, before the
  // shared experts compute; slots are pinned until their expert is used.
  return model_.routed(layer, experts);
}

void StreamingSource::layer_upcoming(int layer, const std::vector<int>& experts) { model_.upcoming(layer, experts); }

Expected<ExpertWeights> StreamingSource::acquire(int layer, int expert) {
  auto got = model_.acquire(layer, expert);
  if (!got) return got.error();
  int s = *got;
  const std::size_t si = static_cast<std::size_t>(s);
  // Landed before the need: ready, or every read already complete.
  bool was_ready = cache_.state(s) == ExpertCache::State::kReady && !pending_[si] && !stalled_[si];
  if (pending_[si]) was_ready = landed(si);
  if (pending_[si]) {
    const bool prefetched = model_.origin(s) == CacheModel::Origin::kPrefetch;
    const auto t0 = std::chrono::steady_clock::now();
    Status st = await(s);
    if (!st && prefetched) {
      // A failed prefetch is not the need's failure: read it on demand once.
      s = model_.claim(layer, expert);
      if (s == ExpertCache::kNone) return st.error();
      if (Status again = model_.load(s, layer, expert, CacheModel::Origin::kNeed); !again) return again.error();
      st = await(s);
      was_ready = false;
    }
    io_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st) return st.error();
  }
  const std::size_t sj = static_cast<std::size_t>(s);
  model_.count_use(s, layer, expert, was_ready);
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
    views[m]->rows8 = t.rows8 && rows8_eligible(*views[m]);
  }
  return w;
}

Expected<std::size_t> StreamingSource::hold(const std::vector<std::pair<int, int>>& experts) {
  std::vector<int> slots;
  slots.reserve(experts.size());
  for (const auto& [layer, expert] : experts) {
    auto s = model_.hold(layer, expert);
    if (!s) return s.error();
    slots.push_back(*s);
    io_.flush();
  }
  for (int s : slots) {
    if (Status st = await(s); !st) return st.error();
  }
  return slots.size();
}

int StreamingSource::pick_ready(int layer, const std::vector<int>& candidates) { return model_.pick(layer, candidates); }

void StreamingSource::release(int layer, int expert) {
  // A slot may have come free: queued prefetches go to the drives now. A
  // failed prefetch submit is dropped; the expert is read on demand if needed.
  model_.release(layer, expert);
}

}  // namespace moebench
