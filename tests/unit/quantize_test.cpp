// quantize_test.cpp — quantize() writes ggml's block layout: dequantize()
// reads back values within each format's error on Gaussian data, exactly
// bytes_for(n) bytes are written, fp16/bf16 round to nearest even, MXFP4 and
// Q4_0 codes are nearest code points, and the bytes equal those of a literal
// transcription of ggml's reference quantizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engines/quant/dequantize.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"

using namespace moebench;

namespace {

std::vector<float> gaussian(std::size_t n, unsigned seed, float sigma) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, sigma);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct RoundTrip {
  double rel_rms = 0;       // ||deq − x|| / ||x||
  double max_rel_elem = 0;  // max |deq − x| / |x| (x ≠ 0)
};

RoundTrip round_trip(const QuantFormat& f, const std::vector<float>& x) {
  std::vector<unsigned char> q(f.bytes_for(x.size()));
  REQUIRE(quantize(f.name, x.data(), q.data(), x.size()).ok());
  std::vector<float> back(x.size());
  REQUIRE(dequantize(f.name, q.data(), back.data(), back.size()).ok());
  double err = 0, norm = 0;
  RoundTrip r;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = static_cast<double>(back[i]) - x[i];
    err += d * d;
    norm += static_cast<double>(x[i]) * x[i];
    if (std::fabs(x[i]) >= std::ldexp(1.0, -14)) {  // fp16 normal range
      r.max_rel_elem = std::max(r.max_rel_elem, std::fabs(d) / std::fabs(x[i]));
    }
  }
  r.rel_rms = std::sqrt(err / norm);
  return r;
}

// Relative RMS bounds on N(0, σ²) data. Measured worst of 3 seeds × 3
// scales (n = 4096): f16 0.021 %, bf16 0.17 %, q8_0 0.54 %, q4_0 8.8 %,
// q4_k 7.3 %, mxfp4 11.5 %, q3_k 15.3 %, q2_k 30.0 %; the bounds leave
// 15–30 % margin.
double rms_bound(std::string_view q) {
  if (q == "f32") return 0;
  if (q == "f16") return 3e-4;
  if (q == "bf16") return 2.2e-3;
  if (q == "q8_0") return 0.007;
  if (q == "q4_0") return 0.105;
  if (q == "q4_k") return 0.09;
  if (q == "mxfp4") return 0.14;
  if (q == "q3_k") return 0.19;
  return 0.35;  // q2_k
}

}  // namespace

TEST_CASE("quantize round trip stays within each format's error", "[quant]") {
  const std::size_t n = 4096;
  for (const QuantFormat& f : quant_formats()) {
    for (unsigned seed : {1u, 2u, 3u}) {
      for (float sigma : {0.02f, 1.0f, 300.0f}) {
        INFO(f.name << " seed " << seed << " sigma " << sigma);
        const RoundTrip r = round_trip(f, gaussian(n, seed, sigma));
        CHECK(r.rel_rms <= rms_bound(f.name));
        if (f.name == "bf16") CHECK(r.max_rel_elem <= std::ldexp(1.0, -8));
        if (f.name == "f16") CHECK(r.max_rel_elem <= std::ldexp(1.0, -11));
      }
    }
  }
}

TEST_CASE("quantize writes exactly bytes_for(n) bytes", "[quant]") {
  const std::vector<float> x = gaussian(512, 7, 1.f);
  for (const QuantFormat& f : quant_formats()) {
    INFO(f.name);
    const std::size_t bytes = f.bytes_for(x.size());
    constexpr std::size_t kGuard = 64;
    // Two fills: every byte inside the range must be written (both runs
    // agree), no byte of the guard may change.
    std::vector<unsigned char> a(bytes + kGuard, 0x00), b(bytes + kGuard, 0xFF);
    REQUIRE(quantize(f.name, x.data(), a.data(), x.size()).ok());
    REQUIRE(quantize(f.name, x.data(), b.data(), x.size()).ok());
    CHECK(std::memcmp(a.data(), b.data(), bytes) == 0);
    bool guard_ok = true;
    for (std::size_t i = bytes; i < bytes + kGuard; ++i) guard_ok = guard_ok && a[i] == 0x00 && b[i] == 0xFF;
    CHECK(guard_ok);
  }
}

