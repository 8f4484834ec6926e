// read_pairs.h — one storage cell of the probe as repeated, interleaved
// built-in/fio pairs, and the pure statistics and `noisy` decision over them.
//
// Why: on a virtual disk whose throughput swings minute to minute, one
// built-in run beside one fio run cannot tell a slow read path from a noisy
// disk (two consecutive quick probes here gave built-in/fio ratios of
// 1.22–2.54, then 0.25–1.00, for the same cells). So each cell runs N pairs
// and alternates which side goes first — pair 0: built-in then fio, pair 1:
// fio then built-in, … — so that a drift of the disk during the cell hits
// both sides alike, and each per-pair ratio compares two runs made back to
// back. A cell reports the median of each side's samples with its min–max,
// and the median of the per-pair ratios with their range.
//
// The schedule takes the two runs as callables: tests drive it with fakes
// and check the order and the number of calls, never a time.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/stats.h"

namespace moebench {

// A cell's repeats disagree when (max − min) / median of its built-in
// samples, or of its fio samples, exceeds this; a drive is `noisy` when any
// of its cells is. 0.25 because a healthy local drive repeats a short
// O_DIRECT cell within a few percent (fio's own run-to-run spread on NVMe
// is typically under 5–10 %), so 25 % leaves room for sub-second runs and
// three samples while still catching the ×2 swings of a shared virtual disk,
// where the median curve is one draw of a moving target.
constexpr double kNoisyRelativeRange = 0.25;

// Pairs per cell. Quick: 3, the fewest whose median ignores one outlier.
// Full: 5, so the range is not just two extremes.
constexpr int kQuickPairs = 3;
constexpr int kFullPairs = 5;

enum class PairSide { kBuiltin, kFio };

// One run of one side, given the pair index: its bytes/s, or why it failed.
using PairRunFn = std::function<Expected<double>(int pair)>;

struct PairRecord {
  bool builtin_first = true;
  std::optional<double> builtin_bytes_s;  // absent: the run failed
  std::optional<double> fio_bytes_s;      // absent: the run failed, or fio was not run
};

struct PairError {
  int pair = 0;
  PairSide side = PairSide::kBuiltin;
  std::string message;
};

struct PairRun {
  std::vector<PairSide> order;     // every call, in the order it was made
  std::vector<PairRecord> pairs;
  std::vector<PairError> errors;   // one per failed run
};

// Runs `pairs` pairs (at least one); pair i runs the built-in side first
// when i is even and fio first when i is odd. An empty `fio` runs the
// built-in side alone, `pairs` times. A failed run is recorded in `errors`
// and the schedule goes on.
PairRun run_interleaved_pairs(int pairs, const PairRunFn& builtin, const PairRunFn& fio);

struct PairedCellStats {
  std::vector<double> builtin, fio;  // samples of the runs that succeeded, in run order
  std::vector<double> ratio;         // built-in ÷ fio, for each pair where both succeeded
  Summary builtin_summary, fio_summary, ratio_summary;  // n = 0 (NaN statistics) when empty
  // The larger of the built-in and the fio (max − min) / median; 0 with
  // fewer than two samples on both sides (nothing to disagree).
  double relative_range = 0;
};

PairedCellStats summarize_pairs(const std::vector<PairRecord>& pairs);

// True when the cell's repeats disagree by more than `threshold`.
bool cell_is_noisy(const PairedCellStats& stats, double threshold = kNoisyRelativeRange);

// Index of the sample nearest the median (ties: the first): the run whose
// IOPS and latencies stand for the cell. 0 for empty input.
std::size_t index_nearest_median(const std::vector<double>& xs);

struct NoiseVerdict {
  bool noisy = false;
  double worst_relative_range = 0;
  std::size_t worst_cell = 0;  // index into the ranges given
};

// A drive over its cells' relative ranges (NaN counts as 0): noisy when the
// worst exceeds `threshold`.
NoiseVerdict judge_drive_noise(const std::vector<double>& cell_relative_ranges,
                               double threshold = kNoisyRelativeRange);

}  // namespace moebench
