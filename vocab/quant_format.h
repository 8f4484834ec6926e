// quant_format.h — the table of weight formats moebench knows: name, ggml type
// id, weights per block and bytes per block (ggml's exact layouts, see
// ../shared/reference/FACTS.md). Byte counts of cards and containers are
// derived from this table and nothing else. Kernels live beside it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

struct QuantFormat {
  std::string_view name;        // config spelling, lower case: "mxfp4"
  std::uint32_t ggml_type;      // GGML_TYPE_* id in GGUF tensor infos
  std::uint32_t block_weights;  // weights per block
  std::uint32_t block_bytes;    // bytes per block
  double bits_per_weight() const { return 8.0 * block_bytes / block_weights; }
  // Bytes for `n` weights; n must be a multiple of block_weights (callers check
  // with fits_rows()).
  std::uint64_t bytes_for(std::uint64_t n) const { return n / block_weights * block_bytes; }
  bool divides(std::uint64_t n) const { return n % block_weights == 0; }
};

const std::vector<QuantFormat>& quant_formats();
std::optional<QuantFormat> find_quant(std::string_view name);
// The format for `n` weights, or an error naming `verb` ("quantize") when the
// quant is unknown or n is not a whole number of its blocks.
Expected<QuantFormat> quant_for_blocks(std::string_view verb, std::string_view quant, std::uint64_t n);
std::vector<std::string> quant_names();

// Bits per weight of a quant name as published sources write it (lower
// case, as quant_name_of gives it): the table above first, then GGUF's
// other types, ik_llama.cpp's, and engine-specific formats (WASTE's grouped
// q4g/q3g and VQ3R experts, Deltafin's row int8, MLX's 8-bit with a scale and
// bias per 64-group); then a GGUF name built around one of those ("ud-",
// "mix-", "_r4"/"_r8"/"_r16", "_xl", "-v2") as its base type. nullopt for a
// name nobody here knows.
std::optional<double> published_quant_bits(std::string_view name);
std::vector<std::string> published_quant_names();
// Whether a published quant name (as quant_name_of gives it) is one of
// llama-quantize's output types or a GGUF name built around one
// ("q4_k_m", "iq2_xxs", "ud-q2_k_xl", "iq4_k_r4"): i?q, a digit, '_'. Such
// a file holds every 2-D weight in that type or a step above it, never
// bf16; MXFP4, FP8, int4 and engine formats (q4g, vq3r) are not.
bool llama_quantize_type(std::string_view name);
// The quant a source's free text names ("MXFP4 experts (original …)",
// "VQ3R: 3-bit …", "UD-Q4_K_XL (GGUF)"): its first word, lowercased, ending at
// a space, '(', ',', ':' or ';' — the key published_quant_bits takes.
std::string quant_name_of(std::string_view stated);

}  // namespace moebench
