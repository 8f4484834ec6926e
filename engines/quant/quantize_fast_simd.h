// quantize_fast_simd.h — declarations shared by the QuantSearch::kFast
// files (quantize_fast.cpp and its AVX-512 and NEON twins) and their test:
// the SIMD entry points, each writing `blocks` super-blocks of 256 weights,
// and ggml's scale packing that the scalar and NEON paths share. Internal to
// engines/quant; declarations only (nothing here is compiled with ISA flags).
#pragma once

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

// quantize_fast.cpp: the sub-block scales packed as ggml's scales[12]
// (q4_k: 6-bit scales ls and mins lm; q3_k: signed 6-bit scales ls).
void pack_q4_k_scales(const int* ls, const int* lm, std::uint8_t* sc);
void pack_q3_k_scales(const int* ls, std::uint8_t* sc);

#if defined(MOEBENCH_X86_SIMD)
// quantize_fast_avx512.cpp (call only after the runtime AVX-512 check).
void quantize_q4_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks);
void quantize_q3_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks);
void quantize_q2_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks);
#endif

#if defined(MOEBENCH_ARM_SIMD)
// quantize_fast_neon.cpp; the two fp16 super-block scales per block are
// converted by the functions passed.
using ToFp16 = std::uint16_t (*)(float);
using FromFp16 = float (*)(std::uint16_t);
void quantize_q4_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16, FromFp16);
void quantize_q3_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16, FromFp16);
void quantize_q2_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16, FromFp16);
#endif

}  // namespace moebench::detail
