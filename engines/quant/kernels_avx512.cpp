// kernels_avx512.cpp — AVX-512 (F/BW/VL/DQ + FMA + F16C) fused dequant·dot
// kernels for all nine formats; reached only through kernels.cpp after a
// runtime CPU check (this file is compiled with -mavx512f ... flags).
//
// This file holds the AVX-512 traits (16-float vectors, the intrinsics the
// shared drivers of kernels_simd.h use) and the AVX-512 unit decoders of the
// block formats: 4-bit codes go through a 16-entry float table (vpermps), so
// the table holds the dequantized values themselves. The drivers (matvec
// with a software prefetch 8 KiB ahead; matmul decoding an 8-row × ≤ 256-
// column tile once, 8 rows × 3 activation rows per register tile: 24 zmm
// accumulators) and the plain formats are in kernels_simd.h.
//
// Everything here is in an unnamed namespace (see kernels_simd.h: no body
// compiled with these flags may be shared with other files); only
// matmul_avx512 is visible outside.
#include "engines/quant/kernels_simd.h"

namespace moebench::detail {
namespace {

using V = __m512;

struct Avx512 {
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kRows = 8;  // rows per register tile
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float f) { return _mm512_set1_ps(f); }
  static V load(const float* p) { return _mm512_load_ps(p); }
  static V loadu(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_store_ps(p, v); }
  static void storeu(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static float hsum(V v) { return _mm512_reduce_add_ps(v); }
  static V from_f16(const u8* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static V from_bf16(const u8* p) {
    const __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
  }
  // Even vectors into chain 0 (even units) or 2 (odd units), odd vectors
  // into chain 1 or 3.
  static constexpr int chain(int parity, int i) { return 2 * parity + (i & 1); }
};

inline __m512i bytes16(const u8* p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline V iota() { return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
// table[idx & 15] per lane: vpermps reads only the low 4 index bits, so a
// nibble needs no masking.
inline V lut(__m512i idx, V table) { return _mm512_permutexvar_ps(idx, table); }

// ---- block formats' unit decoders (see kernels_simd.h) ---------------------

struct Q8_0 {
  static constexpr int kW = 32, kB = 34;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V d = _mm512_set1_ps(f16s(c, p));
    for (int i = 0; i < 2; ++i) {
      const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 + 16 * i)));
      fn(i, _mm512_mul_ps(_mm512_cvtepi32_ps(q), d));
    }
  }
};

struct Q4_0 {
  static constexpr int kW = 32, kB = 18;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V table = _mm512_mul_ps(_mm512_sub_ps(iota(), _mm512_set1_ps(8.f)), _mm512_set1_ps(f16s(c, p)));
    const __m512i q = bytes16(p + 2);
    fn(0, lut(q, table));
    fn(1, lut(_mm512_srli_epi32(q, 4), table));
  }
};

struct Mxfp4 {
  static constexpr int kW = 32, kB = 17;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V kvalues = _mm512_setr_ps(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const V table = _mm512_mul_ps(kvalues, _mm512_set1_ps(c.e8m0[p[0]]));
    const __m512i q = bytes16(p + 1);
    fn(0, lut(q, table));
    fn(1, lut(_mm512_srli_epi32(q, 4), table));
  }
};

struct Q4_K {
  static constexpr int kW = 256, kB = 144;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const float d = f16s(c, p), dmin = f16s(c, p + 2);
    alignas(32) float dl[8], ml[8];  // per sub-block d·sc and dmin·m, broadcast from memory below
    q4k_scales(p + 4, d, dmin, dl, ml);
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      const V t1 = _mm512_fmsub_ps(iota(), _mm512_set1_ps(dl[2 * j]), _mm512_set1_ps(ml[2 * j]));
      const V t2 = _mm512_fmsub_ps(iota(), _mm512_set1_ps(dl[2 * j + 1]), _mm512_set1_ps(ml[2 * j + 1]));
      const __m512i b0 = bytes16(q), b1 = bytes16(q + 16);
      fn(4 * j + 0, lut(b0, t1));
      fn(4 * j + 1, lut(b1, t1));
      fn(4 * j + 2, lut(_mm512_srli_epi32(b0, 4), t2));
      fn(4 * j + 3, lut(_mm512_srli_epi32(b1, 4), t2));
    }
  }
};

struct Q3_K {  // value = d·(sc − 32)·(low2 + 4·hbit − 4): an 8-entry table per sub-block
  static constexpr int kW = 256, kB = 110;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const u8* s = p + 96;
    const float d_all = h2f(p + 108);
    const V levels = _mm512_sub_ps(iota(), _mm512_set1_ps(4.f));
    const __m512i h0 = bytes16(p), h1 = bytes16(p + 16);
    const __m512i three = _mm512_set1_epi32(3), one = _mm512_set1_epi32(1);
    for (int half = 0; half < 2; ++half) {
      const __m512i q0 = bytes16(p + 32 + 32 * half), q1 = bytes16(p + 48 + 32 * half);
      for (int j = 0; j < 4; ++j) {
        const int bit = 4 * half + j;
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const V table = _mm512_mul_ps(levels, _mm512_set1_ps(d_all * static_cast<float>(sc)));
          const __m512i q = _mm512_and_si512(_mm512_srli_epi32(part ? q1 : q0, 2 * j), three);
          const __m512i h = _mm512_and_si512(_mm512_srli_epi32(part ? h1 : h0, bit), one);
          fn(2 * (4 * half + j) + part, lut(_mm512_or_si512(q, _mm512_slli_epi32(h, 2)), table));
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
    const __m512i three = _mm512_set1_epi32(3);
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      const __m512i q0 = bytes16(p + 16 + 32 * half), q1 = bytes16(p + 32 + 32 * half);
      for (int j = 0; j < 4; ++j) {
        for (int part = 0; part < 2; ++part, ++is) {
          const V table = _mm512_sub_ps(_mm512_mul_ps(iota(), _mm512_set1_ps(d * static_cast<float>(p[is] & 0xF))),
                                        _mm512_set1_ps(dmin * static_cast<float>(p[is] >> 4)));
          const __m512i q = _mm512_and_si512(_mm512_srli_epi32(part ? q1 : q0, 2 * j), three);
          fn(is, lut(q, table));
        }
      }
    }
  }
};

}  // namespace

bool matmul_avx512(const MatmulArgs& a) { return dispatch<Avx512, Q8_0, Q4_0, Mxfp4, Q4_K, Q3_K, Q2_K>(a); }

}  // namespace moebench::detail
