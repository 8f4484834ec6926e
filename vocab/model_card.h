// model_card.h — ModelCard: the geometry of an MoE model, and its scaling.
//
// A card states shapes (layers, attention kind per layer, expert matrix
// dimensions, vocab, quant of experts and trunk); every byte count is derived
// from those shapes and the quant table, never typed in. A card can be scaled
// to fewer layers and/or fewer experts per layer while keeping the per-expert
// geometry and top-k, so a scaled run has the real model's record sizes and
// per-token shape. Loading is strict (see json_reader.h).
//
// Derived numbers (parameter_counts, trunk, cache_bytes, decode_bytes, ...)
// follow one tensor inventory, written out in model_card.cpp:
//   * attention per kind: MLA (q_a/q_b or q, kv_a, kv_b, o, optional
//     full-rank output gate), GQA (q, k, v, o), linear/delta attention (q, k,
//     v, o, beta, decay gate and output gate, full or low rank, short conv);
//   * per MoE layer: router (experts x hidden), shared experts (3 matrices of
//     hidden x shared_intermediate each), and, when expert_dim != hidden_size
//     (a latent MoE), a hidden->latent and a latent->hidden projection plus
//     a latent RMSNorm; routed experts are 3 matrices of expert_dim x
//     expert_intermediate;
//   * dense layers: gate/up/down of hidden x intermediate;
//   * two RMSNorms per layer, a final norm, the embedding table and the
//     lm_head (absent when tied).
// Storage: 2-D weights are stored in trunk_quant. Small tensors — every norm
// and bias vector, conv taps, per-head decay scalars and the router matrix —
// stay at 16 bits (bf16; trunk_quant itself when that is f32/f16) whatever
// the trunk quant, as the safetensors checkpoints store them and as
// llama.cpp never block-quantizes them. Router correction biases, qk-norms
// and similar vectors of a few hundred values per layer are left out (under
// 1e-6 of any card). The KV cache and the linear-attention state are
// described at kv_bytes_per_token() and linear_state_bytes().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

// Size arithmetic on card figures: checked (nullopt on overflow) and
// saturating (UINT64_MAX on overflow, for cards that did not come through
// the loader). A loaded card never saturates.
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b);
std::uint64_t sat_add(std::uint64_t a, std::uint64_t b);

enum class AttentionKind { kMla, kGqa, kLinear };
enum class FfnKind { kMoe, kDense };

const char* to_string(AttentionKind k);
const char* to_string(FfnKind k);

struct LayerGroup {
  int count = 0;
  AttentionKind attention = AttentionKind::kGqa;
  FfnKind ffn = FfnKind::kMoe;
  // Sliding-window attention (GQA only): each token attends to, and the
  // cache keeps, the last `window` positions; 0 attends to every position.
  std::uint64_t window = 0;
};

struct MlaParams {       // multi-head latent attention (DeepSeek-V3 style)
  int heads = 0;
  int q_lora_rank = 0;   // 0 = no query compression
  int kv_lora_rank = 0;  // latent cached per token
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;  // rope key part, cached per token too
  int v_head_dim = 0;
  bool output_gate = false;  // full-rank sigmoid gate hidden -> heads*v_head_dim (Kimi K3)
};

struct GqaParams {
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
};

struct LinearParams {  // linear / delta attention with a fixed-size recurrent state
  int heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;  // short causal conv over the q/k/v channels (0 = none)
  // Per-channel decay gate (hidden -> heads*key_head_dim) and output gate
  // (hidden -> heads*value_head_dim): absent = none, 0 = full rank, r > 0 =
  // low rank through r (two matrices). Kimi Linear: both 128; Kimi K3: decay
  // 128, output full.
  std::optional<int> decay_gate_rank;
  std::optional<int> output_gate_rank;
};

