// quantize_fast.cpp — QuantSearch::kFast (see quantize.h): single-pass
// Q4_K, Q3_K and Q2_K quantizers for bulk synthetic weights, plus the
// quantize(..., QuantSearch) dispatcher. The exact ggml quantizers stay in
// quantize.cpp; every other format goes there unchanged.
//
// This file is the portable reference of kFast; quantize_fast_avx512.cpp
// and quantize_fast_neon.cpp compute the same bytes with AVX-512 and NEON.
// All three are compiled with -ffp-contract=off and perform the same float
// operations in the same order on each value (min/max reductions are
// order-independent because every reduced value is made sign-canonical: no
// −0 reaches a stored scale), so they agree bit for bit
// (tests/unit/quantize_fast_test.cpp).
//
// Rounding to nearest uses the 1.5·2^23 trick on values already clamped to
// the level range (clamp then round = round then clamp for integer bounds),
// so huge or tiny inputs never reach an out-of-range conversion.
#include <cmath>
#include <cstring>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"
#include "engines/quant/quantize_fast_simd.h"

namespace moebench {

namespace detail {
// Declared in quantize_fast_simd.h (the NEON path calls them too).
void pack_q4_k_scales(const int* ls, const int* lm, std::uint8_t* sc) {
  for (int j = 0; j < 4; ++j) {
    sc[j] = static_cast<std::uint8_t>(ls[j] | ((ls[j + 4] >> 4) << 6));
    sc[j + 4] = static_cast<std::uint8_t>(lm[j] | ((lm[j + 4] >> 4) << 6));
    sc[j + 8] = static_cast<std::uint8_t>((ls[j + 4] & 0xF) | ((lm[j + 4] & 0xF) << 4));
  }
}

void pack_q3_k_scales(const int* ls, std::uint8_t* sc) {
  for (int j = 0; j < 4; ++j) {
    const int a = ls[j] + 32, c = ls[j + 4] + 32, e = ls[j + 8] + 32, g = ls[j + 12] + 32;
    sc[j] = static_cast<std::uint8_t>((a & 0xF) | ((e & 0xF) << 4));
    sc[j + 4] = static_cast<std::uint8_t>((c & 0xF) | ((g & 0xF) << 4));
    sc[j + 8] = static_cast<std::uint8_t>((a >> 4) | ((c >> 4) << 2) | ((e >> 4) << 4) | ((g >> 4) << 6));
  }
}
}  // namespace detail

namespace {

constexpr int kQK = 256;              // k-quant super-block
constexpr float kFp16Max = 65504.f;   // largest finite binary16
constexpr float kRoundMagic = 12582912.f;  // 1.5·2^23

// Round to nearest even; |v| must be < 2^22 (callers clamp first).
inline int nearest(float v) {
  const float t = v + kRoundMagic;
  std::int32_t bits;
  std::memcpy(&bits, &t, 4);
  return bits - 0x4B400000;
}

// The AVX-512 path's operations: _mm512_min_ps(a, b) = a < b ? a : b,
// _mm512_max_ps(a, b) = a > b ? a : b.
inline float fmin2(float a, float b) { return a < b ? a : b; }
inline float fmax2(float a, float b) { return a > b ? a : b; }
inline float clampf(float v, float lo, float hi) { return fmin2(fmax2(v, lo), hi); }
inline float recip_or_zero(float d) { return d != 0.f ? 1.f / d : 0.f; }

void put16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }

// Unsigned min/max scales of `sub_blocks` sub-blocks of `len` weights:
// min = min(0, min x) made +0 when zero, scale = max(hi − min, 0) / levels,
// returned as (scale, −min), both ≥ 0 and never −0.
void minmax_scales(const float* x, int sub_blocks, int len, float levels, float* scales, float* mins) {
  for (int j = 0; j < sub_blocks; ++j) {
    float lo = x[len * j], hi = x[len * j];
    for (int i = 1; i < len; ++i) {
      lo = fmin2(x[len * j + i], lo);
      hi = fmax2(x[len * j + i], hi);
    }
    const float mn = lo < 0.f ? lo : 0.f;
    const float range = fmax2(hi - mn, 0.f);
    scales[j] = range / levels;
    mins[j] = 0.f - mn;
  }
}

// fp16 bits of the super-block scale `max_value / divisor`, clamped to the
// fp16 range (so huge inputs saturate instead of storing inf).
std::uint16_t super_scale(float max_value, float divisor) {
  return fp32_to_fp16(clampf(max_value / divisor, -kFp16Max, kFp16Max));
}

// Packs 2-bit levels L[256] as ggml's q2_K/q3_K qs[64].
void pack_2bit(const std::uint8_t* L, std::uint8_t* qs) {
  for (int j = 0; j < kQK; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                                (L[j + l + 96] << 6));
    }
  }
}

