// kernels_q8_neon.h — the integer-dot kernels of kernels_q8.h for aarch64,
// as templates over the byte dot product, included by kernels_q8_neon.cpp
// (base NEON: SMULL + SADALP), kernels_q8_dotprod.cpp (SDOT) and
// kernels_q8_i8mm.cpp (SMMLA on tiles of 4 weight rows × 4 activation
// rows, SDOT for the rest).
//
// Unlike x86 (pmaddubsw and vpdpbusd multiply unsigned by signed bytes, so
// the weights get a per-format offset there), every NEON byte product is
// signed × signed: q4_0 and mxfp4 weights are unpacked to their signed
// values (nibble − 8; the doubled e2m1 value by tbl), q8_0's bytes are used
// as they are, q4_k's nibbles are 0..15. So per 32-weight block
//   Σ w·x̂ = sw·dx·Σ v·q   (q4_k: − dmin·m·s, applied in float)
// with the integer sum exact; the tests hold these kernels to the same bound
// as the x86 ones (kernels_q8.h).
//
//   Row layout, kDot / kPlain: R weight rows × T activation rows per register
//     tile; per block the R rows are unpacked once and dotted with the T
//     activation blocks into 4 int32 lanes, converted and multiplied-added
//     with sw·dx into R × T float accumulators (horizontal sum at the end).
//   Row layout, kMmla: 2 × 2 row pairs × activation pairs per tile. SMMLA
//     multiplies a 2 × 8 byte matrix by the transpose of another into a
//     2 × 2 int32 block: 8 columns of two weight rows (zipped from the two
//     rows' blocks) against 8 columns of two activation rows, 32 products
//     per instruction against SDOT's 16. The 2 × 2 block lands in the lanes
//     of one float accumulator, scaled by [sw_r·dx_t, sw_r·dx_t', ...].
//   Rows8 layout (kernels_q8.h): per 32-column block, a 16-byte load holds 4
//     columns of 4 rows; SDOT's lane form (or SMULL and two pairwise adds)
//     adds 4 products into each row's lane, the activation's 4 bytes
//     selected by lane. Two registers make the group's 8 rows. kMmla uses
//     the SDOT tile here (the layout has no 8-column row pairs). These
//     tiles use the scalar rows8 kernel's unsigned values and offsets
//     (small enough for signed bytes) and its fused steps: bit-exact.
//
// Linkage: as kernels_simd.h — everything in an unnamed namespace, no
// std:: templates or shared inline functions, because this header is
// compiled with different -march flags in each including file.
#pragma once

#if !defined(__aarch64__)
#error "kernels_q8_neon.h is for aarch64"
#endif

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"

