// kernels_test.cpp — fused dequant·dot kernels: for every format and every
// SIMD level this CPU has, matvec and matmul agree with a float64 product
// over the dequantize()d weights, every SIMD level agrees with the scalar
// kernel (also on shapes that reach every tail path of the SIMD drivers),
// and bad arguments come back as errors; the kernels' inline Q4_K scale
// unpacking gives get_scale_min_k4's values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <random>
#include <vector>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"

using namespace moebench;

namespace {

#include "engines/quant/q4k_scale_min_inline.h"  // the kernels' inline q4k_scale_min

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
  CHECK(std::string(to_string(SimdLevel::kNeonI8mm)) == "neon-i8mm");
  WARN("best SIMD level on this machine: " << to_string(best_simd_level()));
  // A level of each family, never both: the CPU's own family from scalar up.
  for (SimdLevel l : levels) {
    CHECK((l == SimdLevel::kScalar || is_neon(l) == is_neon(best_simd_level())));
  }
#if defined(__aarch64__)
  // Every aarch64 Linux core has ASIMD: the NEON kernels are reachable.
  CHECK(is_neon(detected_simd_level()));
#endif
}

// The aarch64 tests under qemu-user -cpu max (tests/CMakeLists.txt) set
// MOEBENCH_EXPECT_SIMD: the emulated CPU has dotprod and i8mm, so HWCAP
// detection must reach the top NEON level.
TEST_CASE("SIMD level detection finds what the CPU reports", "[kernels]") {
  const char* want = std::getenv("MOEBENCH_EXPECT_SIMD");
  if (want == nullptr || *want == '\0') {
    SUCCEED("MOEBENCH_EXPECT_SIMD not set: nothing to compare");
    return;
  }
  CHECK(std::string(to_string(detected_simd_level())) == want);
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

TEST_CASE("SIMD kernels agree with the scalar kernel on every tail path", "[kernels]") {
  // The shared SIMD drivers (kernels_simd.h) have these remainders:
  //   matvec: units taken two at a time, an odd last unit (odd unit counts),
  //           plain formats' column tail one weight at a time (cols % 32);
  //   matmul: a last register tile of fewer rows (rows % 4 for AVX2, % 8 for
  //           AVX-512), a last column tile of < 256 weights (cols % 256),
  //           a last batch group of 1 or 2 activation rows (batch % 3), and
  //           a column tail padded to the vector width.
  // Only the levels this CPU has run (an AVX-512 build on an AVX2 machine
  // checks the AVX2 instantiation, which runs all of the shared code).
  const auto levels = available_simd_levels();
  std::mt19937 rng(13);
  for (const QuantFormat& f : quant_formats()) {
    const std::size_t bw = f.block_weights;
    // unit counts 1, 3, 13 (odd) and 2; column tiles 1 full + partial
    std::vector<std::size_t> colss;
    if (bw == 1) {
      colss = {1, 9, 33, 77, 289};  // tails of 1, 9, 1, 13, 1 weights; 289 = 256 + 33
    } else if (bw == 32) {
      colss = {32, 96, 416, 64};  // 1, 3, 13 (a 256 tile + 160), 2 blocks
    } else {
      colss = {256, 768, 512};  // 1, 3, 2 super-blocks
    }
    for (std::size_t cols : colss) {
      for (std::size_t rows : {1u, 3u, 5u, 9u, 13u}) {  // none a multiple of 4 or 8
        const Problem p = make_weights(f, rows, cols, rng);
        for (std::size_t batch : {1u, 2u, 3u, 4u, 5u, 7u}) {  // batch % 3 = 1, 2, 0 with and without full groups
          const std::vector<float> x = gaussian(batch * cols, rng);
          std::vector<float> scalar(batch * rows, -1.f);
          REQUIRE(matmul(f.name, p.w.data(), rows, cols, x.data(), batch, scalar.data(), SimdLevel::kScalar).ok());
          // Per output, sum |w·x|: the scale of any summation-order difference
          // (an output near 0 after cancellation has no relative precision).
          const std::vector<double> want = reference(p, rows, cols, x, batch);
          std::vector<double> mag(batch * rows, 0.0);
          for (std::size_t b = 0; b < batch; ++b) {
            for (std::size_t r = 0; r < rows; ++r) {
              for (std::size_t c = 0; c < cols; ++c) {
                mag[b * rows + r] += std::fabs(static_cast<double>(p.wd[r * cols + c]) * x[b * cols + c]);
              }
            }
          }
          for (std::size_t i = 0; i < scalar.size(); ++i) CHECK(std::fabs(scalar[i] - want[i]) <= 1e-4 * mag[i]);
          for (SimdLevel level : levels) {
            if (level == SimdLevel::kScalar) continue;
            INFO(f.name << " " << rows << "x" << cols << " batch " << batch << " " << to_string(level));
            std::vector<float> y(batch * rows, -1.f);
            REQUIRE(matmul(f.name, p.w.data(), rows, cols, x.data(), batch, y.data(), level).ok());
            for (std::size_t i = 0; i < y.size(); ++i) {
              INFO("output " << i << ": " << y[i] << " vs scalar " << scalar[i]);
              CHECK(std::fabs(static_cast<double>(y[i]) - scalar[i]) <= 1e-5 * mag[i]);
            }
            if (batch == 1) {
              std::vector<float> yv(rows, -1.f);
              REQUIRE(matvec(f.name, p.w.data(), rows, cols, x.data(), yv.data(), level).ok());
              CHECK(yv == y);
            }
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
  for (SimdLevel level : {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512, SimdLevel::kNeon,
                          SimdLevel::kNeonDotprod, SimdLevel::kNeonI8mm}) {
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

TEST_CASE("the kernels' inline Q4_K scale unpacking equals get_scale_min_k4", "[kernels]") {
  std::mt19937 rng(77);
  std::uniform_int_distribution<int> byte(0, 255);
  int compared = 0, differ = 0;
  for (int trial = 0; trial < 4096; ++trial) {
    std::uint8_t scales[12];
    for (auto& b : scales) b = static_cast<std::uint8_t>(trial < 256 ? trial : byte(rng));  // all-equal bytes first
    for (int j = 0; j < 8; ++j) {
      std::uint8_t d_ref = 0, m_ref = 0;
      get_scale_min_k4(j, scales, d_ref, m_ref);
      int d = -1, m = -1;
      q4k_scale_min(j, scales, d, m);
      differ += d != d_ref || m != m_ref;
      ++compared;
    }
  }
  CHECK(compared == 4096 * 8);
  CHECK(differ == 0);
}
