// kernels_neon.cpp — NEON (aarch64 Advanced SIMD) fused dequant·dot kernels
// for all nine formats; reached through kernels.cpp at every NEON level
// (NEON is part of the aarch64 base architecture: no extra -m flags).
//
// This file holds the NEON traits (4-float vectors, the intrinsics the
// shared drivers of kernels_simd.h use) and the NEON unit decoders of the
// block formats: 4-bit codes are mapped with tbl on bytes (16-entry int8
// tables) or masked and offset, then widened to int32 and converted; formats
// with one scale per 32 weights expose raw values and the scale, so matvec
// sums raw products per block and scales once. With 32 vector registers the
// matmul register tile is 8 weight rows × 3 activation rows (24
// accumulators, 3 activation vectors, one weight vector).
//
// Everything here is in an unnamed namespace (see kernels_simd.h); only
// matmul_neon is visible outside.
#include "engines/quant/kernels_simd.h"

namespace moebench::detail {
namespace {
#include "engines/quant/q4k_scale_min_inline.h"  // q4k_scale_min (inside this unnamed namespace)

using V = float32x4_t;

struct Neon {
  using V = float32x4_t;
  static constexpr int kLanes = 4;
  static constexpr int kRows = 8;  // rows per register tile
  static V zero() { return vdupq_n_f32(0.0f); }
  static V set1(float f) { return vdupq_n_f32(f); }
  static V load(const float* p) { return vld1q_f32(p); }
  static V loadu(const float* p) { return vld1q_f32(p); }
  static void store(float* p, V v) { vst1q_f32(p, v); }
  static void storeu(float* p, V v) { vst1q_f32(p, v); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V fmadd(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static float hsum(V v) { return vaddvq_f32(v); }
  static V from_f16(const u8* p) {
    std::uint16_t h[4];
    std::memcpy(h, p, 8);
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h)));
  }
  static V from_bf16(const u8* p) {
    std::uint16_t h[4];
    std::memcpy(h, p, 8);
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(h), 16));
  }
  static constexpr int chain(int /*parity*/, int i) { return i & 3; }
};

// 16 int8 / uint8 lanes as four float vectors, in lane order: fn(i0 + k, v).
template <class Fn>
inline void s8_to_f32(int8x16_t v, int i0, Fn& fn) {
  const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
  fn(i0, vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))));
  fn(i0 + 1, vcvtq_f32_s32(vmovl_high_s16(lo)));
  fn(i0 + 2, vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))));
  fn(i0 + 3, vcvtq_f32_s32(vmovl_high_s16(hi)));
}
// Unsigned lanes, each as d·u − m (two roundings, as dequantize does).
template <class Fn>
inline void u8_scaled(uint8x16_t v, float d, float m, int i0, Fn& fn) {
  const uint16x8_t lo = vmovl_u8(vget_low_u8(v)), hi = vmovl_high_u8(v);
  const V dv = vdupq_n_f32(d), mv = vdupq_n_f32(m);
  auto put = [&](int i, uint32x4_t u) { fn(i, vsubq_f32(vmulq_f32(vcvtq_f32_u32(u), dv), mv)); };
  put(i0, vmovl_u16(vget_low_u16(lo)));
  put(i0 + 1, vmovl_high_u16(lo));
  put(i0 + 2, vmovl_u16(vget_low_u16(hi)));
  put(i0 + 3, vmovl_high_u16(hi));
}

inline uint8x16_t load16(const u8* p) { return vld1q_u8(p); }
inline uint8x16_t nib_lo(uint8x16_t v) { return vandq_u8(v, vdupq_n_u8(0x0F)); }
inline uint8x16_t nib_hi(uint8x16_t v) { return vshrq_n_u8(v, 4); }

// ---- block formats' unit decoders (see kernels_simd.h) ---------------------

// for_each() of the formats with one scale per 32 weights: raw values times
// the scale (matmul; matvec uses scale() and for_each_raw() directly).
template <class Raw>
struct Scaled {
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const V d = vdupq_n_f32(Raw::scale(c, p));
    Raw::for_each_raw(c, p, [&](int i, V v) { fn(i, vmulq_f32(v, d)); });
  }
};

struct Q8_0 : Scaled<Q8_0> {
  static constexpr int kW = 32, kB = 34;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    s8_to_f32(vreinterpretq_s8_u8(load16(p + 2)), 0, fn);
    s8_to_f32(vreinterpretq_s8_u8(load16(p + 18)), 4, fn);
  }
};