namespace moebench::detail {
namespace {

using u8 = std::uint8_t;
using s8 = std::int8_t;

enum Variant { kPlain = 0, kDot = 1, kMmla = 2 };

inline float h2f(const u8* p) {
  __fp16 h;
  std::memcpy(&h, p, 2);
  return static_cast<float>(h);
}

inline int8x16_t as_s8(uint8x16_t v) { return vreinterpretq_s8_u8(v); }
inline int8x16_t nib_lo(uint8x16_t v) { return as_s8(vandq_u8(v, vdupq_n_u8(0x0F))); }
inline int8x16_t nib_hi(uint8x16_t v) { return as_s8(vshrq_n_u8(v, 4)); }
inline int8x16_t mxfp4_values(int8x16_t codes) {
  static constexpr s8 kValues[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  return vqtbl1q_s8(vld1q_s8(kValues), vreinterpretq_u8_s8(codes));
}

#include "engines/quant/prefetch_simd.h"  // Prefetcher (inside this unnamed namespace)
#include "engines/quant/q4k_scale_min_inline.h"  // q4k_scale_min (likewise)

// ---- the byte dot products -------------------------------------------------

// acc += the products of w and q, four per int32 lane (which four: the
// variant's; only the lanes' total is used).
template <int kV>
inline int32x4_t dot16(int32x4_t acc, int8x16_t w, int8x16_t q) {
  if constexpr (kV >= kDot) {
    return vdotq_s32(acc, w, q);
  } else {  // a lane of SMULL + SMLAL2 is two products, |·| ≤ 2·128·127 < 2^15
    int16x8_t p = vmull_s8(vget_low_s8(w), vget_low_s8(q));
    p = vmlal_high_s8(p, w, q);
    return vpadalq_s16(acc, p);
  }
}

// acc lane r += Σ_j w[4r + j]·q[4L + j]: four rows' 4-column dots against
// the 4 activation bytes of lane L.
template <int kV, int L>
inline int32x4_t dot4_lane(int32x4_t acc, int8x16_t w, int8x16_t q) {
  if constexpr (kV >= kDot) {
    return vdotq_laneq_s32(acc, w, q, L);
  } else {
    const int8x16_t qb = vreinterpretq_s8_s32(vdupq_laneq_s32(vreinterpretq_s32_s8(q), L));
    const int16x8_t p0 = vmull_s8(vget_low_s8(w), vget_low_s8(qb)), p1 = vmull_high_s8(w, qb);
    return vpadalq_s16(acc, vpaddq_s16(p0, p1));  // pairs, then pairs of pairs: one sum per row
  }
}

// ---- row-layout formats ----------------------------------------------------
// kGroup 32-weight blocks (q4_k: the 8 sub-blocks of a super-block) of
// kGroupBytes bytes; scales(row, g, sw, cw) gives their scales (and, with
// kMins, min terms); bytes(row, k, w) block k as 32 signed values, w[0]
// columns 0..15 and w[1] 16..31.

struct RowQ4_0 {
  static constexpr bool kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 18;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = h2f(row + 18 * g); }
  static void bytes(const u8* row, std::size_t k, int8x16_t* w) {
    const uint8x16_t b = vld1q_u8(row + 18 * k + 2);
    w[0] = vsubq_s8(nib_lo(b), vdupq_n_s8(8));
    w[1] = vsubq_s8(nib_hi(b), vdupq_n_s8(8));
  }
};

struct RowQ8_0 {
  static constexpr bool kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 34;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = h2f(row + 34 * g); }
  static void bytes(const u8* row, std::size_t k, int8x16_t* w) {
    w[0] = vld1q_s8(reinterpret_cast<const s8*>(row + 34 * k + 2));
    w[1] = vld1q_s8(reinterpret_cast<const s8*>(row + 34 * k + 18));
  }
};

struct RowMxfp4 {  // doubled e2m1 values, scale 2^(e − 128)
  static constexpr bool kMins = false;
  static constexpr int kGroup = 1, kGroupBytes = 17;
  static void scales(const u8* row, std::size_t g, float* sw, float*) { *sw = e8m0_half_table()[row[17 * g]]; }
  static void bytes(const u8* row, std::size_t k, int8x16_t* w) {
    const uint8x16_t b = vld1q_u8(row + 17 * k + 1);
    w[0] = mxfp4_values(nib_lo(b));
    w[1] = mxfp4_values(nib_hi(b));
  }
};

struct RowQ4_K {  // sub-block j of a super-block: w = d·sc_j·u − dmin·m_j
  static constexpr bool kMins = true;
  static constexpr int kGroup = 8, kGroupBytes = 144;
  static void scales(const u8* row, std::size_t g, float* sw, float* cw) {
    const u8* p = row + 144 * g;
    const u8* s = p + 4;
    const float d = h2f(p), dmin = h2f(p + 2);
    for (int j = 0; j < 8; ++j) {
      int sc, m;
      q4k_scale_min(j, s, sc, m);
      sw[j] = d * static_cast<float>(sc);
      cw[j] = dmin * static_cast<float>(m);
    }
  }
  static void bytes(const u8* row, std::size_t k, int8x16_t* w) {
    const u8* q = row + 144 * (k >> 3) + 16 + 32 * ((k & 7) >> 1);
    const uint8x16_t a = vld1q_u8(q), b = vld1q_u8(q + 16);
    w[0] = (k & 1) ? nib_hi(a) : nib_lo(a);
    w[1] = (k & 1) ? nib_hi(b) : nib_lo(b);
  }
};

// ---- row layout: SDOT / SMULL tiles ----------------------------------------

// Activation rows b0..b0+T-1 of a tile: int8 values, block scales, block
// sums.
template <int T>
struct Acts {
  const s8* q[T];
  const float* d[T];
  const float* s[T];
  Acts(const Q8Activations& x, std::size_t b0) {
    for (int t = 0; t < T; ++t) {
      const std::size_t b = b0 + static_cast<std::size_t>(t);
      q[t] = x.q.data() + b * x.cols;
      d[t] = x.d.data() + b * x.blocks();
      s[t] = x.s.data() + b * x.blocks();
    }
  }
};

// What both row-layout tiles read: weight rows r0..r0+R-1, the activation
// rows, and per group the rows' unpacked sub-block scales (sw) and min
// terms (cw).
template <class F, int R, int T>
struct RowTile {
  const u8* rows[R];
  Acts<T> act;
  float sw[R][F::kGroup], cw[R][F::kGroup];
  RowTile(const Q8Args& a, std::size_t r0, std::size_t b0) : act(*a.x, b0) {
    for (int r = 0; r < R; ++r) rows[r] = a.w + (r0 + static_cast<std::size_t>(r)) * a.row_bytes;
  }
  static std::size_t groups(const Q8Args& a) { return a.x->blocks() / F::kGroup; }
  // Prefetches ahead of group g and unpacks its scales into sw, cw.
  void begin_group(std::size_t g, Prefetcher& pf) {
    pf.upto(rows[0] + static_cast<std::size_t>(R) * (g + 1) * F::kGroupBytes);
    for (int r = 0; r < R; ++r) F::scales(rows[r], g, sw[r], cw[r]);
  }
  // Activation t's 32 values of block k.
  void act_bytes(int t, std::size_t k, int8x16_t& q0, int8x16_t& q1) const {
    q0 = vld1q_s8(act.q[t] + k * kQ8Block);
    q1 = vld1q_s8(act.q[t] + k * kQ8Block + 16);
  }
};

template <int kV, class F, int R, int T>
void tile(const Q8Args& a, std::size_t r0, std::size_t b0, Prefetcher& pf) {
  float32x4_t acc[R][T];
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) acc[r][t] = vdupq_n_f32(0.0f);
  }
  RowTile<F, R, T> in(a, r0, b0);
  const std::size_t groups = in.groups(a);
  for (std::size_t g = 0; g < groups; ++g) {
    in.begin_group(g, pf);
    for (int j = 0; j < F::kGroup; ++j) {
      const std::size_t k = g * F::kGroup + static_cast<std::size_t>(j);
      int8x16_t w[R][2];
      for (int r = 0; r < R; ++r) F::bytes(in.rows[r], k, w[r]);
      for (int t = 0; t < T; ++t) {
        int8x16_t q0, q1;
        in.act_bytes(t, k, q0, q1);
        const float dx = in.act.d[t][k];
        for (int r = 0; r < R; ++r) {
          const int32x4_t s = dot16<kV>(dot16<kV>(vdupq_n_s32(0), w[r][0], q0), w[r][1], q1);
          acc[r][t] = vfmaq_n_f32(acc[r][t], vcvtq_f32_s32(s), in.sw[r][j] * dx);
        }
      }
    }
    if constexpr (F::kMins) {  // kGroup == 8: the 8 sub-blocks' min terms
      for (int t = 0; t < T; ++t) {
        const float32x4_t s0 = vld1q_f32(in.act.s[t] + g * 8), s1 = vld1q_f32(in.act.s[t] + g * 8 + 4);
        for (int r = 0; r < R; ++r) {
          acc[r][t] = vfmsq_f32(acc[r][t], vld1q_f32(in.cw[r]), s0);
          acc[r][t] = vfmsq_f32(acc[r][t], vld1q_f32(in.cw[r] + 4), s1);
        }
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      a.y[(b0 + static_cast<std::size_t>(t)) * a.rows + r0 + static_cast<std::size_t>(r)] = vaddvq_f32(acc[r][t]);
    }
  }
}

