// quantize_avx512.cpp — AVX-512 paths of the fastest-moving quantizers
// (MXFP4, BF16), compiled with AVX-512 flags and called only after the
// runtime CPU check in quantize.cpp. They produce exactly the scalar bytes:
// MXFP4 scales by a power of two (exact) and looks up the threshold count the
// scalar code computes; BF16 applies the same round-to-nearest-even integer
// arithmetic. Blocks outside the exact fast path (tiny or huge scales) go
// back to the scalar block function.
//
// No standard-library templates here: their instantiations would be AVX-512
// code that the linker could pick for callers on any CPU.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

// MXFP4 with d = 2^k: the code magnitude is m = #{T : 2|x|/d > T} over the
// integer thresholds T = 1, 3, 5, 7, 10, 14, 20 (twice the midpoints the
// scalar code compares with), i.e. m = lut[ceil(2|x|/d)]: one exact
// multiply by a power of two, one ceil conversion and one 32-entry table
// permute; negative non-zero codes add 8.
void quantize_mxfp4_avx512(const float* x, std::uint8_t* out, std::size_t blocks,
                           void (*scalar_block)(const float*, std::uint8_t*)) {
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  // lut[c] for c = ceil(2t), t = |x|/d < 16: c ≤ 32, clamped to 31 where the
  // count is already 7.
  alignas(64) std::int32_t lut[32];
  const int thresholds[7] = {1, 3, 5, 7, 10, 14, 20};
  for (int c = 0; c < 32; ++c) {
    int m = 0;
    for (int th : thresholds) m += c > th ? 1 : 0;
    lut[c] = m;
  }
  const __m512i lut_lo = _mm512_load_si512(lut);
  const __m512i lut_hi = _mm512_load_si512(lut + 16);
  const __m512i c31 = _mm512_set1_epi32(31);
  const __m512i eight = _mm512_set1_epi32(8);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 17) {
    const __m512 x0 = _mm512_loadu_ps(x);
    const __m512 x1 = _mm512_loadu_ps(x + 16);
    const __m512 a0 = _mm512_and_ps(x0, abs_mask);
    const __m512 a1 = _mm512_and_ps(x1, abs_mask);
    const float amax = _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
    std::uint32_t u;
    __builtin_memcpy(&u, &amax, 4);
    const std::uint32_t exp = u >> 23;
    // Fast path: floor(log2(amax)) is the exponent field (not a subnormal,
    // not within log2f's rounding of the next power of two), and e = exp - 2
    // is a normal scale ≥ 2 with amax ≤ 3e38, as the scalar code requires.
    if (exp < 4 || (u & 0x7fffffu) > 0x7ff000u || !(amax <= 3.0e38f)) {
      scalar_block(x, out);
      continue;
    }
    const int e = static_cast<int>(exp) - 2;
    out[0] = static_cast<std::uint8_t>(e);
    const __m512 s2 = _mm512_castsi512_ps(_mm512_set1_epi32((256 - e) << 23));  // 2/d, a power of two
    const __m512i c0 = _mm512_min_epi32(
        _mm512_cvt_roundps_epi32(_mm512_mul_ps(a0, s2), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC), c31);
    const __m512i c1 = _mm512_min_epi32(
        _mm512_cvt_roundps_epi32(_mm512_mul_ps(a1, s2), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC), c31);
    __m512i m0 = _mm512_permutex2var_epi32(lut_lo, c0, lut_hi);
    __m512i m1 = _mm512_permutex2var_epi32(lut_lo, c1, lut_hi);
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
