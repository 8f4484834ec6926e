// paired_tests.cpp — see paired_tests.h.
#include "reports/paired_tests.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace moebench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool usable(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

PairedRatios paired_ratios(const std::vector<double>& a, const std::vector<double>& b) {
  PairedRatios out;
  const std::size_t n = std::min(a.size(), b.size());
  out.dropped = std::max(a.size(), b.size()) - n;  // a value without its pair
  for (std::size_t i = 0; i < n; ++i) {
    if (usable(a[i]) && usable(b[i]) && std::isfinite(b[i] / a[i]) && b[i] / a[i] > 0) {
      out.ratios.push_back(b[i] / a[i]);
      out.index.push_back(i);
    } else {
      ++out.dropped;
    }
  }
  return out;
}

std::vector<double> signed_rank_null_counts(std::size_t n) {
  const std::size_t max_w = n * (n + 1) / 2;
  std::vector<double> counts(max_w + 1, 0.0);
  counts[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank) {  // each rank either joins W+ or not
    for (std::size_t w = max_w; w >= rank; --w) counts[w] += counts[w - rank];
  }
  return counts;
}

SignedRankTest wilcoxon_signed_rank(const std::vector<double>& d, Alternative alternative) {
  SignedRankTest t;
  std::vector<double> magnitudes, signs;
  for (double v : d) {
    if (v == 0) {
      ++t.zeros;
      continue;
    }
    magnitudes.push_back(std::fabs(v));
    signs.push_back(v > 0 ? 1.0 : -1.0);
  }
  t.n = magnitudes.size();
  if (t.n == 0) return t;
  const std::vector<double> ranks = average_ranks(magnitudes);
  for (std::size_t i = 0; i < t.n; ++i) (signs[i] > 0 ? t.w_plus : t.w_minus) += ranks[i];
  // Ties: groups of equal |d| (ranks equal), for the exact rule and the variance.
  std::vector<double> sorted = magnitudes;
  std::sort(sorted.begin(), sorted.end());
  double tie_term = 0;  // Σ (t³ − t) over tie groups
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i]) ++j;
    const double size = static_cast<double>(j - i + 1);
    if (size > 1) {
      t.ties = true;
      tie_term += size * size * size - size;
    }
    i = j + 1;
  }
  double p_greater = 1, p_less = 1;  // P(W+ >= observed), P(W+ <= observed)
  if (t.n <= kExactSignedMaxN && !t.ties) {
    t.exact = true;
    const std::vector<double> counts = signed_rank_null_counts(t.n);
    const double total = std::ldexp(1.0, static_cast<int>(t.n));
    const auto w = static_cast<std::size_t>(std::llround(t.w_plus));
    double le = 0, ge = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      if (k <= w) le += counts[k];
      if (k >= w) ge += counts[k];
    }
    p_greater = ge / total;
    p_less = le / total;
  } else {
    const double n = static_cast<double>(t.n);
    const double mean = n * (n + 1) / 4;
    const double sd = std::sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48);
    if (sd > 0) {
      p_greater = 1 - normal_cdf((t.w_plus - mean - 0.5) / sd);
      p_less = normal_cdf((t.w_plus - mean + 0.5) / sd);
      t.z = (t.w_plus - mean) / sd;
    }
  }
  switch (alternative) {
    case Alternative::kGreater: t.p_value = std::min(1.0, p_greater); break;
    case Alternative::kLess: t.p_value = std::min(1.0, p_less); break;
    case Alternative::kTwoSided: t.p_value = std::min(1.0, 2 * std::min(p_greater, p_less)); break;
  }
  return t;
}

double signed_rank_min_p_value(std::size_t n, Alternative alternative) {
  const double one_side = std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(n, 1000)));
  return alternative == Alternative::kTwoSided ? std::min(1.0, 2 * one_side) : one_side;
}

MedianInterval median_interval(std::vector<double> values, double confidence) {
  MedianInterval out{kNaN, kNaN, kNaN, 0};
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  const std::size_t n = values.size();
  if (n == 0) return out;
  std::sort(values.begin(), values.end());
  out.median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  // P(Binomial(n, 1/2) < k) for k = 1, 2, …: the chance that fewer than k
  // values fall below the true median. [x_(k), x_(n−k+1)] misses it with
  // twice that chance.
  double below = 0;  // P(B < k)
  const double log_half_n = static_cast<double>(n) * std::log(0.5);
  const double log_n_fact = std::lgamma(static_cast<double>(n) + 1);
  for (std::size_t k = 1; 2 * k <= n + 1; ++k) {
    const double j = static_cast<double>(k - 1);  // P(B = k−1), in logs: no underflow at large n
    below += std::exp(log_n_fact - std::lgamma(j + 1) - std::lgamma(static_cast<double>(n) - j + 1) + log_half_n);
    const double coverage = 1 - 2 * below;
    if (coverage < confidence) break;
    out.low = values[k - 1];
    out.high = values[n - k];
    out.coverage = coverage;
  }
  return out;
}

std::vector<double> holm_adjusted(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto p_of = [&](std::size_t i) { return std::isnan(p_values[i]) ? 1.0 : std::clamp(p_values[i], 0.0, 1.0); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_of(a) < p_of(b); });
  std::vector<double> adjusted(m, 1.0);
  double running = 0;
  for (std::size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p_of(order[j])));
    adjusted[order[j]] = running;
  }
  return adjusted;
}

}  // namespace moebench
