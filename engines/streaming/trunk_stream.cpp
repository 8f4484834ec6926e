// trunk_stream.cpp — see trunk_stream.h.
#include "engines/streaming/trunk_stream.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace moebench {

namespace {
constexpr std::uint64_t kAlign = 4096;
std::uint64_t up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
}  // namespace

int trunk_tensor_layer(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  const auto dot = name.find('.', 4);
  if (dot == std::string::npos || dot == 4) return -1;
  int v = 0;
  for (std::size_t i = 4; i < dot; ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    v = v * 10 + (name[i] - '0');
    if (v > (1 << 24)) return -1;
  }
  return v;
}

Expected<TrunkLayout> trunk_layout(const ModelCard& card, const GgufFile& g) {
  const int L = card.total_layers();
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint64_t> lo(static_cast<std::size_t>(L), kNone), hi(static_cast<std::size_t>(L), 0);
  std::uint64_t head_lo = kNone, head_hi = 0;
  for (const GgufTensorInfo& t : g.tensors) {
    const std::uint64_t a = g.data_offset + t.offset, b = a + t.bytes;
    const int l = trunk_tensor_layer(t.name);
    if (l >= L) return make_error(g.label + ": trunk tensor " + t.name + " names a layer the card does not have");
    if (l < 0) {
      head_lo = std::min(head_lo, a);
      head_hi = std::max(head_hi, b);
    } else {
      lo[static_cast<std::size_t>(l)] = std::min(lo[static_cast<std::size_t>(l)], a);
      hi[static_cast<std::size_t>(l)] = std::max(hi[static_cast<std::size_t>(l)], b);
    }
  }
  TrunkLayout out;
  for (int l = 0; l < L; ++l) {
    const std::size_t i = static_cast<std::size_t>(l);
    if (lo[i] == kNone) return make_error(g.label + ": layer " + std::to_string(l) + " has no trunk tensors");
    if (lo[i] % kAlign != 0) return make_error(g.label + ": layer " + std::to_string(l) + "'s trunk is not 4096-aligned");
    out.layers.push_back({lo[i], up(hi[i]) - lo[i]});
    if (l > 0 && out.layers[i - 1].end() != lo[i]) {
      return make_error(g.label + ": layer " + std::to_string(l) + "'s trunk tensors do not follow layer " +
                        std::to_string(l - 1) + "'s (remake the container with this moebench)");
    }
  }
  if (head_lo == kNone) return make_error(g.label + ": no embedding, lm_head or final norm tensors");
  if (head_lo % kAlign != 0 || (L > 0 && head_lo < out.layers.back().end())) {
    return make_error(g.label + ": the model-level tensors do not follow the layers (remake the container)");
  }
  out.head = {head_lo, up(head_hi) - head_lo};
  // No layer tensor may sit inside another layer's span (the spans tile).
  for (const GgufTensorInfo& t : g.tensors) {
    const int l = trunk_tensor_layer(t.name);
    const std::uint64_t a = g.data_offset + t.offset;
    if (l < 0 && a < out.head.offset) return make_error(g.label + ": tensor " + t.name + " lies among the layers");
  }
  return out;
}

TrunkStreamer::TrunkStreamer(ExpertIo& io, int side_file, const TrunkLayout& layout, int pinned,
                             std::array<std::uint8_t*, 2> buffers, std::array<const TrunkWeights*, 2> views)
    : io_(io), side_file_(side_file), pinned_(pinned), buffers_(buffers), views_(views) {
  for (std::size_t l = static_cast<std::size_t>(std::max(0, pinned)); l < layout.layers.size(); ++l) {
    spans_.push_back(layout.layers[l]);
  }
  n_ = static_cast<int>(spans_.size());
  nbuf_ = n_ >= 2 ? 2 : 1;
}

Status TrunkStreamer::issue() {
  const int j = issued_;
  ReadRequest r;
  r.tag = tag(j);
  r.file = side_file_;
  r.offset = spans_[static_cast<std::size_t>(j)].offset;
  r.bytes = spans_[static_cast<std::size_t>(j)].bytes;
  r.dest = buffers_[static_cast<std::size_t>(j % nbuf_)];
  if (Status st = io_.submit(r); !st) return st;
  ++issued_;
  return Status::success();
}

Expected<const TrunkLayer*> TrunkStreamer::layer_weights(int layer) {
  if (n_ == 0) return static_cast<const TrunkLayer*>(nullptr);
  if (layer == 0) {
    // A new pass: the reads of the first streamed layers go out now.
    ++pass_;
    issued_ = consumed_ = 0;
    deferred_ = Status::success();
    while (issued_ < std::min(nbuf_, n_)) {
      if (Status st = issue(); !st) return st.error();
    }
    io_.flush();
  }
  if (layer < pinned_) return static_cast<const TrunkLayer*>(nullptr);
  if (!deferred_) return deferred_.error();
  const int j = layer - pinned_;
  if (j != consumed_ || j >= issued_) {
    return make_error("trunk streaming: layer " + std::to_string(layer) + " asked out of order (internal)");
  }
  const auto t0 = std::chrono::steady_clock::now();
  Status st = io_.wait(tag(j));
  io_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st) return make_error("trunk layer " + std::to_string(layer) + ": " + st.error().message);
  bytes_read_ += spans_[static_cast<std::size_t>(j)].bytes;
  return &views_[static_cast<std::size_t>(j % nbuf_)]->layers[static_cast<std::size_t>(layer)];
}

void TrunkStreamer::layer_done(int layer) {
  if (layer < pinned_ || n_ == 0) return;
  ++consumed_;
  // Its buffer is free: it takes the read nbuf layers ahead.
  if (issued_ < n_ && deferred_) {
    deferred_ = issue();
    io_.flush();
  }
}

}  // namespace moebench
