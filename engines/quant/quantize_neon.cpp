// quantize_neon.cpp — NEON paths of the single-pass quantizers (MXFP4,
// BF16, Q8_0, Q4_0) for aarch64, called from quantize.cpp at every NEON
// level. Like the AVX-512 paths they write exactly the scalar bytes: the
// same operations in the same order lane by lane (no fused multiply-add,
// the comparisons that send NaN to the scalar code's bound, truncating
// conversions), and MXFP4 blocks outside the exact power-of-two fast path
// go back to the scalar block function.
//
// No standard-library templates here (see quantize_avx512.cpp): this file
// is compiled for aarch64's base ISA, but keeps the same rule.
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace moebench::detail {

namespace {
// max |x| over 32 values with NaNs ignored, like the scalar abs_max; a[i] =
// |x[i]|. NaN lanes are zeroed before the maximum: FMAXNM ignores quiet
// NaNs but turns a signalling one into a quiet NaN, which would drop the
// lane's running maximum.
inline float abs_max32(const float* x, float32x4_t* v, float32x4_t* a) {
  float32x4_t m = vdupq_n_f32(0.0f);
  for (int i = 0; i < 8; ++i) {
    v[i] = vld1q_f32(x + 4 * i);
    a[i] = vabsq_f32(v[i]);
    m = vmaxq_f32(m, vbslq_f32(vceqq_f32(a[i], a[i]), a[i], vdupq_n_f32(0.0f)));
  }
  return vmaxvq_f32(m);
}
inline void put16(std::uint8_t* p, std::uint16_t v) { __builtin_memcpy(p, &v, 2); }

// 8 vectors of int32 lanes (values in int8 range) → 32 bytes.
inline void store_bytes(const int32x4_t* q, std::uint8_t* out) {
  for (int i = 0; i < 8; i += 2) {
    const int16x8_t h = vcombine_s16(vmovn_s32(q[i]), vmovn_s32(q[i + 1]));
    vst1_s8(reinterpret_cast<std::int8_t*>(out + 4 * i), vmovn_s16(h));
  }
}
// Low nibbles from lanes 0..15, high from 16..31 → 16 bytes.
inline void store_nibbles(const int32x4_t* q, std::uint8_t* out) {
  for (int i = 0; i < 4; i += 2) {
    const int32x4_t a = vorrq_s32(q[i], vshlq_n_s32(q[i + 4], 4));
    const int32x4_t b = vorrq_s32(q[i + 1], vshlq_n_s32(q[i + 5], 4));
    const int16x8_t h = vcombine_s16(vmovn_s32(a), vmovn_s32(b));
    vst1_u8(out + 4 * i, vreinterpret_u8_s8(vmovn_s16(h)));
  }
}
}  // namespace

// MXFP4: the scalar fast path's arithmetic — t = |x|·2^(128−e) (exact), the
// code magnitude the count of thresholds t exceeds, + 8 for a negative
// non-zero code — with the scale exponent from the exponent field where
// that equals the scalar floor(log2(amax)) (as in quantize_avx512.cpp).
void quantize_mxfp4_neon(const float* x, std::uint8_t* out, std::size_t blocks,
                         void (*scalar_block)(const float*, std::uint8_t*)) {
  static const float kThresholds[7] = {0.5f, 1.5f, 2.5f, 3.5f, 5.f, 7.f, 10.f};
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 17) {
    float32x4_t v[8], a[8];
    const float amax = abs_max32(x, v, a);
    std::uint32_t u;
    __builtin_memcpy(&u, &amax, 4);
    const std::uint32_t exp = u >> 23;
    if (exp < 4 || (u & 0x7fffffu) > 0x7ff000u || !(amax <= 3.0e38f)) {
      scalar_block(x, out);
      continue;
    }
    const int e = static_cast<int>(exp) - 2;
    out[0] = static_cast<std::uint8_t>(e);
    const float32x4_t s = vreinterpretq_f32_u32(vdupq_n_u32(static_cast<std::uint32_t>(255 - e) << 23));
    int32x4_t m[8];
    for (int k = 0; k < 8; ++k) {
      const float32x4_t t = vmulq_f32(a[k], s);
      int32x4_t c = vdupq_n_s32(0);
      for (float th : kThresholds) c = vsubq_s32(c, vreinterpretq_s32_u32(vcgtq_f32(t, vdupq_n_f32(th))));
      const uint32x4_t neg = vandq_u32(vcltzq_s32(vreinterpretq_s32_f32(v[k])), vtstq_s32(c, c));
      m[k] = vaddq_s32(c, vandq_s32(vreinterpretq_s32_u32(neg), vdupq_n_s32(8)));
    }
    store_nibbles(m, out + 1);
  }
}