// ---- row layout: SMMLA tiles (2 row pairs × 2 activation pairs) ------------

// Columns 8c..8c+7 of two 32-byte blocks (u: cols 0..15, 16..31) as one
// 2 × 8 matrix: c = 0, 1 from the first registers, 2, 3 from the second.
inline int8x16_t pair_cols(const int8x16_t* u, const int8x16_t* v, int c) {
  const int64x2_t a = vreinterpretq_s64_s8(u[c >> 1]), b = vreinterpretq_s64_s8(v[c >> 1]);
  return vreinterpretq_s8_s64((c & 1) ? vzip2q_s64(a, b) : vzip1q_s64(a, b));
}

#if defined(__ARM_FEATURE_MATMUL_INT8)
template <class F>
void tile_mmla(const Q8Args& a, std::size_t r0, std::size_t b0, Prefetcher& pf) {
  constexpr int R = 4, T = 4;
  float32x4_t acc[R / 2][T / 2];  // lanes: (r, t), (r, t + 1), (r + 1, t), (r + 1, t + 1)
  for (auto& row : acc) {
    for (auto& v : row) v = vdupq_n_f32(0.0f);
  }
  RowTile<F, R, T> in(a, r0, b0);
  const std::size_t groups = in.groups(a);
  for (std::size_t g = 0; g < groups; ++g) {
    in.begin_group(g, pf);
    for (int j = 0; j < F::kGroup; ++j) {
      const std::size_t k = g * F::kGroup + static_cast<std::size_t>(j);
      int8x16_t w[R][2], q[T][2];
      for (int r = 0; r < R; ++r) F::bytes(in.rows[r], k, w[r]);
      for (int t = 0; t < T; ++t) in.act_bytes(t, k, q[t][0], q[t][1]);
      for (int tp = 0; tp < T / 2; ++tp) {
        int8x16_t bq[4];
        for (int c = 0; c < 4; ++c) bq[c] = pair_cols(q[2 * tp], q[2 * tp + 1], c);
        const float dx0 = in.act.d[2 * tp][k], dx1 = in.act.d[2 * tp + 1][k];
        const float32x4_t dxv = {dx0, dx1, dx0, dx1};
        for (int rp = 0; rp < R / 2; ++rp) {
          int32x4_t s = vdupq_n_s32(0);
          for (int c = 0; c < 4; ++c) s = vmmlaq_s32(s, pair_cols(w[2 * rp], w[2 * rp + 1], c), bq[c]);
          const float s0 = in.sw[2 * rp][j], s1 = in.sw[2 * rp + 1][j];
          const float32x4_t swv = {s0, s0, s1, s1};
          acc[rp][tp] = vfmaq_f32(acc[rp][tp], vcvtq_f32_s32(s), vmulq_f32(swv, dxv));
        }
      }
    }
    if constexpr (F::kMins) {
      for (int j = 0; j < F::kGroup; ++j) {
        for (int tp = 0; tp < T / 2; ++tp) {
          const float s0 = in.act.s[2 * tp][g * 8 + static_cast<std::size_t>(j)];
          const float s1 = in.act.s[2 * tp + 1][g * 8 + static_cast<std::size_t>(j)];
          const float32x4_t sv = {s0, s1, s0, s1};
          for (int rp = 0; rp < R / 2; ++rp) {
            const float c0 = in.cw[2 * rp][j], c1 = in.cw[2 * rp + 1][j];
            const float32x4_t cv = {c0, c0, c1, c1};
            acc[rp][tp] = vfmsq_f32(acc[rp][tp], cv, sv);
          }
        }
      }
    }
  }
  for (int rp = 0; rp < R / 2; ++rp) {
    for (int tp = 0; tp < T / 2; ++tp) {
      float out[4];
      vst1q_f32(out, acc[rp][tp]);
      const std::size_t r = r0 + 2 * static_cast<std::size_t>(rp), b = b0 + 2 * static_cast<std::size_t>(tp);
      a.y[b * a.rows + r] = out[0];
      a.y[(b + 1) * a.rows + r] = out[1];
      a.y[b * a.rows + r + 1] = out[2];
      a.y[(b + 1) * a.rows + r + 1] = out[3];
    }
  }
}
#endif

