// paired_gate.h — the verdicts of a paired A/B gate (`compare-builds`,
// issue 34) as pure functions: both builds ran the same points in one
// window, repetition by repetition, so each timed metric of each point
// comes as pairs (a_i, b_i); counters that do not depend on time come as
// samples of each build.
//
// A timed series is judged on its slowdown ratios s_i (b/a for a metric
// where lower is better, a/b where higher is better: s > 1 means B is
// slower), over the pairs whose repetitions were not disturbed (other work
// on the machine: see the per-repetition marks), one value per run pair
// (exp of the mean ln s of its pairs) where the series names its run pairs:
// repetitions of one process are not independent samples, and testing them
// as if they were raised false alarms (docs/measurements/2026-12-05-gate-power.md).
// "Pairs" below are those values:
// - inconclusive: the undisturbed pairs are too few for any outcome to be
//   significant after Holm's adjustment (the exact two-sided signed-rank
//   minimum 2/2^n is at least alpha/m for m series and n unequal pairs;
//   enough pairs all exactly equal — a deterministic metric — is unchanged)
//   and their median is a slowdown of the minimum effect, or counting the
//   disturbed ones as well cannot be tested or shows a slowdown (quiet values
//   with no such slowdown and no slowdown with every value counted are
//   unchanged: only a regression needs quiet evidence), or the slowdown is
//   significant only when the disturbed pairs are counted;
// - regressed: the two-sided Wilcoxon signed-rank test of ln s gives a
//   Holm-adjusted p < alpha across every timed series of the gate (the
//   family-wise false-alarm rate stays at most alpha), the median slowdown
//   is at least 1 + min_effect, and the order-statistic interval of the
//   median (confidence 0.95 by default) lies wholly above 1;
// - improved: the same with the slowdown at most 1 / (1 + min_effect) and
//   the interval wholly below 1;
// - unchanged: otherwise; `why` says which condition held it back.
// Work counters (bytes read per token, hit rate, weight bytes touched)
// compare exactly: any difference between the builds' samples is a change
// of work, reported apart from speed.
#pragma once

#include <string>
#include <vector>

#include "reports/compare.h"
#include "reports/paired_tests.h"

namespace moebench {

struct GateOptions {
  double alpha = 0.05;       // family-wise, over every timed series
  double min_effect = 0.02;  // smallest slowdown worth failing for (2 %)
  double confidence = 0.95;  // of the median slowdown's interval
};

enum class GateVerdict { kUnchanged, kImproved, kRegressed, kInconclusive };
const char* to_string(GateVerdict v);

struct PairedSeries {
  std::string point_id;
  std::string metric;
  Direction direction = Direction::kHigherIsBetter;
  std::vector<double> a, b;     // pair i: repetition i of each build
  std::vector<char> disturbed;  // per pair, nonzero: either repetition disturbed (empty: none)
  // Per pair, the pair of runs it came from (empty: every pair its own).
  // Repetitions of one run share that process's state (memory placement,
  // clocks, what the disk cached), so its pairs are not independent: a run
  // pair is judged as one value, the mean of its pairs' log slowdowns.
  std::vector<int> run_pair;
};

struct PairedJudgement {
  std::string point_id, metric;
  std::size_t pairs = 0;      // undisturbed values judged: run pairs where the series names them, else pairs
  std::size_t disturbed = 0;  // pairs set aside as disturbed
  std::size_t dropped = 0;    // pairs with a value not finite and > 0
  MedianInterval slowdown;    // of s = B's time / A's time (> 1: B slower)
  SignedRankTest test;        // on ln s of the undisturbed pairs
  double p_adjusted = 1;      // Holm, over every series judged together
  GateVerdict verdict = GateVerdict::kUnchanged;
  std::string why;
};

// Every series judged together (Holm's adjustment spans them all).
std::vector<PairedJudgement> judge_paired(const std::vector<PairedSeries>& series, const GateOptions& options = {});

struct WorkSeries {
  std::string point_id, metric;
  std::vector<double> a, b;  // each build's samples, any order
};
struct WorkChange {
  std::string point_id, metric;
  double a_median = 0, b_median = 0;
  std::string what;  // "3 of 8 samples differ; median 1.25 MiB → 1.5 MiB" or similar
};
// The series whose two builds' samples differ (as multisets; NaN equals NaN).
std::vector<WorkChange> work_changes(const std::vector<WorkSeries>& series);

// The gate's answer: regressed if any series regressed, else inconclusive if
// any is, else improved if any improved, else unchanged. Changes of work are
// reported beside it and do not change it.
GateVerdict gate_verdict(const std::vector<PairedJudgement>& judged);

}  // namespace moebench
