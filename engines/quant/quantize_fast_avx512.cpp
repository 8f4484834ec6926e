// quantize_fast_avx512.cpp — AVX-512 QuantSearch::kFast for Q4_K, Q3_K and
// Q2_K (see quantize.h), compiled with AVX-512 flags and -ffp-contract=off
// and called only after the runtime CPU check in quantize_fast.cpp.
//
// Same bytes as the scalar reference in quantize_fast.cpp: every value goes
// through the same IEEE float operations in the same order (a vector lane
// per weight or per sub-block instead of a loop iteration); the sub-block
// minima and maxima come from a shuffle tree instead of a sequential loop,
// which gives the same values because min/max are order-independent and
// the scalar code makes every zero that reaches a stored scale +0; fp16
// conversion is the hardware's round-to-nearest-even (VCVTPS2PH), equal to
// fp32_to_fp16 for the finite, fp16-range values it is given. Levels are
// rounded with the 1.5·2^23 trick on clamped values, whose low bits are the
// level itself, so they pack into nibbles and 2-bit fields directly.
//
// No standard-library templates here: their instantiations would be AVX-512
// code that the linker could pick for callers on any CPU.
//
// GCC 12 reports its own _mm512_undefined_ps() (`__m512 __Y = __Y;`) as
// used uninitialized when AVX-512 intrinsics are inlined here (GCC PR 105593,
// fixed in GCC 13); the warning is silenced for the intrinsic headers only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <cstddef>
#include <cstdint>

#include "engines/quant/quantize_fast_simd.h"

namespace moebench::detail {
namespace {

constexpr float kFp16Max = 65504.f;
constexpr float kRoundMagic = 12582912.f;     // 1.5·2^23
constexpr std::int32_t kMagicBits = 0x4B400000;  // its bit pattern

// Same rules as the scalar helpers: min(a, b) = a < b ? a : b, max likewise.
inline __m512 clamp_ps(__m512 v, float lo, float hi) {
  return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
}
// d != 0 ? 1 / d : 0 per lane.
inline __m512 recip_or_zero(__m512 d) {
  const __mmask16 nz = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_NEQ_UQ);
  return _mm512_maskz_div_ps(nz, _mm512_set1_ps(1.f), d);
}
// Bits of v + 1.5·2^23 for clamped v: the low bits hold nearest(v) + 2^22.
inline __m512i round_bits(__m512 v) { return _mm512_castps_si512(_mm512_add_ps(v, _mm512_set1_ps(kRoundMagic))); }
inline __m512i nearest_epi32(__m512 v) { return _mm512_sub_epi32(round_bits(v), _mm512_set1_epi32(kMagicBits)); }

inline float clampf(float v, float lo, float hi) {
  v = v > lo ? v : lo;
  return v < hi ? v : hi;
}

// Reduces each of v[0..7] over its 16 lanes with min (is_min) or max, up to
// the last step: lane 4k holds v[k]'s result and lane 4k+2 v[k+4]'s (k < 4).
inline __m512 reduce8_partial(const __m512* v, bool is_min) {
  __m512 r[4], s[2];
  for (int p = 0; p < 4; ++p) {  // halves of v[2p] | halves of v[2p+1]
    const __m512 a = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 b = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
    r[p] = is_min ? _mm512_min_ps(a, b) : _mm512_max_ps(a, b);
  }
  for (int p = 0; p < 2; ++p) {  // 128-bit lane k: 4 partials of v[4p+k]
    const __m512 a = _mm512_shuffle_f32x4(r[2 * p], r[2 * p + 1], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 b = _mm512_shuffle_f32x4(r[2 * p], r[2 * p + 1], _MM_SHUFFLE(3, 1, 3, 1));
    s[p] = is_min ? _mm512_min_ps(a, b) : _mm512_max_ps(a, b);
  }
  const __m512 a = _mm512_shuffle_ps(s[0], s[1], _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 b = _mm512_shuffle_ps(s[0], s[1], _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 t = is_min ? _mm512_min_ps(a, b) : _mm512_max_ps(a, b);
  const __m512 u = _mm512_shuffle_ps(t, t, _MM_SHUFFLE(2, 3, 0, 1));
  return is_min ? _mm512_min_ps(t, u) : _mm512_max_ps(t, u);
}

// Lane k < 8 = reduction of v[k]; lanes 8..15 repeat lanes 0..7.
inline __m512 reduce8(const __m512* v, bool is_min) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 0, 4, 8, 12, 2, 6, 10, 14);
  return _mm512_permutexvar_ps(order, reduce8_partial(v, is_min));
}

// Lane k = reduction of v[k], k < 16.
inline __m512 reduce16(const __m512* v, bool is_min) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 16, 20, 24, 28, 18, 22, 26, 30);
  return _mm512_permutex2var_ps(reduce8_partial(v, is_min), order, reduce8_partial(v + 8, is_min));
}

