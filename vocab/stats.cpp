// stats.cpp — see stats.h.
#include "vocab/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace moebench {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double quantile_of_sorted(const std::vector<double>& xs, double p) {
  if (xs.empty()) return kNaN;
  const double h = (static_cast<double>(xs.size()) - 1.0) * std::clamp(p, 0.0, 1.0);
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, xs.size() - 1);
  return xs[lo] + (h - static_cast<double>(lo)) * (xs[hi] - xs[lo]);
}

double quantile(std::vector<double> xs, double p) {
  std::sort(xs.begin(), xs.end());
  return quantile_of_sorted(xs, p);
}

double quantile_in_place(std::vector<double>& xs, double p) {
  // quantile(xs, p) without the sort: the two order statistics it
  // interpolates, O(n); `xs` is reordered.
  if (xs.empty()) return kNaN;
  const double h = (static_cast<double>(xs.size()) - 1.0) * std::clamp(p, 0.0, 1.0);
  const std::size_t k = static_cast<std::size_t>(std::floor(h));
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
  const double lo = xs[k];
  if (k + 1 >= xs.size()) return lo;
  const double hi = *std::min_element(xs.begin() + static_cast<std::ptrdiff_t>(k) + 1, xs.end());
  return lo + (h - static_cast<double>(k)) * (hi - lo);
}

double median(std::vector<double> xs) { return quantile_in_place(xs, 0.5); }

double mean(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  return std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
}

double stddev(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  if (xs.size() == 1) return 0.0;
  const double m = mean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

double mad(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  const double m = median(xs);
  std::vector<double> dev;
  dev.reserve(xs.size());
  for (double x : xs) dev.push_back(std::fabs(x - m));
  return median(std::move(dev));
}

double relative_range(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  const double m = median(xs);
  if (m == 0 || !std::isfinite(m)) return kNaN;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  return (*hi - *lo) / std::fabs(m);
}

std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out;
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(a[i]) && std::isfinite(b[i]) && b[i] != 0) out.push_back(a[i] / b[i]);
  }
  return out;
}

double Summary::rel_mad_pct() const {
  if (n == 0 || median == 0) return kNaN;
  return 100.0 * mad / std::fabs(median);
}

Summary summarize(const std::vector<double>& xs) {
  Summary s;
  s.n = xs.size();
  if (xs.empty()) {
    s.median = s.min = s.max = s.mean = s.stddev = s.p10 = s.p90 = s.mad = kNaN;
    return s;
  }
  s.median = median(xs);
  s.min = *std::min_element(xs.begin(), xs.end());
  s.max = *std::max_element(xs.begin(), xs.end());
  s.mean = mean(xs);
  s.stddev = stddev(xs);
  s.p10 = quantile(xs, 0.10);
  s.p90 = quantile(xs, 0.90);
  s.mad = mad(xs);
  return s;
}

Json summary_to_json(const Summary& s) {
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  return Json{{"n", s.n},           {"median", num(s.median)}, {"min", num(s.min)},
              {"max", num(s.max)},  {"mean", num(s.mean)},     {"stddev", num(s.stddev)},
              {"p10", num(s.p10)},  {"p90", num(s.p90)},       {"mad", num(s.mad)}};
}

}  // namespace moebench