// Q8_0 as q8_0_block: d = amax/127, v = x·id sent to −128 unless > −128
// (NaN too) and to 127 unless < 127, truncated, then rounded half away from
// zero by the fraction.
void quantize_q8_0_neon(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float)) {
  const float32x4_t lo = vdupq_n_f32(-128.f), hi = vdupq_n_f32(127.f);
  const float32x4_t half = vdupq_n_f32(0.5f), mhalf = vdupq_n_f32(-0.5f);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 34) {
    float32x4_t v[8], a[8];
    const float amax = abs_max32(x, v, a);
    const float d = amax / 127;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    put16(out, to_fp16(d));
    const float32x4_t vid = vdupq_n_f32(id);
    int32x4_t q[8];
    for (int k = 0; k < 8; ++k) {
      float32x4_t t = vmulq_f32(v[k], vid);
      t = vbslq_f32(vcgtq_f32(t, lo), t, lo);
      t = vbslq_f32(vcltq_f32(t, hi), t, hi);
      int32x4_t n = vcvtq_s32_f32(t);
      const float32x4_t frac = vsubq_f32(t, vcvtq_f32_s32(n));
      n = vsubq_s32(n, vreinterpretq_s32_u32(vcgeq_f32(frac, half)));  // + 1 (the mask is −1)
      n = vaddq_s32(n, vreinterpretq_s32_u32(vcleq_f32(frac, mhalf)));  // − 1
      q[k] = n;
    }
    store_bytes(q, out + 2);
  }
}

// Q4_0 as q4_0_block: the first value of largest magnitude sets d = max/−8;
// q = trunc(t < 15.5 ? t : 15.5), t = x·id + 8.5 (two roundings; NaN → 15).
void quantize_q4_0_neon(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float)) {
  const float32x4_t add = vdupq_n_f32(8.5f), cap = vdupq_n_f32(15.5f);
  for (std::size_t i = 0; i < blocks; ++i, x += 32, out += 18) {
    float32x4_t v[8], a[8];
    const float amax = abs_max32(x, v, a);
    float max = 0.0f;
    for (int j = 0; j < 32; ++j) {
      if (__builtin_fabsf(x[j]) == amax) {
        max = x[j];
        break;
      }
    }
    const float d = max / -8;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    put16(out, to_fp16(d));
    const float32x4_t vid = vdupq_n_f32(id);
    int32x4_t q[8];
    for (int k = 0; k < 8; ++k) {
      const float32x4_t t = vaddq_f32(vmulq_f32(v[k], vid), add);
      q[k] = vcvtq_s32_f32(vbslq_f32(vcltq_f32(t, cap), t, cap));
    }
    store_nibbles(q, out + 2);
  }
}

// BF16: round to nearest even in integers, NaN kept quiet (the scalar
// code); the tail through the scalar converter itself.
void quantize_bf16_neon(const float* x, std::uint8_t* out, std::size_t n, std::uint16_t (*to_bf16)(float)) {
  const uint32x4_t abs_mask = vdupq_n_u32(0x7fffffffu), inf = vdupq_n_u32(0x7f800000u);
  const uint32x4_t bias = vdupq_n_u32(0x7fffu), one = vdupq_n_u32(1u), quiet = vdupq_n_u32(64u);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32x4_t u = vreinterpretq_u32_f32(vld1q_f32(x + i));
    const uint32x4_t hi = vshrq_n_u32(u, 16);
    const uint32x4_t rounded = vshrq_n_u32(vaddq_u32(u, vaddq_u32(bias, vandq_u32(hi, one))), 16);
    const uint32x4_t nan = vcgtq_u32(vandq_u32(u, abs_mask), inf);
    const uint32x4_t r = vbslq_u32(nan, vorrq_u32(hi, quiet), rounded);
    vst1_u16(reinterpret_cast<std::uint16_t*>(out + 2 * i), vmovn_u32(r));
  }
  for (; i < n; ++i) put16(out + 2 * i, to_bf16(x[i]));
}

}  // namespace moebench::detail