// fp16 bits of two super-block scales (clamped to the fp16 range) in the low
// and high halves of the result, and their float values in lanes 0 and 1 of
// `back`.
inline std::uint32_t two_fp16(float a, float b, __m512& back) {
  const __m512 v = _mm512_zextps128_ps512(_mm_setr_ps(clampf(a, -kFp16Max, kFp16Max), clampf(b, -kFp16Max, kFp16Max),
                                                      0.f, 0.f));
  const __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  back = _mm512_cvtph_ps(h);
  return static_cast<std::uint32_t>(_mm256_cvtsi256_si32(h));
}

inline __m512 lane(__m512 v, int k) { return _mm512_permutexvar_ps(_mm512_set1_epi32(k), v); }

inline void store16(std::uint8_t* p, __m512i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(v));
}
inline void store_u32(std::uint8_t* p, std::uint32_t v) { __builtin_memcpy(p, &v, 4); }

// Unsigned min/max scales (see minmax_scales in quantize_fast.cpp) from the
// per-sub-block lo/hi; `mins` gets −min.
inline __m512 minmax_scale(__m512 lo, __m512 hi, float levels, __m512& mins) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512 mn = _mm512_min_ps(lo, zero);
  mins = _mm512_sub_ps(zero, mn);
  return _mm512_div_ps(_mm512_max_ps(_mm512_sub_ps(hi, mn), zero), _mm512_set1_ps(levels));
}

// 2-bit fields of four level vectors (low bits of each lane) into 16 bytes.
inline void pack4x2(std::uint8_t* p, __m512i a, __m512i b, __m512i c, __m512i d) {
  const __m512i v = _mm512_or_si512(_mm512_or_si512(a, _mm512_slli_epi32(b, 2)),
                                    _mm512_or_si512(_mm512_slli_epi32(c, 4), _mm512_slli_epi32(d, 6)));
  store16(p, v);
}

// Each format runs in two phases per super-block: scales() (min/max
// reductions, super-block and sub-block scales: a long dependency chain,
// little work) writes the block header and leaves the per-sub-block
// reciprocal step (and offset) in `Sub`; levels() (the weights: much
// independent work) quantizes and packs them. The drivers run scales() of
// block i+1 before levels() of block i so the two overlap.
struct Sub {
  alignas(64) float id[16];  // 1 / (d · scale_j), 0 when that is 0
  alignas(64) float dm[16];  // dmin · min_j (q4_k, q2_k)
};