TEST_CASE("quantize rejects bad arguments", "[quant]") {
  std::vector<float> x(300, 1.f);
  std::vector<unsigned char> out(1024);
  CHECK_FALSE(quantize("q4_k", x.data(), out.data(), 300).ok());  // not a whole super-block
  CHECK_FALSE(quantize("q8_0", x.data(), out.data(), 33).ok());
  CHECK_FALSE(quantize("q5_k", x.data(), out.data(), 256).ok());
  CHECK_FALSE(quantize("q8_0", nullptr, out.data(), 32).ok());
  CHECK(quantize("q8_0", nullptr, nullptr, 0).ok());
}

TEST_CASE("fp32_to_fp16 and fp32_to_bf16 round to nearest even", "[quant]") {
  int bad = 0;
  for (std::uint32_t h = 0; h < 65536; ++h) {  // every finite half survives the round trip
    if ((h & 0x7c00u) == 0x7c00u) continue;
    bad += fp32_to_fp16(fp16_to_fp32(static_cast<std::uint16_t>(h))) != h;
  }
  CHECK(bad == 0);
  for (std::uint32_t h = 0; h < 0x7bff; ++h) {  // midpoints go to the even neighbour
    const double lo = fp16_to_fp32(static_cast<std::uint16_t>(h)), hi = fp16_to_fp32(static_cast<std::uint16_t>(h + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);  // exact in float
    bad += fp32_to_fp16(mid) != ((h & 1u) ? h + 1 : h);
  }
  CHECK(bad == 0);
  CHECK(fp32_to_fp16(65519.f) == 0x7bff);
  CHECK(fp32_to_fp16(65520.f) == 0x7c00);  // rounds to inf
  CHECK(fp32_to_fp16(-1e10f) == 0xfc00);
  CHECK((fp32_to_fp16(std::nanf("")) & 0x7e00u) == 0x7e00u);
  CHECK(fp32_to_bf16(1.0f) == 0x3f80);
  CHECK(fp32_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);       // tie → even
  CHECK(fp32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);   // tie → even (up)
  CHECK(fp32_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3f81);
  CHECK((fp32_to_bf16(std::nanf("")) & 0x7fc0u) == 0x7fc0u);
}

TEST_CASE("mxfp4 and q4_0 pick the nearest code point", "[quant]") {
  const std::vector<float> x = gaussian(2048, 11, 1.f);
  for (std::string_view q : {"mxfp4", "q4_0"}) {
    const QuantFormat f = *find_quant(q);
    std::vector<unsigned char> blocks(f.bytes_for(x.size()));
    REQUIRE(quantize(q, x.data(), blocks.data(), x.size()).ok());
    std::vector<float> back(x.size());
    REQUIRE(dequantize(q, blocks.data(), back.data(), back.size()).ok());
    int bad = 0;
    for (std::size_t blk = 0; blk < x.size() / 32; ++blk) {
      // The block's code points: dequantize every 4-bit code with this block's scale.
      std::vector<unsigned char> probe(blocks.begin() + static_cast<long>(blk * f.block_bytes),
                                       blocks.begin() + static_cast<long>((blk + 1) * f.block_bytes));
      float points[32];
      for (int c = 0; c < 16; ++c) std::memset(probe.data() + f.block_bytes - 16 + c, c | (c << 4), 1);
      REQUIRE(dequantize(q, probe.data(), points, 32).ok());
      // q4_0 chooses with the float scale and stores it as fp16: allow 2^-10 of the range.
      float range = 0;
      for (int c = 0; c < 16; ++c) range = std::max(range, std::fabs(points[c]));
      const float slack = q == "q4_0" ? range / 1024 : 0.f;
      for (std::size_t j = 0; j < 32; ++j) {
        const float v = x[blk * 32 + j], got = back[blk * 32 + j];
        for (int c = 0; c < 16; ++c) bad += std::fabs(points[c] - v) + slack < std::fabs(got - v);
      }
    }
    INFO(q);
    CHECK(bad == 0);
  }
}

#if defined(__x86_64__)
// A literal transcription of ggml's reference quantizers (ggml-quants.c:
// quantize_row_{q8_0,q4_0,mxfp4,q4_K,q3_K,q2_K}_ref and their helpers), kept
// deliberately naive: sequential loops, ggml's exact expressions. quantize()
// reorganizes the work (vector lanes across sub-blocks, midpoint search for
// MXFP4) and must still produce the same bytes. x86-64 only: the baseline
// ISA has no FMA, so no contraction can change this code's rounding.
namespace ggml_literal {

int nearest_int(float fval) {
  const float val = fval + 12582912.f;
  std::int32_t i;
  std::memcpy(&i, &val, 4);
  return (i & 0x007fffff) - 0x00400000;
}
void put16(unsigned char* p, std::uint16_t v) { std::memcpy(p, &v, 2); }
float get16(const unsigned char* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return fp16_to_fp32(v);
}

void q8_0(const float* x, unsigned char* y) {
  float amax = 0.0f;
  for (int j = 0; j < 32; j++) amax = amax > std::fabs(x[j]) ? amax : std::fabs(x[j]);
  const float d = amax / ((1 << 7) - 1);
  const float id = d != 0.f ? 1.0f / d : 0.0f;
  put16(y, fp32_to_fp16(d));
  for (int j = 0; j < 32; ++j) y[2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(std::round(x[j] * id)));
}

void q4_0(const float* x, unsigned char* y) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < 32; j++) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  const float d = max / -8;
  const float id = d != 0.f ? 1.0f / d : 0.0f;
  put16(y, fp32_to_fp16(d));
  for (int j = 0; j < 16; ++j) {
    const int xi0 = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[j] * id + 8.5f)));
    const int xi1 = std::min(15, static_cast<int>(static_cast<std::int8_t>(x[16 + j] * id + 8.5f)));
    y[2 + j] = static_cast<unsigned char>(xi0 | (xi1 << 4));
  }
}

