// kernels_q8_test.cpp — the integer-dot kernels (kernels_q8.h): activation
// quantization is exact where it must be (scales, rounding, sums), every
// SIMD path gives the scalar path's result up to float summation order, and
// all of them stay inside the error bound the activation rounding allows
// against a float64 product over the dequantized weights and the original
// activations: |Σ w·(x − x̂)| ≤ Σ_blocks dx/2 · Σ|w|.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engines/quant/dequantize.h"
#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"
#include "engines/quant/quantize.h"
#include "vocab/quant_format.h"

using namespace moebench;

namespace {

std::vector<float> gaussian(std::size_t n, std::mt19937& rng, float sigma = 1.f) {
  std::normal_distribution<float> dist(0.f, sigma);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

const char* kQ8Formats[] = {"q4_0", "q8_0", "mxfp4", "q4_k"};

}  // namespace

TEST_CASE("activation quantization: 32-value blocks, scale max/127, nearest even, s = d·sum", "[kernels][q8]") {
  std::vector<float> x(64, 0.0f);
  x[0] = 127.0f;   // d = 1
  x[1] = 2.5f;     // → 2 (ties to even)
  x[2] = -3.5f;    // → -4
  x[3] = 0.49f;    // → 0
  // second block all zero: d = 0, q = 0, s = 0
  Q8Activations a;
  quantize_activations(x.data(), 64, 1, a);
  REQUIRE(a.blocks() == 2);
  CHECK(a.d[0] == 1.0f);
  CHECK(a.q[0] == 127);
  CHECK(a.q[1] == 2);
  CHECK(a.q[2] == -4);
  CHECK(a.q[3] == 0);
  CHECK(a.s[0] == 127.0f + 2.0f - 4.0f);
  CHECK(a.d[1] == 0.0f);
  CHECK(a.s[1] == 0.0f);
  CHECK(std::all_of(a.q.begin() + 32, a.q.end(), [](std::int8_t v) { return v == 0; }));
}

TEST_CASE("integer-dot kernels: SIMD equals scalar, all inside the activation-rounding bound", "[kernels][q8]") {
  std::mt19937 rng(7);
  struct Shape {
    std::size_t rows, cols;
  };
  // 2048 / 768: the peer card's experts; 7 rows: a partial register tile;
  // 9216 columns: more than one column pass (256 blocks each).
  const Shape shapes[] = {{13, 2048}, {7, 768}, {5, 9216}};
  for (const char* quant : kQ8Formats) {
    const QuantFormat f = *find_quant(quant);
    for (const Shape& s : shapes) {
      if (!has_q8_kernel(quant, s.cols)) continue;
      const std::vector<float> src = gaussian(s.rows * s.cols, rng, 0.05f);
      std::vector<unsigned char> w(f.bytes_for(s.rows * s.cols));
      REQUIRE(quantize(quant, src.data(), w.data(), src.size()).ok());
      std::vector<float> wd(src.size());
      REQUIRE(dequantize(quant, w.data(), wd.data(), wd.size()).ok());
      for (std::size_t batch : {1u, 2u, 5u, 9u}) {  // 5, 9: partial activation tiles of 2 and 4
        std::vector<float> x = gaussian(batch * s.cols, rng);
        x[3] = 0.0f;  // a zero and a large outlier in the blocks
        x[40] = 30.0f;
        Q8Activations a;
        quantize_activations(x.data(), s.cols, batch, a);
        std::vector<float> scalar;
        for (SimdLevel level : available_simd_levels()) {
          INFO(quant << " " << s.rows << "x" << s.cols << " batch " << batch << " " << to_string(level) << " kernel "
                     << q8_kernel_name(level));
          std::vector<float> y(batch * s.rows, -1.0f);
          REQUIRE(matmul_q8(quant, w.data(), s.rows, s.cols, a, y.data(), level).ok());
          for (std::size_t b = 0; b < batch; ++b) {
            for (std::size_t r = 0; r < s.rows; ++r) {
              double exact = 0, bound = 0, mag = 0;
              for (std::size_t k = 0; k < s.cols / 32; ++k) {
                double wabs = 0;
                for (std::size_t i = 0; i < 32; ++i) {
                  const std::size_t c = k * 32 + i;
                  const double wv = wd[r * s.cols + c];
                  exact += wv * x[b * s.cols + c];
                  wabs += std::fabs(wv);
                  mag += std::fabs(wv * x[b * s.cols + c]);
                }
                bound += wabs * a.d[b * a.blocks() + k] / 2;
              }
              // the rounding bound, plus float summation error of the kernel
              CHECK(std::fabs(y[b * s.rows + r] - exact) <= bound + 1e-5 * mag + 1e-6);
            }
          }
          if (level == SimdLevel::kScalar) {
            scalar = y;
          } else {
            for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == Approx(scalar[i]).margin(1e-4).epsilon(1e-4));
          }
        }
      }
    }
  }
}

