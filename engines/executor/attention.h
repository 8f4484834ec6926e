// attention.h — the three attention kinds of a card, with their caches, as
// the executor runs them for a batch of consecutive tokens:
//   MLA  (DeepSeek-V3 / Kimi K3): the latent c (kv_lora_rank) and the rope key
//        (qk_rope_head_dim) of every past token are cached in kv_dtype (bf16);
//        decode uses the absorbed form — per head q_lat = W_UKᵀ q_nope, scores
//        q_lat·c_t + q_rope·kr_t over the whole context, o_lat = Σ p_t c_t,
//        v = W_UV o_lat — so its cost grows with context;
//   GQA: K and V of every past token cached (bf16), per head scores and a
//        weighted sum over the context;
//   linear (Kimi Delta Attention / gated delta rule): a fixed fp32 state per
//        head (key × value) plus the short-conv history; per token the state
//        decays per channel, takes a delta-rule update and is read by the
//        query, so its cost does not depend on context.
// Rotary position embedding is left out (a few multiplies per head and
// token, far below everything here); so is causal masking inside a prefill
// chunk beyond processing tokens in order (each token attends to the cache
// as it stands, which includes the chunk's earlier tokens).
//
// fill_context() writes synthetic state for `tokens` past tokens (seeded,
// not zeros), outside every timing window. Caches are allocated for the
// context plus the tokens of the run up front (no allocation per token).
//
// Every layer counts its work (AttentionWork): the cached positions its
// queries visit and the cache/state bytes those visits read. These are what
// tests assert about context length (never decode speed) and what the
// kv_positions_per_token / kv_bytes_per_token columns report.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/executor/tensor_ops.h"
#include "vocab/model_card.h"

namespace moebench {

// The trunk tensors of one layer's attention (unused ones stay invalid).
struct AttentionWeights {
  AttentionKind kind = AttentionKind::kGqa;
  // MLA
  TensorView q_a, q_a_norm, q_b, q, kv_a, kv_a_norm, kv_b, output, gate;
  // GQA uses q, k, v, output
  TensorView k, v;
  // linear uses q, k, v, output, gate (full) or gate_a/gate_b, plus:
  TensorView beta, decay, decay_a, decay_b, decay_bias, gate_a, gate_b, conv, output_norm;
};

// Work done by one layer's attention since it was made, counted per token
// (not per head):
//   kv_positions — cached positions a token's queries read: in an MLA or
//     GQA layer a token at position n visits n + 1 (the whole cache, itself
//     included); a linear layer has no per-position cache and visits 0;
//   kv_bytes — bytes of KV cache or recurrent state those reads cover, each
//     byte once per token however many heads share it: GQA K and V rows of
//     every visited position (kv_heads × head_dim × 2 × bf16), MLA latent +
//     rope rows (kv_lora_rank + qk_rope_head_dim, bf16), linear its whole
//     fp32 state (heads × key × value) plus the conv history it read.
struct AttentionWork {
  std::uint64_t kv_positions = 0;
  std::uint64_t kv_bytes = 0;
  AttentionWork& operator+=(const AttentionWork& o) {
    kv_positions += o.kv_positions;
    kv_bytes += o.kv_bytes;
    return *this;
  }
};

class AttentionLayer {
 public:
  virtual ~AttentionLayer() = default;
  // Reserves cache room for `max_tokens` tokens in all.
  virtual void reserve(std::int64_t max_tokens) = 0;
  // Synthetic history of `tokens` tokens (replaces what was there).
  virtual void fill_context(std::int64_t tokens, std::uint64_t seed) = 0;
  // x: batch × hidden (normalized input), out: batch × hidden.
  virtual void forward(TensorOps& ops, const float* x, std::size_t batch, float* out) = 0;
  virtual std::int64_t tokens() const = 0;
  // Bytes of cache/state held now.
  virtual std::uint64_t cache_bytes() const = 0;
  // Points the layer at other copies of its weights (same shapes): a
  // streamed trunk layer lands in a different staging buffer each time.
  virtual void rebind(const AttentionWeights& w) = 0;
  // Counted by forward() (fill_context() is not attention work).
  const AttentionWork& work() const { return work_; }

 protected:
  AttentionWork work_;
};

// `window`: a GQA layer's sliding window (LayerGroup::window; 0 none).
std::unique_ptr<AttentionLayer> make_attention(const ModelCard& card, AttentionKind kind, const AttentionWeights& w,
                                               std::uint64_t window = 0);

}  // namespace moebench
