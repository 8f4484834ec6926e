// stats.h — summary statistics over repetition samples, as pure functions.
//
// Conventions (stated so that figures can be reproduced by hand):
// - quantile(p) uses linear interpolation between closest ranks (Hyndman &
//   Fan type 7, the default of R and NumPy): h = (n-1)p.
// - stddev is the sample standard deviation (divides by n-1); 0 for n = 1.
// - mad is the raw median absolute deviation from the median (not scaled by
//   1.4826); rel_mad_pct = 100 · mad / |median|.
// - relative_range = (max − min) / |median|: how far repeats of one
//   measurement disagree, as a fraction of their typical value.
// Empty input gives n = 0 and NaN for every statistic.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "vocab/json_reader.h"

namespace moebench {

double median(std::vector<double> xs);
double quantile(std::vector<double> xs, double p);
// The same of values already sorted ascending (no copy, no sort).
double quantile_of_sorted(const std::vector<double>& xs, double p);
// The same in O(n), reordering `xs` (no copy).
double quantile_in_place(std::vector<double>& xs, double p);
double mean(const std::vector<double>& xs);
double stddev(const std::vector<double>& xs);
double mad(const std::vector<double>& xs);
// (max − min) / |median|; NaN for empty input or a zero median, 0 for one sample.
double relative_range(const std::vector<double>& xs);
// a[i] / b[i] for every i where both are finite and b[i] ≠ 0 (the rest
// skipped); the shorter length bounds i.
std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b);

struct Summary {
  std::size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0, p10 = 0, p90 = 0, mad = 0;
  double rel_mad_pct() const;
};

// Per metric name, looked up by any string (a literal costs no allocation).
using SummaryMap = std::map<std::string, Summary, std::less<>>;
using SampleMap = std::map<std::string, std::vector<double>, std::less<>>;

Summary summarize(const std::vector<double>& xs);
Json summary_to_json(const Summary& s);  // NaN → null

}  // namespace moebench