TEST_CASE("integer-dot kernels refuse what they cannot compute", "[kernels][q8]") {
  Q8Activations a;
  std::vector<float> x(256, 1.0f);
  quantize_activations(x.data(), 256, 1, a);
  std::vector<unsigned char> w(4096);
  std::vector<float> y(4);
  CHECK(!has_q8_kernel("q2_k", 256));
  CHECK(!has_q8_kernel("bf16", 256));
  CHECK(!has_q8_kernel("q4_k", 128));  // not a multiple of q4_k's 256
  CHECK(has_q8_kernel("q4_0", 256));
  auto st = matmul_q8("q2_k", w.data(), 1, 256, a, y.data(), SimdLevel::kScalar);
  REQUIRE(!st.ok());
  CHECK(st.error().message.find("no integer kernel") != std::string::npos);
  st = matmul_q8("q4_0", w.data(), 1, 512, a, y.data(), SimdLevel::kScalar);
  REQUIRE(!st.ok());
  CHECK(st.error().message.find("activations 256") != std::string::npos);
  st = matmul_q8("nope", w.data(), 1, 256, a, y.data(), SimdLevel::kScalar);
  REQUIRE(!st.ok());
}

TEST_CASE("rows8 layout: rows come back byte for byte, and the kernels equal the row layout's", "[kernels][q8][rows8]") {
  std::mt19937 rng(11);
  struct Shape {
    std::size_t rows, cols;
  };
  // 768 / 2048: the peer card's experts; 24 × 9216: three groups, long rows.
  const Shape shapes[] = {{16, 2048}, {8, 768}, {24, 9216}};  // all multiples of q4_k's 256
  for (const char* quant : {"q4_0", "q8_0", "mxfp4", "q4_k"}) {
    const QuantFormat f = *find_quant(quant);
    for (const Shape& s : shapes) {
      REQUIRE(has_rows8_layout(quant, s.rows, s.cols));
      const std::vector<float> src = gaussian(s.rows * s.cols, rng, 0.05f);
      const std::size_t row_bytes = f.bytes_for(s.cols);
      std::vector<unsigned char> rows(row_bytes * s.rows);
      REQUIRE(quantize(quant, src.data(), rows.data(), src.size()).ok());
      std::vector<unsigned char> packed = rows;
      REQUIRE(interleave_rows8(quant, packed.data(), s.rows, s.cols).ok());
      CHECK(packed != rows);  // the layout changed ...
      std::vector<unsigned char> back(row_bytes);
      for (std::size_t r = 0; r < s.rows; ++r) {  // ... and every row is still there
        deinterleave_row(quant, packed.data(), r, s.cols, back.data());
        CHECK(std::equal(back.begin(), back.end(), rows.begin() + static_cast<std::ptrdiff_t>(r * row_bytes)));
      }
      for (std::size_t batch : {1u, 2u, 3u, 5u, 9u, 17u}) {  // partial tiles of 4 and 8 activation rows
        std::vector<float> x = gaussian(batch * s.cols, rng);
        x[40] = 30.0f;
        Q8Activations a;
        quantize_activations(x.data(), s.cols, batch, a);
        std::vector<float> scalar;
        for (SimdLevel level : available_simd_levels()) {
          INFO(quant << " " << s.rows << "x" << s.cols << " batch " << batch << " " << to_string(level));
          std::vector<float> want(batch * s.rows), got(batch * s.rows, -1.0f);
          REQUIRE(matmul_q8(quant, rows.data(), s.rows, s.cols, a, want.data(), level).ok());
          REQUIRE(matmul_q8_rows8(quant, packed.data(), s.rows, s.cols, a, got.data(), level).ok());
          for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-4).epsilon(1e-4));
          if (level == SimdLevel::kScalar) {
            scalar = got;
          } else if (std::string(quant) != "q8_0" || std::string(q8_kernel_name(level)) != "avx512-vnni") {
            // the same integer sums and the same fused steps: bit for bit
            // (VNNI's q8_0 offsets its bytes by 128: another rounding)
            CHECK(got == scalar);
          }
        }
      }
    }
  }
}

TEST_CASE("rows8 layout refuses what it cannot hold", "[kernels][q8][rows8]") {
  CHECK(!has_rows8_layout("q4_0", 12, 256));  // rows not a multiple of 8
  CHECK(!has_rows8_layout("q4_0", 8, 48));    // columns not a multiple of 32
  CHECK(!has_rows8_layout("q4_k", 8, 224));   // q4_k: columns of 256
  CHECK(!has_rows8_layout("q2_k", 8, 256));   // no 8-row layout for q2_k
  std::vector<unsigned char> w(18 * 8 * 12);
  const Status st = interleave_rows8("q4_0", w.data(), 12, 256);
  REQUIRE(!st.ok());
  CHECK(st.error().message.find("multiple of 8") != std::string::npos);
  Q8Activations a;
  std::vector<float> x(256, 1.0f), y(12);
  quantize_activations(x.data(), 256, 1, a);
  CHECK(!matmul_q8_rows8("q4_0", w.data(), 12, 256, a, y.data(), SimdLevel::kScalar).ok());
  CHECK(!matmul_q8_rows8("q4_0", w.data(), 8, 512, a, y.data(), SimdLevel::kScalar).ok());
}
