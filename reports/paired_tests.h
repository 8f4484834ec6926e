// paired_tests.h — the statistics of a paired A/B comparison, as pure
// functions: two builds measured in one window, repetition by repetition
// (ABBA order), give pairs (a_i, b_i) of one metric; the gate judges their
// ratios b_i / a_i, so drift that moves both builds cancels.
//
// Conventions (each can be reproduced by hand or with scipy.stats):
// - paired_ratios keeps the pairs whose two values are finite and > 0 and
//   counts the rest; a ratio > 1 means B's value is larger.
// - wilcoxon_signed_rank tests the log ratios d_i = ln(b_i / a_i) for a
//   median of 0. Zero differences are dropped (Wilcoxon's own rule, scipy's
//   zero_method="wilcox"); |d_i| are ranked with ties given their average
//   rank; W+ is the sum of the ranks of positive d_i. The p-value is exact
//   (all 2^n sign patterns equally likely) when n <= kExactSignedMaxN and no
//   |d_i| are tied, else the normal approximation with the tie correction of
//   the variance and a 1/2 continuity correction (scipy method="approx",
//   correction=True). kGreater: B's values tend to be larger.
// - median_interval is the distribution-free interval of a median from
//   order statistics: [x_(k), x_(n-k+1)] with the largest k whose coverage
//   1 - 2·P(Binomial(n, 1/2) < k) is at least the confidence asked for; the
//   coverage reached is returned. Fewer than 6 values cannot give 95 %.
// - holm_adjusted: Holm's step-down adjustment of several p-values (the
//   family-wise error rate: the chance of any false alarm among m tests,
//   whichever are true, stays at most alpha). A NaN p-value counts as 1.
#pragma once

#include <cstddef>
#include <vector>

#include "reports/stats_tests.h"

namespace moebench {

inline constexpr std::size_t kExactSignedMaxN = 25;

struct PairedRatios {
  std::vector<double> ratios;  // b_i / a_i of the pairs kept, in pair order
  std::vector<std::size_t> index;  // i of each ratio kept
  std::size_t dropped = 0;     // pairs with a value that is NaN, infinite, zero or negative
};
PairedRatios paired_ratios(const std::vector<double>& a, const std::vector<double>& b);

struct SignedRankTest {
  std::size_t n = 0;      // non-zero differences ranked
  std::size_t zeros = 0;  // zero differences dropped
  double w_plus = 0, w_minus = 0;  // w_plus + w_minus = n(n+1)/2
  double p_value = 1;     // 1 when n = 0
  bool exact = false;
  bool ties = false;      // some |d_i| are tied
  double z = 0;           // the normal approximation's z (0 when exact)
};

// Number of sign patterns giving each W+ = 0 .. n(n+1)/2 when no |d| ties;
// they sum to 2^n.
std::vector<double> signed_rank_null_counts(std::size_t n);

// The test on differences d (NaN or infinite values are the caller's to
// remove: paired_ratios does). Use log ratios for ratios.
SignedRankTest wilcoxon_signed_rank(const std::vector<double>& d, Alternative alternative = Alternative::kTwoSided);

// The smallest p-value n non-zero, untied differences can reach: 2 / 2^n
// two-sided, 1 / 2^n one-sided.
double signed_rank_min_p_value(std::size_t n, Alternative alternative = Alternative::kTwoSided);

struct MedianInterval {
  double median = 0;          // NaN for no values
  double low = 0, high = 0;   // NaN when no order-statistic interval reaches the confidence
  double coverage = 0;        // the interval's exact coverage (0 when none)
};
MedianInterval median_interval(std::vector<double> values, double confidence = 0.95);

std::vector<double> holm_adjusted(const std::vector<double>& p_values);

}  // namespace moebench