struct MoeParams {
  int experts = 0;              // routed experts per MoE layer
  int active = 0;               // routed experts chosen per token (top-k)
  int shared = 0;               // always-active shared experts per MoE layer
  int expert_dim = 0;           // input/output width of an expert (hidden or latent)
  int expert_intermediate = 0;  // gate/up output width, down input width
  int shared_intermediate = 0;  // width of each shared expert
};

struct DenseFfnParams {
  int intermediate = 0;
};

// Parameter counts by component (weights, not bytes).
struct ParamCounts {
  std::uint64_t routed_experts = 0;  // all routed experts of all MoE layers
  std::uint64_t routed_active = 0;   // top-k of them, per token
  std::uint64_t shared_experts = 0;
  std::uint64_t dense_ffn = 0;
  std::uint64_t attention_mla = 0;
  std::uint64_t attention_gqa = 0;
  std::uint64_t attention_linear = 0;
  std::uint64_t latent_projections = 0;  // latent MoE: hidden<->latent + latent norm
  std::uint64_t router = 0;
  std::uint64_t norms = 0;        // per-layer RMSNorms + final norm
  std::uint64_t embedding = 0;    // input embedding table
  std::uint64_t lm_head = 0;      // 0 when tied to the embedding
  std::uint64_t trunk() const;    // everything but routed experts
  std::uint64_t total() const { return sat_add(trunk(), routed_experts); }
  // Weights a token uses: the trunk (embedding table included, as model
  // cards count "activated" parameters) plus the top-k routed experts.
  std::uint64_t active() const { return sat_add(trunk(), routed_active); }
};

// Bytes of everything but the routed experts, in trunk_quant (small tensors
// at 16 bits, see above).
struct TrunkBytes {
  std::uint64_t layers = 0;         // per-layer weights: the "dense trunk"
  std::uint64_t embedding = 0;      // input table
  std::uint64_t lm_head = 0;        // 0 when tied
  std::uint64_t output_norm = 0;
  std::uint64_t embedding_row = 0;  // one row: what a token's lookup reads
  std::uint64_t total() const { return sat_add(sat_add(layers, embedding), sat_add(lm_head, output_norm)); }
  // Bytes outside the layers that every decode token reads: lm_head (or the
  // tied table), final norm and the token's embedding row.
  std::uint64_t head_per_token() const;
};

// Weight bytes one decode token reads, split by where they come from.
struct TokenTraffic {
  std::uint64_t memory = 0;   // resident weights read from RAM/VRAM
  std::uint64_t storage = 0;  // weights read from storage
  std::uint64_t total() const { return sat_add(memory, storage); }
};

struct DecodeBytes {
  TokenTraffic all_resident;      // every weight in memory
  TokenTraffic experts_streamed;  // trunk resident, routed experts from storage
  TokenTraffic all_streamed;      // per-layer trunk and routed experts from storage;
                                  // embedding/lm_head/final norm stay resident
};

struct SourceNote {
  std::string fact;
  std::string source;
};

struct ModelCard {
  std::string name;
  std::string description;
  bool geometry_approximate = false;
  std::vector<SourceNote> sources;

  int hidden_size = 0;
  int vocab_size = 0;
  bool tied_embeddings = false;
  std::vector<LayerGroup> layers;
  std::optional<MlaParams> mla;
  std::optional<GqaParams> gqa;
  std::optional<LinearParams> linear;
  MoeParams moe;
  std::optional<DenseFfnParams> dense_ffn;

  std::string expert_quant;  // native quant of routed experts, e.g. "mxfp4"
  std::string trunk_quant;   // quant of everything else, e.g. "bf16"
  std::string kv_dtype;      // element type of the KV cache, e.g. "bf16"

  int total_layers() const;
  int moe_layers() const;
  // Bytes of one routed expert (gate + up + down) in `quant`.
  std::uint64_t expert_bytes(const std::string& quant) const;
  // Routed-expert bytes one decode token needs (active × MoE layers × expert).
  std::uint64_t routed_bytes_per_token(const std::string& quant) const;
  // Routed-expert bytes of the whole model in `quant`.
  std::uint64_t routed_bytes_total(const std::string& quant) const;

