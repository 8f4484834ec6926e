// paired_tests_test.cpp — the paired statistics of an A/B gate on hand-made
// samples, each figure worked out by hand (or by enumerating the 2^n sign
// patterns) in the comment beside it: a known shift is found, no shift is
// not, ties, zeros and NaN are handled, Holm's adjustment and the
// order-statistic interval of a median.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "reports/paired_tests.h"

using namespace moebench;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> logs(const std::vector<double>& ratios) {
  std::vector<double> out;
  for (double r : ratios) out.push_back(std::log(r));
  return out;
}
}  // namespace

TEST_CASE("a 3 % slowdown in every pair is found", "[paired]") {
  // B takes 3 % longer in each of 10 pairs, on a base that drifts by ±20 %
  // between pairs: the ratios are 1.03 with a little noise, all above 1.
  const std::vector<double> a = {10.0, 12.0, 8.0, 11.0, 9.5, 10.5, 12.5, 8.5, 9.0, 11.5};
  const std::vector<double> jitter = {1.001, 0.999, 1.002, 0.998, 1.003, 0.997, 1.004, 0.996, 1.005, 0.995};
  std::vector<double> b;
  for (std::size_t i = 0; i < a.size(); ++i) b.push_back(a[i] * 1.03 * jitter[i]);
  const PairedRatios r = paired_ratios(a, b);
  REQUIRE(r.ratios.size() == 10);
  CHECK(r.dropped == 0);
  const SignedRankTest t = wilcoxon_signed_rank(logs(r.ratios), Alternative::kGreater);
  CHECK(t.exact);
  CHECK(t.n == 10);
  CHECK(t.w_plus == 55);  // every rank 1..10 positive
  CHECK(t.w_minus == 0);
  CHECK(t.p_value == Approx(1.0 / 1024));  // the one sign pattern of 2^10 as extreme
  CHECK(wilcoxon_signed_rank(logs(r.ratios)).p_value == Approx(2.0 / 1024));
  CHECK(wilcoxon_signed_rank(logs(r.ratios), Alternative::kLess).p_value == Approx(1.0));
  const MedianInterval m = median_interval(r.ratios);
  CHECK(m.low > 1.0);  // the whole interval is a slowdown
  CHECK(m.median == Approx(1.03).epsilon(0.002));
}

TEST_CASE("no shift is not called a change", "[paired]") {
  // d = ±1..±10 (×0.01), signs alternating from +: W+ = 1+3+5+7+9 = 25,
  // W− = 30. Of the 1,024 sign patterns, 433 give W+ <= 25 and 630 give
  // W+ >= 25, so p = 2·433/1024.
  const std::vector<double> d = {0.01, -0.02, 0.03, -0.04, 0.05, -0.06, 0.07, -0.08, 0.09, -0.10};
  const SignedRankTest t = wilcoxon_signed_rank(d);
  CHECK(t.exact);
  CHECK(t.w_plus == 25);
  CHECK(t.w_minus == 30);
  CHECK(t.p_value == Approx(866.0 / 1024));
  CHECK(wilcoxon_signed_rank(d, Alternative::kGreater).p_value == Approx(630.0 / 1024));
}

TEST_CASE("tied magnitudes take average ranks and the corrected normal approximation", "[paired]") {
  // |d| = 1,1,1 (ranks 1..3 → 2 each), 2,2,2 (4..6 → 5 each), 3 (7).
  // W+ = 2+2+5+5+5+7 = 26, W− = 2. Mean 7·8/4 = 14; variance
  // 7·8·15/24 − [(27−3)+(27−3)]/48 = 35 − 1 = 34; z = (26 − 14 − 0.5)/√34 =
  // 1.97223; one-sided p = 1 − Φ(1.97223) = 0.0242915.
  const std::vector<double> d = {1, 1, -1, 2, 2, 2, 3};
  const SignedRankTest t = wilcoxon_signed_rank(d, Alternative::kGreater);
  CHECK(t.ties);
  CHECK_FALSE(t.exact);
  CHECK(t.w_plus == 26);
  CHECK(t.w_minus == 2);
  CHECK(t.p_value == Approx(0.0242915).epsilon(1e-5));
  CHECK(t.z == Approx(12.0 / std::sqrt(34.0)));
}

