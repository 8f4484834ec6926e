// step_detect.cpp — see step_detect.h for the method. The t distribution's
// tail comes from the regularized incomplete beta function (continued
// fraction, modified Lentz), exact for any (also fractional) degrees of freedom.
#include "reports/step_detect.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace moebench {
namespace {

constexpr double kMadToSigma = 1.4826;  // σ = 1.4826 · MAD for a normal sample

struct EntryObs {
  double n = 0, mean = 0, var = 0;
};

// One entry's observations (step 1 of the method).
EntryObs entry_obs(const SeriesEntry& e) {
  EntryObs o;
  std::size_t k = 0;
  double sum = 0;
  for (double x : e.samples) {
    if (std::isfinite(x)) {
      sum += x;
      ++k;
    }
  }
  if (k > 0) {
    o.n = static_cast<double>(k);
    o.mean = sum / o.n;
    if (k >= 2) {
      double ss = 0;
      for (double x : e.samples) {
        if (std::isfinite(x)) ss += (x - o.mean) * (x - o.mean);
      }
      o.var = ss / (o.n - 1);
    }
    return o;
  }
  if (!std::isfinite(e.median)) return o;  // n = 0: contributes nothing
  o.mean = e.median;
  if (e.n >= 2 && std::isfinite(e.mad)) {
    o.n = static_cast<double>(e.n);
    const double sigma = kMadToSigma * e.mad;
    o.var = sigma * sigma;
  } else {
    o.n = 1;  // only the median is known
  }
  return o;
}

double continued_fraction_beta(double a, double b, double x) {
  constexpr int kMaxIterations = 500;
  constexpr double kEps = 1e-15;
  constexpr double kTiny = 1e-300;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

double mean_of_medians(const std::vector<SeriesEntry>& s, std::size_t begin, std::size_t end) {
  double sum = 0;
  double k = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (std::isfinite(s[i].median)) {
      sum += s[i].median;
      ++k;
    }
  }
  return k > 0 ? sum / k : 0;
}

double least_squares_gain(const std::vector<SeriesEntry>& s, std::size_t a, std::size_t split, std::size_t b) {
  const double na = static_cast<double>(split - a), nb = static_cast<double>(b - split);
  const double d = mean_of_medians(s, a, split) - mean_of_medians(s, split, b);
  return na * nb / (na + nb) * d * d;
}

void segment(const std::vector<SeriesEntry>& s, std::size_t lo, std::size_t hi, const StepOptions& opt,
             std::size_t min_seg, std::vector<std::size_t>& changes) {
  if (hi - lo < 2 * min_seg) return;
  std::size_t best = 0;
  double best_gain = -1;
  for (std::size_t k = lo + min_seg; k + min_seg <= hi; ++k) {
    if (!test_change(s, lo, k, hi, opt, nullptr)) continue;
    const double gain = least_squares_gain(s, lo, k, hi);
    if (gain > best_gain) {
      best_gain = gain;
      best = k;
    }
  }
  if (best_gain < 0) return;
  changes.push_back(best);
  segment(s, lo, best, opt, min_seg, changes);
  segment(s, best, hi, opt, min_seg, changes);
}

}  // namespace

double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * continued_fraction_beta(a, b, x) / a;
  return 1 - front * continued_fraction_beta(b, a, 1 - x) / b;
}

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return 1;
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / (df + t * t), df / 2, 0.5);
}

WindowStats window_stats(const std::vector<SeriesEntry>& s, std::size_t begin, std::size_t end) {
  WindowStats w;
  std::vector<EntryObs> obs;
  double weighted = 0;
  for (std::size_t i = begin; i < end && i < s.size(); ++i) {
    EntryObs o = entry_obs(s[i]);
    if (o.n <= 0) continue;
    w.n += o.n;
    weighted += o.n * o.mean;
    obs.push_back(o);
  }
  if (w.n <= 0) return w;
  w.mean = weighted / w.n;
  if (w.n >= 2) {
    double ss = 0;
    for (const EntryObs& o : obs) ss += (o.n - 1) * o.var + o.n * (o.mean - w.mean) * (o.mean - w.mean);
    w.var = ss / (w.n - 1);
  }
  return w;
}

