// rewrite_pacer.h — when a running sweep refreshes its results files.
//
// The journal is the durable, append-only record of a sweep; the results
// files are its compaction, refreshed as the sweep goes and written once
// more at its end. A refresh rewrites every row, so its cost grows with the
// rows: on a fixed period, past a few thousand rows, a sweep would spend its
// whole time rewriting (a 2 s period stalled a 10^4-point sweep near 7,300
// rows). So a refresh waits, after the previous one ends, at least
// `min_interval_s` and `cost_factor` times what that one took; and none is
// started whose rows would take longer than `max_refresh_s` to write (the
// last refresh's cost per row × the rows now): past that size the files are
// written at the end only, and the sweep runs at its points' own rate
// throughout. Pure: the caller passes the clock's times and the row count.
#pragma once

#include <algorithm>
#include <cstddef>

namespace moebench {

class RewritePacer {
 public:
  static constexpr std::size_t kMinRowsToProject = 1000;

  explicit RewritePacer(double min_interval_s = 2.0, double cost_factor = 10.0, double max_refresh_s = 5.0)
      : min_interval_s_(min_interval_s), cost_factor_(cost_factor), max_refresh_s_(max_refresh_s) {}

  // Whether a refresh of `rows` rows is due at `now_s` (the first is due at once).
  bool due(double now_s, std::size_t rows) const { return now_s >= next_s_ && !too_big(rows); }

  // Whether `rows` rows are past the size refreshed mid-run.
  bool too_big(std::size_t rows) const { return per_row_s_ * static_cast<double>(rows) > max_refresh_s_; }

  // A refresh of `rows` rows ran from `start_s` to `end_s`.
  void wrote(double start_s, double end_s, std::size_t rows) {
    const double took = std::max(0.0, end_s - start_s);
    // A small refresh is mostly fixed cost (fsyncs, renames): projecting it
    // per row would stop the refreshes at a few hundred rows.
    if (rows >= kMinRowsToProject) per_row_s_ = took / static_cast<double>(rows);
    next_s_ = end_s + std::max(min_interval_s_, cost_factor_ * took);
  }

 private:
  double min_interval_s_, cost_factor_, max_refresh_s_;
  double next_s_ = -1e300;
  double per_row_s_ = 0;
};

}  // namespace moebench