template <int kV, class F>
void run_format(const Q8Args& a) {
  constexpr int R = 4, T = 2;
  const std::size_t batch = a.x->batch;
  Prefetcher pf(a.w, a.rows * a.row_bytes);
  std::size_t r0 = 0;
  for (; r0 + R <= a.rows; r0 += R) {
    std::size_t b0 = 0;
#if defined(__ARM_FEATURE_MATMUL_INT8)
    if constexpr (kV == kMmla) {
      for (; b0 + 4 <= batch; b0 += 4) tile_mmla<F>(a, r0, b0, pf);
    }
#endif
    for (; b0 + T <= batch; b0 += T) tile<kV, F, R, T>(a, r0, b0, pf);
    for (; b0 < batch; ++b0) tile<kV, F, R, 1>(a, r0, b0, pf);
  }
  for (; r0 < a.rows; ++r0) {
    std::size_t b0 = 0;
    for (; b0 + T <= batch; b0 += T) tile<kV, F, 1, T>(a, r0, b0, pf);
    for (; b0 < batch; ++b0) tile<kV, F, 1, 1>(a, r0, b0, pf);
  }
}

template <int kV>
bool dispatch_q8(const Q8Args& a) {
  switch (a.ggml_type) {  // ids as in quant_format.cpp
    case 2: run_format<kV, RowQ4_0>(a); return true;
    case 8: run_format<kV, RowQ8_0>(a); return true;
    case 39: run_format<kV, RowMxfp4>(a); return true;
    case 12: run_format<kV, RowQ4_K>(a); return true;
    default: return false;
  }
}

