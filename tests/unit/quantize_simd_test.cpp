// quantize_simd_test.cpp — the SIMD quantizers write exactly the bytes of
// the scalar reference, on Gaussian data at many scales and on the blocks
// that leave the fast path (zeros, tiny and huge values, NaN-free extremes).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"

using namespace moebench;

TEST_CASE("SIMD quantizers equal the scalar reference byte for byte", "[quant]") {
  if (best_simd_level() == SimdLevel::kScalar) {
    WARN("no SIMD level on this CPU; nothing to compare");
    return;
  }
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::size_t n = 32 * 257;
  std::vector<float> x(n);
  for (double scale : {1e-30, 1e-6, 0.02, 1.0, 300.0, 1e30}) {
    for (float& v : x) v = static_cast<float>(normal(rng) * scale);
    // Blocks off the fast path: all zero, subnormal, near the float maximum, mixed.
    for (std::size_t j = 0; j < 32; ++j) {
      x[j] = 0.0f;
      x[32 + j] = std::numeric_limits<float>::denorm_min() * static_cast<float>(j);
      x[64 + j] = (j % 2 ? -1.0f : 1.0f) * 3.3e38f;
      x[96 + j] = j == 7 ? 1e20f : 1e-20f;
    }
    // MXFP4 ties: with amax in [8, 16) the scale d is 1, so code-point
    // midpoints (0.5, 1.5, …, 10) and their float neighbours sit exactly on
    // and beside the decision boundaries; 15.99 is the largest |x|/d.
    const float ties[] = {0.5f, 1.5f, 2.5f, 3.5f, 5.f, 7.f, 10.f};
    for (std::size_t j = 0; j < 7; ++j) {
      x[128 + j] = ties[j];
      x[135 + j] = -ties[j];
      x[142 + j] = std::nextafter(ties[j], 100.0f);
      x[149 + j] = std::nextafter(-ties[j], 0.0f);
    }
    x[156] = 15.99f;
    x[157] = -0.0f;
    x[158] = 12.0f;
    x[159] = -15.5f;
    // NaN and infinities among ordinary values (ignored by the block maximum).
    for (std::size_t j = 0; j < 32; ++j) x[160 + j] = static_cast<float>(j) - 16.0f;
    x[161] = std::numeric_limits<float>::quiet_NaN();
    x[170] = -std::numeric_limits<float>::quiet_NaN();
    x[171] = std::numeric_limits<float>::signaling_NaN();  // after a larger value in its lane
    x[192] = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t j = 224; j < 256; ++j) x[j] = std::numeric_limits<float>::quiet_NaN();
    for (const char* q : {"mxfp4", "bf16", "q8_0", "q4_0"}) {
      INFO(q << " at scale " << scale);
      const QuantFormat f = *find_quant(q);
      std::vector<std::uint8_t> ref(f.bytes_for(n)), fast(f.bytes_for(n));
      REQUIRE(quantize(q, x.data(), ref.data(), n, SimdLevel::kScalar).ok());
      REQUIRE(quantize(q, x.data(), fast.data(), n, best_simd_level()).ok());
      std::size_t first = ref.size();
      for (std::size_t i = 0; i < ref.size() && first == ref.size(); ++i) {
        if (ref[i] != fast[i]) first = i;
      }
      INFO("first differing byte " << first);
      CHECK(first == ref.size());
    }
  }
  // bf16 on a tail that is not a multiple of 16, with NaN and infinities.
  std::vector<float> t = {1.0f, -2.5f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), 1.00390625f, 3.14159f};
  for (int k = 0; k < 20; ++k) t.push_back(normal(rng));
  std::vector<std::uint8_t> a(2 * t.size()), b(2 * t.size());
  REQUIRE(quantize("bf16", t.data(), a.data(), t.size(), SimdLevel::kScalar).ok());
  REQUIRE(quantize("bf16", t.data(), b.data(), t.size(), best_simd_level()).ok());
  CHECK(a == b);
}
