// model_card.cpp — see model_card.h: loading, scaling, derived numbers.
// The report of `moebench card show` is card_report.cpp.
#include "vocab/model_card.h"

#include "vocab/card_tensors.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

const char* to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::kMla: return "mla";
    case AttentionKind::kGqa: return "gqa";
    case AttentionKind::kLinear: return "linear";
  }
  return "?";
}

const char* to_string(FfnKind k) { return k == FfnKind::kMoe ? "moe" : "dense"; }

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b).value_or(UINT64_MAX); }

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

namespace {

using u64 = std::uint64_t;

// A layer count (a sum of ints) without int overflow: clamped to INT_MAX.
int clamp_layers(std::int64_t n) { return static_cast<int>(std::min<std::int64_t>(n, INT32_MAX)); }

// Bytes of `rows` rows of `row_len` weights in `f` (a partial block rounds up).
u64 rows_bytes(const QuantFormat& f, u64 rows, u64 row_len) {
  const u64 blocks = row_len / f.block_weights + (row_len % f.block_weights != 0 ? 1 : 0);
  return sat_mul(rows, sat_mul(blocks, f.block_bytes));
}

}  // namespace

int ModelCard::total_layers() const {
  std::int64_t n = 0;
  for (const LayerGroup& g : layers) n += g.count;
  return clamp_layers(n);
}

int ModelCard::moe_layers() const {
  std::int64_t n = 0;
  for (const LayerGroup& g : layers) n += g.ffn == FfnKind::kMoe ? g.count : 0;
  return clamp_layers(n);
}

std::uint64_t ModelCard::expert_bytes(const std::string& quant) const {
  const auto f = find_quant(quant);
  if (!f) return 0;
  const u64 weights = sat_mul(static_cast<u64>(moe.expert_dim), static_cast<u64>(moe.expert_intermediate));
  return sat_mul(3, sat_mul(weights / f->block_weights, f->block_bytes));
}

std::uint64_t ModelCard::routed_bytes_per_token(const std::string& quant) const {
  return sat_mul(sat_mul(static_cast<u64>(moe.active), static_cast<u64>(moe_layers())), expert_bytes(quant));
}

std::uint64_t ModelCard::routed_bytes_total(const std::string& quant) const {
  return sat_mul(sat_mul(static_cast<u64>(moe.experts), static_cast<u64>(moe_layers())), expert_bytes(quant));
}

std::uint64_t ParamCounts::trunk() const {
  u64 n = 0;
  for (u64 v : {shared_experts, dense_ffn, attention_mla, attention_gqa, attention_linear, latent_projections, router,
                norms, embedding, lm_head}) {
    n = sat_add(n, v);
  }
  return n;
}

std::uint64_t TrunkBytes::head_per_token() const {
  return lm_head > 0 ? sat_add(sat_add(lm_head, output_norm), embedding_row) : sat_add(embedding, output_norm);
}

ParamCounts ModelCard::parameter_counts() const {
  ParamCounts p;
  const u64 per_expert =
      sat_mul(3, sat_mul(static_cast<u64>(moe.expert_dim), static_cast<u64>(moe.expert_intermediate)));
  p.routed_experts = sat_mul(sat_mul(per_expert, static_cast<u64>(moe.experts)), static_cast<u64>(moe_layers()));
  p.routed_active = sat_mul(sat_mul(per_expert, static_cast<u64>(moe.active)), static_cast<u64>(moe_layers()));
  for (const CardTensor& t : card_trunk_tensors(*this)) {
    const u64 n = sat_mul(t.rows, t.row_len);
    u64* sum = nullptr;
    switch (t.role) {
      case TensorRole::kMla: sum = &p.attention_mla; break;
      case TensorRole::kGqa: sum = &p.attention_gqa; break;
      case TensorRole::kLinear: sum = &p.attention_linear; break;
      case TensorRole::kShared: sum = &p.shared_experts; break;
      case TensorRole::kDense: sum = &p.dense_ffn; break;
      case TensorRole::kLatent: sum = &p.latent_projections; break;
      case TensorRole::kRouter: sum = &p.router; break;
      case TensorRole::kNorm: case TensorRole::kOutputNorm: sum = &p.norms; break;
      case TensorRole::kEmbedding: sum = &p.embedding; break;
      case TensorRole::kLmHead: sum = &p.lm_head; break;
    }
    if (sum != nullptr) *sum = sat_add(*sum, n);
  }
  return p;
}