void q4_k_scales(const float* x, std::uint8_t* b, Sub& sub) {
  __m512 lo8[8], hi8[8];
  for (int j = 0; j < 8; ++j) {
    const __m512 x0 = _mm512_loadu_ps(x + 32 * j), x1 = _mm512_loadu_ps(x + 32 * j + 16);
    lo8[j] = _mm512_min_ps(x0, x1);
    hi8[j] = _mm512_max_ps(x0, x1);
  }
  __m512 mins;
  const __m512 scales = minmax_scale(reduce8(lo8, true), reduce8(hi8, false), 15.f, mins);
  const float max_scale = _mm512_reduce_max_ps(scales), max_min = _mm512_reduce_max_ps(mins);
  __m512 dd;
  store_u32(b, two_fp16(max_scale / 63.f, max_min / 63.f, dd));
  const __m512 d = lane(dd, 0), dmin = lane(dd, 1);
  const __m512 sc = clamp_ps(_mm512_mul_ps(scales, recip_or_zero(d)), 0.f, 63.f);
  const __m512 mc = clamp_ps(_mm512_mul_ps(mins, recip_or_zero(dmin)), 0.f, 63.f);
  const __m512i ls = nearest_epi32(sc), lm = nearest_epi32(mc);
  _mm512_store_ps(sub.id, recip_or_zero(_mm512_mul_ps(d, _mm512_cvtepi32_ps(ls))));
  _mm512_store_ps(sub.dm, _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(lm)));
  alignas(64) std::int32_t ls_a[16], lm_a[16];
  _mm512_store_si512(ls_a, ls);
  _mm512_store_si512(lm_a, lm);
  std::uint8_t* s = b + 4;
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<std::uint8_t>(ls_a[j] | ((ls_a[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<std::uint8_t>(lm_a[j] | ((lm_a[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<std::uint8_t>((ls_a[j + 4] & 0xF) | ((lm_a[j + 4] & 0xF) << 4));
  }
}

void q4_k_levels(const float* x, std::uint8_t* b, const Sub& sub) {
  __m512i lev[16];
  for (int j = 0; j < 8; ++j) {
    const __m512 id = _mm512_set1_ps(sub.id[j]), dm = _mm512_set1_ps(sub.dm[j]);
    for (int h = 0; h < 2; ++h) {
      const __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(x + 32 * j + 16 * h), dm), id);
      lev[2 * j + h] = round_bits(clamp_ps(v, 0.f, 15.f));
    }
  }
  std::uint8_t* q = b + 16;
  for (int c = 0; c < 4; ++c) {  // sub-blocks 2c (low nibbles) and 2c+1 (high nibbles)
    for (int h = 0; h < 2; ++h) {
      store16(q + 32 * c + 16 * h, _mm512_or_si512(lev[4 * c + h], _mm512_slli_epi32(lev[4 * c + 2 + h], 4)));
    }
  }
}

void q2_k_scales(const float* x, std::uint8_t* b, Sub& sub) {
  __m512 xv[16];
  for (int k = 0; k < 16; ++k) xv[k] = _mm512_loadu_ps(x + 16 * k);
  __m512 mins;
  const __m512 scales = minmax_scale(reduce16(xv, true), reduce16(xv, false), 3.f, mins);
  const float max_scale = _mm512_reduce_max_ps(scales), max_min = _mm512_reduce_max_ps(mins);
  __m512 dd;
  store_u32(b + 80, two_fp16(max_scale / 15.f, max_min / 15.f, dd));
  const __m512 d = lane(dd, 0), dmin = lane(dd, 1);
  const __m512i ls = nearest_epi32(clamp_ps(_mm512_mul_ps(scales, recip_or_zero(d)), 0.f, 15.f));
  const __m512i lm = nearest_epi32(clamp_ps(_mm512_mul_ps(mins, recip_or_zero(dmin)), 0.f, 15.f));
  store16(b, _mm512_or_si512(ls, _mm512_slli_epi32(lm, 4)));
  _mm512_store_ps(sub.id, recip_or_zero(_mm512_mul_ps(d, _mm512_cvtepi32_ps(ls))));
  _mm512_store_ps(sub.dm, _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(lm)));
}

void q2_k_levels(const float* x, std::uint8_t* b, const Sub& sub) {
  __m512i lev[16];
  for (int j = 0; j < 16; ++j) {
    const __m512 id = _mm512_set1_ps(sub.id[j]), dm = _mm512_set1_ps(sub.dm[j]);
    const __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(x + 16 * j), dm), id);
    lev[j] = round_bits(clamp_ps(v, 0.f, 3.f));
  }
  std::uint8_t* q = b + 16;
  for (int h = 0; h < 2; ++h) {  // weights 128h .. 128h+127
    const __m512i* l = lev + 8 * h;
    pack4x2(q + 32 * h, l[0], l[2], l[4], l[6]);
    pack4x2(q + 32 * h + 16, l[1], l[3], l[5], l[7]);
  }
}

void q3_k_scales(const float* x, std::uint8_t* b, Sub& sub) {
  __m512 xv[16];
  for (int k = 0; k < 16; ++k) xv[k] = _mm512_loadu_ps(x + 16 * k);
  const __m512 zero = _mm512_setzero_ps();
  const __m512 lo = reduce16(xv, true), hi = reduce16(xv, false);
  // The larger in magnitude of hi and lo (hi on a tie) gets level −4.
  const __m512 m = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(hi, _mm512_sub_ps(zero, lo), _CMP_GE_OQ), lo, hi);
  const __m512 scales = _mm512_div_ps(m, _mm512_set1_ps(-4.f));
  const float amax = _mm512_reduce_max_ps(_mm512_abs_ps(scales));
  const float smax = _mm512_reduce_max_ps(_mm512_max_ps(scales, zero));
  const float max_scale = smax >= amax ? amax : 0.f - amax;
  __m512 dd;
  const std::uint32_t d16 = two_fp16(amax > 0.f ? max_scale / -32.f : 0.f, 0.f, dd);
  __builtin_memcpy(b + 108, &d16, 2);
  const __m512 d = lane(dd, 0);
  const __m512i ls = nearest_epi32(clamp_ps(_mm512_mul_ps(scales, recip_or_zero(d)), -32.f, 31.f));
  _mm512_store_ps(sub.id, recip_or_zero(_mm512_mul_ps(d, _mm512_cvtepi32_ps(ls))));
  alignas(64) std::int32_t l6[16];
  _mm512_store_si512(l6, _mm512_add_epi32(ls, _mm512_set1_epi32(32)));
  std::uint8_t* s = b + 96;
  for (int j = 0; j < 4; ++j) {
    const int a0 = l6[j], c0 = l6[j + 4], e0 = l6[j + 8], g0 = l6[j + 12];
    s[j] = static_cast<std::uint8_t>((a0 & 0xF) | ((e0 & 0xF) << 4));
    s[j + 4] = static_cast<std::uint8_t>((c0 & 0xF) | ((g0 & 0xF) << 4));
    s[j + 8] = static_cast<std::uint8_t>((a0 >> 4) | ((c0 >> 4) << 2) | ((e0 >> 4) << 4) | ((g0 >> 4) << 6));
  }
}

