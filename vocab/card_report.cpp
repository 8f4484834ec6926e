// card_report.cpp — the report of `moebench card show` (see card_report.h):
// every number from ModelCard's derived functions, laid out in sections.
#include "vocab/card_report.h"

#include <algorithm>
#include <cmath>

#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

using u64 = std::uint64_t;

std::string group_digits(u64 v) {
  std::string s = std::to_string(v);
  for (std::size_t i = s.size(); i > 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

std::string count_words(double n) {
  if (n >= 1e12) return format_fixed(n / 1e12, 3) + " trillion";
  if (n >= 1e9) return format_fixed(n / 1e9, 2) + " billion";
  if (n >= 1e6) return format_fixed(n / 1e6, 2) + " million";
  if (n >= 1e3) return format_fixed(n / 1e3, 2) + " thousand";
  return group_digits(static_cast<u64>(n));
}

// Exact bytes, then decimal and binary units.
std::vector<std::string> byte_cells(u64 v) {
  return {group_digits(v) + " B", format_bytes_decimal(static_cast<double>(v)),
          format_bytes(static_cast<double>(v))};
}

// Columns: first left-aligned, then `align` per column ('l' or 'r'; missing = 'l').
std::string render_table(const std::vector<std::vector<std::string>>& rows, const std::string& align) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = "  ";
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool right = i < align.size() && align[i] == 'r';
      const std::size_t pad = width[i] - r[i].size();
      const bool last = i + 1 == r.size();
      if (right) line += std::string(pad, ' ') + r[i];
      else line += r[i] + (last ? "" : std::string(pad, ' '));
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string gate_phrase(const std::optional<int>& rank, const char* what) {
  if (!rank) return "";
  return std::string(", ") + what + (*rank == 0 ? " full rank" : " rank " + std::to_string(*rank));
}

std::string shape_section(const ModelCard& c) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> groups;
  for (const LayerGroup& g : c.layers) {
    groups.push_back(std::to_string(g.count) + " " + to_string(g.attention) + "/" + to_string(g.ffn));
  }
  rows.push_back({"layers", std::to_string(c.total_layers()) + " = " + join(groups, " + ") + "; " +
                                std::to_string(c.moe_layers()) + " MoE"});
  rows.push_back({"hidden, vocab", std::to_string(c.hidden_size) + ", " + std::to_string(c.vocab_size) +
                                       (c.tied_embeddings ? " (lm_head tied to the embedding)"
                                                          : " (embedding and lm_head untied)")});
  const u64 instances = static_cast<u64>(c.moe.experts) * static_cast<u64>(c.moe_layers());
  rows.push_back({"routed experts", std::to_string(c.moe.experts) + " per MoE layer, top-" +
                                        std::to_string(c.moe.active) + ", " + group_digits(instances) +
                                        " in all; each gate/up/down " + std::to_string(c.moe.expert_dim) +
                                        " x " + std::to_string(c.moe.expert_intermediate)});
  if (c.moe.shared > 0) {
    rows.push_back({"shared experts", std::to_string(c.moe.shared) + " per MoE layer, each gate/up/down " +
                                          std::to_string(c.hidden_size) + " x " +
                                          std::to_string(c.moe.shared_intermediate)});
  }
  if (c.moe.expert_dim != c.hidden_size) {
    rows.push_back({"latent MoE", std::to_string(c.hidden_size) + " -> " + std::to_string(c.moe.expert_dim) +
                                      " -> " + std::to_string(c.hidden_size) + " around the routed experts"});
  }
  if (c.mla) {
    const MlaParams& m = *c.mla;
    rows.push_back({"attention mla", std::to_string(m.heads) + " heads, q_lora " +
                                         (m.q_lora_rank > 0 ? std::to_string(m.q_lora_rank) : "none") +
                                         ", kv_lora " + std::to_string(m.kv_lora_rank) + ", qk " +
                                         std::to_string(m.qk_nope_head_dim) + "+" +
                                         std::to_string(m.qk_rope_head_dim) + ", v " +
                                         std::to_string(m.v_head_dim) + (m.output_gate ? ", output gate" : "")});
  }
  if (c.gqa) {
    rows.push_back({"attention gqa", std::to_string(c.gqa->heads) + " heads, " + std::to_string(c.gqa->kv_heads) +
                                         " KV heads, head dim " + std::to_string(c.gqa->head_dim)});
  }
  if (c.linear) {
    const LinearParams& l = *c.linear;
    rows.push_back({"attention linear",
                    std::to_string(l.heads) + " heads, key " + std::to_string(l.key_head_dim) + ", value " +
                        std::to_string(l.value_head_dim) +
                        (l.conv_kernel > 0 ? ", conv " + std::to_string(l.conv_kernel) : "") +
                        gate_phrase(l.decay_gate_rank, "decay gate") +
                        gate_phrase(l.output_gate_rank, "output gate")});
  }
  if (c.dense_ffn) rows.push_back({"dense FFN", "intermediate " + std::to_string(c.dense_ffn->intermediate)});
  return "shape\n" + render_table(rows, "ll");
}

std::string parameter_section(const ModelCard& c) {
  const ParamCounts p = c.parameter_counts();
  std::vector<std::vector<std::string>> rows;
  auto add = [&rows](const char* what, u64 n, std::string note = "") {
    if (n == 0) return;
    rows.push_back({what, group_digits(n), count_words(static_cast<double>(n)), std::move(note)});
  };
  add("routed experts", p.routed_experts);
  add("shared experts", p.shared_experts);
  add("dense FFN", p.dense_ffn);
  add("attention mla", p.attention_mla);
  add("attention gqa", p.attention_gqa);
  add("attention linear", p.attention_linear);
  add("latent projections", p.latent_projections);
  add("router", p.router);
  add("norms", p.norms);
  add("embedding", p.embedding);
  add("lm_head", p.lm_head);
  add("total", p.total());
  add("active per token", p.active(),
      "trunk (embedding table included) + " + std::to_string(c.moe.active) + " experts x " +
          std::to_string(c.moe_layers()) + " layers");
  return "parameters\n" + render_table(rows, "lrrl");
}

std::string bytes_section(const ModelCard& c, const std::string& quant) {
  const TrunkBytes t = c.trunk();
  std::vector<std::vector<std::string>> rows;
  auto add = [&rows](const std::string& what, u64 v) {
    std::vector<std::string> r{what};
    for (std::string& cell : byte_cells(v)) r.push_back(std::move(cell));
    rows.push_back(std::move(r));
  };
  add("per routed expert", c.expert_bytes(quant));
  add("routed experts per token", c.routed_bytes_per_token(quant));
  add("routed experts, all", c.routed_bytes_total(quant));
  add("trunk (all but routed experts)", t.total());
  add("  per-layer weights (dense trunk)", t.layers);
  add("  embedding + lm_head + final norm", t.embedding + t.lm_head + t.output_norm);
  add(quant == c.expert_quant ? "checkpoint (native quant)" : "container", c.container_bytes(quant));
  return "bytes (routed experts in " + quant + ", trunk in " + c.trunk_quant + ")\n" + render_table(rows, "lrrr");
}

std::string decode_section(const ModelCard& c, const std::string& quant) {
  const DecodeBytes d = c.decode_bytes(quant);
  std::vector<std::vector<std::string>> rows{{"regime", "from memory", "from storage", "total"}};
  auto add = [&rows](const char* what, const TokenTraffic& t) {
    rows.push_back({what, format_bytes_decimal(static_cast<double>(t.memory)),
                    format_bytes_decimal(static_cast<double>(t.storage)), format_bytes_decimal(static_cast<double>(t.total()))});
  };
  add("all resident", d.all_resident);
  add("trunk resident, experts streamed", d.experts_streamed);
  add("trunk and experts streamed", d.all_streamed);
  return "weight bytes per decode token (experts in " + quant +
         "; streaming everything keeps embedding, lm_head and final norm resident)\n" +
         render_table(rows, "lrrr");
}

std::string cache_section(const ModelCard& c, const std::vector<u64>& contexts) {
  std::string out = "cache (KV in " + c.kv_dtype + "; linear-attention state in fp32)\n";
  int mla_layers = 0, gqa_layers = 0, linear_layers = 0;
  for (const LayerGroup& g : c.layers) {
    mla_layers += g.attention == AttentionKind::kMla ? g.count : 0;
    gqa_layers += g.attention == AttentionKind::kGqa ? g.count : 0;
    linear_layers += g.attention == AttentionKind::kLinear ? g.count : 0;
  }
  auto layers_of = [](int n, const char* kind) {
    return std::to_string(n) + " " + kind + (n == 1 ? " layer" : " layers");
  };
  std::vector<std::string> parts;
  if (mla_layers > 0 && c.mla) {
    parts.push_back(layers_of(mla_layers, "MLA") + " x " +
                    std::to_string(static_cast<u64>(c.mla->kv_lora_rank) + static_cast<u64>(c.mla->qk_rope_head_dim)) +
                    " values");
  }
  if (gqa_layers > 0 && c.gqa) {
    parts.push_back(layers_of(gqa_layers, "GQA") + " x 2 x " + std::to_string(c.gqa->kv_heads) + " x " +
                    std::to_string(c.gqa->head_dim) + " values");
  }
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"KV per token", group_digits(c.kv_bytes_per_token()) + " B",
                  parts.empty() ? "no layer keeps a KV cache" : join(parts, " + ")});
  if (c.linear && linear_layers > 0) {
    const LinearParams& l = *c.linear;
    const u64 channels = 2 * static_cast<u64>(l.heads) * static_cast<u64>(l.key_head_dim) +
                         static_cast<u64>(l.heads) * static_cast<u64>(l.value_head_dim);
    std::string note = layers_of(linear_layers, "linear") + " x (" + std::to_string(l.heads) + " x " +
                       std::to_string(l.key_head_dim) + " x " + std::to_string(l.value_head_dim);
    if (l.conv_kernel > 1) note += " + " + std::to_string(l.conv_kernel - 1) + " x " + group_digits(channels) + " conv";
    rows.push_back({"linear state (fixed)", group_digits(c.linear_state_bytes()) + " B", note + ") x 4 B"});
  }
  out += render_table(rows, "lrl");
  std::vector<std::vector<std::string>> ctx{{"context", "KV", "+ state", "= total", "total (binary)"}};
  for (u64 n : contexts) {
    ctx.push_back({group_digits(n), format_bytes_decimal(static_cast<double>(c.kv_bytes_at(n))),
                   format_bytes_decimal(static_cast<double>(c.linear_state_bytes())),
                   format_bytes_decimal(static_cast<double>(c.cache_bytes(n))),
                   format_bytes(static_cast<double>(c.cache_bytes(n)))});
  }
  return out + render_table(ctx, "rrrrr");
}