TrunkBytes ModelCard::trunk() const {
  TrunkBytes b;
  const auto tf = find_quant(trunk_quant);
  if (!tf) return b;
  const QuantFormat sf = *find_quant(card_small_quant(*this));
  for (const CardTensor& t : card_trunk_tensors(*this)) {
    const u64 bytes = rows_bytes(t.small ? sf : *tf, t.rows, t.row_len);
    switch (t.role) {
      case TensorRole::kEmbedding: b.embedding = sat_add(b.embedding, bytes); break;
      case TensorRole::kLmHead: b.lm_head = sat_add(b.lm_head, bytes); break;
      case TensorRole::kOutputNorm: b.output_norm = sat_add(b.output_norm, bytes); break;
      default: b.layers = sat_add(b.layers, bytes); break;
    }
  }
  b.embedding_row = rows_bytes(*tf, 1, static_cast<u64>(hidden_size));
  return b;
}

std::uint64_t ModelCard::container_bytes(const std::string& quant) const {
  if (!find_quant(quant)) return 0;
  return sat_add(routed_bytes_total(quant), trunk().total());
}

namespace {

// Cached bytes per position of one layer of group `g` (0 for linear layers).
u64 group_kv_bytes(const ModelCard& c, const LayerGroup& g, const QuantFormat& f) {
  if (g.attention == AttentionKind::kMla && c.mla) {
    return rows_bytes(f, 1, static_cast<u64>(c.mla->kv_lora_rank) + static_cast<u64>(c.mla->qk_rope_head_dim));
  }
  if (g.attention == AttentionKind::kGqa && c.gqa) {
    return rows_bytes(f, 2 * static_cast<u64>(c.gqa->kv_heads), static_cast<u64>(c.gqa->head_dim));
  }
  return 0;
}

// Attention FLOPs per attended position of one layer of group `g`.
u64 group_attention_flops(const ModelCard& c, const LayerGroup& g) {
  if (g.attention == AttentionKind::kMla && c.mla) {
    const u64 dims = 2 * static_cast<u64>(c.mla->kv_lora_rank) + static_cast<u64>(c.mla->qk_rope_head_dim);
    return sat_mul(2 * static_cast<u64>(c.mla->heads), dims);
  }
  if (g.attention == AttentionKind::kGqa && c.gqa) return sat_mul(4 * static_cast<u64>(c.gqa->heads), static_cast<u64>(c.gqa->head_dim));
  return 0;
}

// The positions a layer of `g` attends to at `context` cached positions.
u64 attended(const LayerGroup& g, u64 context) { return g.window > 0 ? std::min(context, g.window) : context; }

}  // namespace

std::uint64_t ModelCard::kv_bytes_per_token() const {
  const auto f = find_quant(kv_dtype);
  if (!f) return 0;
  u64 total = 0;
  for (const LayerGroup& g : layers) total = sat_add(total, sat_mul(static_cast<u64>(g.count), group_kv_bytes(*this, g, *f)));
  return total;
}

std::uint64_t ModelCard::kv_bytes_at(std::uint64_t context) const {
  const auto f = find_quant(kv_dtype);
  if (!f) return 0;
  u64 total = 0;
  for (const LayerGroup& g : layers) {
    total = sat_add(total, sat_mul(sat_mul(static_cast<u64>(g.count), group_kv_bytes(*this, g, *f)), attended(g, context)));
  }
  return total;
}