const std::int8_t kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
void mxfp4(const float* x, unsigned char* y) {
  float amax = 0.0f;
  for (int j = 0; j < 32; j++) {
    if (amax < std::fabs(x[j])) amax = std::fabs(x[j]);
  }
  const auto e = amax > 0.0f ? static_cast<std::uint8_t>(std::floor(std::log2(amax)) - 2 + 127) : std::uint8_t{0};
  const float d = e8m0_to_fp32_half(e);
  y[0] = e;
  auto best_index = [d](float v) {
    int best = 0;
    float best_err = std::fabs(kvalues_mxfp4[0] * d - v);
    for (int i = 1; i < 16; i++) {
      const float err = std::fabs(kvalues_mxfp4[i] * d - v);
      if (err < best_err) {
        best = i;
        best_err = err;
      }
    }
    return best;
  };
  for (int j = 0; j < 16; ++j) y[1 + j] = static_cast<unsigned char>(best_index(x[j]) | (best_index(x[16 + j]) << 4));
}

float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* the_min,
                       std::uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  float min = x[0], max = x[0], sum_w = weights[0], sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearest_int(iscale * (x[i] - min));
    L[i] = static_cast<std::uint8_t>(std::max(0, std::min(nmax, l)));
    float diff = scale * L[i] + min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      int l = nearest_int(iscale * (x[i] - min));
      l = std::max(0, std::min(nmax, l));
      Laux[i] = static_cast<std::uint8_t>(l);
      const float w = weights[i];
      sum_l += w * l;
      sum_l2 += w * l * l;
      sum_xl += w * l * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * Laux[i] + this_min - x[i];
        diff = use_mad ? std::fabs(diff) : diff * diff;
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        for (int i = 0; i < n; ++i) L[i] = Laux[i];
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