std::string container_section(const ModelCard& c, const std::string& quant) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> unfit;
  for (const QuantFormat& f : quant_formats()) {
    const std::string name(f.name);
    if (!quant_fits_card(c, name).empty()) {
      unfit.push_back(name);
      continue;
    }
    std::vector<std::string> r{name, format_fixed(f.bits_per_weight(), 4) + " bpw"};
    for (std::string& cell : byte_cells(c.container_bytes(name))) r.push_back(std::move(cell));
    std::string mark = name == c.expert_quant ? "native" : "";
    if (name == quant && name != c.expert_quant) mark = "chosen";
    r.push_back(mark);
    rows.push_back(std::move(r));
  }
  std::string out = "container size per quant (routed experts in the quant, trunk in " + c.trunk_quant + ")\n" +
                    render_table(rows, "lrrrrl");
  if (!unfit.empty()) {
    out += "  not fitting the expert rows (" + std::to_string(c.moe.expert_dim) + ", " +
           std::to_string(c.moe.expert_intermediate) + "): " + join(unfit, ", ") + "\n";
  }
  return out;
}

}  // namespace

Expected<std::uint64_t> parse_context_tokens(const std::string& text) {
  const std::string t(trim(text));
  u64 mult = 1;
  std::string digits = t;
  if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) mult = 1024;
  if (!t.empty() && (t.back() == 'm' || t.back() == 'M')) mult = 1024 * 1024;
  if (mult != 1) digits = t.substr(0, t.size() - 1);
  if (digits.empty() || digits.size() > 12 ||
      !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return make_error("context \"" + text + "\": expected a token count such as 8192, 8K or 1M "
                      "(K = 1024, M = 1048576 tokens)");
  }
  const u64 v = std::stoull(digits) * mult;
  if (v == 0) return make_error("context \"" + text + "\": must be at least 1 token");
  return v;
}