std::uint64_t ModelCard::attention_flops_per_position() const {
  u64 total = 0;
  for (const LayerGroup& g : layers) total = sat_add(total, sat_mul(static_cast<u64>(g.count), group_attention_flops(*this, g)));
  return total;
}

std::uint64_t ModelCard::attention_flops_at(std::uint64_t context) const {
  u64 total = 0;
  for (const LayerGroup& g : layers) {
    total = sat_add(total, sat_mul(sat_mul(static_cast<u64>(g.count), group_attention_flops(*this, g)), attended(g, context)));
  }
  return total;
}

std::uint64_t ModelCard::linear_state_bytes() const {
  if (!linear) return 0;
  const u64 heads = static_cast<u64>(linear->heads);
  const u64 dk = static_cast<u64>(linear->key_head_dim);
  const u64 dv = static_cast<u64>(linear->value_head_dim);
  u64 per_layer = sat_mul(sat_mul(sat_mul(heads, dk), dv), 4);
  if (linear->conv_kernel > 1) {
    const u64 channels = sat_add(sat_mul(2, sat_mul(heads, dk)), sat_mul(heads, dv));
    per_layer = sat_add(per_layer, sat_mul(sat_mul(static_cast<u64>(linear->conv_kernel - 1), channels), 4));
  }
  u64 n = 0;
  for (const LayerGroup& g : layers) n += g.attention == AttentionKind::kLinear ? static_cast<u64>(g.count) : 0;
  return sat_mul(n, per_layer);
}

std::uint64_t ModelCard::cache_bytes(std::uint64_t context) const {
  return sat_add(kv_bytes_at(context), linear_state_bytes());
}

DecodeBytes ModelCard::decode_bytes(const std::string& quant) const {
  const TrunkBytes t = trunk();
  const u64 routed = routed_bytes_per_token(quant);
  const u64 head = t.head_per_token();
  DecodeBytes d;
  d.all_resident = {sat_add(sat_add(t.layers, head), routed), 0};
  d.experts_streamed = {sat_add(t.layers, head), routed};
  d.all_streamed = {head, sat_add(t.layers, routed)};
  return d;
}

std::string Scale::to_string() const {
  if (is_identity()) return "full";
  std::vector<std::string> parts;
  if (layers) parts.push_back("layers=" + std::to_string(*layers));
  if (experts) parts.push_back("experts=" + std::to_string(*experts));
  return join(parts, ",");
}

