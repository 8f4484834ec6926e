// quantize_fast_test.cpp — QuantSearch::kFast (quantize.h): for q4_k, q3_k
// and q2_k its round-trip error stays within 1.35× ggml's search on
// Gaussian weights with and without 6× outliers, and within the bounds
// quantize_test.cpp holds kGgml to on the plain Gaussian data they are
// stated for; every weight decodes to the nearest code point of its stored
// sub-block scale; the AVX-512 and NEON paths write the scalar bytes; for the
// single-pass formats kFast writes kGgml's bytes; all-zero, constant, tiny
// and huge blocks decode to finite values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"
#include "engines/quant/quantize_fast_simd.h"  // the NEON entry points, called directly below

using namespace moebench;

namespace {

constexpr std::string_view kKQuants[] = {"q4_k", "q3_k", "q2_k"};

// N(0, σ²) with every value independently multiplied by 6 (an outlier)
// with probability 1 / outlier_every (never when 0).
std::vector<float> gaussian_outliers(std::size_t n, unsigned seed, float sigma, int outlier_every = 64) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, sigma);
  std::uniform_int_distribution<int> pick(0, outlier_every > 0 ? outlier_every - 1 : 0);
  std::vector<float> v(n);
  for (float& x : v) {
    x = dist(rng);
    if (outlier_every > 0 && pick(rng) == 0) x *= 6.f;
  }
  return v;
}

std::vector<unsigned char> quantized(std::string_view q, const std::vector<float>& x, SimdLevel level,
                                     QuantSearch search) {
  std::vector<unsigned char> out(find_quant(q)->bytes_for(x.size()));
  REQUIRE(quantize(q, x.data(), out.data(), x.size(), level, search).ok());
  return out;
}

std::vector<float> decoded(std::string_view q, const std::vector<unsigned char>& blocks, std::size_t n) {
  std::vector<float> back(n);
  REQUIRE(dequantize(q, blocks.data(), back.data(), n).ok());
  return back;
}

// ||deq − x|| / ||x||.
double rel_rms(std::string_view q, const std::vector<unsigned char>& blocks, const std::vector<float>& x) {
  const std::vector<float> back = decoded(q, blocks, x.size());
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = static_cast<double>(back[i]) - x[i];
    err += d * d;
    norm += static_cast<double>(x[i]) * x[i];
  }
  return std::sqrt(err / norm);
}

// quantize_test.cpp's relative RMS bounds for kGgml on Gaussian data.
double rms_bound(std::string_view q) {
  if (q == "q4_k") return 0.09;
  if (q == "q3_k") return 0.19;
  return 0.35;  // q2_k
}

// `block` with every level set to `level` (q4_k: 0..15, q3_k: 0..7, q2_k:
// 0..3): decoding it gives each weight's code point for that level.
std::vector<unsigned char> all_levels(std::string_view q, const unsigned char* block, int level) {
  const QuantFormat f = *find_quant(q);
  std::vector<unsigned char> b(block, block + f.block_bytes);
  if (q == "q4_k") {
    std::memset(b.data() + 16, level | (level << 4), 128);
  } else if (q == "q2_k") {
    std::memset(b.data() + 16, level * 0x55, 64);
  } else {  // q3_k: hmask[32] carries bit 2, qs[64] bits 0..1
    std::memset(b.data(), (level & 4) ? 0xFF : 0x00, 32);
    std::memset(b.data() + 32, (level & 3) * 0x55, 64);
  }
  return b;
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}

// Index of the first differing byte, or a.size().
std::size_t first_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size();
}

}  // namespace

TEST_CASE("kFast k-quants stay within 1.35x of ggml's error and within quantize_test's bounds", "[quant]") {
  const std::size_t n = 16 * 256;
  for (std::string_view q : kKQuants) {
    for (unsigned seed : {101u, 202u, 303u}) {
      for (float sigma : {0.02f, 1.0f, 300.0f}) {
        // Gaussian with outliers: the error ratio to ggml's search. (ggml's
        // own error exceeds quantize_test's Gaussian bounds on this data:
        // q3_k 0.194, q2_k 0.356 at worst.)
        const std::vector<float> xo = gaussian_outliers(n, seed, sigma, 64);
        const double ggml_o = rel_rms(q, quantized(q, xo, SimdLevel::kScalar, QuantSearch::kGgml), xo);
        const double fast_o = rel_rms(q, quantized(q, xo, SimdLevel::kScalar, QuantSearch::kFast), xo);
        // Plain N(0, σ²), the data quantize_test's bounds are stated for.
        const std::vector<float> xg = gaussian_outliers(n, seed, sigma, 0);
        const double ggml_g = rel_rms(q, quantized(q, xg, SimdLevel::kScalar, QuantSearch::kGgml), xg);
        const double fast_g = rel_rms(q, quantized(q, xg, SimdLevel::kScalar, QuantSearch::kFast), xg);
        INFO(q << " seed " << seed << " sigma " << sigma << ": with outliers ggml " << ggml_o << ", fast " << fast_o
               << " (ratio " << fast_o / ggml_o << "); Gaussian ggml " << ggml_g << ", fast " << fast_g << " (ratio "
               << fast_g / ggml_g << ")");
        CHECK(fast_o <= 1.35 * ggml_o);
        CHECK(fast_g <= 1.35 * ggml_g);
        CHECK(fast_g <= rms_bound(q));
        CHECK(fast_o > 0.0);  // a real quantization happened
      }
    }
  }
}

