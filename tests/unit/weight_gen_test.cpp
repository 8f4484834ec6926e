// weight_gen_test.cpp — the synthetic weights look like trained ones:
// centred, scaled about 1/sqrt(row length) with per-row variation, a few
// outliers, and the same seed gives the same values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engines/container/weight_gen.h"

using namespace moebench;

TEST_CASE("generated rows are centred Gaussians with per-row scale and rare outliers", "[weights]") {
  const WeightGenerator gen(42);
  const std::size_t n = 3584;
  std::vector<float> row(n);
  double sum = 0, sum_sq = 0;
  std::size_t outliers = 0, total = 0;
  std::vector<double> row_std;
  for (std::uint64_t r = 0; r < 256; ++r) {
    gen.fill_row(tensor_id("blk.0.ffn_up_exps.weight", 3), r, row.data(), n);
    double s = 0, s2 = 0;
    for (float v : row) {
      s += v;
      s2 += static_cast<double>(v) * v;
    }
    const double sd = std::sqrt(s2 / n - (s / n) * (s / n));
    row_std.push_back(sd);
    for (float v : row) outliers += std::fabs(v) > 5.5 * sd ? 1 : 0;
    sum += s;
    sum_sq += s2;
    total += n;
  }
  const double mean = sum / static_cast<double>(total);
  const double sd = std::sqrt(sum_sq / static_cast<double>(total) - mean * mean);
  CHECK(std::fabs(mean) < 0.05 * sd);
  CHECK(sd > 0.7 / std::sqrt(n));
  CHECK(sd < 1.6 / std::sqrt(n));
  // Rows differ in scale (log-normal, sigma 0.25).
  const auto [lo, hi] = std::minmax_element(row_std.begin(), row_std.end());
  CHECK(*hi / *lo > 1.5);
  // Outliers: about 1 in 1,024 values, well above a Gaussian's 5.5-sigma rate.
  const double rate = static_cast<double>(outliers) / static_cast<double>(total);
  CHECK(rate > 1.0 / 4000);
  CHECK(rate < 1.0 / 400);
}

TEST_CASE("the same seed and tensor give the same values, others differ", "[weights]") {
  std::vector<float> a(512), b(512), c(512), d(512);
  WeightGenerator(7).fill_row(tensor_id("t", 1), 9, a.data(), a.size());
  WeightGenerator(7).fill_row(tensor_id("t", 1), 9, b.data(), b.size());
  WeightGenerator(8).fill_row(tensor_id("t", 1), 9, c.data(), c.size());
  WeightGenerator(7).fill_row(tensor_id("t", 2), 9, d.data(), d.size());
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != d);
}

TEST_CASE("the AVX-512 generator gives exactly the portable generator's values", "[weights]") {
  const WeightGenerator gen(99);
  for (std::size_t n : {1u, 7u, 39u, 40u, 41u, 512u, 3584u, 3585u}) {
    INFO("n = " << n);
    std::vector<float> a(n), b(n);
    for (std::uint64_t row : {0ull, 1ull, 12345ull}) {
      gen.fill_row_with(tensor_id("blk.3.ffn_gate_exps.weight", 17), row, a.data(), n, false);
      gen.fill_row_with(tensor_id("blk.3.ffn_gate_exps.weight", 17), row, b.data(), n, true);
      CHECK(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
    }
  }
}
