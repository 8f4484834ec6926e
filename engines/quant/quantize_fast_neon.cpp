// quantize_fast_neon.cpp — NEON QuantSearch::kFast for Q4_K, Q3_K and Q2_K
// (see quantize.h) on aarch64, called from quantize_fast.cpp at every NEON
// level.
//
// Same bytes as the scalar reference in quantize_fast.cpp, by the argument
// quantize_fast_avx512.cpp makes: each weight and each sub-block scale goes
// through the same IEEE float operations in the same order (a lane instead
// of a loop iteration; the build has -ffp-contract=off, so no fused
// multiply-add); min and max are the scalar code's `a < b ? a : b` and
// `a > b ? a : b` done as compare-and-select (FMIN/FMAX would give the same
// bytes for finite input, by the zero argument below, but not the scalar
// code's NaN handling), and the sub-block reductions run as a tree, which
// gives the scalar values because every zero that reaches a stored scale is
// made +0. Levels are rounded with the 1.5·2^23 trick on clamped values,
// whose low byte is the level itself, so they narrow straight into bytes.
// The two fp16 super-block scales per block go through the scalar
// converters passed in (two values per 256 weights).
//
// No standard-library templates here (see quantize_avx512.cpp).
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "engines/quant/quantize_fast_simd.h"