Expected<Scale> parse_scale(const std::string& text) {
  Scale s;
  if (text.empty() || text == "full") return s;
  for (const std::string& part : split(text, ',')) {
    const auto eq = part.find('=');
    const std::string key(trim(part.substr(0, eq)));
    if (eq == std::string::npos) {
      return make_error("scale \"" + text + "\": expected key=value pairs like "
                        "\"layers=4,experts=112\"");
    }
    const std::string value(trim(part.substr(eq + 1)));
    int v = 0;
    try {
      std::size_t used = 0;
      v = std::stoi(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      return make_error("scale \"" + text + "\": \"" + value + "\" is not an integer");
    }
    if (v <= 0) return make_error("scale \"" + text + "\": " + key + " must be at least 1");
    if (key == "layers") {
      s.layers = v;
    } else if (key == "experts") {
      s.experts = v;
    } else {
      return make_error("scale \"" + text + "\": unknown key \"" + key + "\"" +
                        did_you_mean(key, {"layers", "experts"}) + "; use layers= and/or experts=");
    }
  }
  return s;
}

Expected<ModelCard> apply_scale(const ModelCard& card, const Scale& scale) {
  ModelCard out = card;
  if (scale.experts) {
    if (*scale.experts > card.moe.experts) {
      return make_error("scale experts=" + std::to_string(*scale.experts) + " exceeds the " +
                        std::to_string(card.moe.experts) + " experts per layer of " + card.name);
    }
    if (*scale.experts < card.moe.active) {
      return make_error("scale experts=" + std::to_string(*scale.experts) + " is below top-k " +
                        std::to_string(card.moe.active) + " of " + card.name +
                        "; a token needs that many distinct experts");
    }
    out.moe.experts = *scale.experts;
  }
  if (scale.layers) {
    const int total = card.total_layers();
    const int target = *scale.layers;
    if (target > total) {
      return make_error("scale layers=" + std::to_string(target) + " exceeds the " +
                        std::to_string(total) + " layers of " + card.name);
    }
    // Largest-remainder apportionment keeps the mix of layer kinds.
    std::vector<int> counts(card.layers.size());
    std::vector<std::pair<double, std::size_t>> remainders;
    int assigned = 0;
    for (std::size_t i = 0; i < card.layers.size(); ++i) {
      const double exact = static_cast<double>(card.layers[i].count) * target / total;
      counts[i] = static_cast<int>(std::floor(exact));
      assigned += counts[i];
      remainders.emplace_back(exact - counts[i], i);
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t r = 0; assigned < target && r < remainders.size(); ++r, ++assigned) {
      ++counts[remainders[r].second];
    }
    // Keep at least one MoE layer: move one layer from the largest non-MoE group.
    bool has_moe = false;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      has_moe = has_moe || (counts[i] > 0 && card.layers[i].ffn == FfnKind::kMoe);
    }
    if (!has_moe) {
      std::size_t moe_group = card.layers.size();
      std::size_t donor = card.layers.size();
      for (std::size_t i = 0; i < counts.size(); ++i) {
        if (card.layers[i].ffn == FfnKind::kMoe && moe_group == card.layers.size()) moe_group = i;
        if (counts[i] > 0 && (donor == card.layers.size() || counts[i] > counts[donor])) donor = i;
      }
      if (moe_group < counts.size() && donor < counts.size()) {
        --counts[donor];
        ++counts[moe_group];
      }
    }
    out.layers.clear();
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] > 0) out.layers.push_back({counts[i], card.layers[i].attention, card.layers[i].ffn});
    }
  }
  return out;
}

std::string quant_fits_card(const ModelCard& card, const std::string& quant) {
  const auto f = find_quant(quant);
  if (!f) return "unknown quant \"" + quant + "\"";
  // gate/up rows have expert_dim weights; down rows have expert_intermediate.
  for (int row : {card.moe.expert_dim, card.moe.expert_intermediate}) {
    if (!f->divides(static_cast<std::uint64_t>(row))) {
      return quant + " stores weights in blocks of " + std::to_string(f->block_weights) +
             ", which does not divide the expert row length " + std::to_string(row) + " of " +
             card.name;
    }
  }
  return "";
}

