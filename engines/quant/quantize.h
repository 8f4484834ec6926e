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
#include "vocab/expected.h"

namespace moebench {

// Quantizes `n` floats (a multiple of the format's block size) from `src`
// into n / block_weights blocks at `dst`.
// Uses the best SIMD path this CPU has (AVX-512 for mxfp4 and bf16); every
// path writes the same bytes.
Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n);
// The same at a given level (kScalar forces the reference code; a level the
// CPU lacks falls back to scalar).
Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n, SimdLevel level);

// Which scale search the k-quants use.
//   kGgml — ggml's reference quantizers operation for operation (the default
//           of the overloads above): bit-exact with llama.cpp, slow for the
//           k-quants (make_qkx2_quants' 20-step search, make_q3_quants).
//   kFast — for formats whose ggml quantizer is already single-pass (f32,
//           f16, bf16, q8_0, q4_0, mxfp4) identical to kGgml, same bytes.
//           For q4_k, q3_k and q2_k the same block layout (dequantize() and
//           every kernel read it unchanged), with the sub-block scales
//           chosen by one min/max pass instead of ggml's search:
//             q4_k / q2_k: per sub-block (32 / 16 weights) min = min(0, min x),
//               scale = (max x − min) / 15 (q4_k) or / 3 (q2_k);
//             q3_k: per sub-block of 16, scale = m / −4 with m the larger in
//               magnitude of max x and min x (max x on a tie), so m gets level −4.
//           The super-block fp16 d (and dmin) is the largest scale (min)
//           divided by 63 (q4_k) or 15 (q2_k); for q3_k, the scale of largest
//           magnitude (positive on a tie) divided by −32; each clamped to the
//           fp16 range. Every sub-block scale (and min) is then quantized to
//           6 bits (q4_k: 0..63; q3_k: signed, −32..31) or 4 bits (q2_k:
//           0..15) by rounding it to nearest against the stored d (dmin),
//           and the weights are re-quantized to the nearest level of the
//           *quantized* scales, as ggml's second pass does. One pass, no
//           search: measured ≤ 1.17× ggml's RMS error on Gaussian weights
//           (with or without outliers), 25–75× faster with AVX-512. Finite
//           for finite input (weights beyond the fp16-limited range
//           saturate). The scalar, AVX-512 and NEON paths write the
//           same bytes; for the k-quants these are not llama.cpp's bytes.
enum class QuantSearch { kGgml, kFast };

// quantize() at a given level with the chosen scale search.
Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n, SimdLevel level,
                QuantSearch search);
// quantize() at the best SIMD level with QuantSearch::kFast.
Status quantize_fast(std::string_view quant, const float* src, void* dst, std::size_t n);

// IEEE binary16 bits of `f`, rounded to nearest even (NaN → quiet NaN,
// overflow → ±inf), as ggml's GGML_FP32_TO_FP16.
std::uint16_t fp32_to_fp16(float f);
// bfloat16 bits of `f`, rounded to nearest even (NaN → quiet NaN), as
// ggml_fp32_to_bf16.
std::uint16_t fp32_to_bf16(float f);

}  // namespace moebench
