// stats_tests.cpp — see stats_tests.h.
#include "reports/stats_tests.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "vocab/stats.h"

namespace moebench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// splitmix64 (Steele, Lea, Flood 2014): tiny, fast and the same everywhere,
// unlike std::uniform_int_distribution, whose output the standard leaves to
// the library.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is below n / 2^64.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

double binomial(std::size_t n, std::size_t k) {
  double r = 1;
  for (std::size_t i = 1; i <= k; ++i) r = r * static_cast<double>(n - k + i) / static_cast<double>(i);
  return r;
}

}  // namespace

const char* to_string(Alternative a) {
  switch (a) {
    case Alternative::kTwoSided: return "two-sided";
    case Alternative::kGreater: return "greater";
    case Alternative::kLess: return "less";
  }
  return "?";
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + j) + 1.0;  // average of ranks i+1 .. j+1
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

std::vector<double> u_null_counts(std::size_t n_x, std::size_t n_y) {
  // f(m, n, u): orderings of m x's and n y's with U_x = u. The largest value
  // is an x (beating all n y's: u - n left for the rest) or a y:
  // f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u); f(0, n, 0) = f(m, 0, 0) = 1.
  std::vector<std::vector<std::vector<double>>> f(n_x + 1, std::vector<std::vector<double>>(n_y + 1));
  for (std::size_t m = 0; m <= n_x; ++m) {
    for (std::size_t n = 0; n <= n_y; ++n) {
      std::vector<double>& cur = f[m][n];
      cur.assign(m * n + 1, 0.0);
      if (m == 0 || n == 0) {
        cur[0] = 1;
        continue;
      }
      const std::vector<double>& with_x = f[m - 1][n];
      const std::vector<double>& with_y = f[m][n - 1];
      for (std::size_t u = 0; u < with_x.size(); ++u) cur[u + n] += with_x[u];
      for (std::size_t u = 0; u < with_y.size(); ++u) cur[u] += with_y[u];
    }
  }
  return f[n_x][n_y];
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

UTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, Alternative alternative) {
  UTest t;
  t.n_x = x.size();
  t.n_y = y.size();
  if (x.empty() || y.empty()) return t;
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::vector<double> ranks = average_ranks(pooled);
  const double nx = static_cast<double>(t.n_x), ny = static_cast<double>(t.n_y);
  double rank_sum_x = 0;
  for (std::size_t i = 0; i < t.n_x; ++i) rank_sum_x += ranks[i];
  t.u_x = rank_sum_x - nx * (nx + 1) / 2;
  t.u_y = nx * ny - t.u_x;

  // Tie groups of the pooled sample: sum of (t^3 - t).
  std::vector<double> sorted(pooled);
  std::sort(sorted.begin(), sorted.end());
  double tie_term = 0;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i]) ++j;
    const double g = static_cast<double>(j - i + 1);
    if (g > 1) t.ties = true;
    tie_term += g * g * g - g;
    i = j + 1;
  }

  if (!t.ties && t.n_x <= kExactMaxN && t.n_y <= kExactMaxN) {
    t.exact = true;
    const std::vector<double> counts = u_null_counts(t.n_x, t.n_y);
    const double total = binomial(t.n_x + t.n_y, t.n_x);
    // u_x is an integer without ties.
    const auto u = static_cast<std::size_t>(std::llround(t.u_x));
    double at_most = 0, at_least = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      if (k <= u) at_most += counts[k];
      if (k >= u) at_least += counts[k];
    }
    const double p_greater = at_least / total, p_less = at_most / total;
    t.p_value = alternative == Alternative::kGreater ? p_greater
                : alternative == Alternative::kLess  ? p_less
                                                     : std::min(1.0, 2 * std::min(p_greater, p_less));
    return t;
  }

  const double n = nx + ny;
  const double mu = nx * ny / 2;
  const double var = nx * ny / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(var > 0)) {  // every value equal: no evidence either way
    t.p_value = 1;
    return t;
  }
  const double s = std::sqrt(var);
  const double u = alternative == Alternative::kGreater ? t.u_x
                   : alternative == Alternative::kLess  ? t.u_y
                                                        : std::max(t.u_x, t.u_y);
  t.z = (u - mu - 0.5) / s;
  const double upper = normal_cdf(-t.z);
  t.p_value = alternative == Alternative::kTwoSided ? std::min(1.0, 2 * upper) : upper;
  return t;
}

double u_min_p_value(std::size_t n_x, std::size_t n_y, Alternative alternative) {
  if (n_x == 0 || n_y == 0) return 1;
  const double p = 1 / binomial(n_x + n_y, n_x);
  return alternative == Alternative::kTwoSided ? std::min(1.0, 2 * p) : p;
}

