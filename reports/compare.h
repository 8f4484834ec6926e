// compare.h — `moebench compare`: two results files in, a regression
// verdict per row and metric out, as pure functions over RunResults.
//
// Rows are matched by point id (Point::id, the hash of the canonical point
// key), so the same point of two runs meets itself whatever the sweep around
// it. Before anything is judged the machines are compared (the rows'
// `machine` and, through run_id, the environments' host, CPU, logical CPUs
// and memory): results of different machines are refused unless
// CompareOptions::cross_machine, and the differing fields are named.
//
// Verdict of one metric of one matched ok row (see compared_metrics() for
// the metrics and their directions):
// - insufficient: even complete separation of the samples could not reach
//   p < alpha at these sample sizes (two-sided exact U test: 2/C(n+m, n)),
//   or a side has no samples of the metric; never a verdict from too little;
// - regressed / improved: the two-sided Mann-Whitney U test on the raw
//   repetition samples gives p < alpha, the medians moved in the same
//   direction as the ranks, and the relative change of the medians is at
//   least `threshold` in the bad / good direction, and at least an absolute
//   floor for three metrics (1 percentage point of expert_hit_rate, 5 of
//   io_wait_frac, 16 MiB of peak_rss_bytes: below these the changes are the
//   machine's and the allocator's noise, not the code's);
// - unchanged: otherwise (the reason says which condition failed).
// Rows: a status change is judged by rank (ok < infeasible < invalid <
// failed: "ok → failed" is a regression); a row regresses when its status or
// any metric does; rows present in one file only are listed, not judged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/file_io.h"
#include "vocab/run_results.h"
#include "reports/stats_tests.h"

namespace moebench {

enum class Direction { kHigherIsBetter, kLowerIsBetter };

struct MetricRule {
  std::string name;        // a metric:: name with per-repetition samples
  Direction direction;
  double min_abs_change;   // an absolute floor besides the relative threshold (0 = none)
};

// The judged metrics: decode_tok_s, prefill_tok_s, expert_hit_rate (higher
// is better); ttft_s, read_bytes_per_token, io_wait_frac, peak_rss_bytes
// (lower is better). itl_p50_s / itl_p99_s are pooled over all repetitions
// (one figure per row, no per-repetition samples), so no test applies to
// them; decode_tok_s covers the same timestamps.
const std::vector<MetricRule>& compared_metrics();

// kInconclusive: regressed only when the repetitions disturbed by other
// work on the machine (the rows' "disturbed" samples) are counted; without
// them it is not: never a regression from disturbed repetitions alone.
enum class Verdict { kImproved, kRegressed, kUnchanged, kInsufficient, kInconclusive };
const char* to_string(Verdict v);

struct CompareOptions {
  double threshold = 0.05;  // minimum relative change of the medians
  double alpha = 0.01;      // significance level of the two-sided U test
  bool cross_machine = false;
  double confidence = 0.95; // bootstrap interval of the ratio of medians
  int resamples = 2000;
  std::uint64_t seed = 1;
};

struct MetricComparison {
  std::string metric;
  Direction direction = Direction::kHigherIsBetter;
  std::size_t n_base = 0, n_new = 0;
  double median_base = 0, median_new = 0;
  double rel_change = 0;     // (new − base) / |base|; ±inf when base is 0
  UTest test;                // x = new, y = base
  RatioInterval ratio_ci;    // of median(new) / median(base)
  Verdict verdict = Verdict::kUnchanged;
  std::string reason;        // why this verdict, in words
};

// One metric's samples judged (both vectors: per-repetition values; non-finite
// values are dropped).
MetricComparison compare_metric(const MetricRule& rule, const std::vector<double>& base,
                                const std::vector<double>& now, const CompareOptions& options);

// A regressed metric of two rows checked again on the repetitions not
// marked disturbed: when it does not regress there, it is inconclusive.
void recheck_without_disturbed(MetricComparison& mc, const MetricRule& rule, const ResultRow& base,
                               const ResultRow& now, const CompareOptions& options);

struct RowComparison {
  std::string point_id;
  Point point;
  std::string label;         // row_label(point)
  RowStatus status_base = RowStatus::kOk, status_new = RowStatus::kOk;
  std::string reason_base, reason_new;
  Verdict verdict = Verdict::kUnchanged;
  std::string status_change;  // "ok → failed: <reason>", or "" when the status held
  std::vector<MetricComparison> metrics;
};

struct MachineDifference {
  std::string field;         // machine | hostname | cpu_model | logical_cpus | memory_total
  std::string base, now;
};

struct SideInfo {
  std::string path;
  std::string sweep, digest;
  std::string summary;       // "host vm · Intel Xeon (2 logical CPUs) · moebench 0.1.0 (abc, Release)"
  std::size_t rows = 0;
};

struct Comparison {
  SideInfo base, now;
  CompareOptions options;
  std::vector<MachineDifference> machine_differences;  // non-empty only with cross_machine
  std::vector<std::string> notes;                      // provenance/build/sweep differences
  std::vector<RowComparison> rows;                     // matched, in base order
  std::vector<std::string> only_in_base, only_in_new;  // labels
  std::size_t rows_regressed = 0, rows_improved = 0, rows_unchanged = 0, rows_insufficient = 0, rows_inconclusive = 0;
  std::size_t metrics_regressed = 0, metrics_improved = 0, metrics_unchanged = 0, metrics_insufficient = 0,
              metrics_inconclusive = 0;
  std::size_t disturbed_repetitions = 0;  // over both files' compared rows
  std::size_t status_regressed = 0, status_improved = 0;  // rows whose status changed
  // Metrics the base row measured and the new row (still ok) does not hold:
  // missing is not unchanged, and fails the gate as a regression does.
  std::size_t metrics_missing = 0;
  std::vector<std::string> missing;  // "label: metric", in row order

  bool regressed() const { return rows_regressed > 0; }
  bool inconclusive() const { return rows_inconclusive > 0; }
  bool incomplete() const { return metrics_missing > 0; }
};

// What the status changes were: "ok → failed ×4 (first: LABEL: ok → failed:
// REASON)"; "" when no row changed status. At most `max_listed` kinds.
std::string status_changes_phrase(const Comparison& c, std::size_t max_listed = 3);

// "streaming tiny-moe q4_0 budget=… drives=… ctx=0" plus every axis that is
// not at its default (prompt, gen, threads, routing, policy, prefetch).
std::string row_label(const Point& p);

// Which machine fields differ between the rows both files hold (each row's
// environment found through its run_id). Empty when they agree.
std::vector<MachineDifference> machine_differences(const RunResults& base, const RunResults& now);

// The whole comparison. Errors: different machines without cross_machine
// (naming every differing field and both values), no point in common,
// options out of range. `base_path` / `new_path` label the sides.
Expected<Comparison> compare_results(const RunResults& base, const RunResults& now, const CompareOptions& options,
                                     const std::string& base_path, const std::string& new_path);

std::string comparison_to_markdown(const Comparison& c);
void comparison_to_markdown_to(const Comparison& c, const TextSink& emit);  // the same, piece by piece
std::string comparison_to_json(const Comparison& c);

}  // namespace moebench
