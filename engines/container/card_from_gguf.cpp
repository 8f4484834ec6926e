// card_from_gguf.cpp — see card_from_gguf.h.
#include "engines/container/card_from_gguf.h"

#include <map>

#include "engines/container/ggml_types.h"

namespace moebench {
namespace {

std::string layer_tensor(int layer, const char* suffix) { return "blk." + std::to_string(layer) + "." + suffix; }

}  // namespace

// The largest value a card field holds (see the card loader).
constexpr std::uint64_t kMaxField = 1u << 30;

Expected<DerivedCard> card_from_gguf(const GgufFile& f) {
  DerivedCard out;
  ModelCard& c = out.card;
  const std::string label = gguf_printable(f.label);
  const auto raw_arch = f.get_string("general.architecture");
  if (!raw_arch) return make_error(label + ": no general.architecture key; not a llama.cpp model file");
  const std::string* arch = &*raw_arch;
  auto need = [&](const std::string& suffix) -> Expected<int> {
    const std::string key = *arch + "." + suffix;
    const auto v = f.get_uint(key);
    if (!v || *v == 0 || *v > kMaxField) {
      return make_error(label + ": metadata \"" + gguf_printable(key) +
                        "\" is missing or not a positive integer up to 2^30; cannot derive a card");
    }
    return static_cast<int>(*v);
  };
  // Optional keys: 0 when absent; out of range is an error (reported once).
  std::string bad_key;
  auto optional_key = [&](const std::string& suffix) -> int {
    const std::string key = *arch + "." + suffix;
    const auto v = f.get_uint(key);
    if (v && *v > kMaxField && bad_key.empty()) bad_key = key;
    return v && *v <= kMaxField ? static_cast<int>(*v) : 0;
  };
  // A tensor dimension as a card field.
  std::string bad_dim;
  auto dim = [&](const GgufTensorInfo* t, std::size_t i) -> int {
    const std::uint64_t v = i < t->ne.size() ? t->ne[i] : 0;
    if (v > kMaxField && bad_dim.empty()) {
      bad_dim = "tensor " + gguf_printable(t->name) + " dimension " + std::to_string(i) + " is " + std::to_string(v);
    }
    return v <= kMaxField ? static_cast<int>(v) : 0;
  };
  auto layers = need("block_count");
  if (!layers) return layers.error();
  if (static_cast<std::size_t>(*layers) > f.tensors.size()) {
    return make_error(label + ": metadata \"" + gguf_printable(*arch) + ".block_count\" is " + std::to_string(*layers) +
                      " but the file has only " + std::to_string(f.tensors.size()) +
                      " tensors; cannot derive a card");
  }
  auto hidden = need("embedding_length");
  if (!hidden) return hidden.error();
  auto experts = need("expert_count");
  if (!experts) return experts.error();
  auto active = need("expert_used_count");
  if (!active) return active.error();
  auto heads = need("attention.head_count");
  if (!heads) return heads.error();
  // Strings from the file need not be valid UTF-8; the card gets a printable copy.
  const auto name = f.get_string("general.name");
  c.name = gguf_printable(name ? *name : *arch);
  if (name && c.name != *name) {
    out.notes.push_back("general.name is not printable UTF-8 text; the card's name has its other bytes as \\xNN");
  }
  c.description = "Derived by moebench card from-gguf from " + label + " (architecture " + gguf_printable(*arch) + ")";
  c.geometry_approximate = false;
  c.hidden_size = *hidden;
  c.sources.push_back({"geometry", "GGUF metadata and tensor shapes of " + label});

  // Vocabulary: the embedding's row count.
  if (const GgufTensorInfo* emb = f.tensor("token_embd.weight"); emb != nullptr && emb->ne.size() == 2) {
    c.vocab_size = dim(emb, 1);
    c.trunk_quant = moebench_quant_for_ggml(emb->ggml_type).value_or("");
  } else {
    return make_error(label + ": no 2-D token_embd.weight tensor; cannot derive the vocabulary");
  }
  c.tied_embeddings = f.tensor("output.weight") == nullptr;

  // MoE geometry from the first layer that has routed experts.
  int moe_count = 0;
  int first_moe = -1;
  for (int l = 0; l < *layers; ++l) {
    if (f.tensor(layer_tensor(l, "ffn_gate_exps.weight")) != nullptr) {
      ++moe_count;
      if (first_moe < 0) first_moe = l;
    }
  }
  if (first_moe < 0) return make_error(label + ": no blk.N.ffn_gate_exps.weight tensor; not a mixture-of-experts model");
  const GgufTensorInfo* gate = f.tensor(layer_tensor(first_moe, "ffn_gate_exps.weight"));
  const GgufTensorInfo* down = f.tensor(layer_tensor(first_moe, "ffn_down_exps.weight"));
  if (gate->ne.size() != 3 || down == nullptr || down->ne.size() != 3) {
    return make_error(label + ": expert tensors of layer " + std::to_string(first_moe) +
                      " are not 3-D [in, out, experts]");
  }
  c.moe.expert_dim = dim(gate, 0);
  c.moe.expert_intermediate = dim(gate, 1);
  c.moe.experts = dim(gate, 2);
  if (c.moe.experts != *experts) {
    out.notes.push_back("expert_count metadata (" + std::to_string(*experts) + ") differs from the tensors (" +
                        std::to_string(c.moe.experts) + "); the tensors are used");
  }
  c.moe.active = *active;
  c.expert_quant = moebench_quant_for_ggml(down->ggml_type).value_or("");
  if (c.expert_quant.empty()) {
    const auto t = find_ggml_type(down->ggml_type);
    out.notes.push_back(std::string("expert type ") + (t ? t->name : "?") +
                        " is not one moebench computes with; expert_quant left empty (choose one in the sweep)");
  }
  if (const GgufTensorInfo* sh = f.tensor(layer_tensor(first_moe, "ffn_gate_shexp.weight")); sh != nullptr) {
    c.moe.shared = std::max(1, optional_key("expert_shared_count"));
    c.moe.shared_intermediate = dim(sh, 1) / c.moe.shared;
  }
  const int dense_layers = *layers - moe_count;
  if (dense_layers > 0) {
    for (int l = 0; l < *layers; ++l) {
      if (const GgufTensorInfo* g = f.tensor(layer_tensor(l, "ffn_gate.weight")); g != nullptr && g->ne.size() == 2) {
        c.dense_ffn = DenseFfnParams{dim(g, 1)};
        break;
      }
    }
    if (!c.dense_ffn) return make_error(label + ": " + std::to_string(dense_layers) + " layers without experts and no ffn_gate.weight");
  }

  // Attention: MLA when the file has a kv_lora_rank, else GQA.
  const int kv_lora = optional_key("attention.kv_lora_rank");
  AttentionKind kind = AttentionKind::kGqa;
  if (kv_lora > 0) {
    kind = AttentionKind::kMla;
    MlaParams m;
    m.heads = *heads;
    m.q_lora_rank = optional_key("attention.q_lora_rank");
    m.kv_lora_rank = kv_lora;
    m.qk_rope_head_dim = optional_key("rope.dimension_count");
    const int key_len = optional_key("attention.key_length");
    m.qk_nope_head_dim = key_len - m.qk_rope_head_dim;
    m.v_head_dim = optional_key("attention.value_length");
    if (m.qk_rope_head_dim <= 0 || m.qk_nope_head_dim <= 0 || m.v_head_dim <= 0) {
      return make_error(label + ": MLA metadata (rope.dimension_count, attention.key_length, attention.value_length) incomplete");
    }
    c.mla = m;
  } else {
    GqaParams g;
    g.heads = *heads;
    g.kv_heads = optional_key("attention.head_count_kv");
    if (g.kv_heads == 0) g.kv_heads = g.heads;
    g.head_dim = optional_key("attention.key_length");
    if (g.head_dim == 0) {
      g.head_dim = *hidden / *heads;
      out.notes.push_back("attention.key_length missing: head_dim = embedding_length / head_count");
    }
    c.gqa = g;
  }
  // Layer groups in file order: runs of (attention kind, dense|moe).
  for (int l = 0; l < *layers; ++l) {
    const FfnKind ffn = f.tensor(layer_tensor(l, "ffn_gate_exps.weight")) != nullptr ? FfnKind::kMoe : FfnKind::kDense;
    if (!c.layers.empty() && c.layers.back().ffn == ffn) {
      ++c.layers.back().count;
    } else {
      c.layers.push_back({1, kind, ffn});
    }
  }
  if (!bad_key.empty()) {
    return make_error(label + ": metadata \"" + gguf_printable(bad_key) +
                      "\" is above 2^30, more than a card field holds; cannot derive a card");
  }
  if (!bad_dim.empty()) return make_error(label + ": " + bad_dim + ", above 2^30 (more than a card field holds); cannot derive a card");
  c.kv_dtype = "f16";
  out.notes.push_back("kv_dtype assumed f16 (llama.cpp's default KV cache type)");
  if (c.trunk_quant.empty()) c.trunk_quant = "bf16";
  return out;
}

nlohmann::ordered_json model_card_to_json(const ModelCard& c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["name"] = c.name;
  j["description"] = c.description;
  j["geometry"] = c.geometry_approximate ? "approximate" : "exact";
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const SourceNote& s : c.sources) sources.push_back({{"fact", s.fact}, {"source", s.source}});
  j["sources"] = sources;
  j["hidden_size"] = c.hidden_size;
  j["vocab_size"] = c.vocab_size;
  j["tied_embeddings"] = c.tied_embeddings;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerGroup& g : c.layers) {
    layers.push_back({{"count", g.count}, {"attention", to_string(g.attention)}, {"ffn", to_string(g.ffn)}});
    if (g.window > 0) layers.back()["window"] = g.window;
  }
  j["layers"] = layers;
  if (c.mla) {
    j["mla"] = {{"heads", c.mla->heads}, {"q_lora_rank", c.mla->q_lora_rank}, {"kv_lora_rank", c.mla->kv_lora_rank},
                {"qk_nope_head_dim", c.mla->qk_nope_head_dim}, {"qk_rope_head_dim", c.mla->qk_rope_head_dim},
                {"v_head_dim", c.mla->v_head_dim}};
    if (c.mla->output_gate) j["mla"]["output_gate"] = true;
  }
  if (c.gqa) j["gqa"] = {{"heads", c.gqa->heads}, {"kv_heads", c.gqa->kv_heads}, {"head_dim", c.gqa->head_dim}};
  if (c.linear) {
    j["linear"] = {{"heads", c.linear->heads}, {"key_head_dim", c.linear->key_head_dim},
                   {"value_head_dim", c.linear->value_head_dim}};
    if (c.linear->conv_kernel > 0) j["linear"]["conv_kernel"] = c.linear->conv_kernel;
    if (c.linear->decay_gate_rank) j["linear"]["decay_gate_rank"] = *c.linear->decay_gate_rank;
    if (c.linear->output_gate_rank) j["linear"]["output_gate_rank"] = *c.linear->output_gate_rank;
  }
  nlohmann::ordered_json moe = {{"experts", c.moe.experts}, {"active", c.moe.active}, {"shared", c.moe.shared},
                                {"expert_dim", c.moe.expert_dim}, {"expert_intermediate", c.moe.expert_intermediate}};
  if (c.moe.shared > 0) moe["shared_intermediate"] = c.moe.shared_intermediate;
  j["moe"] = moe;
  if (c.dense_ffn) j["dense_ffn"] = {{"intermediate", c.dense_ffn->intermediate}};
  j["expert_quant"] = c.expert_quant;
  j["trunk_quant"] = c.trunk_quant;
  j["kv_dtype"] = c.kv_dtype;
  return j;
}

}  // namespace moebench