TEST_CASE("kFast decodes every weight to the nearest code point of its stored scales", "[quant]") {
  const std::vector<float> x = gaussian_outliers(8 * 256, 7, 1.f);
  for (std::string_view q : kKQuants) {
    const QuantFormat f = *find_quant(q);
    const int levels = q == "q4_k" ? 16 : (q == "q3_k" ? 8 : 4);
    const std::vector<unsigned char> blocks = quantized(q, x, SimdLevel::kScalar, QuantSearch::kFast);
    const std::vector<float> back = decoded(q, blocks, x.size());
    int bad = 0;
    for (std::size_t blk = 0; blk < x.size() / 256; ++blk) {
      std::vector<std::vector<float>> points;  // points[level][weight]
      for (int l = 0; l < levels; ++l) {
        const std::vector<unsigned char> probe = all_levels(q, blocks.data() + blk * f.block_bytes, l);
        points.push_back(decoded(q, probe, 256));
      }
      for (std::size_t i = 0; i < 256; ++i) {
        const float v = x[blk * 256 + i], got = back[blk * 256 + i];
        const float step = std::fabs(points[1][i] - points[0][i]);
        for (int l = 0; l < levels; ++l) bad += std::fabs(points[l][i] - v) + 1e-4f * step < std::fabs(got - v);
      }
    }
    INFO(q << ": " << bad << " weights not at a nearest code point");
    CHECK(bad == 0);
  }
}

TEST_CASE("kFast SIMD paths (AVX-512, NEON) write the scalar bytes", "[quant]") {
  // The k-quant kFast paths: AVX-512 on x86-64, NEON at every NEON level.
  std::vector<SimdLevel> simd;
  for (SimdLevel level : available_simd_levels()) {
    if (level == SimdLevel::kAvx512 || is_neon(level)) simd.push_back(level);
  }
  if (simd.empty()) {
    WARN("no AVX-512 or NEON on this CPU; no SIMD kFast path to compare");
    return;
  }
  std::mt19937 rng(4242);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::size_t n = 256 * 67;
  std::vector<float> x(n);
  for (double scale : {1e-30, 1e-7, 0.02, 1.0, 300.0, 1e30}) {
    for (float& v : x) v = static_cast<float>(normal(rng) * scale);
    for (std::size_t j = 0; j < 256; ++j) {  // corner super-blocks
      x[j] = 0.0f;
      x[256 + j] = j % 3 == 0 ? -0.0f : 0.0f;
      x[512 + j] = 1.5f;
      x[768 + j] = -2.25f;
      x[1024 + j] = std::fabs(x[1024 + j]);
      x[1280 + j] = -std::fabs(x[1280 + j]);
      x[1536 + j] = j == 77 ? 1e20f : 1e-20f;
      x[1792 + j] = j % 2 ? -3e38f : 3e38f;
      x[2048 + j] = std::numeric_limits<float>::denorm_min() * static_cast<float>(j);
      x[2304 + j] = j % 16 == 5 ? -4.f : (j % 16 == 9 ? 4.f : 0.5f);  // magnitude ties
      x[2560 + j] = j % 32 == 31 ? -0.0f : 0.25f * static_cast<float>(j % 7);  // −0 as a sub-block's minimum
    }
    for (std::string_view q : kKQuants) {
      const std::vector<unsigned char> ref = quantized(q, x, SimdLevel::kScalar, QuantSearch::kFast);
      for (SimdLevel level : simd) {
        const std::vector<unsigned char> got = quantized(q, x, level, QuantSearch::kFast);
        const std::size_t first = first_difference(ref, got);
        INFO(q << " at " << to_string(level) << ", scale " << scale << ": first differing byte " << first
               << " (block " << first / find_quant(q)->block_bytes << ")");
        CHECK(first == ref.size());
      }
#if defined(MOEBENCH_ARM_SIMD)
      // The NEON entry point itself, whatever quantize() dispatches to.
      std::vector<unsigned char> direct(ref.size());
      auto* fn = q == "q4_k" ? detail::quantize_q4_k_fast_neon
                 : q == "q3_k" ? detail::quantize_q3_k_fast_neon : detail::quantize_q2_k_fast_neon;
      fn(x.data(), direct.data(), n / 256, fp32_to_fp16, fp16_to_fp32);
      INFO(q << " called directly, scale " << scale);
      CHECK(first_difference(ref, direct) == ref.size());
#endif
    }
  }
}