namespace {

// The routed-expert quant a report uses, or why it cannot.
Expected<std::string> report_quant(const ModelCard& card, const CardReportOptions& options) {
  const std::string quant = options.quant.empty() ? card.expert_quant : options.quant;
  if (!find_quant(quant)) {
    return make_error("unknown quant \"" + quant + "\"" + did_you_mean(quant, quant_names()) +
                      "; known: " + join(quant_names(), ", "));
  }
  if (const std::string fit = quant_fits_card(card, quant); !fit.empty()) return make_error(fit);
  return quant;
}

Json card_report_json_for(const ModelCard& c, const CardReportOptions& options, const std::string& quant) {
  const ParamCounts p = c.parameter_counts();
  const TrunkBytes t = c.trunk();
  const DecodeBytes d = c.decode_bytes(quant);
  auto traffic = [](const TokenTraffic& x) {
    return Json{{"memory_bytes", x.memory}, {"storage_bytes", x.storage}, {"total_bytes", x.total()}};
  };
  Json contexts = Json::array();
  for (u64 n : options.contexts) {
    contexts.push_back({{"tokens", n}, {"kv_bytes", c.kv_bytes_at(n)},
                        {"linear_state_bytes", c.linear_state_bytes()}, {"total_bytes", c.cache_bytes(n)}});
  }
  Json containers = Json::array();
  Json unfit = Json::array();
  for (const QuantFormat& f : quant_formats()) {
    const std::string name(f.name);
    if (!quant_fits_card(c, name).empty()) {
      unfit.push_back(name);
      continue;
    }
    containers.push_back({{"quant", name}, {"bits_per_weight", f.bits_per_weight()}, {"bytes", c.container_bytes(name)},
                          {"native", name == c.expert_quant}});
  }
  Json sources = Json::array();
  for (const SourceNote& s : c.sources) sources.push_back({{"fact", s.fact}, {"source", s.source}});
  return {{"name", c.name},
          {"description", c.description},
          {"geometry_approximate", c.geometry_approximate},
          {"scale", options.scale.to_string()},
          {"quants", {{"routed_experts", quant}, {"native", c.expert_quant}, {"trunk", c.trunk_quant}, {"kv", c.kv_dtype}}},
          {"layers", {{"total", c.total_layers()}, {"moe", c.moe_layers()}}},
          {"experts", {{"per_moe_layer", c.moe.experts}, {"active", c.moe.active}, {"shared", c.moe.shared}}},
          {"parameters", {{"routed_experts", p.routed_experts}, {"shared_experts", p.shared_experts}, {"dense_ffn", p.dense_ffn},
                          {"attention_mla", p.attention_mla}, {"attention_gqa", p.attention_gqa},
                          {"attention_linear", p.attention_linear}, {"latent_projections", p.latent_projections},
                          {"router", p.router}, {"norms", p.norms}, {"embedding", p.embedding}, {"lm_head", p.lm_head},
                          {"total", p.total()}, {"active_per_token", p.active()}}},
          {"bytes", {{"per_routed_expert", c.expert_bytes(quant)}, {"routed_experts_per_token", c.routed_bytes_per_token(quant)},
                     {"routed_experts_all", c.routed_bytes_total(quant)}, {"trunk", t.total()}, {"trunk_layers", t.layers},
                     {"embedding_lm_head_norm", t.embedding + t.lm_head + t.output_norm},
                     {"container", c.container_bytes(quant)}}},
          {"decode_bytes_per_token", {{"all_resident", traffic(d.all_resident)}, {"experts_streamed", traffic(d.experts_streamed)},
                                      {"all_streamed", traffic(d.all_streamed)}}},
          {"kv_bytes_per_token", c.kv_bytes_per_token()},
          {"linear_state_bytes", c.linear_state_bytes()},
          {"contexts", contexts},
          {"containers", containers},
          {"quants_not_fitting", unfit},
          {"sources", sources}};
}

}  // namespace

