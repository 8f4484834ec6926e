// quantize.h — float32 → blocks, the inverse of dequantize.h.
//
// For every format of quant_format.h, quantize() writes exactly
// bytes_for(n) bytes in ggml's block layout, following ggml's reference
// quantizers (quantize_row_*_ref, ggml_fp32_to_bf16, fp32→fp16 round to
// nearest even) operation for operation, so that what it writes matches what
// llama.cpp's reference path would write and dequantize() reads it back.
// Scalar, single-threaded and reentrant; callers split large tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engines/quant/kernels.h"
#include "harness/expected.h"

namespace moebench {

// Quantizes `n` floats (a multiple of the format's block size) from `src`
// into n / block_weights blocks at `dst`.
// Uses the best SIMD path this CPU has (AVX-512 for mxfp4 and bf16); every
// path writes the same bytes.
Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n);
// The same at a given level (kScalar forces the reference code; a level the
// CPU lacks falls back to scalar).
Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n, SimdLevel level);

// IEEE binary16 bits of `f`, rounded to nearest even (NaN → quiet NaN,
// overflow → ±inf), as ggml's GGML_FP32_TO_FP16.
std::uint16_t fp32_to_fp16(float f);
// bfloat16 bits of `f`, rounded to nearest even (NaN → quiet NaN), as
// ggml_fp32_to_bf16.
std::uint16_t fp32_to_bf16(float f);

}  // namespace moebench
