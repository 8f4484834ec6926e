// model_card.h — ModelCard: the geometry of an MoE model, and its scaling.
//
// A card states shapes (layers, attention kind per layer, expert matrix
// dimensions, vocab, quant of experts and trunk); every byte count is derived
// from those shapes and the quant table, never typed in. A card can be scaled
// to fewer layers and/or fewer experts per layer while keeping the per-expert
// geometry and top-k, so a scaled run has the real model's record sizes and
// per-token shape. Loading is strict (see json_reader.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json_reader.h"

namespace moebench {

enum class AttentionKind { kMla, kGqa, kLinear };
enum class FfnKind { kMoe, kDense };

const char* to_string(AttentionKind k);
const char* to_string(FfnKind k);

struct LayerGroup {
  int count = 0;
  AttentionKind attention = AttentionKind::kGqa;
  FfnKind ffn = FfnKind::kMoe;
};

struct MlaParams {       // multi-head latent attention (DeepSeek-V3 style)
  int heads = 0;
  int q_lora_rank = 0;   // 0 = no query compression
  int kv_lora_rank = 0;  // latent cached per token
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;  // rope key part, cached per token too
  int v_head_dim = 0;
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

// Strict loaders. `file` labels errors.
std::optional<ModelCard> load_model_card(const Json& j, Diagnostics& d);
Expected<ModelCard> load_model_card_file(const std::string& path);

// Checks that `quant` can store the card's expert matrices (row lengths are
// multiples of its block size). Empty string = ok, else a message.
std::string quant_fits_card(const ModelCard& card, const std::string& quant);

}  // namespace moebench