namespace {

const std::vector<std::string> kAttentionNames = {"mla", "gqa", "linear"};
const std::vector<std::string> kFfnNames = {"moe", "dense"};

int req_int(ObjectReader& r, const char* key, int min_value = 1) {
  return static_cast<int>(r.integer(key, true, min_value, 1 << 30).value_or(0));
}

// The value of the card field at JSON path `path` (the paths CardTensor::from
// names); 0 for an absent block or an unknown path.
u64 field_value(const ModelCard& c, std::string_view path) {
  auto w = [](int v) { return v > 0 ? static_cast<u64>(v) : u64{0}; };
  auto opt = [&](const std::optional<int>& v) { return v ? w(*v) : u64{0}; };
  if (path == "/hidden_size") return w(c.hidden_size);
  if (path == "/vocab_size") return w(c.vocab_size);
  if (path.rfind("/moe/", 0) == 0) {
    const std::string_view k = path.substr(5);
    if (k == "experts") return w(c.moe.experts);
    if (k == "active") return w(c.moe.active);
    if (k == "shared") return w(c.moe.shared);
    if (k == "expert_dim") return w(c.moe.expert_dim);
    if (k == "expert_intermediate") return w(c.moe.expert_intermediate);
    if (k == "shared_intermediate") return w(c.moe.shared_intermediate);
  }
  if (path == "/dense_ffn/intermediate") return c.dense_ffn ? w(c.dense_ffn->intermediate) : 0;
  if (path.rfind("/mla/", 0) == 0 && c.mla) {
    const std::string_view k = path.substr(5);
    if (k == "heads") return w(c.mla->heads);
    if (k == "q_lora_rank") return w(c.mla->q_lora_rank);
    if (k == "kv_lora_rank") return w(c.mla->kv_lora_rank);
    if (k == "qk_nope_head_dim") return w(c.mla->qk_nope_head_dim);
    if (k == "qk_rope_head_dim") return w(c.mla->qk_rope_head_dim);
    if (k == "v_head_dim") return w(c.mla->v_head_dim);
  }
  if (path.rfind("/gqa/", 0) == 0 && c.gqa) {
    const std::string_view k = path.substr(5);
    if (k == "heads") return w(c.gqa->heads);
    if (k == "kv_heads") return w(c.gqa->kv_heads);
    if (k == "head_dim") return w(c.gqa->head_dim);
  }
  if (path.rfind("/linear/", 0) == 0 && c.linear) {
    const std::string_view k = path.substr(8);
    if (k == "heads") return w(c.linear->heads);
    if (k == "key_head_dim") return w(c.linear->key_head_dim);
    if (k == "value_head_dim") return w(c.linear->value_head_dim);
    if (k == "conv_kernel") return w(c.linear->conv_kernel);
    if (k == "decay_gate_rank") return opt(c.linear->decay_gate_rank);
    if (k == "output_gate_rank") return opt(c.linear->output_gate_rank);
  }
  return 0;
}

// A product of card fields that must stay within kMaxCardWeights.
struct SizeTerm {
  std::string path;  // JSON path of the field
  u64 value = 0;
};

const SizeTerm& largest_term(const std::vector<SizeTerm>& terms) {
  const SizeTerm* largest = &terms.front();
  for (const SizeTerm& t : terms) largest = t.value > largest->value ? &t : largest;
  return *largest;
}

std::string count_text(const std::optional<u64>& n) { return n ? std::to_string(*n) : "more than 2^64"; }

constexpr const char* kBoundText = " weights, above moebench's bound of 2^50 (about 1.1e15) per card: check this value";

// Multiplies `factor` and the terms; when the product overflows or exceeds
// the bound, reports at the path of the largest term and returns false.
bool within_bound(const std::vector<SizeTerm>& terms, u64 factor, const std::string& what, Diagnostics& d) {
  std::optional<u64> product = factor;
  for (const SizeTerm& t : terms) product = product ? checked_mul(*product, t.value) : std::nullopt;
  if (product && *product <= kMaxCardWeights) return true;
  const SizeTerm& big = largest_term(terms);
  d.add(big.path, std::to_string(big.value) + " makes " + what + " " + count_text(product) + kBoundText);
  return false;
}

// The card's derived sizes stay within kMaxCardLayers / kMaxCardWeights
// (model_card.h), so no derivation overflows 64 bits. Reports the first
// problem, at the JSON path of the largest field involved.
void check_card_sizes(const ModelCard& c, Diagnostics& d) {
  std::int64_t layers = 0;
  std::size_t biggest = 0;  // layer group with the largest count
  std::size_t biggest_moe = c.layers.size();
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    layers += c.layers[i].count;
    if (c.layers[i].count > c.layers[biggest].count) biggest = i;
    if (c.layers[i].ffn == FfnKind::kMoe &&
        (biggest_moe == c.layers.size() || c.layers[i].count > c.layers[biggest_moe].count)) {
      biggest_moe = i;
    }
  }
  if (layers > kMaxCardLayers) {
    d.add("/layers/" + std::to_string(biggest) + "/count",
          "the layer groups add up to " + std::to_string(layers) + " layers, above moebench's bound of " +
              std::to_string(kMaxCardLayers) + ": check this count");
    return;
  }
  // Every trunk tensor, and their sum. A shape is a product of the fields
  // in CardTensor::from (and small constants): the largest is named.
  u64 trunk = 0;
  u64 largest_n = 0;
  std::vector<SizeTerm> largest;  // the largest tensor's fields
  std::string largest_name;
  for (const CardTensor& t : card_trunk_tensors(c)) {
    std::vector<SizeTerm> terms;
    for (const char* path : t.from) {
      if (path != nullptr) terms.push_back({path, field_value(c, path)});
    }
    if (terms.empty()) continue;
    const std::optional<u64> n = checked_mul(t.rows, t.row_len);
    if (!n || *n > kMaxCardWeights) {
      const SizeTerm& big = largest_term(terms);
      d.add(big.path, std::to_string(big.value) + " makes tensor " + t.name + " " + std::to_string(t.rows) + " x " +
                          std::to_string(t.row_len) + " = " + count_text(n) + kBoundText);
      return;
    }
    if (*n > largest_n) {
      largest_n = *n;
      largest = terms;
      largest_name = t.name;
    }
    trunk = sat_add(trunk, *n);
    if (trunk > kMaxCardWeights) {
      const SizeTerm& big = largest_term(largest);
      d.add(big.path, std::to_string(big.value) + " makes the trunk's tensors (the largest " + largest_name +
                          ") add up to more than 2^50" + kBoundText);
      return;
    }
  }
  // Routed experts: 3 matrices of expert_dim x expert_intermediate, per expert and MoE layer.
  const std::string moe_count = biggest_moe < c.layers.size() ? "/layers/" + std::to_string(biggest_moe) + "/count"
                                                              : "/layers";
  if (!within_bound({{"/moe/expert_dim", field_value(c, "/moe/expert_dim")},
                     {"/moe/expert_intermediate", field_value(c, "/moe/expert_intermediate")},
                     {"/moe/experts", field_value(c, "/moe/experts")},
                     {moe_count, static_cast<u64>(c.moe_layers())}},
                    3, "the routed experts 3 x expert_dim x expert_intermediate x experts x MoE layers =", d)) {
    return;
  }
  // KV cache values per token, and the linear-attention state.
  int mla_layers = 0, gqa_layers = 0, linear_layers = 0;
  for (const LayerGroup& g : c.layers) {
    mla_layers += g.attention == AttentionKind::kMla ? g.count : 0;
    gqa_layers += g.attention == AttentionKind::kGqa ? g.count : 0;
    linear_layers += g.attention == AttentionKind::kLinear ? g.count : 0;
  }
  if (c.gqa && gqa_layers > 0 &&
      !within_bound({{"/gqa/kv_heads", field_value(c, "/gqa/kv_heads")},
                     {"/gqa/head_dim", field_value(c, "/gqa/head_dim")},
                     {"/layers", static_cast<u64>(gqa_layers)}},
                    2, "the KV cache of one token 2 x kv_heads x head_dim x GQA layers =", d)) {
    return;
  }
  if (c.linear && linear_layers > 0) {
    const u64 heads = field_value(c, "/linear/heads");
    if (!within_bound({{"/linear/heads", heads},
                       {"/linear/key_head_dim", field_value(c, "/linear/key_head_dim")},
                       {"/linear/value_head_dim", field_value(c, "/linear/value_head_dim")},
                       {"/layers", static_cast<u64>(linear_layers)}},
                      1, "the linear-attention state heads x key_head_dim x value_head_dim x linear layers =", d)) {
      return;
    }
  }
  (void)mla_layers;  // MLA caches kv_lora_rank + qk_rope_head_dim values (< 2^31) per layer: within bounds
}

