// stats_tests.h — the statistics behind `moebench compare`, as pure
// functions: the Mann-Whitney U rank test on two samples of repetitions and
// a seeded bootstrap confidence interval of the ratio of their medians.
//
// Conventions (stated so that every figure can be reproduced by hand or
// with scipy.stats.mannwhitneyu, whose conventions these follow):
// - U of x (`u_x`) counts the pairs (xi, yj) with xi > yj, ties counting
//   1/2; u_x + u_y = n_x · n_y. It equals scipy's `statistic` for (x, y).
// - Exact p-values (the permutation distribution of U, all C(n_x+n_y, n_x)
//   orderings equally likely) when there are no ties and both samples hold
//   at most kExactMaxN values; otherwise the normal approximation with the
//   tie correction of the variance and a 1/2 continuity correction
//   (scipy's method="asymptotic", use_continuity=True).
// - Alternatives: kTwoSided (the distributions differ), kGreater (x is
//   stochastically greater than y), kLess (x stochastically less).
//   Two-sided p = min(1, 2 · the smaller one-sided p).
// - The bootstrap resamples each sample independently with replacement
//   (splitmix64 generator, so the same seed gives the same interval on every
//   platform and compiler), takes median(y*) / median(x*) per resample
//   (medians as in vocab/stats.h, type 7) and returns the percentile
//   interval (type-7 quantiles of the resampled ratios).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace moebench {

enum class Alternative { kTwoSided, kGreater, kLess };
const char* to_string(Alternative a);

inline constexpr std::size_t kExactMaxN = 20;

struct UTest {
  std::size_t n_x = 0, n_y = 0;
  double u_x = 0, u_y = 0;   // u_x + u_y = n_x · n_y
  double p_value = 1;        // 1 when either sample is empty
  bool exact = false;        // exact distribution, else normal approximation
  bool ties = false;         // some values occur more than once (pooled)
  double z = 0;              // the normal approximation's z (0 when exact)
};

// Ranks of `values` (1-based), tied values getting the average of their ranks.
std::vector<double> average_ranks(const std::vector<double>& values);

// Number of orderings giving each U = 0 .. n_x·n_y under the null
// hypothesis (no ties); they sum to C(n_x + n_y, n_x). Doubles: exact up to
// 2^53, far beyond kExactMaxN.
std::vector<double> u_null_counts(std::size_t n_x, std::size_t n_y);

// The Mann-Whitney U test of x against y. Non-finite values are the
// caller's to remove.
UTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                     Alternative alternative = Alternative::kTwoSided);

// The smallest p-value any pair of samples of these sizes can reach
// (complete separation, no ties, exact distribution): 2 / C(n_x+n_y, n_x)
// two-sided, 1 / C(n_x+n_y, n_x) one-sided. When it exceeds alpha no
// outcome can be significant: the samples are too few to conclude.
double u_min_p_value(std::size_t n_x, std::size_t n_y, Alternative alternative = Alternative::kTwoSided);

// Standard normal distribution function.
double normal_cdf(double z);

struct RatioInterval {
  double low = 0, high = 0;  // NaN when not computable (an empty sample)
  double confidence = 0.95;
  int resamples = 0;  // drawn; 0 when the distribution was computed exactly
};

// Percentile bootstrap interval of median(y) / median(x). When both sides
// have so few samples that their n^n resamples number at most `resamples`
// (n <= 4 at 2,000), the bootstrap distribution is computed exactly (every
// pair of resamples, weighted) and the seed plays no part; otherwise
// `resamples` seeded draws. A resample whose x-median is 0 gives ±inf (or NaN
// for 0/0, dropped).
RatioInterval bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& y,
                                     double confidence = 0.95, int resamples = 2000,
                                     std::uint64_t seed = 1);

}  // namespace moebench
