// quant_format.cpp — see quant_format.h. ggml type ids from ggml.h
// (GGML_TYPE_F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q2_K = 10, Q3_K = 11,
// Q4_K = 12, BF16 = 30, MXFP4 = 39).
#include "vocab/quant_format.h"

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

}  // namespace moebench
