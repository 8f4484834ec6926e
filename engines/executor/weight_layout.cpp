// weight_layout.cpp — see weight_layout.h.
#include "engines/executor/weight_layout.h"

#include <algorithm>
#include <chrono>

#include "engines/quant/kernels_q8.h"
#include "vocab/units.h"

namespace moebench {

bool rows8_eligible(const TensorView& v) {
  return v.valid() && has_rows8_layout(v.format.name, static_cast<std::size_t>(v.rows), static_cast<std::size_t>(v.row_len));
}

Status Rows8Interleaver::rewrite(std::uint8_t* data, const QuantFormat& f, std::uint64_t rows, std::uint64_t cols) {
  if (!done_.insert(data).second) return Status::success();
  const auto t0 = std::chrono::steady_clock::now();
  if (Status st = interleave_rows8(f.name, data, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)); !st) {
    return st;
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++matrices_;
  bytes_ += rows * f.bytes_for(cols);
  return Status::success();
}

Status Rows8Interleaver::apply(TensorView& v) {
  if (!rows8_eligible(v) || v.rows8) return Status::success();
  // The loader's memory is writable (anonymous, private): the view is const
  // only for the kernels.
  if (Status st = rewrite(const_cast<std::uint8_t*>(v.data), v.format, v.rows, v.row_len); !st) return st;
  v.rows8 = true;
  return Status::success();
}

Status Rows8Interleaver::apply_trunk(TrunkWeights& t, bool head, int layers) {
  // A tied head shares the embedding's bytes, which are read a row at a time.
  if (head && t.lm_head.data != t.embedding.data) {
    if (Status st = apply(t.lm_head); !st) return st;
  }
  const std::size_t n = layers < 0 ? t.layers.size() : std::min(t.layers.size(), static_cast<std::size_t>(layers));
  for (std::size_t l = 0; l < n; ++l) {
    TrunkLayer& L = t.layers[l];
    AttentionWeights& a = L.attn;
    TensorView* views[] = {&a.q_a, &a.q_b, &a.q, &a.kv_a, &a.output, &a.gate, &a.k, &a.v,
                           &a.beta, &a.decay, &a.decay_a, &a.decay_b, &a.gate_a, &a.gate_b,
                           &L.router, &L.latent_in, &L.latent_out, &L.gate_sh, &L.up_sh, &L.down_sh,
                           &L.gate, &L.up, &L.down};
    for (TensorView* v : views) {
      if (Status st = apply(*v); !st) return st;
    }
  }
  return Status::success();
}

Status Rows8Interleaver::apply_experts(const ExpertTable& table, const LoadedRange& range) {
  if (table.rows8) return Status::success();  // the container stores them so
  for (std::size_t i = 0; i < table.loc.size(); ++i) {
    if (i >= table.present.size() || !table.present[i]) continue;
    const ExpertLocation& L = table.loc[i];
    for (int m = 0; m < 3; ++m) {
      TensorView v;
      v.data = range.arena.data() + (L.offset[m] - range.file_offset);
      v.format = L.format;
      v.rows = L.rows[m];
      v.row_len = L.row_len[m];
      if (!rows8_eligible(v)) continue;
      if (Status st = rewrite(range.arena.data() + (L.offset[m] - range.file_offset), v.format, v.rows, v.row_len); !st) {
        return st;
      }
    }
  }
  return Status::success();
}

std::string Rows8Interleaver::note() const {
  return "q4_0/q8_0/mxfp4/q4_k matrices rewritten into 8-row groups at load (kernels_q8.h rows8): " + std::to_string(matrices_) +
         " (" + format_bytes(static_cast<double>(bytes_)) + ") in " + format_duration_s(seconds_) + ", in load_s";
}

}  // namespace moebench
