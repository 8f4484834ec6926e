// quant_format.cpp — see quant_format.h. ggml type ids from ggml.h
// (GGML_TYPE_F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q2_K = 10, Q3_K = 11,
// Q4_K = 12, BF16 = 30, MXFP4 = 39).
#include "vocab/quant_format.h"

#include <cctype>

#include <map>

namespace moebench {

const std::vector<QuantFormat>& quant_formats() {
  static const std::vector<QuantFormat> kFormats = {
      {"f32", 0, 1, 4},     {"f16", 1, 1, 2},     {"bf16", 30, 1, 2},
      {"q8_0", 8, 32, 34},  {"q4_0", 2, 32, 18},  {"q4_k", 12, 256, 144},
      {"mxfp4", 39, 32, 17}, {"q3_k", 11, 256, 110}, {"q2_k", 10, 256, 84},
  };
  return kFormats;
}

std::optional<QuantFormat> find_quant(std::string_view name) {
  for (const QuantFormat& f : quant_formats()) {
    if (f.name == name) return f;
  }
  return std::nullopt;
}

Expected<QuantFormat> quant_for_blocks(std::string_view verb, std::string_view quant, std::uint64_t n) {
  const auto fmt = find_quant(quant);
  if (!fmt) return make_error(std::string(verb) + ": unknown quant \"" + std::string(quant) + "\"");
  if (!fmt->divides(n)) {
    return make_error(std::string(verb) + ": " + std::to_string(n) + " weights is not a multiple of " +
                      std::string(quant) + "'s block of " + std::to_string(fmt->block_weights));
  }
  return *fmt;
}

std::vector<std::string> quant_names() {
  std::vector<std::string> out;
  for (const QuantFormat& f : quant_formats()) out.emplace_back(f.name);
  return out;
}

namespace {
const std::map<std::string, double, std::less<>>& published_bits() {
  static const std::map<std::string, double, std::less<>> kBits = {
      {"q6_k", 6.5625}, {"q5_k", 5.5},    {"q5_0", 5.5},    {"q5_1", 6.0},       {"q4_1", 5.0},       {"q4_k_m", 4.8},
      {"q3_k_m", 3.9},  {"iq4_xs", 4.25}, {"iq4_nl", 4.5},  {"iq3_xxs", 3.0625}, {"iq2_xxs", 2.0625}, {"iq2_xs", 2.3125},
      {"iq2_s", 2.5},   {"iq1_s", 1.5625}, {"iq1_m", 1.75}, {"int8", 8.0},       {"int4", 4.0},       {"fp8", 8.0},
      {"fp16", 16.0},   {"q4g", 4.5},     {"q3g", 3.5},     {"mlx_q8", 8.5},
      // ik_llama.cpp's IQ6_K: 212 bytes per 256 weights (its ggml-common.h
      // block_iq6_k: scale, extra bits, 16 scales, 128 + 64 bytes of quants).
      {"iq6_k", 6.625},
      // ik_llama.cpp's other non-linear types, as its llama-quantize lists
      // them (ikawrakow/ik_llama.cpp examples/quantize/quantize.cpp: "IQ4_K
      // ... 4.5 bpw", "IQ2_K ... 2.375 bpw", "IQ3_K ... 3.44 bpw"); IQ2_KL
      // is 86 bytes per 256 weights.
      {"iq2_k", 2.375}, {"iq2_ks", 2.1875}, {"iq2_kt", 2.0625}, {"iq2_kl", 2.6875}, {"iq3_k", 3.4375},
      {"iq3_kt", 3.125}, {"iq4_k", 4.5},    {"iq4_ks", 4.25},   {"iq4_kss", 4.0},   {"iq4_kt", 4.125},
      {"iq5_k", 5.5},
      // ik_llama.cpp's Q6_0 (a KV cache type there): an fp16 scale, 8 bytes
      // of high bits and 16 of nibbles per 32 weights (its block_q6_0).
      {"q6_0", 6.5},
      // GGUF's i-quants as llama-quantize lists them ("IQ3_S ... 3.44 bpw",
      // "IQ3_M ... 3.66 bpw quantization mix", "IQ2_M ... 2.7 bpw").
      {"iq3_s", 3.4375}, {"iq3_m", 3.66}, {"iq3_xs", 3.3}, {"iq2_m", 2.7},
      // Unsloth Dynamic Q4_K_XL (GGUF): the bulk of the weights, the routed
      // experts, in Q4_K (4.5 bits), a few sensitive tensors higher
      // (docs.unsloth.ai, Unsloth Dynamic 2.0 GGUFs). A stated file size
      // says more and wins (K3's UD-Q4_K_XL keeps its MXFP4 experts: 1.51 TB).
      {"ud-q4_k_xl", 4.5},
      // WASTE's VQ3R residual-VQ experts: its K3 container (982 GB,
      // sqliteai/waste README.md) less the 27.28 GB Q4G trunk over K3's
      // routed weights.
      {"vq3r", 2.8}};
  return kBits;
}

std::optional<double> listed_bits(std::string_view name) {
  if (auto f = find_quant(name)) return f->bits_per_weight();
  const auto& t = published_bits();
  auto it = t.find(name);
  if (it != t.end()) return it->second;
  return std::nullopt;
}

bool strip_prefix(std::string_view& s, std::string_view p) {
  if (!s.starts_with(p)) return false;
  s.remove_prefix(p.size());
  return true;
}

// Only from a longer name: a bare suffix is no name.
bool strip_suffix(std::string_view& s, std::string_view p) {
  if (s.size() <= p.size() || !s.ends_with(p)) return false;
  s.remove_suffix(p.size());
  return true;
}

}  // namespace

std::optional<double> published_quant_bits(std::string_view name) {
  if (auto b = listed_bits(name)) return b;
  // The names GGUF files go by around a base type, each the base type's
  // bits (a stated file size says more and wins): Unsloth's dynamic mixes
  // ("ud-q2_k_xl", "ud-iq1_s": the routed experts in the base type, a few
  // tensors higher), a mix named by its main type ("mix-iq3_k"), a version
  // tag ("q4_k_m-v2"), and ik_llama.cpp's row-interleaved repacks
  // ("iq4_k_r4", "q4_k_r8": the base type's blocks in another order, at its
  // bytes or within a few percent of them — IQ1_S_R4 is 1.5 bits to
  // IQ1_S's 1.5625). A K-quant's _s/_m/_l mix averages more than its base
  // type and is known only where the table lists it (q4_k_m, q3_k_m).
  std::string_view s = name;
  bool changed = strip_prefix(s, "ud-");
  changed = strip_prefix(s, "mix-") || changed;
  if (s.size() > 3 && s[s.size() - 3] == '-' && s[s.size() - 2] == 'v' && std::isdigit(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(3);
    changed = true;
  }
  for (std::string_view r : {"_r4", "_r8", "_r16"}) changed = strip_suffix(s, r) || changed;
  changed = strip_suffix(s, "_xl") || changed;
  if (changed) return listed_bits(s);
  return std::nullopt;
}

bool llama_quantize_type(std::string_view name) {
  std::string_view s = name;
  strip_prefix(s, "ud-");
  strip_prefix(s, "mix-");
  strip_prefix(s, "i");
  return s.size() >= 3 && s[0] == 'q' && std::isdigit(static_cast<unsigned char>(s[1])) && s[2] == '_';
}

std::string quant_name_of(std::string_view stated) {
  std::string q;
  for (char ch : stated) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isspace(u) || ch == '(' || ch == ',' || ch == ':' || ch == ';') break;
    q += static_cast<char>(std::tolower(u));
  }
  return q;
}

std::vector<std::string> published_quant_names() {
  std::vector<std::string> out = quant_names();
  for (const auto& [name, bits] : published_bits()) out.push_back(name);
  return out;
}

}  // namespace moebench
