// rewrite_pacer_test.cpp — a sweep whose results files get dearer to rewrite
// with every row still runs at its points' own rate: simulated time, counted
// refreshes and points per window, no wall clock.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "harness/rewrite_pacer.h"

using namespace moebench;

namespace {

struct Simulated {
  long refreshes = 0, last_refresh_rows = 0;
  double refresh_s = 0, longest_refresh_s = 0, end_s = 0;
  std::vector<double> finished_at;  // each point's end
};

// `n` points of `point_s` each; a refresh of r rows takes `fixed_s` + r × `per_row_s`.
Simulated simulate(long n, double point_s, double per_row_s, RewritePacer pacer, double fixed_s = 0) {
  Simulated s;
  double now = 0;
  for (long rows = 1; rows <= n; ++rows) {
    now += point_s;
    s.finished_at.push_back(now);
    if (!pacer.due(now, static_cast<std::size_t>(rows))) continue;
    const double took = fixed_s + static_cast<double>(rows) * per_row_s;
    pacer.wrote(now, now + took, static_cast<std::size_t>(rows));
    now += took;
    ++s.refreshes;
    s.refresh_s += took;
    s.longest_refresh_s = std::max(s.longest_refresh_s, took);
    s.last_refresh_rows = rows;
  }
  s.end_s = now;
  return s;
}

// The fewest points finished in any whole `window_s` of the run.
long fewest_points_per_window(const Simulated& s, double window_s) {
  long fewest = -1;
  for (double t = 0; t + window_s <= s.end_s; t += window_s) {
    const auto lo = std::lower_bound(s.finished_at.begin(), s.finished_at.end(), t);
    const auto hi = std::lower_bound(s.finished_at.begin(), s.finished_at.end(), t + window_s);
    const long n = static_cast<long>(hi - lo);
    fewest = fewest < 0 ? n : std::min(fewest, n);
  }
  return fewest;
}

}  // namespace

TEST_CASE("a million-point sweep keeps its points' rate in every minute", "[runner]") {
  // Null points at ~600/s; a refresh costs 270 µs per row (7,300 rows took
  // 2 s). A fixed 2 s period spends nearly all of such a run rewriting.
  const Simulated s = simulate(1000000, 1.0 / 600, 270e-6, RewritePacer());
  CHECK(s.refreshes >= 3);                     // small sizes are still refreshed
  CHECK(s.longest_refresh_s <= 5.0);           // none past the size cap
  CHECK(s.refresh_s <= 0.02 * s.end_s);        // ≤ 2 % of the run
  CHECK(fewest_points_per_window(s, 60) >= 100 * 60);  // ≥ 100 points/s in every minute
}

TEST_CASE("cheap refreshes come at the minimum interval", "[runner]") {
  const Simulated s = simulate(10000, 1e-3, 1e-9, RewritePacer(2.0, 10.0, 5.0));
  CHECK(s.refreshes == 5);  // at t ≈ 0, 2, 4, 6, 8 s of a 10 s run
}

TEST_CASE("the wait is measured from the end of the refresh", "[runner]") {
  RewritePacer p(2.0, 10.0, 100.0);
  CHECK(p.due(0, 1));
  p.wrote(0.0, 3.0, 1000);  // took 3 s: wait 30 s from its end
  CHECK_FALSE(p.due(32.9, 1000));
  CHECK(p.due(33.0, 1000));
  CHECK(p.due(33.0, 33000));      // projected 99 s: under the cap
  CHECK_FALSE(p.due(33.0, 34000));  // projected 102 s: written at the end only
  CHECK(p.too_big(34000));
}

TEST_CASE("a refresh's fixed cost is not projected per row", "[runner]") {
  // 20 ms of fsyncs and renames per refresh, 2 µs per row: the first
  // refresh (1 row) must not make 250 rows look like a 5 s refresh.
  const Simulated s = simulate(200000, 1e-3, 2e-6, RewritePacer(), 0.02);
  CHECK(s.refreshes > 50);
  CHECK(s.last_refresh_rows > 150000);  // still refreshed near the end: 0.4 s a refresh
  CHECK(s.longest_refresh_s <= 5.0);
}
