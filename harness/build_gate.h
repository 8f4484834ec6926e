// build_gate.h — `moebench compare-builds`: a paired A/B gate between two
// moebench builds (issue 34). Both builds run the same points of one sweep
// in one window, point by point, in blocks ordered A B B A (the next block
// B A A B), each run a fresh `BIN run SWEEP --points K --repetitions R
// --warmup W` into its own directory; repetition i of a run is paired with
// repetition i of its neighbour of the other build, so drift between runs
// of the machine moves both sides of a pair. Each pair of neighbouring runs
// is one value of the test (its repetitions share one process's state), as
// reports/paired_gate.h judges them; counters that do not depend on time are
// compared exactly.
//
//   plan_build_gate   the sweep's points (this build's expansion)
//   run_build_gate    the runs, in ABBA order, then the verdicts
// A run that fails, or two builds whose rows for one point differ in point
// id or sweep digest (different configs or card versions), end the gate
// with an error that says which run and why; the runs' directories stay
// under OUT/runs for a look.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reports/paired_gate.h"
#include "vocab/expected.h"

namespace moebench {

struct BuildGateRequest {
  std::string base_bin, new_bin;  // A and B
  std::string sweep = "ci";       // file, or a configs/sweeps name both builds know
  std::string out_dir = "results/compare-builds";
  std::vector<std::string> drive_dirs;  // passed to both builds' runs (--drive-dir)
  std::vector<std::string> config_dirs;  // passed to both builds (--configs), as this build read them
  // ABBA blocks per point; each gives two run pairs, the values a series is
  // judged on (paired_gate.h). 0: gate_blocks_needed, plus one block of
  // slack: with no slack every run pair must agree, and one pair that
  // noise turns the other way hides the slowdown (a 3 % slowdown was caught
  // in 18 of 20 gates that way: docs/measurements/2026-12-05-gate-power-run-pairs.md).
  int blocks = 0;
  // 1: a run's repetitions share its state and count as one value, so more
  // of them buy little; more blocks buy independent values.
  int repetitions = 1;  // measured repetitions per run
  int warmup = 1;       // warm-up runs per run
  double timeout_s = 600;  // per run
  std::vector<std::size_t> points;  // 1-based; empty: every point of the sweep
  GateOptions gate;
};

struct GatePoint {
  std::size_t number = 0;  // 1-based, sweep order
  std::string id, label;
};

struct BuildGateReport {
  BuildGateRequest request;
  std::vector<GatePoint> points;
  std::vector<PairedJudgement> judged;
  std::vector<WorkChange> work;
  GateVerdict verdict = GateVerdict::kUnchanged;
  std::size_t runs = 0;  // `run` invocations made
};

// The fewest ABBA blocks (2 run pairs each) whose exact two-sided
// signed-rank test can reach p < alpha / series: 4 for 4 series, 6 for the
// ci sweep's 32 at alpha 0.05.
int gate_blocks_needed(std::size_t series, double alpha);
// The default: that, plus one block of slack.
int gate_default_blocks(std::size_t series, double alpha);

// The timed metrics (judged in pairs) and the work counters (compared exactly).
const std::vector<MetricRule>& gate_timed_metrics();
const std::vector<std::string>& gate_work_metrics();

using GateSayFn = std::function<void(const std::string& line)>;

Expected<BuildGateReport> run_build_gate(const BuildGateRequest& request, const std::vector<GatePoint>& points,
                                         const GateSayFn& say);

// Exit status of the gate: 0 unchanged or improved, 1 regressed, 3 inconclusive.
int gate_exit_code(GateVerdict v);

std::string gate_markdown(const BuildGateReport& report);
std::string gate_json(const BuildGateReport& report);

}  // namespace moebench