TEST_CASE("zero differences are dropped and NaN pairs never reach the test", "[paired]") {
  const SignedRankTest t = wilcoxon_signed_rank({0.0, 0.0, 0.1, 0.2}, Alternative::kGreater);
  CHECK(t.zeros == 2);
  CHECK(t.n == 2);
  CHECK(t.p_value == Approx(0.25));  // 1 of 4 sign patterns
  const SignedRankTest none = wilcoxon_signed_rank({0.0, 0.0});
  CHECK(none.n == 0);
  CHECK(none.p_value == 1);

  // A pair with a NaN, an infinity, a zero or a negative value is dropped
  // and counted; so is a value without its pair.
  const PairedRatios r = paired_ratios({1, 2, kNaN, 4, 5, 0, 7, 8}, {1.1, 2.2, 3.3, kInf, -5, 6, 7.7});
  CHECK(r.ratios.size() == 3);
  CHECK(r.dropped == 5);  // NaN, inf, negative, zero, and the unpaired 8
  CHECK(r.ratios[2] == Approx(1.1));
}

TEST_CASE("too few pairs can never be significant", "[paired]") {
  // 4 pairs: the best two-sided p is 2/16 = 0.125, above any usual alpha.
  CHECK(signed_rank_min_p_value(4) == Approx(0.125));
  CHECK(signed_rank_min_p_value(4, Alternative::kGreater) == Approx(0.0625));
  CHECK(signed_rank_min_p_value(10, Alternative::kGreater) == Approx(1.0 / 1024));
  // The null counts of n = 3: W+ = 0..6 reached by 1,1,1,2,1,1,1 patterns.
  CHECK(signed_rank_null_counts(3) == std::vector<double>{1, 1, 1, 2, 1, 1, 1});
}

TEST_CASE("Holm's adjustment keeps the family-wise error rate", "[paired]") {
  // Five p-values, sorted: 0.005·5, 0.01·4, 0.03·3, 0.04·2 (raised to the
  // running maximum), NaN → 1. Four, sorted: 0.005·4 = 0.02, 0.01·3 = 0.03,
  // 0.03·2 = 0.06, 0.04·1 = 0.04 → raised to 0.06.
  const std::vector<double> adj = holm_adjusted({0.01, 0.04, 0.03, 0.005, kNaN});
  REQUIRE(adj.size() == 5);
  CHECK(adj[0] == Approx(0.04));  // 0.01 is second smallest of 5: ·4
  CHECK(adj[3] == Approx(0.025));  // smallest of 5: ·5
  CHECK(adj[2] == Approx(0.09));   // third: 0.03·3
  CHECK(adj[1] == Approx(0.09));   // fourth: 0.04·2 = 0.08, raised to 0.09
  CHECK(adj[4] == 1.0);
  const std::vector<double> four = holm_adjusted({0.01, 0.04, 0.03, 0.005});
  REQUIRE(four.size() == 4);
  CHECK(four[0] == Approx(0.03));
  CHECK(four[1] == Approx(0.06));
  CHECK(four[2] == Approx(0.06));
  CHECK(four[3] == Approx(0.02));
  CHECK(holm_adjusted({}).empty());
}

TEST_CASE("the median's interval from order statistics", "[paired]") {
  // n = 10: P(B < 2) = 11/1024 → coverage 1 − 22/1024 = 0.9785 ≥ 0.95;
  // P(B < 3) = 56/1024 → 0.8906 < 0.95. So [x_(2), x_(9)].
  const MedianInterval m = median_interval({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  CHECK(m.median == 5.5);
  CHECK(m.low == 2);
  CHECK(m.high == 9);
  CHECK(m.coverage == Approx(1.0 - 22.0 / 1024));
  // Five values cannot reach 95 % (1 − 2/32 = 0.9375): no interval.
  const MedianInterval five = median_interval({1, 2, 3, 4, 5});
  CHECK(five.median == 3);
  CHECK(std::isnan(five.low));
  CHECK(five.coverage == 0);
  // Six can: [x_(1), x_(6)] at 1 − 2/64.
  CHECK(median_interval({6, 5, 4, 3, 2, 1}).coverage == Approx(1.0 - 2.0 / 64));
  CHECK(std::isnan(median_interval({kNaN}).median));
  // A thousand values: no underflow, the interval narrows around the median.
  std::vector<double> many;
  for (int i = 1; i <= 1000; ++i) many.push_back(i);
  const MedianInterval big = median_interval(many);
  CHECK(big.low > 460);
  CHECK(big.high < 541);
  CHECK(big.coverage >= 0.95);
}