// ---- the rows8 layout ------------------------------------------------------

// The 4 nibble chunks of one 32-column block (q4_0, mxfp4, q4_k's
// sub-blocks): chunk c, byte 4r + j holds row r's column 8c + j (low
// nibble) and 8c + 4 + j (high). lo/hi[t]: rows 0..3 / 4..7. The values
// are the scalar rows8 kernel's u (w = sw·(u − offset)): the nibble for
// q4_0 (offset 8) and q4_k, the doubled e2m1 value + 12 for mxfp4 (offset
// 12), so the integer sums, and with the same fused steps the results, are
// the scalar kernel's bit for bit.
template <int kV, bool kTable, int T>
void nibble_block(const u8* chunks, const s8* const* q, int32x4_t* lo, int32x4_t* hi) {
  auto value = [](int8x16_t n) {
    if constexpr (kTable) {
      static constexpr s8 kU[16] = {12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0};
      return vqtbl1q_s8(vld1q_s8(kU), vreinterpretq_u8_s8(n));
    } else {
      return n;
    }
  };
  for (int t = 0; t < T; ++t) lo[t] = hi[t] = vdupq_n_s32(0);
  for (int c2 = 0; c2 < 2; ++c2) {  // chunks 2·c2 and 2·c2 + 1: activation columns 16·c2 .. 16·c2 + 15
    const u8* p = chunks + 64 * c2;
    const uint8x16_t a0 = vld1q_u8(p), b0 = vld1q_u8(p + 16), a1 = vld1q_u8(p + 32), b1 = vld1q_u8(p + 48);
    const int8x16_t a0l = value(nib_lo(a0)), a0h = value(nib_hi(a0)), b0l = value(nib_lo(b0)), b0h = value(nib_hi(b0));
    const int8x16_t a1l = value(nib_lo(a1)), a1h = value(nib_hi(a1)), b1l = value(nib_lo(b1)), b1h = value(nib_hi(b1));
    for (int t = 0; t < T; ++t) {
      const int8x16_t qv = vld1q_s8(q[t] + 16 * c2);
      lo[t] = dot4_lane<kV, 0>(lo[t], a0l, qv);
      hi[t] = dot4_lane<kV, 0>(hi[t], b0l, qv);
      lo[t] = dot4_lane<kV, 1>(lo[t], a0h, qv);
      hi[t] = dot4_lane<kV, 1>(hi[t], b0h, qv);
      lo[t] = dot4_lane<kV, 2>(lo[t], a1l, qv);
      hi[t] = dot4_lane<kV, 2>(hi[t], b1l, qv);
      lo[t] = dot4_lane<kV, 3>(lo[t], a1h, qv);
      hi[t] = dot4_lane<kV, 3>(hi[t], b1h, qv);
    }
  }
}

