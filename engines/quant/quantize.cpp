// quantize.cpp — see quantize.h. Compiled with -ffp-contract=off (see
// CMakeLists.txt): every float operation rounds where ggml's reference
// quantizers round, so the choices (scales, levels) come out the same
// (tests/unit/quantize_test.cpp compares bytes with a literal transcription
// of ggml's code).
//
// Speed without changing results: the k-quant scale searches
// (make_qkx2_quants, make_q3_quants) run 4 sub-blocks per vector with
// GCC/Clang vector extensions (SSE2 / NEON, no intrinsics), each lane keeping
// ggml's sequential order of operations; MXFP4 picks its code point by
// comparing against midpoints, provably ggml's exhaustive-search choice (see
// mxfp4_block). Inputs are assumed finite; NaN/inf give some deterministic
// bytes, not necessarily ggml's (ggml's are undefined behaviour in places).
#include "engines/quant/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"

namespace moebench {

std::uint16_t fp32_to_fp16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax >= 0x38800000u) {  // normal half: rebias the exponent, round the 13 dropped bits
    const std::uint32_t r = ax - 0x38000000u;
    return static_cast<std::uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  // Subnormal half (units of 2^-24) or zero.
  const int shift = 126 - static_cast<int>(ax >> 23);
  if (shift > 24) return static_cast<std::uint16_t>(sign);
  const std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
  std::uint32_t q = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

std::uint16_t fp32_to_bf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 64u);  // quiet NaN
  return static_cast<std::uint16_t>((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}

namespace {

constexpr int kQK = 256;  // k-quant super-block

void put16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }

// ggml's nearest_int: round to nearest even via the 1.5·2^23 trick (exact
// for |v| < 2^22; beyond that the same garbage as ggml, but no UB).
inline int nearest_int(float v) {
  const float t = v + 12582912.f;
  return (std::bit_cast<std::int32_t>(t) & 0x007fffff) - 0x00400000;
}

// max |x[j]| over n values, NaNs ignored; order-independent, so partial
// maxima (vectorizable) give the same value as ggml's sequential loop.
float abs_max(const float* x, int n) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int j = 0; j < n; j += 8) {
    for (int k = 0; k < 8; ++k) {
      const float a = std::fabs(x[j + k]);
      part[k] = part[k] < a ? a : part[k];
    }
  }
  float m = 0;
  for (float p : part) m = m < p ? p : m;
  return m;
}

// ---- q8_0: fp16 d, int8 qs[32] -------------------------------------------
void q8_0_block(const float* x, std::uint8_t* b) {
  const float amax = abs_max(x, 32);
  const float d = amax / 127;
  const float id = d != 0.f ? 1.0f / d : 0.0f;
  put16(b, fp32_to_fp16(d));
  for (int j = 0; j < 32; ++j) {
    float v = x[j] * id;  // roundf(v): half away from zero, done exactly in integers
    if (!(v > -128.f)) v = -128.f;
    if (!(v < 127.f)) v = 127.f;
    int i = static_cast<int>(v);
    const float frac = v - static_cast<float>(i);
    i += (frac >= 0.5f) - (frac <= -0.5f);
    b[2 + j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(i));
  }
}

// ---- q4_0: fp16 d, qs[16] (element j low nibble, j + 16 high nibble) ------
void q4_0_block(const float* x, std::uint8_t* b) {
  const float amax = abs_max(x, 32);
  float max = 0.0f;  // the first value of largest magnitude, with its sign
  for (int j = 0; j < 32; ++j) {
    if (std::fabs(x[j]) == amax) {
      max = x[j];
      break;
    }
  }
  const float d = max / -8;
  const float id = d != 0.f ? 1.0f / d : 0.0f;
  put16(b, fp32_to_fp16(d));
  for (int j = 0; j < 16; ++j) {
    const float t0 = x[j] * id + 8.5f;
    const float t1 = x[j + 16] * id + 8.5f;
    const int q0 = static_cast<int>(t0 < 15.5f ? t0 : 15.5f);  // MIN(15, (int8_t)t)
    const int q1 = static_cast<int>(t1 < 15.5f ? t1 : 15.5f);
    b[2 + j] = static_cast<std::uint8_t>(q0 | (q1 << 4));
  }
}

// ---- mxfp4: e8m0 e, qs[16] ---------------------------------------------
constexpr const std::int8_t* kMxfp4 = kMxfp4Values;