// ---- q4_k: fp16 d, fp16 dmin, scales[12], qs[128] -------------------------
void q4_k_fast_block(const float* x, std::uint8_t* b) {
  float scales[8], mins[8];
  minmax_scales(x, 8, 32, 15.f, scales, mins);
  float max_scale = 0.f, max_min = 0.f;
  for (int j = 0; j < 8; ++j) {
    max_scale = fmax2(scales[j], max_scale);
    max_min = fmax2(mins[j], max_min);
  }
  const std::uint16_t d16 = super_scale(max_scale, 63.f), m16 = super_scale(max_min, 63.f);
  put16(b, d16);
  put16(b + 2, m16);
  const float d = fp16_to_fp32(d16), dmin = fp16_to_fp32(m16);
  const float id = recip_or_zero(d), im = recip_or_zero(dmin);
  int ls[8], lm[8];
  for (int j = 0; j < 8; ++j) {
    ls[j] = nearest(clampf(scales[j] * id, 0.f, 63.f));
    lm[j] = nearest(clampf(mins[j] * im, 0.f, 63.f));
  }
  detail::pack_q4_k_scales(ls, lm, b + 4);
  std::uint8_t L[kQK];
  for (int j = 0; j < 8; ++j) {
    const float dj = d * static_cast<float>(ls[j]);
    const float dmj = dmin * static_cast<float>(lm[j]);
    const float idj = recip_or_zero(dj);
    for (int i = 0; i < 32; ++i) {
      L[32 * j + i] = static_cast<std::uint8_t>(nearest(clampf((x[32 * j + i] + dmj) * idj, 0.f, 15.f)));
    }
  }
  std::uint8_t* q = b + 16;
  for (int j = 0; j < kQK; j += 64, q += 32) {
    for (int l = 0; l < 32; ++l) q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
  }
}

// ---- q3_k: hmask[32], qs[64], scales[12], fp16 d --------------------------
void q3_k_fast_block(const float* x, std::uint8_t* b) {
  float scales[16];
  for (int j = 0; j < 16; ++j) {
    float lo = x[16 * j], hi = x[16 * j];
    for (int i = 1; i < 16; ++i) {
      lo = fmin2(x[16 * j + i], lo);
      hi = fmax2(x[16 * j + i], hi);
    }
    const float m = hi >= 0.f - lo ? hi : lo;  // larger magnitude, positive on a tie
    scales[j] = m / -4.f;
  }
  float amax = 0.f, smax = 0.f;
  for (int j = 0; j < 16; ++j) {
    amax = fmax2(std::fabs(scales[j]), amax);
    smax = fmax2(scales[j], smax);
  }
  // The scale of largest magnitude (positive on a tie) maps to −32.
  const float max_scale = smax >= amax ? amax : 0.f - amax;
  const std::uint16_t d16 = amax > 0.f ? super_scale(max_scale, -32.f) : fp32_to_fp16(0.f);
  put16(b + 108, d16);
  const float d = fp16_to_fp32(d16);
  const float id = recip_or_zero(d);
  int ls[16];
  for (int j = 0; j < 16; ++j) ls[j] = nearest(clampf(scales[j] * id, -32.f, 31.f));
  detail::pack_q3_k_scales(ls, b + 96);
  std::uint8_t L[kQK];
  for (int j = 0; j < 16; ++j) {
    const float idj = recip_or_zero(d * static_cast<float>(ls[j]));
    for (int i = 0; i < 16; ++i) {
      L[16 * j + i] = static_cast<std::uint8_t>(nearest(clampf(x[16 * j + i] * idj, -4.f, 3.f)) + 4);
    }
  }
  std::uint8_t* hmask = b;
  std::memset(hmask, 0, 32);
  std::uint8_t low[kQK];
  for (int j = 0; j < kQK; ++j) {  // high bit of element j goes to hmask[j % 32], bit j / 32
    hmask[j % 32] = static_cast<std::uint8_t>(hmask[j % 32] | ((L[j] >> 2) << (j / 32)));
    low[j] = static_cast<std::uint8_t>(L[j] & 3);
  }
  pack_2bit(low, b + 32);
}