TTest two_sample_t(const WindowStats& a, const WindowStats& b) {
  TTest r;
  if (a.n <= 0 || b.n <= 0) return r;
  r.df = a.n + b.n - 2;
  if (r.df < 1) return r;  // one observation on each side: no noise estimate at all
  r.testable = true;
  const double diff = b.mean - a.mean;
  const double pooled_var = ((a.n - 1) * a.var + (b.n - 1) * b.var) / r.df;
  const double se2 = pooled_var * (1 / a.n + 1 / b.n);
  if (!(se2 > 0)) {
    r.t = diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
    r.p = diff == 0 ? 1 : 0;
    return r;
  }
  r.t = diff / std::sqrt(se2);
  r.p = student_t_two_sided_p(r.t, r.df);
  return r;
}

double window_level(const std::vector<SeriesEntry>& s, std::size_t begin, std::size_t end) {
  std::vector<double> m;
  for (std::size_t i = begin; i < end && i < s.size(); ++i) {
    if (std::isfinite(s[i].median)) m.push_back(s[i].median);
  }
  if (m.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(m.begin(), m.end());
  const std::size_t h = m.size() / 2;
  return m.size() % 2 == 1 ? m[h] : (m[h - 1] + m[h]) / 2;
}

bool test_change(const std::vector<SeriesEntry>& s, std::size_t a_begin, std::size_t split, std::size_t b_end,
                 const StepOptions& opt, LevelStep* out) {
  const double before = window_level(s, a_begin, split);
  const double after = window_level(s, split, b_end);
  if (!std::isfinite(before) || !std::isfinite(after)) return false;
  double rel = 0;
  if (before != 0) {
    rel = (after - before) / std::fabs(before);
  } else if (after != 0) {
    rel = std::copysign(std::numeric_limits<double>::infinity(), after);
  }
  if (!(std::fabs(rel) >= opt.threshold) || rel == 0) return false;
  const TTest t = two_sample_t(window_stats(s, a_begin, split), window_stats(s, split, b_end));
  if (!t.testable || !(t.p < opt.alpha)) return false;
  // The test and the levels must agree on the direction (a skewed window can
  // move its mean one way and its median the other): otherwise not clear.
  if ((t.t > 0) != (rel > 0)) return false;
  if (out != nullptr) {
    out->index = split;
    out->before_begin = a_begin;
    out->after_end = b_end;
    out->before = before;
    out->after = after;
    out->rel_change = rel;
    out->p_value = t.p;
    out->t = t.t;
    out->df = t.df;
  }
  return true;
}

std::vector<LevelStep> detect_steps(const std::vector<SeriesEntry>& series, const StepOptions& opt) {
  const std::size_t min_seg = std::max<std::size_t>(1, opt.min_segment);
  std::vector<std::size_t> changes;
  segment(series, 0, series.size(), opt, min_seg, changes);
  std::sort(changes.begin(), changes.end());
  // Pruning: re-test each change between its final neighbours.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (std::size_t j = 0; j < changes.size(); ++j) {
      const std::size_t a = j == 0 ? 0 : changes[j - 1];
      const std::size_t b = j + 1 < changes.size() ? changes[j + 1] : series.size();
      if (!test_change(series, a, changes[j], b, opt, nullptr)) {
        changes.erase(changes.begin() + static_cast<std::ptrdiff_t>(j));
        dropped = true;
        break;
      }
    }
  }
  std::vector<LevelStep> steps;
  for (std::size_t j = 0; j < changes.size(); ++j) {
    const std::size_t a = j == 0 ? 0 : changes[j - 1];
    const std::size_t b = j + 1 < changes.size() ? changes[j + 1] : series.size();
    LevelStep st;
    if (test_change(series, a, changes[j], b, opt, &st)) steps.push_back(st);
  }
  return steps;
}

}  // namespace moebench