// The card's fact sources: (fact, source) pairs.
void read_sources(ObjectReader& r, ModelCard& c, Diagnostics& d) {
  const Json* src = r.array("sources", false, false);
  if (src == nullptr) return;
  for (std::size_t i = 0; i < src->size(); ++i) {
    ObjectReader s((*src)[i], json_pointer_append(r.path_of("sources"), i), d);
    SourceNote note{s.string("fact", true).value_or(""), s.string("source", true).value_or("")};
    s.finish();
    c.sources.push_back(std::move(note));
  }
}

// Which attention kinds and FFN kinds the layer groups use: each parameter
// block is required exactly when a group uses its kind.
struct KindsUsed {
  bool attention[3] = {false, false, false};  // mla, gqa, linear
  bool dense = false;
};

// The layer groups in order: count, attention kind, FFN kind, a GQA
// group's sliding window.
KindsUsed read_layer_groups(ObjectReader& r, ModelCard& c, Diagnostics& d) {
  KindsUsed used;
  const Json* groups = r.array("layers", true, true);
  if (groups == nullptr) return used;
  for (std::size_t i = 0; i < groups->size(); ++i) {
    ObjectReader g((*groups)[i], json_pointer_append(r.path_of("layers"), i), d);
    LayerGroup lg;
    lg.count = req_int(g, "count");
    const auto att = g.enumeration("attention", true, kAttentionNames, "attention kind");
    const auto ffn = g.enumeration("ffn", true, kFfnNames, "ffn kind");
    const auto window = g.integer("window", false, 1, std::int64_t{1} << 40);
    g.finish();
    if (att) {
      lg.attention = *att == "mla" ? AttentionKind::kMla : *att == "gqa" ? AttentionKind::kGqa : AttentionKind::kLinear;
      used.attention[static_cast<int>(lg.attention)] = true;
    }
    if (window) {
      if (lg.attention != AttentionKind::kGqa) {
        d.add(g.path_of("window"), "a sliding window applies to \"gqa\" layers only; remove it from this group");
      } else {
        lg.window = static_cast<u64>(*window);
      }
    }
    if (ffn) {
      lg.ffn = *ffn == "moe" ? FfnKind::kMoe : FfnKind::kDense;
      used.dense = used.dense || lg.ffn == FfnKind::kDense;
    }
    c.layers.push_back(lg);
  }
  return used;
}

