// paired_gate.cpp — see paired_gate.h.
#include "reports/paired_gate.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "vocab/stats.h"

namespace moebench {
namespace {

// The slowdown ratios and their logs, over the undisturbed pairs or all: one
// value per run pair (the mean log of its pairs), or per pair where the
// series names no run pairs.
struct Slowdowns {
  std::vector<double> ratios, logs;
  std::size_t dropped = 0;
};

Slowdowns slowdowns(const PairedSeries& s, bool with_disturbed) {
  std::vector<double> a, b;
  std::vector<std::size_t> at;  // the series' pair index of each pair judged
  for (std::size_t i = 0; i < std::min(s.a.size(), s.b.size()); ++i) {
    if (!with_disturbed && i < s.disturbed.size() && s.disturbed[i] != 0) continue;
    a.push_back(s.a[i]);
    b.push_back(s.b[i]);
    at.push_back(i);
  }
  const PairedRatios kept = paired_ratios(a, b);
  std::map<long long, std::pair<double, int>> unit;  // run pair → (Σ ln s, pairs)
  std::vector<long long> order;                       // run pairs in first-seen order
  Slowdowns out;
  out.dropped = kept.dropped;
  for (std::size_t k = 0; k < kept.ratios.size(); ++k) {
    const std::size_t i = at[kept.index[k]];
    // s = B's time / A's time: B / A for a time, A / B for a rate.
    const double ratio = s.direction == Direction::kLowerIsBetter ? kept.ratios[k] : 1 / kept.ratios[k];
    const long long key = i < s.run_pair.size() ? s.run_pair[i] : -1 - static_cast<long long>(i);
    auto [it, fresh] = unit.try_emplace(key, 0.0, 0);
    if (fresh) order.push_back(key);
    it->second.first += std::log(ratio);
    ++it->second.second;
  }
  for (long long key : order) {
    const double mean_log = unit[key].first / unit[key].second;
    out.logs.push_back(mean_log);
    out.ratios.push_back(std::exp(mean_log));
  }
  return out;
}

std::string pct(double ratio) { return fmt::format("{:+.1f} %", 100.0 * (ratio - 1.0)); }

// The fewest pairs whose exact two-sided signed-rank test can reach p < `level`.
std::size_t min_pairs(double level) {
  std::size_t n = 1;
  while (n < 64 && signed_rank_min_p_value(n) >= level) ++n;
  return n;
}

// The median of the finite values (NaN when there are none).
double finite_median(const std::vector<double>& v) {
  std::vector<double> f;
  for (double x : v) {
    if (std::isfinite(x)) f.push_back(x);
  }
  return f.empty() ? std::nan("") : median(f);
}

}  // namespace

const char* to_string(GateVerdict v) {
  switch (v) {
    case GateVerdict::kUnchanged: return "unchanged";
    case GateVerdict::kImproved: return "improved";
    case GateVerdict::kRegressed: return "regressed";
    case GateVerdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

std::vector<PairedJudgement> judge_paired(const std::vector<PairedSeries>& series, const GateOptions& o) {
  std::vector<PairedJudgement> out;
  std::vector<double> p_values, p_all;  // undisturbed pairs; every pair
  std::vector<Slowdowns> all_pairs;
  std::vector<SignedRankTest> all_test;  // every value, disturbed ones counted
  for (const PairedSeries& s : series) {
    PairedJudgement j;
    j.point_id = s.point_id;
    j.metric = s.metric;
    for (std::size_t i = 0; i < std::min(s.a.size(), s.b.size()); ++i) {
      j.disturbed += i < s.disturbed.size() && s.disturbed[i] != 0;
    }
    const Slowdowns quiet = slowdowns(s, false);
    all_pairs.push_back(slowdowns(s, true));
    j.pairs = quiet.ratios.size();
    j.dropped = quiet.dropped;
    j.slowdown = median_interval(quiet.ratios, o.confidence);
    j.test = wilcoxon_signed_rank(quiet.logs);
    p_values.push_back(j.test.p_value);
    all_test.push_back(wilcoxon_signed_rank(all_pairs.back().logs));
    p_all.push_back(all_test.back().p_value);
    out.push_back(std::move(j));
  }
  const std::vector<double> adjusted = holm_adjusted(p_values), adjusted_all = holm_adjusted(p_all);
  const double per_test = o.alpha / static_cast<double>(std::max<std::size_t>(series.size(), 1));
  const double slower = 1.0 + o.min_effect, faster = 1.0 / (1.0 + o.min_effect);
  for (std::size_t k = 0; k < out.size(); ++k) {
    PairedJudgement& j = out[k];
    j.p_adjusted = adjusted[k];
    const MedianInterval& m = j.slowdown;
    const bool significant = j.p_adjusted < o.alpha;
    if (significant && m.median >= slower && m.low > 1) {
      j.verdict = GateVerdict::kRegressed;
      j.why = fmt::format("B slower by {} (interval {} .. {}), adjusted p = {:.2g}", pct(m.median), pct(m.low),
                          pct(m.high), j.p_adjusted);
    } else if (significant && m.median <= faster && m.high < 1) {
      j.verdict = GateVerdict::kImproved;
      j.why = fmt::format("B faster: {} (interval {} .. {}), adjusted p = {:.2g}", pct(m.median), pct(m.low),
                          pct(m.high), j.p_adjusted);
    } else if (j.test.n == 0 && j.test.zeros > 0 && j.test.zeros >= min_pairs(per_test)) {
      j.verdict = GateVerdict::kUnchanged;
      j.why = fmt::format("every one of the {} pairs is equal", j.test.zeros);
    } else if (signed_rank_min_p_value(j.test.n) >= per_test && j.disturbed > 0 && j.test.n > 0 &&
               m.median < slower && signed_rank_min_p_value(all_test[k].n) < per_test &&
               !(adjusted_all[k] < o.alpha && finite_median(all_pairs[k].ratios) >= slower)) {
      // Too few quiet values to test, but they show no slowdown of the
      // minimum effect, and counting the disturbed ones too shows none
      // either: nothing a regression could rest on. (Quiet values that lean
      // slower stay inconclusive: a disturbed value must not mask them.)
      j.verdict = GateVerdict::kUnchanged;
      j.why = fmt::format("{} with the {} disturbed pair{} counted (adjusted p = {:.2g}); the {} undisturbed are too few "
                          "to test alone",
                          pct(finite_median(all_pairs[k].ratios)), j.disturbed, j.disturbed == 1 ? "" : "s",
                          adjusted_all[k], j.test.n);
    } else if (signed_rank_min_p_value(j.test.n) >= per_test) {
      j.verdict = GateVerdict::kInconclusive;
      j.why = fmt::format("{} undisturbed, unequal pair{} cannot reach p < {:.2g} ({} series share alpha {:.2g}){}",
                          j.test.n, j.test.n == 1 ? "" : "s", per_test, series.size(), o.alpha,
                          j.disturbed > 0 ? fmt::format("; {} disturbed pairs set aside", j.disturbed) : "");
    } else if (j.disturbed > 0 && adjusted_all[k] < o.alpha && finite_median(all_pairs[k].ratios) >= slower) {
      j.verdict = GateVerdict::kInconclusive;
      j.why = fmt::format("a slowdown of {} shows only with the {} disturbed pairs counted: run the gate again on a "
                          "quiet machine",
                          pct(finite_median(all_pairs[k].ratios)), j.disturbed);
    } else {
      j.verdict = GateVerdict::kUnchanged;
      j.why = !significant ? fmt::format("{} (adjusted p = {:.2g})", std::isnan(m.median) ? "no pairs" : pct(m.median),
                                         j.p_adjusted)
                           : fmt::format("{} is significant (adjusted p = {:.2g}) but {}", pct(m.median), j.p_adjusted,
                                         std::isnan(m.low) ? "has no interval at this confidence"
                                                           : "smaller than the minimum effect or its interval spans 1");
    }
  }
  return out;
}

std::vector<WorkChange> work_changes(const std::vector<WorkSeries>& series) {
  std::vector<WorkChange> out;
  auto sorted = [](std::vector<double> v) {
    // NaN sorts last and equals NaN here: a counter missing in both builds is no change.
    std::sort(v.begin(), v.end(), [](double x, double y) { return std::isnan(y) ? !std::isnan(x) : x < y; });
    return v;
  };
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (const WorkSeries& s : series) {
    const std::vector<double> a = sorted(s.a), b = sorted(s.b);
    std::size_t differ = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) differ += !same(a[i], b[i]);
    if (differ == 0) continue;
    WorkChange c{s.point_id, s.metric, finite_median(s.a), finite_median(s.b), ""};
    c.what = fmt::format("{} of {} samples differ; median {:.6g} → {:.6g}", differ, std::max(a.size(), b.size()),
                         c.a_median, c.b_median);
    out.push_back(std::move(c));
  }
  return out;
}

GateVerdict gate_verdict(const std::vector<PairedJudgement>& judged) {
  auto any = [&](GateVerdict v) {
    return std::any_of(judged.begin(), judged.end(), [v](const PairedJudgement& j) { return j.verdict == v; });
  };
  if (any(GateVerdict::kRegressed)) return GateVerdict::kRegressed;
  if (any(GateVerdict::kInconclusive)) return GateVerdict::kInconclusive;
  if (any(GateVerdict::kImproved)) return GateVerdict::kImproved;
  return GateVerdict::kUnchanged;
}

}  // namespace moebench