  ParamCounts parameter_counts() const;
  TrunkBytes trunk() const;
  // Experts in `quant`, trunk in trunk_quant: the size of a container (or, at
  // expert_quant, of the native checkpoint). 0 for an unknown quant.
  std::uint64_t container_bytes(const std::string& quant) const;
  // KV cache bytes each token adds: per MLA layer (kv_lora_rank +
  // qk_rope_head_dim) values, per GQA layer 2 x kv_heads x head_dim values,
  // in kv_dtype. Linear layers add nothing.
  std::uint64_t kv_bytes_per_token() const;
  // Fixed recurrent state of the linear-attention layers, fp32: per layer
  // heads x key_head_dim x value_head_dim x 4 B, plus the short-conv state,
  // (conv_kernel - 1) past inputs of every q/k/v channel x 4 B.
  std::uint64_t linear_state_bytes() const;
  // FLOPs one token's attention spends per context position it attends to,
  // summed over layers, 2 flops per multiply-add: GQA's QK and PV products,
  // 2 × heads × 2 × head_dim; MLA in its absorbed form (what llama.cpp,
  // ik_llama.cpp and moebench's executor decode with: the cache holds the
  // latent, never decompressed heads), each head scores the latent and its
  // rope key and sums the latents back, 2 × heads × (2 × kv_lora_rank +
  // qk_rope_head_dim); linear layers: none.
  std::uint64_t attention_flops_per_position() const;
  // KV bytes one token reads at `context` cached positions: per layer the
  // positions it attends to (at most its window) × its per-position bytes.
  // Without sliding windows, kv_bytes_per_token() × context.
  std::uint64_t kv_bytes_at(std::uint64_t context) const;
  // Attention FLOPs of one token at `context` cached positions, each layer
  // over the positions it attends to (attention_flops_per_position's terms).
  std::uint64_t attention_flops_at(std::uint64_t context) const;
  // KV at `context` tokens plus the fixed state.
  std::uint64_t cache_bytes(std::uint64_t context) const;
  // Weight bytes per decode token with routed experts in `quant`.
  DecodeBytes decode_bytes(const std::string& quant) const;
};

// A scaled view of a card: fewer layers and/or experts, same expert geometry.
struct Scale {
  std::optional<int> layers;
  std::optional<int> experts;
  bool is_identity() const { return !layers && !experts; }
  std::string to_string() const;  // "full", "layers=4,experts=112"
};

// Parses "layers=4,experts=112" (either part optional) or "full".
Expected<Scale> parse_scale(const std::string& text);

// Applies `scale`. Layer groups shrink in proportion (largest remainder),
// keeping at least one MoE layer; experts may not drop below top-k.
Expected<ModelCard> apply_scale(const ModelCard& card, const Scale& scale);

// Bounds the loader holds a card to, so that every derived count and byte
// figure fits in 64 bits with room to spare (and is exact as a double):
// at most 2^16 layers, and at most 2^50 weights (about 1.1e15, 500x the
// largest published MoE) in the trunk, in the routed experts, in any one
// tensor, in the KV cache of one token and in the linear-attention state.
inline constexpr int kMaxCardLayers = 1 << 16;
inline constexpr std::uint64_t kMaxCardWeights = 1ull << 50;

// Strict loaders. `file` labels errors. Besides each field's own range, the
// loader rejects a card whose derived sizes exceed the bounds above, naming
// the JSON path of the largest field involved.
std::optional<ModelCard> load_model_card(const Json& j, Diagnostics& d);
Expected<ModelCard> load_model_card_file(const std::string& path);

// Checks that `quant` can store the card's expert matrices (row lengths are
// multiples of its block size). Empty string = ok, else a message.
std::string quant_fits_card(const ModelCard& card, const std::string& quant);

}  // namespace moebench