// An attention parameter block: required exactly when a layer uses the
// kind; one no layer uses is an error naming it.
const Json* attention_block(ObjectReader& r, const char* key, bool used, Diagnostics& d) {
  const Json* b = r.object(key, used);
  if (b != nullptr && !used) {
    d.add(r.path_of(key), std::string("no layer uses \"") + key + "\" attention; remove this block or add such layers");
  }
  return b;
}

MlaParams read_mla(ObjectReader& m) {
  MlaParams p;
  p.heads = req_int(m, "heads");
  p.q_lora_rank = static_cast<int>(m.integer("q_lora_rank", false, 0, 1 << 20).value_or(0));
  p.kv_lora_rank = req_int(m, "kv_lora_rank");
  p.qk_nope_head_dim = req_int(m, "qk_nope_head_dim");
  p.qk_rope_head_dim = req_int(m, "qk_rope_head_dim");
  p.v_head_dim = req_int(m, "v_head_dim");
  p.output_gate = m.boolean("output_gate", false).value_or(false);
  m.finish();
  return p;
}

GqaParams read_gqa(ObjectReader& g, Diagnostics& d) {
  GqaParams p;
  p.heads = req_int(g, "heads");
  p.kv_heads = req_int(g, "kv_heads");
  p.head_dim = req_int(g, "head_dim");
  g.finish();
  if (p.kv_heads > 0 && p.heads % p.kv_heads != 0) {
    d.add(g.path(), "heads (" + std::to_string(p.heads) + ") must be a multiple of kv_heads (" +
                             std::to_string(p.kv_heads) + ")");
  }
  return p;
}