namespace moebench::detail {

namespace {

constexpr float kFp16Max = 65504.f;
constexpr float kRoundMagic = 12582912.f;        // 1.5·2^23
constexpr std::int32_t kMagicBits = 0x4B400000;  // its bit pattern

inline float32x4_t min_ps(float32x4_t a, float32x4_t b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
inline float32x4_t max_ps(float32x4_t a, float32x4_t b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
inline float32x4_t clamp_ps(float32x4_t v, float lo, float hi) {
  return min_ps(max_ps(v, vdupq_n_f32(lo)), vdupq_n_f32(hi));
}
inline float fmax2(float a, float b) { return a > b ? a : b; }
inline float clampf(float v, float lo, float hi) {
  v = v > lo ? v : lo;
  return v < hi ? v : hi;
}
inline float recip_or_zero(float d) { return d != 0.f ? 1.f / d : 0.f; }
// Bits of v + 1.5·2^23 for clamped v: the low bits hold nearest(v) + 2^22.
inline int32x4_t round_bits(float32x4_t v) { return vreinterpretq_s32_f32(vaddq_f32(v, vdupq_n_f32(kRoundMagic))); }
inline int32x4_t nearest_s32(float32x4_t v) { return vsubq_s32(round_bits(v), vdupq_n_s32(kMagicBits)); }

// Lane-wise tree reductions of n vectors (n a power of two), then across the
// four lanes.
inline float32x4_t tree(float32x4_t* v, int n, bool is_min) {
  for (; n > 1; n /= 2) {
    for (int i = 0; i < n / 2; ++i) v[i] = is_min ? min_ps(v[i], v[i + n / 2]) : max_ps(v[i], v[i + n / 2]);
  }
  return v[0];
}
inline float across(float32x4_t v, bool is_min) {
  const float32x4_t s = vextq_f32(v, v, 2);
  const float32x4_t a = is_min ? min_ps(v, s) : max_ps(v, s);
  const float32x4_t t = vextq_f32(a, a, 1);
  return vgetq_lane_f32(is_min ? min_ps(a, t) : max_ps(a, t), 0);
}

// lo and hi of `len` weights (a multiple of 4, at most 32) at x.
inline void lo_hi(const float* x, int len, float& lo, float& hi) {
  float32x4_t a[8], b[8];
  for (int i = 0; i < len / 4; ++i) a[i] = b[i] = vld1q_f32(x + 4 * i);
  lo = across(tree(a, len / 4, true), true);
  hi = across(tree(b, len / 4, false), false);
}

// Unsigned min/max scales of n sub-blocks (minmax_scales in
// quantize_fast.cpp) from their lo/hi, four at a time; mins get −min.
inline void minmax_scales(const float* lo, const float* hi, int n, float levels, float* scales, float* mins) {
  const float32x4_t zero = vdupq_n_f32(0.f);
  for (int j = 0; j < n; j += 4) {
    const float32x4_t l = vld1q_f32(lo + j);
    const float32x4_t mn = vbslq_f32(vcltq_f32(l, zero), l, zero);
    vst1q_f32(mins + j, vsubq_f32(zero, mn));
    const float32x4_t range = max_ps(vsubq_f32(vld1q_f32(hi + j), mn), zero);
    vst1q_f32(scales + j, vdivq_f32(range, vdupq_n_f32(levels)));
  }
}

// max(0, v[0..n)) as the scalar loop `m = fmax2(v[j], m)` from 0 finds it
// (order-free: the values are ≥ 0 and never −0).
inline float max_from_zero(const float* v, int n) {
  float m = 0.f;
  for (int j = 0; j < n; ++j) m = fmax2(v[j], m);
  return m;
}

// nearest(clamp(v[j] * inv, lo, hi)) for n values, four at a time.
inline void levels_of(const float* v, int n, float inv, float lo, float hi, int* out) {
  for (int j = 0; j < n; j += 4) {
    vst1q_s32(out + j, nearest_s32(clamp_ps(vmulq_f32(vld1q_f32(v + j), vdupq_n_f32(inv)), lo, hi)));
  }
}

inline std::uint16_t super_scale(float max_value, float divisor, ToFp16 to_fp16) {
  return to_fp16(clampf(max_value / divisor, -kFp16Max, kFp16Max));
}
inline void put16(std::uint8_t* p, std::uint16_t v) { __builtin_memcpy(p, &v, 2); }

// Levels of 16 weights as 16 bytes: round_bits(clamp(v · mul)) − bias with
// v = x + add (kAdd) or x.
template <bool kAdd>
inline uint8x16_t level16(const float* x, float add, float mul, float lo, float hi, std::int32_t bias) {
  int32x4_t q[4];
  for (int i = 0; i < 4; ++i) {
    float32x4_t v = vld1q_f32(x + 4 * i);
    if constexpr (kAdd) v = vaddq_f32(v, vdupq_n_f32(add));
    q[i] = vsubq_s32(round_bits(clamp_ps(vmulq_f32(v, vdupq_n_f32(mul)), lo, hi)), vdupq_n_s32(bias));
  }
  const int16x8_t h0 = vcombine_s16(vmovn_s32(q[0]), vmovn_s32(q[1]));
  const int16x8_t h1 = vcombine_s16(vmovn_s32(q[2]), vmovn_s32(q[3]));
  return vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(h0), vmovn_s16(h1)));
}

// ggml's q2_K/q3_K 2-bit packing of L[256] (pack_2bit in quantize_fast.cpp).
inline void pack_2bit(const std::uint8_t* L, std::uint8_t* qs) {
  const uint8x16_t three = vdupq_n_u8(3);
  for (int j = 0; j < 256; j += 128) {
    for (int l = 0; l < 32; l += 16) {
      const uint8x16_t a = vandq_u8(vld1q_u8(L + j + l), three);
      const uint8x16_t b = vandq_u8(vld1q_u8(L + j + l + 32), three);
      const uint8x16_t c = vandq_u8(vld1q_u8(L + j + l + 64), three);
      const uint8x16_t d = vandq_u8(vld1q_u8(L + j + l + 96), three);
      const uint8x16_t v = vorrq_u8(vorrq_u8(a, vshlq_n_u8(b, 2)), vorrq_u8(vshlq_n_u8(c, 4), vshlq_n_u8(d, 6)));
      vst1q_u8(qs + j / 4 + l, v);
    }
  }
}

// The unsigned formats' (q4_k, q2_k) scales: per-sub-block scales and mins
// of n sub-blocks of len weights (levels + 1 levels each), and the fp16
// super-block scale and min (their maxima / divisor) written at dd; d and
// dmin get those two as floats.
inline void unsigned_scales(const float* x, int n, int len, float levels, float divisor, std::uint8_t* dd,
                            float* scales, float* mins, float& d, float& dmin, ToFp16 to_fp16, FromFp16 from_fp16) {
  alignas(16) float lo[16], hi[16];
  for (int j = 0; j < n; ++j) lo_hi(x + len * j, len, lo[j], hi[j]);
  minmax_scales(lo, hi, n, levels, scales, mins);
  const std::uint16_t d16 = super_scale(max_from_zero(scales, n), divisor, to_fp16);
  const std::uint16_t m16 = super_scale(max_from_zero(mins, n), divisor, to_fp16);
  put16(dd, d16);
  put16(dd + 2, m16);
  d = from_fp16(d16);
  dmin = from_fp16(m16);
}

// ---- q4_k: fp16 d, fp16 dmin, scales[12], qs[128] -------------------------
void q4_k_block(const float* x, std::uint8_t* b, ToFp16 to_fp16, FromFp16 from_fp16) {
  alignas(16) float scales[8], mins[8];
  float d, dmin;
  unsigned_scales(x, 8, 32, 15.f, 63.f, b, scales, mins, d, dmin, to_fp16, from_fp16);
  alignas(16) int ls[8], lm[8];
  levels_of(scales, 8, recip_or_zero(d), 0.f, 63.f, ls);
  levels_of(mins, 8, recip_or_zero(dmin), 0.f, 63.f, lm);
  pack_q4_k_scales(ls, lm, b + 4);
  std::uint8_t* q = b + 16;
  for (int c = 0; c < 4; ++c) {  // sub-blocks 2c (low nibbles) and 2c+1 (high nibbles)
    uint8x16_t lev[2][2];
    for (int s = 0; s < 2; ++s) {
      const int j = 2 * c + s;
      const float dmj = dmin * static_cast<float>(lm[j]);
      const float idj = recip_or_zero(d * static_cast<float>(ls[j]));
      for (int h = 0; h < 2; ++h) lev[s][h] = level16<true>(x + 32 * j + 16 * h, dmj, idj, 0.f, 15.f, kMagicBits);
    }
    for (int h = 0; h < 2; ++h) vst1q_u8(q + 32 * c + 16 * h, vorrq_u8(lev[0][h], vshlq_n_u8(lev[1][h], 4)));
  }
}

// ---- q3_k: hmask[32], qs[64], scales[12], fp16 d --------------------------
void q3_k_block(const float* x, std::uint8_t* b, ToFp16 to_fp16, FromFp16 from_fp16) {
  alignas(16) float lo[16], hi[16], scales[16];
  for (int j = 0; j < 16; ++j) lo_hi(x + 16 * j, 16, lo[j], hi[j]);
  const float32x4_t zero = vdupq_n_f32(0.f);
  float32x4_t amax4 = zero, smax4 = zero;
  for (int j = 0; j < 16; j += 4) {
    const float32x4_t l = vld1q_f32(lo + j), h = vld1q_f32(hi + j);
    // The larger in magnitude of hi and lo (hi on a tie) gets level −4.
    const float32x4_t m = vbslq_f32(vcgeq_f32(h, vsubq_f32(zero, l)), h, l);
    const float32x4_t s = vdivq_f32(m, vdupq_n_f32(-4.f));
    vst1q_f32(scales + j, s);
    amax4 = max_ps(vabsq_f32(s), amax4);
    smax4 = max_ps(s, smax4);
  }
  const float amax = across(amax4, false), smax = across(smax4, false);
  const float max_scale = smax >= amax ? amax : 0.f - amax;
  const std::uint16_t d16 = amax > 0.f ? super_scale(max_scale, -32.f, to_fp16) : to_fp16(0.f);
  put16(b + 108, d16);
  const float d = from_fp16(d16);
  alignas(16) int ls[16];
  levels_of(scales, 16, recip_or_zero(d), -32.f, 31.f, ls);
  pack_q3_k_scales(ls, b + 96);
  alignas(16) std::uint8_t L[256];  // levels 0..7 (nearest + 4)
  for (int j = 0; j < 16; ++j) {
    const float idj = recip_or_zero(d * static_cast<float>(ls[j]));
    vst1q_u8(L + 16 * j, level16<false>(x + 16 * j, 0.f, idj, -4.f, 3.f, kMagicBits - 4));
  }
  for (int h = 0; h < 2; ++h) {  // hmask[16h + i] bit k = bit 2 of L[32k + 16h + i]
    uint8x16_t acc = vdupq_n_u8(0);
    for (int k = 0; k < 8; ++k) {
      const uint8x16_t high = vshrq_n_u8(vld1q_u8(L + 32 * k + 16 * h), 2);
      acc = vorrq_u8(acc, vshlq_u8(high, vdupq_n_s8(static_cast<std::int8_t>(k))));
    }
    vst1q_u8(b + 16 * h, acc);
  }
  pack_2bit(L, b + 32);
}

// ---- q2_k: scales[16], qs[64], fp16 d, fp16 dmin --------------------------
void q2_k_block(const float* x, std::uint8_t* b, ToFp16 to_fp16, FromFp16 from_fp16) {
  alignas(16) float scales[16], mins[16];
  float d, dmin;
  unsigned_scales(x, 16, 16, 3.f, 15.f, b + 80, scales, mins, d, dmin, to_fp16, from_fp16);
  alignas(16) int ls[16], lm[16];
  levels_of(scales, 16, recip_or_zero(d), 0.f, 15.f, ls);
  levels_of(mins, 16, recip_or_zero(dmin), 0.f, 15.f, lm);
  alignas(16) std::uint8_t L[256];
  for (int j = 0; j < 16; ++j) {
    b[j] = static_cast<std::uint8_t>(ls[j] | (lm[j] << 4));
    const float dmj = dmin * static_cast<float>(lm[j]);
    const float idj = recip_or_zero(d * static_cast<float>(ls[j]));
    vst1q_u8(L + 16 * j, level16<true>(x + 16 * j, dmj, idj, 0.f, 3.f, kMagicBits));
  }
  pack_2bit(L, b + 16);
}

}  // namespace

void quantize_q4_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16 to_fp16,
                             FromFp16 from_fp16) {
  for (std::size_t i = 0; i < blocks; ++i) q4_k_block(x + 256 * i, out + 144 * i, to_fp16, from_fp16);
}

void quantize_q3_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16 to_fp16,
                             FromFp16 from_fp16) {
  for (std::size_t i = 0; i < blocks; ++i) q3_k_block(x + 256 * i, out + 110 * i, to_fp16, from_fp16);
}

void quantize_q2_k_fast_neon(const float* x, std::uint8_t* out, std::size_t blocks, ToFp16 to_fp16,
                             FromFp16 from_fp16) {
  for (std::size_t i = 0; i < blocks; ++i) q2_k_block(x + 256 * i, out + 84 * i, to_fp16, from_fp16);
}

}  // namespace moebench::detail
