// kernels.h — fused dequantize·dot kernels: y = W·x over quantized weights.
//
// W is `rows` rows of `cols` weights in one format of quant_format.h, each
// row bytes_for(cols) bytes, rows contiguous. Weights are decoded a block at
// a time into registers (or a small on-stack tile) and multiplied with
// float32 activations; a dequantized matrix is never materialized. matmul
// decodes each weight block once per call and applies it to the whole batch
// (prefill: weights read once per batch). Kernels are single-threaded and
// reentrant; callers split rows across threads.
//
// Every format has a portable scalar kernel (the reference, and the path on
// other architectures). On x86-64, AVX2 (+FMA, F16C) and AVX-512 (F, BW,
// VL, DQ) versions live in kernels_avx2.cpp / kernels_avx512.cpp, compiled
// for those instruction sets and only reached after a runtime CPU check; on
// aarch64 the NEON version (kernels_neon.cpp: NEON is part of the base
// architecture) runs at every NEON level. All three instantiate the drivers
// of kernels_simd.h over their own traits type.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/quant_format.h"
#include "vocab/expected.h"

namespace moebench {

// Two families, each ordered by capability: x86-64 (avx2 < avx512) and
// aarch64 (neon < neon-dotprod < neon-i8mm: the integer-dot kernels of
// kernels_q8.h use SDOT from dotprod and SMMLA from i8mm; the float kernels
// are the same NEON code at all three). A CPU has scalar plus a prefix of its
// own family.
enum class SimdLevel { kScalar, kAvx2, kAvx512, kNeon, kNeonDotprod, kNeonI8mm };

// "scalar", "avx2", "avx512", "neon", "neon-dotprod", "neon-i8mm"
const char* to_string(SimdLevel level);
// Runtime detection (cached; x86: CPUID, aarch64: the kernel's HWCAP bits),
// capped by the environment variable MOEBENCH_SIMD=<level> when set: how an
// AVX-512 host measures the AVX2 paths, or an i8mm host the plain NEON ones.
// simd_description() is the level with the cap, if any, as rows and probes
// record it ("avx2 (MOEBENCH_SIMD=avx2 caps this CPU's avx512)").
SimdLevel best_simd_level();
SimdLevel detected_simd_level();
std::string simd_description();
std::vector<SimdLevel> available_simd_levels();  // scalar first, then the family up to best
bool simd_level_available(SimdLevel level);
bool is_neon(SimdLevel level);

// y[r] = sum_c W[r][c] * x[c] for r < rows.
Status matvec(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const float* x, float* y,
              SimdLevel level);

// Y[b][r] = sum_c W[r][c] * X[b][c] for b < batch; X is batch × cols
// row-major, Y is batch × rows row-major.
Status matmul(std::string_view quant, const void* w, std::size_t rows, std::size_t cols, const float* x,
              std::size_t batch, float* y, SimdLevel level);

namespace detail {

// Arguments after validation (format known, cols a multiple of its block,
// pointers non-null, rows/cols/batch > 0).
struct MatmulArgs {
  QuantFormat fmt;
  const unsigned char* w;
  std::size_t rows, cols;
  const float* x;
  std::size_t batch;
  float* y;
};

// Lookup tables built from dequantize.h's helpers on first use (thread-safe):
// fp16 bits → float (65536 entries), e8m0 → 2^(e-128) (256 entries).
const float* fp16_table();
const float* e8m0_half_table();

// Return false when the format has no SIMD version (the dispatcher then
// runs the scalar kernel).
#if defined(MOEBENCH_X86_SIMD)
bool matmul_avx2(const MatmulArgs& a);
bool matmul_avx512(const MatmulArgs& a);
#endif
#if defined(MOEBENCH_ARM_SIMD)
bool matmul_neon(const MatmulArgs& a);
#endif

}  // namespace detail
}  // namespace moebench