namespace {

// The medians of `draws` bootstrap resamples of `v`: every one of the n^n
// equally likely resamples, enumerated, when there are no more than `draws`
// of them (n <= 4 at 2,000 draws: a repetition count's usual size), else
// `draws` resamples drawn with `rng`. Drawing from the first list is drawing
// a resample's median, at a cost that does not grow with n.
struct BootMedians {
  std::vector<double> medians;
  bool enumerated = false;  // every resample once (draw from it), else draws in order
};

BootMedians bootstrap_medians(const std::vector<double>& v, int draws, SplitMix64& rng) {
  const std::size_t n = v.size();
  double space = 1;
  for (std::size_t i = 0; i < n && space <= draws; ++i) space *= static_cast<double>(n);
  BootMedians b;
  std::vector<double>& out = b.medians;
  std::vector<double> one(n);
  if (space <= draws) {
    b.enumerated = true;
    std::vector<std::size_t> digit(n, 0);  // the resample's indices, counted in base n
    for (;;) {
      for (std::size_t i = 0; i < n; ++i) one[i] = v[digit[i]];
      out.push_back(median(one));
      std::size_t i = 0;
      while (i < n && ++digit[i] == n) digit[i++] = 0;
      if (i == n) break;
    }
    return b;
  }
  out.reserve(static_cast<std::size_t>(draws));
  for (int d = 0; d < draws; ++d) {
    for (double& x : one) x = v[rng.below(n)];
    out.push_back(median(one));
  }
  return b;
}

// The quantiles `tail` and 1 - `tail` of median(y)/median(x) when both lists
// hold every resample's median once: each (x, y) pair has weight 1/(|x||y|).
// Medians repeat (a 3-sample side has at most 3 distinct ones), so the
// distinct values with their counts are paired, not the lists. Quantile q is
// the smallest ratio whose cumulative weight reaches q. NaN pairs (0/0) are
// dropped, as the drawn bootstrap drops them.
std::pair<double, double> exact_ratio_quantiles(const std::vector<double>& mx, const std::vector<double>& my,
                                                double tail) {
  auto counted = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<double, double>> out;  // value, count
    for (double d : v) {
      if (!out.empty() && out.back().first == d) {
        out.back().second += 1;
      } else {
        out.emplace_back(d, 1.0);
      }
    }
    return out;
  };
  const auto cx = counted(mx), cy = counted(my);
  std::vector<std::pair<double, double>> ratios;  // ratio, weight
  ratios.reserve(cx.size() * cy.size());
  double total = 0;
  for (const auto& [a, na] : cx) {
    for (const auto& [b, nb] : cy) {
      const double ratio = b / a;
      if (std::isnan(ratio)) continue;
      ratios.emplace_back(ratio, na * nb);
      total += na * nb;
    }
  }
  if (ratios.empty()) return {kNaN, kNaN};
  std::sort(ratios.begin(), ratios.end());
  auto quantile = [&](double q) {
    double cumulative = 0;
    for (const auto& [ratio, w] : ratios) {
      cumulative += w;
      if (cumulative >= q * total * (1 - 1e-12)) return ratio;
    }
    return ratios.back().first;
  };
  return {quantile(tail), quantile(1 - tail)};
}

}  // namespace

RatioInterval bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& y, double confidence,
                                     int resamples, std::uint64_t seed) {
  RatioInterval r;
  r.confidence = confidence;
  r.resamples = resamples;
  if (x.empty() || y.empty() || resamples <= 0) {
    r.low = r.high = kNaN;
    return r;
  }
  SplitMix64 rng{seed};
  const BootMedians bx = bootstrap_medians(x, resamples, rng), by = bootstrap_medians(y, resamples, rng);
  const std::vector<double>&mx = bx.medians, &my = by.medians;
  const double tail = (1 - confidence) / 2;
  if (bx.enumerated && by.enumerated) {
    // Every resample pair is equally likely: the bootstrap distribution is
    // known exactly (no draws, no Monte Carlo noise); its quantiles are read
    // off the weighted distinct ratios.
    r.resamples = 0;  // none drawn
    const auto lo = exact_ratio_quantiles(mx, my, tail);
    r.low = lo.first;
    r.high = lo.second;
    return r;
  }
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    // A drawn list is used in order (its draws are already independent); an
    // enumerated one is drawn from.
    const double a = bx.enumerated ? mx[rng.below(mx.size())] : mx[static_cast<std::size_t>(i)];
    const double b = by.enumerated ? my[rng.below(my.size())] : my[static_cast<std::size_t>(i)];
    const double ratio = b / a;
    if (!std::isnan(ratio)) ratios.push_back(ratio);
  }
  if (ratios.empty()) {
    r.low = r.high = kNaN;
    return r;
  }
  r.low = quantile_in_place(ratios, tail);
  r.high = quantile_in_place(ratios, 1 - tail);
  return r;
}

}  // namespace moebench