LinearParams read_linear(ObjectReader& l) {
  LinearParams p;
  p.heads = req_int(l, "heads");
  p.key_head_dim = req_int(l, "key_head_dim");
  p.value_head_dim = req_int(l, "value_head_dim");
  p.conv_kernel = static_cast<int>(l.integer("conv_kernel", false, 0, 64).value_or(0));
  auto rank = [&l](const char* key) -> std::optional<int> {
    const auto v = l.integer(key, false, 0, 1 << 20);
    return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  };
  p.decay_gate_rank = rank("decay_gate_rank");
  p.output_gate_rank = rank("output_gate_rank");
  l.finish();
  return p;
}

// The routed experts: count, top-k (at most the count), shared experts and
// the matrices' sizes.
MoeParams read_moe(ObjectReader& m, Diagnostics& d) {
  MoeParams p;
  p.experts = req_int(m, "experts");
  p.active = req_int(m, "active");
  p.shared = static_cast<int>(m.integer("shared", false, 0, 64).value_or(0));
  p.expert_dim = req_int(m, "expert_dim");
  p.expert_intermediate = req_int(m, "expert_intermediate");
  p.shared_intermediate = static_cast<int>(m.integer("shared_intermediate", p.shared > 0, 1, 1 << 30).value_or(0));
  m.finish();
  if (p.active > p.experts && p.experts > 0) {
    d.add(m.path_of("active"), "top-k " + std::to_string(p.active) + " exceeds the " + std::to_string(p.experts) +
                                   " experts per layer");
  }
  return p;
}

}  // namespace

std::optional<ModelCard> load_model_card(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  ModelCard c;
  c.name = r.string("name", true).value_or("");
  c.description = r.string("description", false).value_or("");
  c.geometry_approximate =
      r.enumeration("geometry", true, {"exact", "approximate"}, "geometry provenance").value_or("exact") ==
      "approximate";
  read_sources(r, c, d);
  c.hidden_size = req_int(r, "hidden_size");
  c.vocab_size = req_int(r, "vocab_size");
  c.tied_embeddings = r.boolean("tied_embeddings", false).value_or(false);
  const std::vector<std::string> qnames = quant_names();
  c.expert_quant = r.enumeration("expert_quant", true, qnames, "quant").value_or("");
  c.trunk_quant = r.enumeration("trunk_quant", true, qnames, "quant").value_or("");
  c.kv_dtype = r.enumeration("kv_dtype", false, {"f32", "f16", "bf16", "q8_0"}, "KV dtype").value_or("bf16");
  const KindsUsed used = read_layer_groups(r, c, d);
  if (const Json* b = attention_block(r, "mla", used.attention[0], d)) {
    ObjectReader m(*b, r.path_of("mla"), d);
    c.mla = read_mla(m);
  }
  if (const Json* b = attention_block(r, "gqa", used.attention[1], d)) {
    ObjectReader g(*b, r.path_of("gqa"), d);
    c.gqa = read_gqa(g, d);
  }
  if (const Json* b = attention_block(r, "linear", used.attention[2], d)) {
    ObjectReader l(*b, r.path_of("linear"), d);
    c.linear = read_linear(l);
  }
  if (const Json* b = r.object("moe", true)) {
    ObjectReader m(*b, r.path_of("moe"), d);
    c.moe = read_moe(m, d);
  }
  if (const Json* b = r.object("dense_ffn", used.dense)) {
    ObjectReader f(*b, r.path_of("dense_ffn"), d);
    c.dense_ffn = DenseFfnParams{req_int(f, "intermediate")};
    f.finish();
  }
  r.finish();
  if (d.ok() && c.moe_layers() == 0) d.add("/layers", "a card needs at least one MoE layer");
  if (d.ok() && c.moe.experts > 0) {
    const std::string fit = quant_fits_card(c, c.expert_quant);
    if (!fit.empty()) d.add("/expert_quant", fit);
  }
  if (d.ok()) check_card_sizes(c, d);
  if (!d.ok()) return std::nullopt;
  return c;
}

Expected<ModelCard> load_model_card_file(const std::string& path) {
  return load_config_file<ModelCard>(path, load_model_card);
}

}  // namespace moebench
