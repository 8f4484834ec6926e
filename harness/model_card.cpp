// model_card.cpp — see model_card.h.
#include "harness/model_card.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engines/quant/quant_format.h"
#include "harness/text.h"

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

int ModelCard::total_layers() const {
  int n = 0;
  for (const LayerGroup& g : layers) n += g.count;
  return n;
}

int ModelCard::moe_layers() const {
  int n = 0;
  for (const LayerGroup& g : layers) n += g.ffn == FfnKind::kMoe ? g.count : 0;
  return n;
}

std::uint64_t ModelCard::expert_bytes(const std::string& quant) const {
  const auto f = find_quant(quant);
  if (!f) return 0;
  const std::uint64_t per_matrix =
      f->bytes_for(static_cast<std::uint64_t>(moe.expert_dim) * moe.expert_intermediate);
  return 3 * per_matrix;
}

std::uint64_t ModelCard::routed_bytes_per_token(const std::string& quant) const {
  return static_cast<std::uint64_t>(moe.active) * moe_layers() * expert_bytes(quant);
}

std::uint64_t ModelCard::routed_bytes_total(const std::string& quant) const {
  return static_cast<std::uint64_t>(moe.experts) * moe_layers() * expert_bytes(quant);
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

}  // namespace

std::optional<ModelCard> load_model_card(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  ModelCard c;
  c.name = r.string("name", true).value_or("");
  c.description = r.string("description", false).value_or("");
  c.geometry_approximate =
      r.enumeration("geometry", true, {"exact", "approximate"}, "geometry provenance")
          .value_or("exact") == "approximate";
  if (const Json* src = r.array("sources", false, false)) {
    for (std::size_t i = 0; i < src->size(); ++i) {
      ObjectReader s((*src)[i], json_pointer_append(r.path_of("sources"), i), d);
      SourceNote note{s.string("fact", true).value_or(""), s.string("source", true).value_or("")};
      s.finish();
      c.sources.push_back(std::move(note));
    }
  }
  c.hidden_size = req_int(r, "hidden_size");
  c.vocab_size = req_int(r, "vocab_size");
  c.tied_embeddings = r.boolean("tied_embeddings", false).value_or(false);
  const std::vector<std::string> qnames = quant_names();
  c.expert_quant = r.enumeration("expert_quant", true, qnames, "quant").value_or("");
  c.trunk_quant = r.enumeration("trunk_quant", true, qnames, "quant").value_or("");
  c.kv_dtype = r.enumeration("kv_dtype", false, {"f32", "f16", "bf16", "q8_0"}, "KV dtype")
                   .value_or("bf16");

  bool uses[3] = {false, false, false};
  bool uses_dense = false;
  if (const Json* groups = r.array("layers", true, true)) {
    for (std::size_t i = 0; i < groups->size(); ++i) {
      ObjectReader g((*groups)[i], json_pointer_append(r.path_of("layers"), i), d);
      LayerGroup lg;
      lg.count = req_int(g, "count");
      const auto att = g.enumeration("attention", true, kAttentionNames, "attention kind");
      const auto ffn = g.enumeration("ffn", true, kFfnNames, "ffn kind");
      g.finish();
      if (att) {
        lg.attention = *att == "mla" ? AttentionKind::kMla
                       : *att == "gqa" ? AttentionKind::kGqa : AttentionKind::kLinear;
        uses[static_cast<int>(lg.attention)] = true;
      }
      if (ffn) {
        lg.ffn = *ffn == "moe" ? FfnKind::kMoe : FfnKind::kDense;
        uses_dense = uses_dense || lg.ffn == FfnKind::kDense;
      }
      c.layers.push_back(lg);
    }
  }
  // Attention parameter blocks: required exactly when a layer uses the kind.
  auto block = [&](const char* key, bool used) -> const Json* {
    const Json* b = r.object(key, used);
    if (b != nullptr && !used) {
      d.add(r.path_of(key), std::string("no layer uses \"") + key +
                                "\" attention; remove this block or add such layers");
    }
    return b;
  };
  if (const Json* b = block("mla", uses[0])) {
    ObjectReader m(*b, r.path_of("mla"), d);
    MlaParams p;
    p.heads = req_int(m, "heads");
    p.q_lora_rank = static_cast<int>(m.integer("q_lora_rank", false, 0, 1 << 20).value_or(0));
    p.kv_lora_rank = req_int(m, "kv_lora_rank");
    p.qk_nope_head_dim = req_int(m, "qk_nope_head_dim");
    p.qk_rope_head_dim = req_int(m, "qk_rope_head_dim");
    p.v_head_dim = req_int(m, "v_head_dim");
    m.finish();
    c.mla = p;
  }
  if (const Json* b = block("gqa", uses[1])) {
    ObjectReader g(*b, r.path_of("gqa"), d);
    GqaParams p;
    p.heads = req_int(g, "heads");
    p.kv_heads = req_int(g, "kv_heads");
    p.head_dim = req_int(g, "head_dim");
    g.finish();
    if (p.kv_heads > 0 && p.heads % p.kv_heads != 0) {
      d.add(r.path_of("gqa"), "heads (" + std::to_string(p.heads) +
                                  ") must be a multiple of kv_heads (" +
                                  std::to_string(p.kv_heads) + ")");
    }
    c.gqa = p;
  }
  if (const Json* b = block("linear", uses[2])) {
    ObjectReader l(*b, r.path_of("linear"), d);
    LinearParams p;
    p.heads = req_int(l, "heads");
    p.key_head_dim = req_int(l, "key_head_dim");
    p.value_head_dim = req_int(l, "value_head_dim");
    l.finish();
    c.linear = p;
  }
  if (const Json* b = r.object("moe", true)) {
    ObjectReader m(*b, r.path_of("moe"), d);
    c.moe.experts = req_int(m, "experts");
    c.moe.active = req_int(m, "active");
    c.moe.shared = static_cast<int>(m.integer("shared", false, 0, 64).value_or(0));
    c.moe.expert_dim = req_int(m, "expert_dim");
    c.moe.expert_intermediate = req_int(m, "expert_intermediate");
    c.moe.shared_intermediate = static_cast<int>(
        m.integer("shared_intermediate", c.moe.shared > 0, 1, 1 << 30).value_or(0));
    m.finish();
    if (c.moe.active > c.moe.experts && c.moe.experts > 0) {
      d.add(r.path_of("moe") + "/active", "top-k " + std::to_string(c.moe.active) +
                                              " exceeds the " + std::to_string(c.moe.experts) +
                                              " experts per layer");
    }
  }
  if (const Json* b = r.object("dense_ffn", uses_dense)) {
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
  if (!d.ok()) return std::nullopt;
  return c;
}

Expected<ModelCard> load_model_card_file(const std::string& path) {
  return load_config_file<ModelCard>(path, load_model_card);
}

}  // namespace moebench
