// axis_effects.h — what a results table shows, in a few lines: for each axis
// a reader asks about (budget, drives, context, threads), the rows that
// differ in that axis alone, compared from its smallest value to its
// largest: decode's ratio (median over such groups, and its range) and the
// hit rate at both ends. Only `ok` rows with a decode rate take part; an
// axis with no such group says nothing. Pure: rows in, sentences out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/run_results.h"

namespace moebench {

struct AxisEffect {
  std::string axis;          // "budget", "drives", "context", "threads"
  std::size_t groups = 0;    // groups of rows that differ only in the axis
  double ratio_median = 0, ratio_min = 0, ratio_max = 0;  // decode, largest value ÷ smallest
  std::optional<double> hit_low, hit_high;  // median hit rate at the smallest and largest value
};

std::vector<AxisEffect> axis_effects(const RunResults& results);

// One line per effect: "budget: 3 groups of rows that differ only in it; …".
std::vector<std::string> axis_effect_lines(const RunResults& results);

}  // namespace moebench
