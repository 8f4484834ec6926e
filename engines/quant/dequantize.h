// dequantize.h — scalar reference dequantizers, bit-compatible with ggml.
//
// For every format of quant_format.h: blocks → float32, with the exact
// arithmetic (and order of operations) of ggml's reference
// dequantize_row_* functions, so that llama.cpp-written files decode to the
// very same floats (tested against reference values llama.cpp produced).
// SIMD kernels are checked against these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vocab/expected.h"

namespace moebench {

// Dequantizes `n` weights (a multiple of the format's block size) from
// `src` (n / block_weights blocks) into `dst`.
Status dequantize(std::string_view quant, const void* src, float* dst, std::size_t n);

float fp16_to_fp32(std::uint16_t h);
float bf16_to_fp32(std::uint16_t h);
float e8m0_to_fp32_half(std::uint8_t e);  // MXFP4 block scale: 2^(e-128)

// Shared with the quantizers: the E2M1 code point values doubled (ggml's
// kvalues_mxfp4), and the 6-bit scale/min unpacking of Q4_K (ggml's
// get_scale_min_k4).
inline constexpr std::int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
void get_scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m);

}  // namespace moebench