// floorf(log2f(a)) for finite a > 0 without a log2f call unless `a` is so
// close to the next power of two that log2f may round up to it.
int floor_log2(float a) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(a);
  const std::uint32_t exp = u >> 23;
  if (exp == 0 || (u & 0x7fffffu) > 0x7ff000u) return static_cast<int>(std::floor(std::log2(a)));
  return static_cast<int>(exp) - 127;
}

// ggml's best_index_mxfp4: the first code point of least |kv·d − x|.
int best_index_mxfp4(float x, float d) {
  int best = 0;
  float best_err = std::fabs(static_cast<float>(kMxfp4[0]) * d - x);
  for (int i = 1; i < 16; ++i) {
    const float err = std::fabs(static_cast<float>(kMxfp4[i]) * d - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return best;
}

// With d = 2^(e-128) a normal power of two, t = |x|/d is exact, every
// candidate error |v·d − |x|| between the two code points bracketing t is
// exact, other candidates are strictly worse, and positive code points come
// first: so ggml's choice is the magnitude index m = #{midpoints < t}
// (ties to the lower point), negated (+8) for x < 0.
void mxfp4_block(const float* x, std::uint8_t* b) {
  const float amax = abs_max(x, 32);
  int e = 0;
  if (amax > 0.0f) e = std::clamp(floor_log2(amax) - 2 + 127, 0, 254);
  b[0] = static_cast<std::uint8_t>(e);
  const float d = e8m0_to_fp32_half(static_cast<std::uint8_t>(e));
  std::uint8_t idx[32];
  if (e >= 2 && amax <= 3.0e38f) {
    const float s = std::bit_cast<float>(static_cast<std::uint32_t>(255 - e) << 23);  // 1/d = 2^(128-e)
    for (int j = 0; j < 32; ++j) {
      const float t = std::fabs(x[j]) * s;
      const int m = (t > 0.5f) + (t > 1.5f) + (t > 2.5f) + (t > 3.5f) + (t > 5.f) + (t > 7.f) + (t > 10.f);
      idx[j] = static_cast<std::uint8_t>(m != 0 && std::signbit(x[j]) ? m + 8 : m);
    }
  } else {
    for (int j = 0; j < 32; ++j) idx[j] = static_cast<std::uint8_t>(best_index_mxfp4(x[j], d));
  }
  for (int j = 0; j < 16; ++j) b[1 + j] = static_cast<std::uint8_t>(idx[j] | (idx[j + 16] << 4));
}

// ---- k-quant helpers ------------------------------------------------------

// 4-lane float/int vectors (GCC/Clang vector extensions: SSE2 on x86-64,
// NEON on aarch64, per-lane IEEE arithmetic exactly like scalar code).
typedef float vf __attribute__((vector_size(16)));
typedef std::int32_t vi __attribute__((vector_size(16)));

inline vi vnearest(vf v) { return (std::bit_cast<vi>(v + 12582912.f) & 0x007fffff) - 0x00400000; }
inline vi vclamp(vi l, int lo, int hi) {
  const vi vlo = vi{} + lo, vhi = vi{} + hi;
  l = l < vlo ? vlo : l;
  return l > vhi ? vhi : l;
}
inline vf vfloat(vi l) { return __builtin_convertvector(l, vf); }
inline vf vabs(vf v) { return std::bit_cast<vf>(std::bit_cast<vi>(v) & 0x7fffffff); }
inline bool vany(vi m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }

// make_qkx2_quants for 4·NV sub-blocks of N weights at once (sub-block s is
// x[N*s .. N*s+N), lane s % 4 of vector s / 4): per sub-block, the
// arithmetic and its order are exactly ggml's; branches become per-lane
// selects; NV vectors side by side overlap their dependency chains.
template <int N, int NV, bool kMad>
void make_qkx2_lanes(const float* x, const float* w, int nmax, float rmin, float rdelta, int nstep, std::uint8_t* L,
                     float* scale_out, float* min_out) {
  vf xt[N][NV], wt[N][NV];
  for (int s = 0; s < 4 * NV; ++s) {
    for (int i = 0; i < N; ++i) {
      xt[i][s / 4][s % 4] = x[N * s + i];
      wt[i][s / 4][s % 4] = w[N * s + i];
    }
  }
  vf mn[NV], mx[NV], scale[NV], best[NV], sum_w[NV], sum_x[NV];
  vi flat[NV];  // max == min: ggml returns early (levels 0, scale 0)
  vi lt[N][NV], laux[N][NV];
  for (int v = 0; v < NV; ++v) {
    vf lo = xt[0][v], hi = xt[0][v];
    sum_w[v] = wt[0][v];
    sum_x[v] = wt[0][v] * xt[0][v];
    for (int i = 1; i < N; ++i) {
      lo = xt[i][v] < lo ? xt[i][v] : lo;
      hi = xt[i][v] > hi ? xt[i][v] : hi;
      sum_w[v] += wt[i][v];
      sum_x[v] += wt[i][v] * xt[i][v];
    }
    mn[v] = lo > 0 ? vf{} : lo;
    mx[v] = hi;
    flat[v] = hi == mn[v];
    const vf iscale = static_cast<float>(nmax) / (hi - mn[v]);
    scale[v] = 1 / iscale;
    best[v] = vf{};
    for (int i = 0; i < N; ++i) {
      lt[i][v] = vclamp(vnearest(iscale * (xt[i][v] - mn[v])), 0, nmax);
      vf diff = scale[v] * vfloat(lt[i][v]) + mn[v] - xt[i][v];
      diff = kMad ? vabs(diff) : diff * diff;
      best[v] += wt[i][v] * diff;
    }
  }
  for (int is = 0; is <= nstep; ++is) {
    const float num = rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax);
    vf iscale[NV], sum_l[NV], sum_l2[NV], sum_xl[NV], cur[NV];
    for (int v = 0; v < NV; ++v) {
      iscale[v] = num / (mx[v] - mn[v]);  // ggml: max − the current (possibly updated) min
      sum_l[v] = sum_l2[v] = sum_xl[v] = cur[v] = vf{};
    }
    for (int i = 0; i < N; ++i) {
      for (int v = 0; v < NV; ++v) {
        laux[i][v] = vclamp(vnearest(iscale[v] * (xt[i][v] - mn[v])), 0, nmax);
        const vf lf = vfloat(laux[i][v]);
        const vf wl = wt[i][v] * lf;
        sum_l[v] += wl;
        sum_l2[v] += wl * lf;
        sum_xl[v] += wl * xt[i][v];
      }
    }
    vf tscale[NV], tmin[NV];
    for (int v = 0; v < NV; ++v) {
      const vf D = sum_w[v] * sum_l2[v] - sum_l[v] * sum_l[v];
      tscale[v] = (sum_w[v] * sum_xl[v] - sum_x[v] * sum_l[v]) / D;
      tmin[v] = (sum_l2[v] * sum_x[v] - sum_l[v] * sum_xl[v]) / D;
      const vi pos = tmin[v] > 0;
      tscale[v] = pos ? sum_xl[v] / sum_l2[v] : tscale[v];
      tmin[v] = pos ? vf{} : tmin[v];
      iscale[v] = D;  // keep D for the acceptance test below
    }
    for (int i = 0; i < N; ++i) {
      for (int v = 0; v < NV; ++v) {
        vf diff = tscale[v] * vfloat(laux[i][v]) + tmin[v] - xt[i][v];
        diff = kMad ? vabs(diff) : diff * diff;
        cur[v] += wt[i][v] * diff;
      }
    }
    for (int v = 0; v < NV; ++v) {
      const vi take = (iscale[v] > 0) & ~flat[v] & (cur[v] < best[v]);
      if (!vany(take)) continue;
      best[v] = take ? cur[v] : best[v];
      scale[v] = take ? tscale[v] : scale[v];
      mn[v] = take ? tmin[v] : mn[v];
      for (int i = 0; i < N; ++i) lt[i][v] = take ? laux[i][v] : lt[i][v];
    }
  }
  for (int s = 0; s < 4 * NV; ++s) {
    const int v = s / 4, k = s % 4;
    min_out[s] = -mn[v][k];
    scale_out[s] = flat[v][k] ? 0.f : scale[v][k];
    for (int i = 0; i < N; ++i) L[N * s + i] = static_cast<std::uint8_t>(flat[v][k] ? 0 : lt[i][v][k]);
  }
}

// make_q3_quants(n = 16, nmax, do_rmse = true) for the 16 sub-blocks of a
// super-block at once (4 vectors of 4 lanes).
void make_q3_lanes(const float* x, int nmax, std::int8_t* L, float* scale_out) {
  constexpr int N = 16, NV = 4;
  vf xt[N][NV];
  for (int s = 0; s < 4 * NV; ++s) {
    for (int i = 0; i < N; ++i) xt[i][s / 4][s % 4] = x[N * s + i];
  }
  vf amax[NV], sumlx[NV], suml2[NV];
  vi lt[N][NV];
  for (int v = 0; v < NV; ++v) {
    vf maxv{};
    amax[v] = sumlx[v] = suml2[v] = vf{};
    for (int i = 0; i < N; ++i) {
      const vi gt = vabs(xt[i][v]) > amax[v];
      amax[v] = gt ? vabs(xt[i][v]) : amax[v];
      maxv = gt ? xt[i][v] : maxv;
    }
    const vf iscale = static_cast<float>(-nmax) / maxv;
    for (int i = 0; i < N; ++i) {
      lt[i][v] = vclamp(vnearest(iscale * xt[i][v]), -nmax, nmax - 1);
      const vf w = xt[i][v] * xt[i][v], lf = vfloat(lt[i][v]);
      sumlx[v] += w * xt[i][v] * lf;
      suml2[v] += w * lf * lf;
    }
  }
  // Up to five improvement passes. A sub-block that went through a pass
  // unchanged would not change in further passes, so iterating all lanes
  // while any one changes gives each lane ggml's early break.
  for (int itry = 0; itry < 5; ++itry) {
    vi changed{};
    for (int i = 0; i < N; ++i) {
      for (int v = 0; v < NV; ++v) {
        const vf x1 = xt[i][v], w = x1 * x1, li = vfloat(lt[i][v]);
        const vf slx0 = sumlx[v] - w * x1 * li;
        const vf sl20 = suml2[v] - w * li * li;
        const vi nl = vclamp(vnearest(x1 * sl20 / slx0), -nmax, nmax - 1);
        const vf nlf = vfloat(nl);
        const vf slx = slx0 + w * x1 * nlf;
        const vf sl2 = sl20 + w * nlf * nlf;
        const vi take = (slx0 > 0) & (nl != lt[i][v]) & (sl2 > 0) &
                        (slx * slx * suml2[v] > sumlx[v] * sumlx[v] * sl2);
        lt[i][v] = take ? nl : lt[i][v];
        sumlx[v] = take ? slx : sumlx[v];
        suml2[v] = take ? sl2 : suml2[v];
        changed |= take;
      }
    }
    if (!vany(changed)) break;
  }
  for (int s = 0; s < 4 * NV; ++s) {
    const int v = s / 4, k = s % 4;
    const bool zero = amax[v][k] < 1e-15f;  // GROUP_MAX_EPS
    scale_out[s] = zero ? 0.f : (suml2[v][k] > 0.0f ? sumlx[v][k] / suml2[v][k] : 0.0f);
    for (int i = 0; i < N; ++i) L[N * s + i] = static_cast<std::int8_t>(zero ? 0 : lt[i][v][k] + nmax);
  }
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
void q4_k_block(const float* x, std::uint8_t* b) {
  float weights[kQK], scales[8], mins[8];
  std::uint8_t L[kQK];
  for (int j = 0; j < 8; ++j) {
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[32 * j + l] = av_x + std::fabs(x[32 * j + l]);
  }
  make_qkx2_lanes<32, 2, false>(x, weights, 15, -1.f, 0.1f, 20, L, scales, mins);
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  std::uint8_t* sc = b + 4;
  std::memset(sc, 0, 12);
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (int j = 0; j < 8; ++j) {
    const std::uint8_t ls = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearest_int(inv_scale * scales[j])));
    const std::uint8_t lm = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearest_int(inv_min * mins[j])));
    if (j < 4) {
      sc[j] = ls;
      sc[j + 4] = lm;
    } else {
      sc[j + 4] = static_cast<std::uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      sc[j - 4] = static_cast<std::uint8_t>(sc[j - 4] | ((ls >> 4) << 6));
      sc[j - 0] = static_cast<std::uint8_t>(sc[j - 0] | ((lm >> 4) << 6));
    }
  }
  const std::uint16_t d16 = fp32_to_fp16(max_scale / 63.f);
  const std::uint16_t m16 = fp32_to_fp16(max_min / 63.f);
  put16(b, d16);
  put16(b + 2, m16);
  for (int j = 0; j < 8; ++j) {
    std::uint8_t s = 0, m = 0;
    get_scale_min_k4(j, sc, s, m);
    const float d = fp16_to_fp32(d16) * static_cast<float>(s);
    if (d == 0.f) continue;
    const float dm = fp16_to_fp32(m16) * static_cast<float>(m);
    for (int ii = 0; ii < 32; ++ii) {
      L[32 * j + ii] = static_cast<std::uint8_t>(std::clamp(nearest_int((x[32 * j + ii] + dm) / d), 0, 15));
    }
  }
  std::uint8_t* q = b + 16;
  for (int j = 0; j < kQK; j += 64) {
    for (int l = 0; l < 32; ++l) q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
    q += 32;
  }
}