TEST_CASE("kFast writes kGgml's bytes for single-pass formats", "[quant]") {
  std::vector<float> x = gaussian_outliers(32 * 96, 9, 1.f);
  for (std::size_t i = 0; i < 32; ++i) {
    x[i] = 0.f;
    x[32 + i] = 1e-30f * x[64 + i];
    x[96 + i] = 1e30f * x[128 + i];
  }
  for (std::string_view q : {"bf16", "f16", "f32", "q8_0", "q4_0", "mxfp4"}) {
    for (SimdLevel level : available_simd_levels()) {
      INFO(q << " at " << to_string(level));
      CHECK(quantized(q, x, level, QuantSearch::kFast) == quantized(q, x, level, QuantSearch::kGgml));
    }
    std::vector<unsigned char> a(find_quant(q)->bytes_for(x.size()));
    REQUIRE(quantize_fast(q, x.data(), a.data(), x.size()).ok());
    CHECK(a == quantized(q, x, best_simd_level(), QuantSearch::kGgml));
  }
}

TEST_CASE("kFast handles zero, constant, tiny and huge blocks", "[quant]") {
  std::vector<float> x = gaussian_outliers(7 * 256, 5, 1.f);
  for (std::size_t j = 0; j < 256; ++j) {
    x[j] = 0.f;                // all zero
    x[256 + j] = 0.375f;       // constant, positive
    x[512 + j] = -1234.5f;     // constant, negative
    x[768 + j] *= 1e-30f;      // tiny
    x[1024 + j] *= 1e30f;      // huge
    x[1280 + j] = j == 3 ? 1e30f : 1e-3f * x[1280 + j];  // one huge outlier
    x[1536 + j] = std::fabs(x[1536 + j]) * 1e-30f + 1e-38f;
  }
  for (std::string_view q : kKQuants) {
    for (SimdLevel level : available_simd_levels()) {
      INFO(q << " at " << to_string(level));
      const std::vector<float> back = decoded(q, quantized(q, x, level, QuantSearch::kFast), x.size());
      CHECK(all_finite(back));
      CHECK(std::all_of(back.begin(), back.begin() + 256, [](float v) { return v == 0.f; }));
      for (std::size_t j = 256; j < 768; ++j) {  // constants come back to fp16 × 6-bit precision
        if (std::fabs(back[j] - x[j]) > 2e-3f * std::fabs(x[j])) {
          FAIL_CHECK("constant " << x[j] << " decoded as " << back[j] << " at " << j);
          break;
        }
      }
      for (std::size_t j = 768; j < 1024; ++j) {  // tiny: nothing larger than the input scale
        if (!(std::fabs(back[j]) <= 1e-28f)) {
          FAIL_CHECK("tiny " << x[j] << " decoded as " << back[j]);
          break;
        }
      }
    }
  }
}

TEST_CASE("quantize_fast writes exactly bytes_for(n) bytes and rejects bad arguments", "[quant]") {
  const std::vector<float> x = gaussian_outliers(512, 3, 1.f);
  for (std::string_view q : kKQuants) {
    for (SimdLevel level : available_simd_levels()) {
      INFO(q << " at " << to_string(level));
      const std::size_t bytes = find_quant(q)->bytes_for(x.size());
      constexpr std::size_t kGuard = 64;
      std::vector<unsigned char> a(bytes + kGuard, 0x00), b(bytes + kGuard, 0xFF);
      REQUIRE(quantize(q, x.data(), a.data(), x.size(), level, QuantSearch::kFast).ok());
      REQUIRE(quantize(q, x.data(), b.data(), x.size(), level, QuantSearch::kFast).ok());
      CHECK(std::memcmp(a.data(), b.data(), bytes) == 0);
      bool guard_ok = true;
      for (std::size_t i = bytes; i < bytes + kGuard; ++i) guard_ok = guard_ok && a[i] == 0x00 && b[i] == 0xFF;
      CHECK(guard_ok);
    }
    std::vector<unsigned char> out(1024);
    CHECK_FALSE(quantize_fast(q, x.data(), out.data(), 300).ok());
    CHECK_FALSE(quantize_fast(q, nullptr, out.data(), 256).ok());
    CHECK(quantize_fast(q, nullptr, nullptr, 0).ok());
  }
  std::vector<unsigned char> out(1024);
  CHECK_FALSE(quantize_fast("q5_k", x.data(), out.data(), 256).ok());
}