float make_q3_quants(int n, int nmax, const float* x, std::int8_t* L) {
  float max = 0, amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < 1e-15f) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  const float iscale = -nmax / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    int l = nearest_int(iscale * x[i]);
    l = std::max(-nmax, std::min(nmax - 1, l));
    L[i] = static_cast<std::int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      float slx = sumlx - w * x[i] * L[i];
      if (slx > 0) {
        float sl2 = suml2 - w * L[i] * L[i];
        int new_l = nearest_int(x[i] * sl2 / slx);
        new_l = std::max(-nmax, std::min(nmax - 1, new_l));
        if (new_l != L[i]) {
          slx += w * x[i] * new_l;
          sl2 += w * new_l * new_l;
          if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<std::int8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<std::int8_t>(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

void get_scale_min_k4(int j, const std::uint8_t* q, std::uint8_t* d, std::uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

void pack2(const std::uint8_t* L, unsigned char* qs) {
  for (int j = 0; j < 256; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<unsigned char>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
    }
  }
}

void q4_K(const float* x, unsigned char* y) {  // d, dmin, scales[12], qs[128]
  std::uint8_t L[256], Laux[32];
  float weights[32], mins[8], scales[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    scales[j] = make_qkx2_quants(32, 15, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, -1.f, 0.1f, 20, false);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  unsigned char* sc = y + 4;
  std::memset(sc, 0, 12);
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (int j = 0; j < 8; ++j) {
    auto ls = static_cast<std::uint8_t>(nearest_int(inv_scale * scales[j]));
    auto lm = static_cast<std::uint8_t>(nearest_int(inv_min * mins[j]));
    ls = std::min<std::uint8_t>(63, ls);
    lm = std::min<std::uint8_t>(63, lm);
    if (j < 4) {
      sc[j] = ls;
      sc[j + 4] = lm;
    } else {
      sc[j + 4] = static_cast<unsigned char>((ls & 0xF) | ((lm & 0xF) << 4));
      sc[j - 4] = static_cast<unsigned char>(sc[j - 4] | ((ls >> 4) << 6));
      sc[j - 0] = static_cast<unsigned char>(sc[j - 0] | ((lm >> 4) << 6));
    }
  }
  put16(y, fp32_to_fp16(max_scale / 63.f));
  put16(y + 2, fp32_to_fp16(max_min / 63.f));
  for (int j = 0; j < 8; ++j) {
    std::uint8_t s = 0, m = 0;
    get_scale_min_k4(j, sc, &s, &m);
    const float d = get16(y) * s;
    if (d == 0.f) continue;
    const float dm = get16(y + 2) * m;
    for (int ii = 0; ii < 32; ++ii) {
      const int l = nearest_int((x[32 * j + ii] + dm) / d);
      L[32 * j + ii] = static_cast<std::uint8_t>(std::max(0, std::min(15, l)));
    }
  }
  unsigned char* q = y + 16;
  for (int j = 0; j < 256; j += 64, q += 32) {
    for (int l = 0; l < 32; ++l) q[l] = static_cast<unsigned char>(L[j + l] | (L[j + l + 32] << 4));
  }
}

void q3_K(const float* x, unsigned char* y) {  // hmask[32], qs[64], scales[12], d
  std::int8_t L[256];
  float scales[16];
  float max_scale = 0, amax = 0;
  for (int j = 0; j < 16; ++j) {
    scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
    const float scale = std::fabs(scales[j]);
    if (scale > amax) {
      amax = scale;
      max_scale = scales[j];
    }
  }
  unsigned char* sc = y + 96;
  std::memset(sc, 0, 12);
  if (max_scale != 0.f) {
    const float iscale = -32.f / max_scale;
    for (int j = 0; j < 16; ++j) {
      auto l = static_cast<std::int8_t>(nearest_int(iscale * scales[j]));
      l = static_cast<std::int8_t>(std::max<int>(-32, std::min<int>(31, l)) + 32);
      if (j < 8) {
        sc[j] = static_cast<unsigned char>(l & 0xF);
      } else {
        sc[j - 8] = static_cast<unsigned char>(sc[j - 8] | ((l & 0xF) << 4));
      }
      l = static_cast<std::int8_t>(l >> 4);
      sc[j % 4 + 8] = static_cast<unsigned char>(sc[j % 4 + 8] | (l << (2 * (j / 4))));
    }
    put16(y + 108, fp32_to_fp16(1 / iscale));
  } else {
    put16(y + 108, fp32_to_fp16(0.f));
  }
  for (int j = 0; j < 16; ++j) {
    int s = j < 8 ? sc[j] & 0xF : sc[j - 8] >> 4;
    s = (s | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
    const float d = get16(y + 108) * static_cast<std::int8_t>(s);
    if (d == 0.f) continue;
    for (int ii = 0; ii < 16; ++ii) {
      const int l = nearest_int(x[16 * j + ii] / d);
      L[16 * j + ii] = static_cast<std::int8_t>(std::max(-4, std::min(3, l)) + 4);
    }
  }
  std::memset(y, 0, 32);
  int m = 0;
  std::uint8_t hm = 1;
  std::uint8_t low[256];
  for (int j = 0; j < 256; ++j) {
    int l = L[j];
    if (l > 3) {
      y[m] = static_cast<unsigned char>(y[m] | hm);
      l -= 4;
    }
    low[j] = static_cast<std::uint8_t>(l);
    if (++m == 32) {
      m = 0;
      hm = static_cast<std::uint8_t>(hm << 1);
    }
  }
  pack2(low, y + 32);
}

void q2_K(const float* x, unsigned char* y) {  // scales[16], qs[64], d, dmin
  std::uint8_t L[256], Laux[16];
  float weights[16], mins[16], scales[16];
  const float q4scale = 15.f;
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 16; ++j) {
    for (int l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
    scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  unsigned char* sc = y;
  if (max_scale > 0) {
    const float iscale = q4scale / max_scale;
    for (int j = 0; j < 16; ++j) sc[j] = static_cast<unsigned char>(nearest_int(iscale * scales[j]));
    put16(y + 80, fp32_to_fp16(max_scale / q4scale));
  } else {
    for (int j = 0; j < 16; ++j) sc[j] = 0;
    put16(y + 80, fp32_to_fp16(0.f));
  }
  if (max_min > 0) {
    const float iscale = q4scale / max_min;
    for (int j = 0; j < 16; ++j) sc[j] = static_cast<unsigned char>(sc[j] | (nearest_int(iscale * mins[j]) << 4));
    put16(y + 82, fp32_to_fp16(max_min / q4scale));
  } else {
    put16(y + 82, fp32_to_fp16(0.f));
  }
  for (int j = 0; j < 16; ++j) {
    const float d = get16(y + 80) * (sc[j] & 0xF);
    if (d == 0.f) continue;
    const float dm = get16(y + 82) * (sc[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      const int l = nearest_int((x[16 * j + ii] + dm) / d);
      L[16 * j + ii] = static_cast<std::uint8_t>(std::max(0, std::min(3, l)));
    }
  }
  pack2(L, y + 16);
}

}  // namespace ggml_literal

TEST_CASE("quantize makes the same bytes as ggml's reference quantizers", "[quant]") {
  struct Case {
    std::string_view quant;
    void (*literal)(const float*, unsigned char*);
  };
  const Case cases[] = {{"q8_0", ggml_literal::q8_0},   {"q4_0", ggml_literal::q4_0}, {"mxfp4", ggml_literal::mxfp4},
                        {"q4_k", ggml_literal::q4_K},   {"q3_k", ggml_literal::q3_K}, {"q2_k", ggml_literal::q2_K}};
  for (unsigned seed : {1u, 2u, 3u}) {
    // Gaussian at three scales, plus blocks that take the corner paths:
    // all zero, constant, all positive, one outlier, tiny values.
    std::vector<float> x = gaussian(3 * 2048, seed, 1.f);
    for (std::size_t i = 2048; i < 4096; ++i) x[i] *= 1e-3f;
    for (std::size_t i = 4096; i < 6144; ++i) x[i] *= 500.f;
    std::vector<float> corner(5 * 256);
    for (std::size_t i = 256; i < 512; ++i) corner[i] = -0.75f;
    for (std::size_t i = 512; i < 768; ++i) corner[i] = std::fabs(x[i]);
    for (std::size_t i = 768; i < 1024; ++i) corner[i] = i == 900 ? 40.f : 0.01f * x[i];
    for (std::size_t i = 1024; i < 1280; ++i) corner[i] = 1e-20f * x[i];
    x.insert(x.end(), corner.begin(), corner.end());
    for (const Case& c : cases) {
      const QuantFormat f = *find_quant(c.quant);
      std::vector<unsigned char> ours(f.bytes_for(x.size())), theirs(ours.size());
      REQUIRE(quantize(c.quant, x.data(), ours.data(), x.size()).ok());
      std::size_t bad = 0, first_bad = 0;
      for (std::size_t b = 0; b < x.size() / f.block_weights; ++b) {
        c.literal(x.data() + b * f.block_weights, theirs.data() + b * f.block_bytes);
        if (std::memcmp(&ours[b * f.block_bytes], &theirs[b * f.block_bytes], f.block_bytes) != 0 && bad++ == 0) first_bad = b;
      }
      INFO(c.quant << " seed " << seed << ": " << bad << " blocks differ, first " << first_bad);
      CHECK(bad == 0);
    }
  }
}
#endif