struct Q4_0 : Scaled<Q4_0> {
  static constexpr int kW = 32, kB = 18;
  static float scale(const Ctx& c, const u8* p) { return f16s(c, p); }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    const uint8x16_t q = load16(p + 2);
    const int8x16_t eight = vdupq_n_s8(8);
    s8_to_f32(vsubq_s8(vreinterpretq_s8_u8(nib_lo(q)), eight), 0, fn);
    s8_to_f32(vsubq_s8(vreinterpretq_s8_u8(nib_hi(q)), eight), 4, fn);
  }
};

struct Mxfp4 : Scaled<Mxfp4> {
  static constexpr int kW = 32, kB = 17;
  static float scale(const Ctx& c, const u8* p) { return c.e8m0[p[0]]; }
  template <class Fn>
  static void for_each_raw(const Ctx&, const u8* p, Fn&& fn) {
    static constexpr std::int8_t kValues[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
    const int8x16_t table = vld1q_s8(kValues);
    const uint8x16_t q = load16(p + 1);
    s8_to_f32(vqtbl1q_s8(table, nib_lo(q)), 0, fn);
    s8_to_f32(vqtbl1q_s8(table, nib_hi(q)), 4, fn);
  }
};

struct Q4_K {  // sub-block j: w = d·sc_j·u − dmin·m_j
  static constexpr int kW = 256, kB = 144;
  template <class Fn>
  static void for_each(const Ctx& c, const u8* p, Fn&& fn) {
    const float d = f16s(c, p), dmin = f16s(c, p + 2);
    const u8* q = p + 16;
    for (int j = 0; j < 4; ++j, q += 32) {
      int sc1, m1, sc2, m2;
      q4k_scale_min(2 * j, p + 4, sc1, m1);
      q4k_scale_min(2 * j + 1, p + 4, sc2, m2);
      const float d1 = d * static_cast<float>(sc1), n1 = dmin * static_cast<float>(m1);
      const float d2 = d * static_cast<float>(sc2), n2 = dmin * static_cast<float>(m2);
      for (int h = 0; h < 2; ++h) {  // bytes 16h..16h+15: weights 64j + 16h + l (low), + 32 (high)
        const uint8x16_t v = load16(q + 16 * h);
        u8_scaled(nib_lo(v), d1, n1, 16 * j + 4 * h, fn);
        u8_scaled(nib_hi(v), d2, n2, 16 * j + 8 + 4 * h, fn);
      }
    }
  }
};

// 2-bit field of every byte of v at bit `shift`.
inline uint8x16_t bits2(uint8x16_t v, int shift) {
  return vandq_u8(vshlq_u8(v, vdupq_n_s8(static_cast<std::int8_t>(-shift))), vdupq_n_u8(3));
}

struct Q3_K {  // value = d·(sc − 32)·(low2 + 4·hbit − 4)
  static constexpr int kW = 256, kB = 110;
  template <class Fn>
  static void for_each(const Ctx&, const u8* p, Fn&& fn) {
    const u8* s = p + 96;
    const float d_all = h2f(p + 108);
    const uint8x16_t hm[2] = {load16(p), load16(p + 16)};
    const uint8x16_t one = vdupq_n_u8(1);
    const int8x16_t four = vdupq_n_s8(4);
    for (int half = 0; half < 2; ++half) {
      const uint8x16_t qv[2] = {load16(p + 32 + 32 * half), load16(p + 48 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        const int bit = 4 * half + j;
        for (int part = 0; part < 2; ++part) {
          const int is = 8 * half + 2 * j + part;
          const int lo = is < 8 ? s[is] & 0xF : s[is - 8] >> 4;
          const int sc = (lo | (((s[8 + is % 4] >> (2 * (is / 4))) & 3) << 4)) - 32;
          const V dl = vdupq_n_f32(d_all * static_cast<float>(sc));
          const uint8x16_t h = vandq_u8(vshlq_u8(hm[part], vdupq_n_s8(static_cast<std::int8_t>(-bit))), one);
          const int8x16_t v =
              vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(bits2(qv[part], 2 * j), vshlq_n_u8(h, 2))), four);
          auto scaled = [&](int i, V f) { fn(i, vmulq_f32(f, dl)); };
          s8_to_f32(v, 4 * is, scaled);
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
      const uint8x16_t qv[2] = {load16(p + 16 + 32 * half), load16(p + 32 + 32 * half)};
      for (int j = 0; j < 4; ++j) {
        for (int part = 0; part < 2; ++part, ++is) {
          const float dl = d * static_cast<float>(p[is] & 0xF), ml = dmin * static_cast<float>(p[is] >> 4);
          u8_scaled(bits2(qv[part], 2 * j), dl, ml, 4 * is, fn);
        }
      }
    }
  }
};

}  // namespace

bool matmul_neon(const MatmulArgs& a) { return dispatch<Neon, Q8_0, Q4_0, Mxfp4, Q4_K, Q3_K, Q2_K>(a); }

}  // namespace moebench::detail
