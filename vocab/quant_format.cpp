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
}  // namespace

std::optional<double> published_quant_bits(std::string_view name) {
  if (auto f = find_quant(name)) return f->bits_per_weight();
  const auto& t = published_bits();
  auto it = t.find(name);
  if (it != t.end()) return it->second;
  return std::nullopt;
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
