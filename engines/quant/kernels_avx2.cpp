// kernels_avx2.cpp — AVX2 (+FMA, F16C) fused dequant·dot kernels for all
// nine formats; reached only through kernels.cpp after a runtime CPU check
// (this file is compiled with -mavx2 -mfma -mf16c).
//
// This file holds the AVX2 traits (8-float vectors, the intrinsics the shared
// drivers of kernels_simd.h use) and the AVX2 unit decoders of the block
// formats: 4-bit codes are mapped with pshufb on bytes (16-entry int8 tables)
// and then widened; formats with one scale per 32 weights expose raw values
// and the scale, so matvec sums raw products per block and scales once.
// The drivers (matvec with a software prefetch 8 KiB ahead; matmul decoding
// a 4-row × ≤ 256-column tile once, 4 rows × 3 activation rows per register
// tile: all 16 ymm registers) and the plain formats are in kernels_simd.h.
//
// Everything here is in an unnamed namespace (see kernels_simd.h: no body
// compiled with these flags may be shared with other files); only
// matmul_avx2 is visible outside.
#include "engines/quant/kernels_simd.h"

namespace moebench::detail {
namespace {

using V = __m256;

struct Avx2 {
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kRows = 4;  // rows per register tile
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float f) { return _mm256_set1_ps(f); }
  static V load(const float* p) { return _mm256_load_ps(p); }
  static V loadu(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_store_ps(p, v); }
  static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static float hsum(V v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  static V from_f16(const u8* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static V from_bf16(const u8* p) {
    const __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
  }
  // Vector i of every unit into chain i mod 4 (the unit index plays no part).
  static constexpr int chain(int /*parity*/, int i) { return i & 3; }
};

inline __m128i load16(const u8* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline __m128i nib_lo(__m128i v) { return _mm_and_si128(v, _mm_set1_epi8(0x0F)); }
inline __m128i nib_hi(__m128i v) { return _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)); }
// int8 lanes 0..7 / 8..15 of v as floats
inline V s8_lo(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)); }
inline V s8_hi(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8))); }
inline V u8_lo(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)); }
inline V u8_hi(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8))); }

// ---- block formats' unit decoders (see kernels_simd.h) ---------------------

// for_each() of the formats with one scale per 32 weights: raw values times
// the scale (matmul; matvec uses scale() and for_each_raw() directly).
template <class Raw>
struct Scaled {
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V d = _mm256_set1_ps(Raw::scale(c, p));
    Raw::for_each_raw(c, p, [&](int i, V v) { fn(i, _mm256_mul_ps(v, d)); });
  }
};

struct Q8_0 : Scaled<Q8_0> {
  static constexpr int kW = 32, kB = 34;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i q0 = load16(p + 2), q1 = load16(p + 18);
    fn(0, s8_lo(q0));
    fn(1, s8_hi(q0));
    fn(2, s8_lo(q1));
    fn(3, s8_hi(q1));
  }
};

struct Q4_0 : Scaled<Q4_0> {
  static constexpr int kW = 32, kB = 18;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i q = load16(p + 2), eight = _mm_set1_epi8(8);
    const __m128i lo = _mm_sub_epi8(nib_lo(q), eight), hi = _mm_sub_epi8(nib_hi(q), eight);
    fn(0, s8_lo(lo));
    fn(1, s8_hi(lo));
    fn(2, s8_lo(hi));
    fn(3, s8_hi(hi));
  }
};

struct Mxfp4 : Scaled<Mxfp4> {
  static constexpr int kW = 32, kB = 17;
  static float scale(const Ctx& c, const u8* p) { return c.e8m0[p[0]]; }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const __m128i kvalues = _mm_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const __m128i q = load16(p + 1);
    const __m128i lo = _mm_shuffle_epi8(kvalues, nib_lo(q)), hi = _mm_shuffle_epi8(kvalues, nib_hi(q));
    fn(0, s8_lo(lo));
    fn(1, s8_hi(lo));
    fn(2, s8_lo(hi));
    fn(3, s8_hi(hi));
  }
};