// q8_0's 8 chunks: chunk c, byte 4r + j = row r's column 4c + j.
template <int kV, int T>
void q8_block(const u8* chunks, const s8* const* q, int32x4_t* lo, int32x4_t* hi) {
  for (int t = 0; t < T; ++t) lo[t] = hi[t] = vdupq_n_s32(0);
  for (int c4 = 0; c4 < 2; ++c4) {  // chunks 4·c4 .. 4·c4 + 3: activation columns 16·c4 .. 16·c4 + 15
    const s8* p = reinterpret_cast<const s8*>(chunks + 128 * c4);
    int8x16_t wl[4], wh[4];
    for (int c = 0; c < 4; ++c) {
      wl[c] = vld1q_s8(p + 32 * c);
      wh[c] = vld1q_s8(p + 32 * c + 16);
    }
    for (int t = 0; t < T; ++t) {
      const int8x16_t qv = vld1q_s8(q[t] + 16 * c4);
      lo[t] = dot4_lane<kV, 0>(lo[t], wl[0], qv);
      hi[t] = dot4_lane<kV, 0>(hi[t], wh[0], qv);
      lo[t] = dot4_lane<kV, 1>(lo[t], wl[1], qv);
      hi[t] = dot4_lane<kV, 1>(hi[t], wh[1], qv);
      lo[t] = dot4_lane<kV, 2>(lo[t], wl[2], qv);
      hi[t] = dot4_lane<kV, 2>(hi[t], wh[2], qv);
      lo[t] = dot4_lane<kV, 3>(lo[t], wl[3], qv);
      hi[t] = dot4_lane<kV, 3>(hi[t], wh[3], qv);
    }
  }
}

// The 8 rows' fp16 scales at p as two vectors (rows 0..3, 4..7).
inline void f16x8(const u8* p, float32x4_t& lo, float32x4_t& hi) {
  std::uint16_t h[8];
  std::memcpy(h, p, 16);
  const float16x8_t v = vreinterpretq_f16_u16(vld1q_u16(h));
  lo = vcvt_f32_f16(vget_low_f16(v));
  hi = vcvt_high_f32_f16(v);
}

// Group g (rows 8g..8g+7) × activation rows b0..b0+T-1; kType: q4_0 (2),
// q8_0 (8), mxfp4 (39). Per block: acc += sw·(Σu·q·dx − offset·s), the
// inner step one fused multiply-add as in the scalar kernel.
template <int kV, std::uint32_t kType, int T>
void tile_rows8(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf, const float* e8m0) {
  constexpr float kOffset = kType == 2 ? 8.0f : kType == 39 ? 12.0f : 0.0f;
  constexpr std::size_t kScaleBytes = kType == 39 ? 8 : 16;
  constexpr std::size_t kBlock = kScaleBytes + (kType == 8 ? 256 : 128);
  const Q8Activations& x = *a.x;
  const std::size_t nb = x.blocks();
  const u8* group = a.w + g * 8 * a.row_bytes;
  const Acts<T> act(x, b0);
  float32x4_t acc[T][2];
  for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = vdupq_n_f32(0.0f);
  for (std::size_t k = 0; k < nb; ++k) {
    const u8* blk = group + k * kBlock;
    pf.upto(blk + kBlock);
    float32x4_t sw0, sw1;
    if constexpr (kType == 39) {
      float s[8];
      for (int r = 0; r < 8; ++r) s[r] = e8m0[blk[r]];
      sw0 = vld1q_f32(s);
      sw1 = vld1q_f32(s + 4);
    } else {
      f16x8(blk, sw0, sw1);
    }
    const s8* qk[T];
    for (int t = 0; t < T; ++t) qk[t] = act.q[t] + k * kQ8Block;
    int32x4_t lo[T], hi[T];
    if constexpr (kType == 8) {
      q8_block<kV, T>(blk + kScaleBytes, qk, lo, hi);
    } else {
      nibble_block<kV, kType == 39, T>(blk + kScaleBytes, qk, lo, hi);
    }
    for (int t = 0; t < T; ++t) {
      const float32x4_t dx = vdupq_n_f32(act.d[t][k]), off = vdupq_n_f32(-(kOffset * act.s[t][k]));
      acc[t][0] = vfmaq_f32(acc[t][0], sw0, vfmaq_f32(off, vcvtq_f32_s32(lo[t]), dx));
      acc[t][1] = vfmaq_f32(acc[t][1], sw1, vfmaq_f32(off, vcvtq_f32_s32(hi[t]), dx));
    }
  }
  for (int t = 0; t < T; ++t) {
    float* out = a.y + (b0 + static_cast<std::size_t>(t)) * a.rows + 8 * g;
    vst1q_f32(out, acc[t][0]);
    vst1q_f32(out + 4, acc[t][1]);
  }
}