// ---- q2_k: scales[16], qs[64], fp16 d, fp16 dmin --------------------------
void q2_k_fast_block(const float* x, std::uint8_t* b) {
  float scales[16], mins[16];
  minmax_scales(x, 16, 16, 3.f, scales, mins);
  float max_scale = 0.f, max_min = 0.f;
  for (int j = 0; j < 16; ++j) {
    max_scale = fmax2(scales[j], max_scale);
    max_min = fmax2(mins[j], max_min);
  }
  const std::uint16_t d16 = super_scale(max_scale, 15.f), m16 = super_scale(max_min, 15.f);
  put16(b + 80, d16);
  put16(b + 82, m16);
  const float d = fp16_to_fp32(d16), dmin = fp16_to_fp32(m16);
  const float id = recip_or_zero(d), im = recip_or_zero(dmin);
  std::uint8_t L[kQK];
  for (int j = 0; j < 16; ++j) {
    const int ls = nearest(clampf(scales[j] * id, 0.f, 15.f));
    const int lm = nearest(clampf(mins[j] * im, 0.f, 15.f));
    b[j] = static_cast<std::uint8_t>(ls | (lm << 4));
    const float dmj = dmin * static_cast<float>(lm);
    const float idj = recip_or_zero(d * static_cast<float>(ls));
    for (int i = 0; i < 16; ++i) {
      L[16 * j + i] = static_cast<std::uint8_t>(nearest(clampf((x[16 * j + i] + dmj) * idj, 0.f, 3.f)));
    }
  }
  pack_2bit(L, b + 16);
}

}  // namespace


Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n, SimdLevel level,
                QuantSearch search) {
  const bool k_quant = quant == "q4_k" || quant == "q3_k" || quant == "q2_k";
  if (search == QuantSearch::kGgml || !k_quant) return quantize(quant, src, dst, n, level);
  const auto fmt = quant_for_blocks("quantize", quant, n);
  if (!fmt) return fmt.error();
  if (n == 0) return Status::success();
  if (src == nullptr || dst == nullptr) return make_error("quantize: null source or destination");
  auto* out = static_cast<std::uint8_t*>(dst);
  const std::size_t blocks = n / kQK;
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && best_simd_level() == SimdLevel::kAvx512) {
    if (quant == "q4_k") detail::quantize_q4_k_fast_avx512(src, out, blocks);
    if (quant == "q3_k") detail::quantize_q3_k_fast_avx512(src, out, blocks);
    if (quant == "q2_k") detail::quantize_q2_k_fast_avx512(src, out, blocks);
    return Status::success();
  }
#elif defined(MOEBENCH_ARM_SIMD)
  if (is_neon(level) && simd_level_available(level)) {
    if (quant == "q4_k") detail::quantize_q4_k_fast_neon(src, out, blocks, fp32_to_fp16, fp16_to_fp32);
    if (quant == "q3_k") detail::quantize_q3_k_fast_neon(src, out, blocks, fp32_to_fp16, fp16_to_fp32);
    if (quant == "q2_k") detail::quantize_q2_k_fast_neon(src, out, blocks, fp32_to_fp16, fp16_to_fp32);
    return Status::success();
  }
#endif
  void (*block_fn)(const float*, std::uint8_t*) = q2_k_fast_block;
  if (quant == "q4_k") block_fn = q4_k_fast_block;
  if (quant == "q3_k") block_fn = q3_k_fast_block;
  for (std::size_t i = 0; i < blocks; ++i) block_fn(src + i * kQK, out + i * fmt->block_bytes);
  return Status::success();
}

Status quantize_fast(std::string_view quant, const float* src, void* dst, std::size_t n) {
  return quantize(quant, src, dst, n, best_simd_level(), QuantSearch::kFast);
}

}  // namespace moebench
