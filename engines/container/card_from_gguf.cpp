// card_from_gguf.cpp — see card_from_gguf.h.
#include "engines/container/card_from_gguf.h"

#include <map>

#include "engines/container/ggml_types.h"

namespace moebench {
namespace {

std::string layer_tensor(int layer, const char* suffix) { return "blk." + std::to_string(layer) + "." + suffix; }

// The largest value a card field holds (see the card loader).
constexpr std::uint64_t kMaxField = 1u << 30;

// The file's metadata under its architecture's prefix, and its tensors'
// dimensions, as card fields. Required keys fail at once; an optional key
// or a dimension above kMaxField is remembered and reported once, at the end.
class GgufFields {
 public:
  GgufFields(const GgufFile& f, std::string arch) : f_(f), arch_(std::move(arch)), label_(gguf_printable(f.label)) {}
  const std::string& arch() const { return arch_; }
  const std::string& label() const { return label_; }

  Expected<int> need(const std::string& suffix) const {
    const std::string key = arch_ + "." + suffix;
    const auto v = f_.get_uint(key);
    if (!v || *v == 0 || *v > kMaxField) {
      return make_error(label_ + ": metadata \"" + gguf_printable(key) +
                        "\" is missing or not a positive integer up to 2^30; cannot derive a card");
    }
    return static_cast<int>(*v);
  }
  // 0 when absent.
  int optional(const std::string& suffix) {
    const std::string key = arch_ + "." + suffix;
    const auto v = f_.get_uint(key);
    if (v && *v > kMaxField && bad_key_.empty()) bad_key_ = key;
    return v && *v <= kMaxField ? static_cast<int>(*v) : 0;
  }
  int dim(const GgufTensorInfo* t, std::size_t i) {
    const std::uint64_t v = i < t->ne.size() ? t->ne[i] : 0;
    if (v > kMaxField && bad_dim_.empty()) {
      bad_dim_ = "tensor " + gguf_printable(t->name) + " dimension " + std::to_string(i) + " is " + std::to_string(v);
    }
    return v <= kMaxField ? static_cast<int>(v) : 0;
  }
  // The first value that was out of range, as an error.
  Status out_of_range() const {
    if (!bad_key_.empty()) {
      return make_error(label_ + ": metadata \"" + gguf_printable(bad_key_) +
                        "\" is above 2^30, more than a card field holds; cannot derive a card");
    }
    if (!bad_dim_.empty()) {
      return make_error(label_ + ": " + bad_dim_ + ", above 2^30 (more than a card field holds); cannot derive a card");
    }
    return Status::success();
  }

