// read_pairs.cpp — see read_pairs.h.
#include "probes/read_pairs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace moebench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// (max − min) / median, 0 with fewer than two samples or a NaN result.
double spread_of(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const double r = relative_range(xs);
  return std::isfinite(r) ? r : 0;
}

}  // namespace

PairRun run_interleaved_pairs(int pairs, const PairRunFn& builtin, const PairRunFn& fio) {
  PairRun out;
  const int n = std::max(1, pairs);
  auto run = [&out](const PairRunFn& fn, PairSide side, int pair, std::optional<double>& slot) {
    out.order.push_back(side);
    Expected<double> r = fn(pair);
    if (r) {
      slot = *r;
    } else {
      out.errors.push_back({pair, side, r.error().message});
    }
  };
  for (int i = 0; i < n; ++i) {
    PairRecord rec;
    rec.builtin_first = !fio || i % 2 == 0;
    if (rec.builtin_first) {
      run(builtin, PairSide::kBuiltin, i, rec.builtin_bytes_s);
      if (fio) run(fio, PairSide::kFio, i, rec.fio_bytes_s);
    } else {
      run(fio, PairSide::kFio, i, rec.fio_bytes_s);
      run(builtin, PairSide::kBuiltin, i, rec.builtin_bytes_s);
    }
    out.pairs.push_back(rec);
  }
  return out;
}

PairedCellStats summarize_pairs(const std::vector<PairRecord>& pairs) {
  PairedCellStats s;
  std::vector<double> paired_builtin, paired_fio;  // NaN where a side is missing
  for (const PairRecord& p : pairs) {
    if (p.builtin_bytes_s) s.builtin.push_back(*p.builtin_bytes_s);
    if (p.fio_bytes_s) s.fio.push_back(*p.fio_bytes_s);
    paired_builtin.push_back(p.builtin_bytes_s.value_or(kNaN));
    paired_fio.push_back(p.fio_bytes_s.value_or(kNaN));
  }
  s.ratio = ratios(paired_builtin, paired_fio);
  s.builtin_summary = summarize(s.builtin);
  s.fio_summary = summarize(s.fio);
  s.ratio_summary = summarize(s.ratio);
  s.relative_range = std::max(spread_of(s.builtin), spread_of(s.fio));
  return s;
}

bool cell_is_noisy(const PairedCellStats& stats, double threshold) { return stats.relative_range > threshold; }

std::size_t index_nearest_median(const std::vector<double>& xs) {
  if (xs.empty()) return 0;
  const double m = median(xs);
  std::size_t best = 0;
  for (std::size_t i = 1; i < xs.size(); ++i) {
    if (std::fabs(xs[i] - m) < std::fabs(xs[best] - m)) best = i;
  }
  return best;
}

NoiseVerdict judge_drive_noise(const std::vector<double>& cell_relative_ranges, double threshold) {
  NoiseVerdict v;
  for (std::size_t i = 0; i < cell_relative_ranges.size(); ++i) {
    const double r = std::isfinite(cell_relative_ranges[i]) ? cell_relative_ranges[i] : 0;
    if (r > v.worst_relative_range) {
      v.worst_relative_range = r;
      v.worst_cell = i;
    }
  }
  v.noisy = v.worst_relative_range > threshold;
  return v;
}

}  // namespace moebench
