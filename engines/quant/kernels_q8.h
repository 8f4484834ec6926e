// kernels_q8.h — integer-dot kernels: y = W·x with the activations x
// quantized to 8 bits, the way llama.cpp computes its quantized matmuls.
//
// The float kernels of kernels.h decode every weight to a float and do one
// float multiply-add per weight. Here the activations are quantized once
// per product into blocks of 32 (an int8 per value, a float scale d = max|x|
// / 127, and s = d·Σq), the weights are unpacked to bytes, and 32 products
// are summed per block in integer lanes (pmaddubsw, or vpdpbusd on CPUs with
// AVX-512 VNNI; on aarch64 SMULL, SDOT or SMMLA, kernels_q8_neon.h) before
// one float multiply-add per block applies the scales.
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
// "avx2", "neon", "neon-dotprod", "neon-i8mm" or "scalar" — what rows
// record beside the SIMD level.
const char* q8_kernel_name(SimdLevel level);

// Y[b][r] = Σ_c W[r][c]·x̂[b][c] for b < x.batch (Y is batch × rows), x̂
// the dequantized activations. Errors: unknown quant, no integer kernel,
// columns that differ from x.cols.
Status matmul_q8(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const Q8Activations& x,
                 float* y, SimdLevel level);

// ---- the 8-row interleaved layout ("rows8") -------------------------------
// q4_0, q8_0, mxfp4 and q4_k matrices can be rewritten in place, group of 8 rows
// by group of 8 rows, so that one 32-byte load holds 4 (q8_0) or 8 (q4_0,
// mxfp4: two nibbles) consecutive weights of each of the 8 rows: a dot with
// an activation's 4 bytes broadcast to every lane then yields the 8 rows'
// sums in one register, and a block's scales apply to all 8 rows with one
// multiply-add, where the row layout needs one per row and a horizontal sum
// at the end. The bytes per group are the same (8 rows × row bytes), so
// slicing by groups of 8 rows and every byte count stay as they were.
//
// Per group and 32-column block k, at group offset k·8·block_bytes:
//   the 8 rows' block scales, row order (fp16: 16 bytes; mxfp4's e8m0: 8)
//   q4_0, mxfp4  4 chunks of 32 bytes; chunk c, byte 4r + j: low nibble =
//                the 4-bit value of row r, column 8c + j; high nibble =
//                that of column 8c + 4 + j
//   q8_0         8 chunks of 32 bytes; chunk c, byte 4r + j = the int8 of
//                row r, column 4c + j
// q4_k works per 256-column super-block k, at group offset k·8·144: the 8
// rows' fp16 d (16 bytes), fp16 dmin (16), their 12 packed 6-bit scale and
// min bytes as three 32-byte arrays (bytes 0-3, 4-7, 8-11 of rows 0..7;
// 96), then its 8 sub-blocks of 32 columns as q4_0's 4 nibble chunks (128
// bytes each).
inline constexpr std::size_t kRows8 = 8;

// Whether `quant` has the layout (q4_0, q8_0, mxfp4, q4_k) and the matrix
// suits it (rows a multiple of 8, cols of 32; of 256 for q4_k).
bool has_rows8_layout(std::string_view quant, std::size_t rows, std::size_t cols);
// Rewrites rows × cols weights at `w` (row layout) into rows8, in place.
Status interleave_rows8(std::string_view quant, void* w, std::size_t rows, std::size_t cols);
// Row r of a rows8 matrix back in the row layout (fmt.bytes_for(cols) bytes).
void deinterleave_row(std::string_view quant, const void* w, std::size_t r, std::size_t cols, void* out);
// matmul_q8() on a rows8 matrix (rows a multiple of 8).
Status matmul_q8_rows8(std::string_view quant, const void* w, std::size_t rows, std::size_t cols,
                       const Q8Activations& x, float* y, SimdLevel level);

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
bool matmul_rows8_avx2(const Q8Args& a);
bool matmul_rows8_vnni(const Q8Args& a);
void quantize_row_avx2(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s);
bool cpu_has_avx512_vnni();
#endif
#if defined(MOEBENCH_ARM_SIMD)
bool matmul_q8_neon(const Q8Args& a);
bool matmul_q8_dotprod(const Q8Args& a);
bool matmul_q8_i8mm(const Q8Args& a);
bool matmul_rows8_neon(const Q8Args& a);
bool matmul_rows8_dotprod(const Q8Args& a);
void quantize_row_neon(const float* x, std::size_t cols, std::int8_t* q, float* d, float* s);
#endif

}  // namespace detail
}  // namespace moebench