void q3_k_levels(const float* x, std::uint8_t* b, const Sub& sub) {
  // Levels 0..7 (nearest + 4): low 2 bits to qs, bit 2 to hmask.
  const __m512i bias = _mm512_set1_epi32(kMagicBits - 4);
  const __m512i three = _mm512_set1_epi32(3), one = _mm512_set1_epi32(1);
  __m512i low[16], high[16];
  for (int j = 0; j < 16; ++j) {
    const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x + 16 * j), _mm512_set1_ps(sub.id[j]));
    const __m512i l = _mm512_sub_epi32(round_bits(clamp_ps(v, -4.f, 3.f)), bias);
    low[j] = _mm512_and_si512(l, three);
    high[j] = _mm512_and_si512(_mm512_srli_epi32(l, 2), one);
  }
  for (int h = 0; h < 2; ++h) {  // hmask[16h + lane] bit k = high bit of sub-block 2k + h
    __m512i acc = high[h];
    for (int k = 1; k < 8; ++k) acc = _mm512_or_si512(acc, _mm512_slli_epi32(high[2 * k + h], static_cast<unsigned>(k)));
    store16(b + 16 * h, acc);
  }
  std::uint8_t* q = b + 32;
  for (int h = 0; h < 2; ++h) {
    const __m512i* l = low + 8 * h;
    pack4x2(q + 32 * h, l[0], l[2], l[4], l[6]);
    pack4x2(q + 32 * h + 16, l[1], l[3], l[5], l[7]);
  }
}

// scales() one block ahead of levels().
#define MOEBENCH_PIPELINE(scales_fn, levels_fn, block_bytes)                       \
  do {                                                                             \
    if (blocks == 0) return;                                                       \
    Sub sub[2];                                                                    \
    scales_fn(x, out, sub[0]);                                                     \
    for (std::size_t i = 0; i < blocks; ++i) {                                     \
      if (i + 1 < blocks) scales_fn(x + 256 * (i + 1), out + (block_bytes) * (i + 1), sub[(i + 1) & 1]); \
      levels_fn(x + 256 * i, out + (block_bytes) * i, sub[i & 1]);                 \
    }                                                                              \
  } while (0)

}  // namespace

void quantize_q4_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks) {
  MOEBENCH_PIPELINE(q4_k_scales, q4_k_levels, 144);
}

void quantize_q3_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks) {
  MOEBENCH_PIPELINE(q3_k_scales, q3_k_levels, 110);
}

void quantize_q2_k_fast_avx512(const float* x, std::uint8_t* out, std::size_t blocks) {
  MOEBENCH_PIPELINE(q2_k_scales, q2_k_levels, 84);
}

#undef MOEBENCH_PIPELINE

}  // namespace moebench::detail
