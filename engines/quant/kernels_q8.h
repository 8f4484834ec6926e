// kernels_q8.h — integer-dot kernels: y = W·x with the activations x
// quantized to 8 bits, the way llama.cpp computes its quantized matmuls.
//
// The float kernels of kernels.h decode every weight to a float and do one
// float multiply-add per weight. Here the activations are quantized once
// per product into blocks of 32 (an int8 per value, a float scale d = max|x|
// / 127, and s = d·Σq), the weights are unpacked to bytes, and 32 products
// are summed per block in integer lanes (pmaddubsw, or vpdpbusd on CPUs with
// AVX-512 VNNI) before one float multiply-add per block applies the scales.
// Formats: q4_0, q8_0, mxfp4, q4_k (the others keep the float kernels).
//
// Every format's weights are written as unsigned bytes u with a per-block
// offset: w = sw·(u − o) for q4_0 (o = 8), mxfp4 (u = table value + 12,
// o = 12) and q8_0 (u = w + 128, o = 128, VNNI only: pmaddubsw would
// saturate, so the AVX2 kernel multiplies signed bytes by sign); q4_k has
// w = d·sc·u − dmin·m per 32-block. So for a row and an activation block
//   Σ w·x ≈ sw·dx·Σ u·q − cw·s,  cw = sw·o (q4_k: dmin·m)
// with the integer sum exact. The result differs from the float kernels by
// the activation rounding only: |Σ w·(x − dx·q)| ≤ Σ|w|·dx/2 per block, the
// bound the tests hold every kernel to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engines/quant/kernels.h"
#include "vocab/expected.h"

namespace moebench {

inline constexpr std::size_t kQ8Block = 32;

// Activations of `batch` rows of `cols` values (cols a multiple of 32),
// quantized: q[b·cols + c], and per block k of row b: d[b·nb + k] and
// s[b·nb + k] = d·Σq.
struct Q8Activations {
  std::size_t cols = 0, batch = 0;
  std::vector<std::int8_t> q;
  std::vector<float> d, s;
  std::size_t blocks() const { return cols / kQ8Block; }
};

// Round-to-nearest-even of x / d, d = max|x| / 127 per block (0 for an
// all-zero block). Deterministic: the same bytes on every ISA.
void quantize_activations(const float* x, std::size_t cols, std::size_t batch, Q8Activations& out);

// Whether `quant` has an integer kernel and `cols` suits it (a multiple of
// its block: 32, or 256 for q4_k).
bool has_q8_kernel(std::string_view quant, std::size_t cols);

// The kernel family that runs at `level` on this CPU: "avx512-vnni",
// "avx2", or "scalar" — what rows record beside the SIMD level.
const char* q8_kernel_name(SimdLevel level);

// Y[b][r] = Σ_c W[r][c]·x̂[b][c] for b < x.batch (Y is batch × rows), x̂
// the dequantized activations. Errors: unknown quant, no integer kernel,
// columns that differ from x.cols.
Status matmul_q8(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const Q8Activations& x,
                 float* y, SimdLevel level);

namespace detail {

struct Q8Args {
  std::uint32_t ggml_type;
  const unsigned char* w;
  std::size_t rows, cols, row_bytes;
  const Q8Activations* x;
  float* y;
};

#if defined(MOEBENCH_X86_SIMD)
bool matmul_q8_avx2(const Q8Args& a);
bool matmul_q8_vnni(const Q8Args& a);
void quantize_row_avx2(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s);
bool cpu_has_avx512_vnni();
#endif

}  // namespace detail
}  // namespace moebench
