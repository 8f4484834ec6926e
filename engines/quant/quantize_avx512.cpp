// quantize_avx512.cpp — AVX-512 paths of the fastest-moving quantizers
// (MXFP4, BF16), compiled with AVX-512 flags and called only after the
// runtime CPU check in quantize.cpp. They produce exactly the scalar bytes:
// MXFP4 scales by a power of two (exact) and counts threshold crossings like
// the scalar code; BF16 applies the same round-to-nearest-even integer
// arithmetic. Blocks outside the exact fast path (tiny or huge scales) go
// back to the scalar block function.
//
// No standard-library templates here: their instantiations would be AVX-512
// code that the linker could pick for callers on any CPU.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

void quantize_mxfp4_avx512(const float* x, std::uint8_t* out, std::size_t blocks,
                           void (*scalar_block)(const float*, std::uint8_t*), int (*floor_log2)(float)) {
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  const float thresholds[7] = {0.5f, 1.5f, 2.5f, 3.5f, 5.f, 7.f, 10.f};
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i eight = _mm512_set1_epi32(8);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 17) {
    const __m512 x0 = _mm512_loadu_ps(x);
    const __m512 x1 = _mm512_loadu_ps(x + 16);
    const __m512 a0 = _mm512_and_ps(x0, abs_mask);
    const __m512 a1 = _mm512_and_ps(x1, abs_mask);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
    int e = 0;
    if (amax > 0.0f) {
      e = floor_log2(amax) - 2 + 127;
      e = e < 0 ? 0 : (e > 254 ? 254 : e);
    }
    if (!(e >= 2 && amax <= 3.0e38f)) {
      scalar_block(x, out);
      continue;
    }
    out[0] = static_cast<std::uint8_t>(e);
    const __m512 s = _mm512_castsi512_ps(_mm512_set1_epi32((255 - e) << 23));  // 1/d, a power of two
    const __m512 t0 = _mm512_mul_ps(a0, s);
    const __m512 t1 = _mm512_mul_ps(a1, s);
    __m512i m0 = _mm512_setzero_si512();
    __m512i m1 = _mm512_setzero_si512();
    for (float th : thresholds) {
      const __m512 tv = _mm512_set1_ps(th);
      m0 = _mm512_mask_add_epi32(m0, _mm512_cmp_ps_mask(t0, tv, _CMP_GT_OQ), m0, one);
      m1 = _mm512_mask_add_epi32(m1, _mm512_cmp_ps_mask(t1, tv, _CMP_GT_OQ), m1, one);
    }
    // Negative non-zero codes add 8 (the sign bit of E2M1).
    const __mmask16 neg0 = _mm512_movepi32_mask(_mm512_castps_si512(x0)) & _mm512_test_epi32_mask(m0, m0);
    const __mmask16 neg1 = _mm512_movepi32_mask(_mm512_castps_si512(x1)) & _mm512_test_epi32_mask(m1, m1);
    m0 = _mm512_mask_add_epi32(m0, neg0, m0, eight);
    m1 = _mm512_mask_add_epi32(m1, neg1, m1, eight);
    const __m512i packed = _mm512_or_si512(m0, _mm512_slli_epi32(m1, 4));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 1), _mm512_cvtepi32_epi8(packed));
  }
}

void quantize_bf16_avx512(const float* x, std::uint8_t* out, std::size_t n) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const __m512i inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(64);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i u = _mm512_castps_si512(_mm512_loadu_ps(x + i));
    const __m512i hi = _mm512_srli_epi32(u, 16);
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(bias, _mm512_and_si512(hi, one))), 16);
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, abs_mask), inf);
    const __m512i r = _mm512_mask_or_epi32(rounded, nan, hi, quiet);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * i), _mm512_cvtepi32_epi16(r));
  }
  for (; i < n; ++i) {  // tail, same arithmetic
    std::uint32_t u;
    __builtin_memcpy(&u, x + i, 4);
    const std::uint32_t v = (u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) | 64u) : ((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
    const std::uint16_t h = static_cast<std::uint16_t>(v);
    __builtin_memcpy(out + 2 * i, &h, 2);
  }
}

}  // namespace moebench::detail