inline V scale_sub(V q, float d, float m) { return _mm256_sub_ps(_mm256_mul_ps(q, _mm256_set1_ps(d)), _mm256_set1_ps(m)); }

struct Q4_K {
  static constexpr int kW = 256, kB = 144;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const float d = f16s(c, p), dmin = f16s(c, p + 2);
    alignas(32) float dl[8], ml[8];  // per sub-block d·sc and dmin·m, broadcast from memory below
    q4k_scales(p + 4, d, dmin, dl, ml);
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      const V d1 = _mm256_set1_ps(dl[2 * j]), m1 = _mm256_set1_ps(ml[2 * j]);
      const V d2 = _mm256_set1_ps(dl[2 * j + 1]), m2 = _mm256_set1_ps(ml[2 * j + 1]);
      for (int h = 0; h < 2; ++h) {
        const __m128i v = load16(q + 16 * h);
        const __m128i lo = nib_lo(v), hi = nib_hi(v);
        fn(8 * j + 2 * h, _mm256_fmsub_ps(u8_lo(lo), d1, m1));
        fn(8 * j + 2 * h + 1, _mm256_fmsub_ps(u8_hi(lo), d1, m1));
        fn(8 * j + 4 + 2 * h, _mm256_fmsub_ps(u8_lo(hi), d2, m2));
        fn(8 * j + 5 + 2 * h, _mm256_fmsub_ps(u8_hi(hi), d2, m2));
      }
    }
  }
};

// 2-bit field of every byte of v at bit `shift`.
inline __m128i bits2(__m128i v, int shift) {
  return _mm_and_si128(_mm_srl_epi16(v, _mm_cvtsi32_si128(shift)), _mm_set1_epi8(3));
}

struct Q3_K {  // value = d·(sc − 32)·(low2 + 4·hbit − 4)
  static constexpr int kW = 256, kB = 110;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const u8* s = p + 96;
    const float d_all = h2f(p + 108);
    const __m128i hm[2] = {load16(p), load16(p + 16)};
    const __m128i one = _mm_set1_epi8(1), four = _mm_set1_epi8(4);
    for (int half = 0; half < 2; ++half) {
      const __m128i qv[2] = {load16(p + 32 + 32 * half), load16(p + 48 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        const int bit = 4 * half + j;
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const V dl = _mm256_set1_ps(d_all * static_cast<float>(sc));
          const __m128i h = _mm_and_si128(_mm_srl_epi16(hm[part], _mm_cvtsi32_si128(bit)), one);
          const __m128i v = _mm_sub_epi8(_mm_or_si128(bits2(qv[part], 2 * j), _mm_slli_epi16(h, 2)), four);
          fn(2 * is, _mm256_mul_ps(s8_lo(v), dl));
          fn(2 * is + 1, _mm256_mul_ps(s8_hi(v), dl));
        }
      }
    }
  }
};

struct Q2_K {
  static constexpr int kW = 256, kB = 84;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const float d = h2f(p + 80), dmin = h2f(p + 82);
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      const __m128i qv[2] = {load16(p + 16 + 32 * half), load16(p + 32 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        for (int part = 0; part < 2; ++part, ++is) {
          const float dl = d * static_cast<float>(p[is] & 0xF), ml = dmin * static_cast<float>(p[is] >> 4);
          const __m128i v = bits2(qv[part], 2 * j);
          fn(2 * is, scale_sub(u8_lo(v), dl, ml));
          fn(2 * is + 1, scale_sub(u8_hi(v), dl, ml));
        }
      }
    }
  }
};

}  // namespace

bool matmul_avx2(const MatmulArgs& a) { return dispatch<Avx2, Q8_0, Q4_0, Mxfp4, Q4_K, Q3_K, Q2_K>(a); }

}  // namespace moebench::detail