// ---- q3_k: hmask[32], qs[64], scales[12], fp16 d --------------------------
void q3_k_block(const float* x, std::uint8_t* b) {
  std::int8_t L[kQK];
  float scales[16];
  make_q3_lanes(x, 4, L, scales);
  float max_scale = 0, amax = 0;
  for (int j = 0; j < 16; ++j) {
    const float a = std::fabs(scales[j]);
    if (a > amax) {
      amax = a;
      max_scale = scales[j];
    }
  }
  std::uint8_t* hmask = b;
  std::uint8_t* qs = b + 32;
  std::uint8_t* sc = b + 96;
  std::memset(sc, 0, 12);
  std::uint16_t d16 = fp32_to_fp16(0.f);
  if (max_scale != 0.f) {
    const float iscale = -32.f / max_scale;
    for (int j = 0; j < 16; ++j) {
      int l = std::clamp(static_cast<int>(static_cast<std::int8_t>(nearest_int(iscale * scales[j]))), -32, 31) + 32;
      if (j < 8) {
        sc[j] = static_cast<std::uint8_t>(l & 0xF);
      } else {
        sc[j - 8] = static_cast<std::uint8_t>(sc[j - 8] | ((l & 0xF) << 4));
      }
      l >>= 4;
      sc[j % 4 + 8] = static_cast<std::uint8_t>(sc[j % 4 + 8] | (l << (2 * (j / 4))));
    }
    d16 = fp32_to_fp16(1 / iscale);
  }
  put16(b + 108, d16);
  const float d_all = fp16_to_fp32(d16);
  for (int j = 0; j < 16; ++j) {
    int s = j < 8 ? sc[j] & 0xF : sc[j - 8] >> 4;
    s = (s | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
    const float d = d_all * static_cast<float>(s);
    if (d == 0.f) continue;
    for (int ii = 0; ii < 16; ++ii) {
      L[16 * j + ii] = static_cast<std::int8_t>(std::clamp(nearest_int(x[16 * j + ii] / d), -4, 3) + 4);
    }
  }
  std::memset(hmask, 0, 32);
  std::uint8_t low[kQK];
  for (int j = 0; j < kQK; ++j) {  // high bit of element j goes to hmask[j % 32], bit j / 32
    hmask[j % 32] = static_cast<std::uint8_t>(hmask[j % 32] | ((L[j] >> 2) << (j / 32)));
    low[j] = static_cast<std::uint8_t>(L[j] & 3);
  }
  pack_2bit(low, qs);
}

// ---- q2_k: scales[16], qs[64], fp16 d, fp16 dmin --------------------------
void q2_k_block(const float* x, std::uint8_t* b) {
  float weights[kQK], scales[16], mins[16];
  std::uint8_t L[kQK];
  for (int j = 0; j < kQK; ++j) weights[j] = std::fabs(x[j]);
  make_qkx2_lanes<16, 4, true>(x, weights, 3, -0.5f, 0.1f, 15, L, scales, mins);
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 16; ++j) {
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  constexpr float q4scale = 15.f;
  std::uint8_t* sc = b;
  std::memset(sc, 0, 16);
  std::uint16_t d16 = fp32_to_fp16(0.f), m16 = fp32_to_fp16(0.f);
  if (max_scale > 0) {
    const float iscale = q4scale / max_scale;
    for (int j = 0; j < 16; ++j) sc[j] = static_cast<std::uint8_t>(nearest_int(iscale * scales[j]));
    d16 = fp32_to_fp16(max_scale / q4scale);
  }
  if (max_min > 0) {
    const float iscale = q4scale / max_min;
    for (int j = 0; j < 16; ++j) sc[j] = static_cast<std::uint8_t>(sc[j] | (nearest_int(iscale * mins[j]) << 4));
    m16 = fp32_to_fp16(max_min / q4scale);
  }
  put16(b + 80, d16);
  put16(b + 82, m16);
  for (int j = 0; j < 16; ++j) {
    const float d = fp16_to_fp32(d16) * static_cast<float>(sc[j] & 0xF);
    if (d == 0.f) continue;
    const float dm = fp16_to_fp32(m16) * static_cast<float>(sc[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      L[16 * j + ii] = static_cast<std::uint8_t>(std::clamp(nearest_int((x[16 * j + ii] + dm) / d), 0, 3));
    }
  }
  pack_2bit(L, b + 16);
}

}  // namespace

#if defined(MOEBENCH_X86_SIMD)
namespace detail {
void quantize_mxfp4_avx512(const float* x, std::uint8_t* out, std::size_t blocks,
                           void (*scalar_block)(const float*, std::uint8_t*));
void quantize_bf16_avx512(const float* x, std::uint8_t* out, std::size_t n);
void quantize_q8_0_avx512(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float));
void quantize_q4_0_avx512(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float));
}  // namespace detail
#endif
#if defined(MOEBENCH_ARM_SIMD)
namespace detail {  // quantize_neon.cpp
void quantize_mxfp4_neon(const float* x, std::uint8_t* out, std::size_t blocks,
                         void (*scalar_block)(const float*, std::uint8_t*));
void quantize_bf16_neon(const float* x, std::uint8_t* out, std::size_t n, std::uint16_t (*to_bf16)(float));
void quantize_q8_0_neon(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float));
void quantize_q4_0_neon(const float* x, std::uint8_t* out, std::size_t blocks, std::uint16_t (*to_fp16)(float));
}  // namespace detail
#endif

Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n) {
  return quantize(quant, src, dst, n, best_simd_level());
}

