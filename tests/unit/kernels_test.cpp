// kernels_test.cpp — fused dequant·dot kernels: for every format and every
// SIMD level this CPU has, matvec and matmul agree with a float64 product
// over the dequantize()d weights, every SIMD level agrees with the scalar
// kernel, and bad arguments come back as errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"

using namespace moebench;

namespace {

std::vector<float> gaussian(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Problem {
  std::vector<unsigned char> w;  // quantized rows
  std::vector<float> wd;         // the same weights dequantized
};

Problem make_weights(const QuantFormat& f, std::size_t rows, std::size_t cols, std::mt19937& rng) {
  const std::vector<float> src = gaussian(rows * cols, rng);
  Problem p;
  p.w.resize(f.bytes_for(rows * cols));
  REQUIRE(quantize(f.name, src.data(), p.w.data(), src.size()).ok());
  p.wd.resize(src.size());
  REQUIRE(dequantize(f.name, p.w.data(), p.wd.data(), p.wd.size()).ok());
  return p;
}

std::vector<double> reference(const Problem& p, std::size_t rows, std::size_t cols, const std::vector<float>& x,
                              std::size_t batch) {
  std::vector<double> y(batch * rows);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t r = 0; r < rows; ++r) {
      double s = 0;
      for (std::size_t c = 0; c < cols; ++c) s += static_cast<double>(p.wd[r * cols + c]) * x[b * cols + c];
      y[b * rows + r] = s;
    }
  }
  return y;
}

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e * e;
  return std::sqrt(s / static_cast<double>(v.size()));
}

// max_i |got_i − want_i| / rms(want)
template <class T>
double max_rel_dev(const std::vector<float>& got, const std::vector<T>& want) {
  std::vector<double> w(want.begin(), want.end());
  const double scale = rms(w);
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - w[i]) / scale);
  return worst;
}

struct Shape {
  std::size_t rows, cols;
};

}  // namespace

TEST_CASE("SIMD level detection", "[kernels]") {
  const auto levels = available_simd_levels();
  REQUIRE(!levels.empty());
  CHECK(levels.front() == SimdLevel::kScalar);
  CHECK(levels.back() == best_simd_level());
  CHECK(std::string(to_string(SimdLevel::kAvx512)) == "avx512");
  WARN("best SIMD level on this machine: " << to_string(best_simd_level()));
}

TEST_CASE("kernels match a float64 product over the dequantized weights", "[kernels]") {
  const auto levels = available_simd_levels();
  std::mt19937 rng(20240601);
  for (const QuantFormat& f : quant_formats()) {
    std::vector<Shape> shapes = {{64, 3584}, {7, 512}};
    if (f.block_weights == 1) shapes.push_back({5, 77});  // plain formats: cols not a multiple of the vector width
    for (const Shape& s : shapes) {
      const Problem p = make_weights(f, s.rows, s.cols, rng);
      for (std::size_t batch : {1u, 3u, 4u, 32u}) {  // 4 and 32: partial register tiles
        const std::vector<float> x = gaussian(batch * s.cols, rng);
        const std::vector<double> want = reference(p, s.rows, s.cols, x, batch);
        std::vector<float> scalar(batch * s.rows);
        for (SimdLevel level : levels) {
          INFO(f.name << " " << s.rows << "x" << s.cols << " batch " << batch << " " << to_string(level));
          std::vector<float> y(batch * s.rows, -1.f);
          REQUIRE(matmul(f.name, p.w.data(), s.rows, s.cols, x.data(), batch, y.data(), level).ok());
          CHECK(max_rel_dev(y, want) <= 1e-3);
          if (level == SimdLevel::kScalar) {
            scalar = y;
          } else {
            CHECK(max_rel_dev(y, scalar) <= 1e-5);
          }
          if (batch == 1) {
            std::vector<float> yv(s.rows, -1.f);
            REQUIRE(matvec(f.name, p.w.data(), s.rows, s.cols, x.data(), yv.data(), level).ok());
            CHECK(yv == y);
          }
        }
      }
    }
  }
}

TEST_CASE("kernels on a few seeds and the decode-sized expert shape", "[kernels]") {
  // Fresh data per seed; the formats engines use most, every level.
  const auto levels = available_simd_levels();
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    for (std::string_view q : {"mxfp4", "q8_0", "q4_0", "q4_k", "bf16"}) {
      const QuantFormat f = *find_quant(q);
      const Problem p = make_weights(f, 16, 3584, rng);
      const std::vector<float> x = gaussian(3584 * 2, rng);
      const std::vector<double> want = reference(p, 16, 3584, x, 2);
      for (SimdLevel level : levels) {
        INFO(q << " seed " << seed << " " << to_string(level));
        std::vector<float> y(32);
        REQUIRE(matmul(q, p.w.data(), 16, 3584, x.data(), 2, y.data(), level).ok());
        CHECK(max_rel_dev(y, want) <= 1e-3);
      }
    }
  }
}

TEST_CASE("kernel argument errors", "[kernels]") {
  std::vector<unsigned char> w(4096);
  std::vector<float> x(1024), y(64);
  for (SimdLevel level : available_simd_levels()) {
    CHECK_FALSE(matvec("q4_k", w.data(), 2, 300, x.data(), y.data(), level).ok());  // not whole super-blocks
    CHECK_FALSE(matmul("mxfp4", w.data(), 2, 48, x.data(), 2, y.data(), level).ok());
    CHECK_FALSE(matvec("q5_k", w.data(), 2, 256, x.data(), y.data(), level).ok());
  }
  for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    const auto avail = available_simd_levels();
    const bool have = std::find(avail.begin(), avail.end(), level) != avail.end();
    CHECK(matvec("q8_0", w.data(), 2, 32, x.data(), y.data(), level).ok() == have);
  }
  const auto bogus = static_cast<SimdLevel>(7);  // a level no CPU has
  const Status s = matvec("q8_0", w.data(), 2, 32, x.data(), y.data(), bogus);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("not available") != std::string::npos);
  CHECK(matvec("q8_0", w.data(), 0, 32, x.data(), y.data(), SimdLevel::kScalar).ok());  // no rows: nothing to do
}