// q4_k: group g × activation rows b0..b0+T-1, per 256-column super-block
// (kernels_q8.h): the 8 rows' d and dmin, their 6-bit scales and mins
// unpacked per sub-block into row lanes, each sub-block dotted as a nibble
// block, then acc += d·sc·(Σu·q·dx) − dmin·m·s.
template <int kV, int T>
void tile_rows8_q4k(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf) {
  constexpr std::size_t kGroupSuper = 8 * 144;
  const std::size_t nsb = a.cols / 256;
  const u8* group = a.w + g * 8 * a.row_bytes;
  const Acts<T> act(*a.x, b0);
  float32x4_t acc[T][2];
  for (int t = 0; t < T; ++t) acc[t][0] = acc[t][1] = vdupq_n_f32(0.0f);
  for (std::size_t k = 0; k < nsb; ++k) {
    const u8* gsb = group + k * kGroupSuper;
    pf.upto(gsb + kGroupSuper);
    float32x4_t d[2], dmin[2];
    f16x8(gsb, d[0], d[1]);
    f16x8(gsb + 16, dmin[0], dmin[1]);
    // Bytes 0-3, 4-7 and 8-11 of every row's packed scales, one row per lane.
    uint32x4_t w0[2], w1[2], w2[2];
    for (int h = 0; h < 2; ++h) {
      w0[h] = vld1q_u32(reinterpret_cast<const std::uint32_t*>(gsb + 32 + 16 * h));
      w1[h] = vld1q_u32(reinterpret_cast<const std::uint32_t*>(gsb + 64 + 16 * h));
      w2[h] = vld1q_u32(reinterpret_cast<const std::uint32_t*>(gsb + 96 + 16 * h));
    }
    const uint32x4_t m63 = vdupq_n_u32(63), m15 = vdupq_n_u32(15), m3 = vdupq_n_u32(3);
    auto shr = [](uint32x4_t v, int n) { return vshlq_u32(v, vdupq_n_s32(-n)); };
    for (int j = 0; j < 8; ++j) {
      const std::size_t blk = 8 * k + static_cast<std::size_t>(j);
      float32x4_t sw[2], cw[2];
      for (int h = 0; h < 2; ++h) {
        uint32x4_t sc, mn;
        if (j < 4) {
          sc = vandq_u32(shr(w0[h], 8 * j), m63);
          mn = vandq_u32(shr(w1[h], 8 * j), m63);
        } else {
          const int lo = 8 * (j - 4), hi = lo + 6;
          sc = vorrq_u32(vandq_u32(shr(w2[h], lo), m15), vshlq_n_u32(vandq_u32(shr(w0[h], hi), m3), 4));
          mn = vorrq_u32(vandq_u32(shr(w2[h], lo + 4), m15), vshlq_n_u32(vandq_u32(shr(w1[h], hi), m3), 4));
        }
        sw[h] = vmulq_f32(d[h], vcvtq_f32_u32(sc));
        cw[h] = vmulq_f32(dmin[h], vcvtq_f32_u32(mn));
      }
      const s8* qk[T];
      for (int t = 0; t < T; ++t) qk[t] = act.q[t] + blk * kQ8Block;
      int32x4_t lo[T], hi[T];
      nibble_block<kV, false, T>(gsb + 128 + 128 * static_cast<std::size_t>(j), qk, lo, hi);
      for (int t = 0; t < T; ++t) {
        const float dx = act.d[t][blk], s = act.s[t][blk];
        acc[t][0] = vfmaq_f32(acc[t][0], sw[0], vmulq_n_f32(vcvtq_f32_s32(lo[t]), dx));
        acc[t][1] = vfmaq_f32(acc[t][1], sw[1], vmulq_n_f32(vcvtq_f32_s32(hi[t]), dx));
        acc[t][0] = vfmsq_f32(acc[t][0], cw[0], vdupq_n_f32(s));
        acc[t][1] = vfmsq_f32(acc[t][1], cw[1], vdupq_n_f32(s));
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    float* out = a.y + (b0 + static_cast<std::size_t>(t)) * a.rows + 8 * g;
    vst1q_f32(out, acc[t][0]);
    vst1q_f32(out + 4, acc[t][1]);
  }
}

template <int kV, std::uint32_t kType, int T>
void tile_any(const Q8Args& a, std::size_t g, std::size_t b0, Prefetcher& pf, const float* e8m0) {
  if constexpr (kType == 12) {
    tile_rows8_q4k<kV, T>(a, g, b0, pf);
  } else {
    tile_rows8<kV, kType, T>(a, g, b0, pf, e8m0);
  }
}

template <int kV, std::uint32_t kType>
void run_rows8(const Q8Args& a) {
  const std::size_t batch = a.x->batch;
  Prefetcher pf(a.w, a.rows * a.row_bytes);
  const float* e8m0 = e8m0_half_table();  // e8m0 → 2^(e − 128) (mxfp4's doubled values)
  for (std::size_t g = 0; g < a.rows / 8; ++g) {
    std::size_t b0 = 0;
    for (; b0 + 4 <= batch; b0 += 4) tile_any<kV, kType, 4>(a, g, b0, pf, e8m0);
    for (; b0 + 2 <= batch; b0 += 2) tile_any<kV, kType, 2>(a, g, b0, pf, e8m0);
    for (; b0 < batch; ++b0) tile_any<kV, kType, 1>(a, g, b0, pf, e8m0);
  }
}

template <int kV>
bool dispatch_rows8(const Q8Args& a) {
  switch (a.ggml_type) {
    case 2: run_rows8<kV, 2>(a); return true;
    case 8: run_rows8<kV, 8>(a); return true;
    case 39: run_rows8<kV, 39>(a); return true;
    case 12: run_rows8<kV, 12>(a); return true;
    default: return false;
  }
}

// quantize_activations() for one row of `cols` values (a multiple of 32):
// the scalar arithmetic lane by lane (max|x| / 127 with NaN ignored as fmax
// does, x · (1/d) rounded to nearest even by FCVTNS), so the bytes are the
// scalar path's.
inline void quantize_row(const float* x, std::size_t cols, s8* q, float* d, float* s) {
  for (std::size_t k = 0; k < cols / kQ8Block; ++k, x += kQ8Block, q += kQ8Block) {
    float32x4_t v[8];
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int i = 0; i < 8; ++i) {
      v[i] = vld1q_f32(x + 4 * i);
      m = vmaxnmq_f32(m, vabsq_f32(v[i]));
    }
    const float amax = vmaxnmvq_f32(m);
    const float dk = amax / 127.0f;
    const float32x4_t id = vdupq_n_f32(dk != 0.0f ? 1.0f / dk : 0.0f);
    int32x4_t n[8];
    int32x4_t sum = vdupq_n_s32(0);
    for (int i = 0; i < 8; ++i) {
      n[i] = vminq_s32(vmaxq_s32(vcvtnq_s32_f32(vmulq_f32(v[i], id)), vdupq_n_s32(-127)), vdupq_n_s32(127));
      sum = vaddq_s32(sum, n[i]);
    }
    for (int i = 0; i < 8; i += 2) {
      const int16x8_t h = vcombine_s16(vmovn_s32(n[i]), vmovn_s32(n[i + 1]));
      vst1_s8(q + 4 * i, vmovn_s16(h));
    }
    d[k] = dk;
    s[k] = dk * static_cast<float>(vaddvq_s32(sum));
  }
}

}  // namespace
}  // namespace moebench::detail