Status quantize(std::string_view quant, const float* src, void* dst, std::size_t n, SimdLevel level) {
  const auto fmt = quant_for_blocks("quantize", quant, n);
  if (!fmt) return fmt.error();
  if (n == 0) return Status::success();
  if (src == nullptr || dst == nullptr) return make_error("quantize: null source or destination");
  auto* out = static_cast<std::uint8_t*>(dst);
#if defined(MOEBENCH_X86_SIMD)
  if (level == SimdLevel::kAvx512 && best_simd_level() == SimdLevel::kAvx512) {
    if (quant == "mxfp4") {
      detail::quantize_mxfp4_avx512(src, out, n / 32, mxfp4_block);
      return Status::success();
    }
    if (quant == "bf16") {
      detail::quantize_bf16_avx512(src, out, n);
      return Status::success();
    }
    if (quant == "q8_0") {
      detail::quantize_q8_0_avx512(src, out, n / 32, fp32_to_fp16);
      return Status::success();
    }
    if (quant == "q4_0") {
      detail::quantize_q4_0_avx512(src, out, n / 32, fp32_to_fp16);
      return Status::success();
    }
  }
#else
  (void)level;
#endif
#if defined(MOEBENCH_ARM_SIMD)
  if (is_neon(level) && simd_level_available(level)) {
    if (quant == "mxfp4") {
      detail::quantize_mxfp4_neon(src, out, n / 32, mxfp4_block);
      return Status::success();
    }
    if (quant == "bf16") {
      detail::quantize_bf16_neon(src, out, n, fp32_to_bf16);
      return Status::success();
    }
    if (quant == "q8_0") {
      detail::quantize_q8_0_neon(src, out, n / 32, fp32_to_fp16);
      return Status::success();
    }
    if (quant == "q4_0") {
      detail::quantize_q4_0_neon(src, out, n / 32, fp32_to_fp16);
      return Status::success();
    }
  }
#endif
  void (*block_fn)(const float*, std::uint8_t*) = nullptr;
  if (quant == "q8_0") block_fn = q8_0_block;
  if (quant == "q4_0") block_fn = q4_0_block;
  if (quant == "mxfp4") block_fn = mxfp4_block;
  if (quant == "q4_k") block_fn = q4_k_block;
  if (quant == "q3_k") block_fn = q3_k_block;
  if (quant == "q2_k") block_fn = q2_k_block;
  if (block_fn != nullptr) {
    const std::size_t blocks = n / fmt->block_weights;
    for (std::size_t i = 0; i < blocks; ++i) block_fn(src + i * fmt->block_weights, out + i * fmt->block_bytes);
  } else if (quant == "f32") {
    std::memcpy(out, src, n * sizeof(float));
  } else if (quant == "f16") {
    for (std::size_t i = 0; i < n; ++i) put16(out + 2 * i, fp32_to_fp16(src[i]));
  } else {
    for (std::size_t i = 0; i < n; ++i) put16(out + 2 * i, fp32_to_bf16(src[i]));
  }
  return Status::success();
}

}  // namespace moebench
