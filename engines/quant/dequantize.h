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

#include "harness/expected.h"

namespace moebench {

// Dequantizes `n` weights (a multiple of the format's block size) from
// `src` (n / block_weights blocks) into `dst`.
Status dequantize(std::string_view quant, const void* src, float* dst, std::size_t n);

float fp16_to_fp32(std::uint16_t h);
float bf16_to_fp32(std::uint16_t h);
float e8m0_to_fp32_half(std::uint8_t e);  // MXFP4 block scale: 2^(e-128)

}  // namespace moebench