Expected<Json> card_report_json(const ModelCard& card, const CardReportOptions& options) {
  auto quant = report_quant(card, options);
  if (!quant) return quant.error();
  return card_report_json_for(card, options, *quant);
}

Expected<std::string> render_card_report(const ModelCard& card, const CardReportOptions& options) {
  auto q = report_quant(card, options);
  if (!q) return q.error();
  const std::string& quant = *q;
  std::string out = card.name + ": " + card.description + "\n";
  out += "geometry: " + std::string(card.geometry_approximate
                                        ? "approximate (inferred figures are named in the sources below)"
                                        : "exact (from the public configuration named in the sources)") + "\n";
  out += "scale: " + options.scale.to_string() + "\n";
  out += "quants: routed experts " + quant + (quant == card.expert_quant ? " (native)" : " (native " +
                                              card.expert_quant + ")") +
         ", trunk " + card.trunk_quant + ", KV cache " + card.kv_dtype + "\n\n";
  out += shape_section(card) + "\n";
  out += parameter_section(card) + "\n";
  out += bytes_section(card, quant) + "\n";
  out += decode_section(card, quant) + "\n";
  out += cache_section(card, options.contexts) + "\n";
  out += container_section(card, quant) + "\n";
  out += "sources\n";
  if (card.sources.empty()) out += "  (none given)\n";
  for (const SourceNote& s : card.sources) out += "  - " + s.fact + ": " + s.source + "\n";
  return out;
}

}  // namespace moebench