 private:
  const GgufFile& f_;
  std::string arch_, label_, bad_key_, bad_dim_;
};

// The geometry keys every card needs.
struct GgufGeometry {
  int layers = 0, hidden = 0, experts = 0, active = 0, heads = 0;
};

Expected<GgufGeometry> read_geometry(const GgufFile& f, const GgufFields& k) {
  GgufGeometry g;
  std::pair<const char*, int*> keys[] = {{"block_count", &g.layers},
                                         {"embedding_length", &g.hidden},
                                         {"expert_count", &g.experts},
                                         {"expert_used_count", &g.active},
                                         {"attention.head_count", &g.heads}};
  for (auto& [suffix, field] : keys) {
    auto v = k.need(suffix);
    if (!v) return v.error();
    *field = *v;
    if (field == &g.layers && static_cast<std::size_t>(g.layers) > f.tensors.size()) {
      return make_error(k.label() + ": metadata \"" + gguf_printable(k.arch()) + ".block_count\" is " +
                        std::to_string(g.layers) + " but the file has only " + std::to_string(f.tensors.size()) +
                        " tensors; cannot derive a card");
    }
  }
  return g;
}

// Routed experts from the first layer that has them (shape, quant, shared
// experts), and the dense FFN of the layers without.
Status read_moe(const GgufFile& f, GgufFields& k, const GgufGeometry& g, DerivedCard& out) {
  ModelCard& c = out.card;
  int moe_count = 0;
  int first_moe = -1;
  for (int l = 0; l < g.layers; ++l) {
    if (f.tensor(layer_tensor(l, "ffn_gate_exps.weight")) != nullptr) {
      ++moe_count;
      if (first_moe < 0) first_moe = l;
    }
  }
  if (first_moe < 0) return make_error(k.label() + ": no blk.N.ffn_gate_exps.weight tensor; not a mixture-of-experts model");
  const GgufTensorInfo* gate = f.tensor(layer_tensor(first_moe, "ffn_gate_exps.weight"));
  const GgufTensorInfo* down = f.tensor(layer_tensor(first_moe, "ffn_down_exps.weight"));
  if (gate->ne.size() != 3 || down == nullptr || down->ne.size() != 3) {
    return make_error(k.label() + ": expert tensors of layer " + std::to_string(first_moe) +
                      " are not 3-D [in, out, experts]");
  }
  c.moe.expert_dim = k.dim(gate, 0);
  c.moe.expert_intermediate = k.dim(gate, 1);
  c.moe.experts = k.dim(gate, 2);
  if (c.moe.experts != g.experts) {
    out.notes.push_back("expert_count metadata (" + std::to_string(g.experts) + ") differs from the tensors (" +
                        std::to_string(c.moe.experts) + "); the tensors are used");
  }
  c.moe.active = g.active;
  c.expert_quant = moebench_quant_for_ggml(down->ggml_type).value_or("");
  if (c.expert_quant.empty()) {
    const auto t = find_ggml_type(down->ggml_type);
    out.notes.push_back(std::string("expert type ") + (t ? t->name : "?") +
                        " is not one moebench computes with; expert_quant left empty (choose one in the sweep)");
  }
  if (const GgufTensorInfo* sh = f.tensor(layer_tensor(first_moe, "ffn_gate_shexp.weight")); sh != nullptr) {
    c.moe.shared = std::max(1, k.optional("expert_shared_count"));
    c.moe.shared_intermediate = k.dim(sh, 1) / c.moe.shared;
  }
  const int dense_layers = g.layers - moe_count;
  if (dense_layers <= 0) return Status::success();
  for (int l = 0; l < g.layers; ++l) {
    if (const GgufTensorInfo* d = f.tensor(layer_tensor(l, "ffn_gate.weight")); d != nullptr && d->ne.size() == 2) {
      c.dense_ffn = DenseFfnParams{k.dim(d, 1)};
      return Status::success();
    }
  }
  return make_error(k.label() + ": " + std::to_string(dense_layers) + " layers without experts and no ffn_gate.weight");
}

// Attention: MLA when the file has a kv_lora_rank, else GQA.
Expected<AttentionKind> read_attention(GgufFields& k, const GgufGeometry& g, DerivedCard& out) {
  ModelCard& c = out.card;
  const int kv_lora = k.optional("attention.kv_lora_rank");
  if (kv_lora > 0) {
    MlaParams m;
    m.heads = g.heads;
    m.q_lora_rank = k.optional("attention.q_lora_rank");
    m.kv_lora_rank = kv_lora;
    m.qk_rope_head_dim = k.optional("rope.dimension_count");
    const int key_len = k.optional("attention.key_length");
    m.qk_nope_head_dim = key_len - m.qk_rope_head_dim;
    m.v_head_dim = k.optional("attention.value_length");
    if (m.qk_rope_head_dim <= 0 || m.qk_nope_head_dim <= 0 || m.v_head_dim <= 0) {
      return make_error(k.label() +
                        ": MLA metadata (rope.dimension_count, attention.key_length, attention.value_length) incomplete");
    }
    c.mla = m;
    return AttentionKind::kMla;
  }
  GqaParams q;
  q.heads = g.heads;
  q.kv_heads = k.optional("attention.head_count_kv");
  if (q.kv_heads == 0) q.kv_heads = q.heads;
  q.head_dim = k.optional("attention.key_length");
  if (q.head_dim == 0) {
    q.head_dim = g.hidden / g.heads;
    out.notes.push_back("attention.key_length missing: head_dim = embedding_length / head_count");
  }
  c.gqa = q;
  return AttentionKind::kGqa;
}

}  // namespace

Expected<DerivedCard> card_from_gguf(const GgufFile& f) {
  const auto raw_arch = f.get_string("general.architecture");
  if (!raw_arch) return make_error(gguf_printable(f.label) + ": no general.architecture key; not a llama.cpp model file");
  GgufFields k(f, *raw_arch);
  const std::string& label = k.label();
  auto g = read_geometry(f, k);
  if (!g) return g.error();
  DerivedCard out;
  ModelCard& c = out.card;
  // Strings from the file need not be valid UTF-8; the card gets a printable copy.
  const auto name = f.get_string("general.name");
  c.name = gguf_printable(name ? *name : *raw_arch);
  if (name && c.name != *name) {
    out.notes.push_back("general.name is not printable UTF-8 text; the card's name has its other bytes as \\xNN");
  }
  c.description = "Derived by moebench card from-gguf from " + label + " (architecture " + gguf_printable(*raw_arch) + ")";
  c.geometry_approximate = false;
  c.hidden_size = g->hidden;
  c.sources.push_back({"geometry", "GGUF metadata and tensor shapes of " + label});
  // Vocabulary: the embedding's row count.
  const GgufTensorInfo* emb = f.tensor("token_embd.weight");
  if (emb == nullptr || emb->ne.size() != 2) {
    return make_error(label + ": no 2-D token_embd.weight tensor; cannot derive the vocabulary");
  }
  c.vocab_size = k.dim(emb, 1);
  c.trunk_quant = moebench_quant_for_ggml(emb->ggml_type).value_or("");
  c.tied_embeddings = f.tensor("output.weight") == nullptr;
  if (Status st = read_moe(f, k, *g, out); !st) return st.error();
  auto kind = read_attention(k, *g, out);
  if (!kind) return kind.error();
  // Layer groups in file order: runs of (attention kind, dense|moe).
  for (int l = 0; l < g->layers; ++l) {
    const FfnKind ffn = f.tensor(layer_tensor(l, "ffn_gate_exps.weight")) != nullptr ? FfnKind::kMoe : FfnKind::kDense;
    if (!c.layers.empty() && c.layers.back().ffn == ffn) {
      ++c.layers.back().count;
    } else {
      c.layers.push_back({1, *kind, ffn});
    }
  }
  if (Status st = k.out_of_range(); !st) return st.error();
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
