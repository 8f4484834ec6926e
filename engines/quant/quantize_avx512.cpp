// quantize_avx512.cpp — AVX-512 paths of the single-pass quantizers
// (MXFP4, BF16, Q8_0, Q4_0), compiled with AVX-512 flags and called only after the
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

namespace {
// max |x| over 32 values with NaNs ignored, like the scalar abs_max.
inline float abs_max32(__m512 x0, __m512 x1, __m512& a0, __m512& a1) {
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  a0 = _mm512_and_ps(x0, abs_mask);
  a1 = _mm512_and_ps(x1, abs_mask);
  const __m512 c0 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a0, a0, _CMP_ORD_Q), a0);
  const __m512 c1 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a1, a1, _CMP_ORD_Q), a1);
  return _mm512_reduce_max_ps(_mm512_max_ps(c0, c1));
}
inline void put16(std::uint8_t* p, std::uint16_t v) { __builtin_memcpy(p, &v, 2); }
}  // namespace

// MXFP4 with d = 2^k: the code magnitude is m = #{T : 2|x|/d > T} over the
// integer thresholds T = 1, 3, 5, 7, 10, 14, 20 (twice the midpoints the
// scalar code compares with), i.e. m = lut[ceil(2|x|/d)]: one exact
// multiply by a power of two, one ceil conversion and one 32-entry table
// permute; negative non-zero codes add 8.
void quantize_mxfp4_avx512(const float* x, std::uint8_t* out, std::size_t blocks,
                           void (*scalar_block)(const float*, std::uint8_t*)) {
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
    __m512 a0, a1;
    const float amax = abs_max32(x0, x1, a0, a1);
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


// Q8_0 as q8_0_block: d = amax/127 (scalar, fp16 by the shared converter),
// v = x·id clamped to [-128, 127] (max/min return the bound for NaN, as the
// scalar comparisons do), then round half away from zero in integers.
void quantize_q8_0_avx512(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float)) {
  const __m512 lo = _mm512_set1_ps(-128.f), hi = _mm512_set1_ps(127.f);
  const __m512 half = _mm512_set1_ps(0.5f), mhalf = _mm512_set1_ps(-0.5f);
  const __m512i one = _mm512_set1_epi32(1);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 34) {
    const __m512 x0 = _mm512_loadu_ps(x);
    const __m512 x1 = _mm512_loadu_ps(x + 16);
    __m512 a0, a1;
    const float amax = abs_max32(x0, x1, a0, a1);
    const float d = amax / 127;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    put16(out, to_fp16(d));
    const __m512 vid = _mm512_set1_ps(id);
    const __m512 xs[2] = {x0, x1};
    for (int h = 0; h < 2; ++h) {
      const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(xs[h], vid), lo), hi);
      __m512i q = _mm512_cvttps_epi32(v);
      const __m512 frac = _mm512_sub_ps(v, _mm512_cvtepi32_ps(q));
      q = _mm512_mask_add_epi32(q, _mm512_cmp_ps_mask(frac, half, _CMP_GE_OQ), q, one);
      q = _mm512_mask_sub_epi32(q, _mm512_cmp_ps_mask(frac, mhalf, _CMP_LE_OQ), q, one);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 + 16 * h), _mm512_cvtepi32_epi8(q));
    }
  }
}

// Q4_0 as q4_0_block: the first value of largest magnitude sets d = max/-8;
// q = trunc(min(x·id + 8.5, 15.5)) (min returns the bound for NaN).
void quantize_q4_0_avx512(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float)) {
  const __m512 add = _mm512_set1_ps(8.5f), cap = _mm512_set1_ps(15.5f);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 18) {
    const __m512 x0 = _mm512_loadu_ps(x);
    const __m512 x1 = _mm512_loadu_ps(x + 16);
    __m512 a0, a1;
    const float amax = abs_max32(x0, x1, a0, a1);
    const __m512 vmax = _mm512_set1_ps(amax);
    const std::uint32_t hits = static_cast<std::uint32_t>(_mm512_cmp_ps_mask(a0, vmax, _CMP_EQ_OQ)) |
                               (static_cast<std::uint32_t>(_mm512_cmp_ps_mask(a1, vmax, _CMP_EQ_OQ)) << 16);
    const float max = hits ? x[__builtin_ctz(hits)] : 0.0f;
    const float d = max / -8;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    put16(out, to_fp16(d));
    const __m512 vid = _mm512_set1_ps(id);
    const __m512i q0 = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_add_ps(_mm512_mul_ps(x0, vid), add), cap));
    const __m512i q1 = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_add_ps(_mm512_mul_ps(x1, vid), add), cap));
    const __m512i packed = _mm512_or_si512(q0, _mm512_slli_epi32(q1, 4));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2), _mm512_cvtepi32_epi8(packed));
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
