// html_report.h — `moebench report`: one self-contained HTML file (inline CSS
// and SVG, no script, no external resource) with the conditions of a run,
// its results table, the rows that are not ok with their reasons, and charts:
// full-model decode tok/s against RAM budget, drive count and context
// length, expert-cache hit rate against budget, full-model TTFT against
// prompt length, bytes read per token against budget, predicted against
// measured, achieved against probed read bandwidth, and (with a base run)
// the per-point ratio of decode tok/s. Every point that has repetitions
// carries a whisker from their min to their max.
//
// A pure function of its inputs: the same inputs give the same bytes (no
// clock, no locale, no file access — the command loads the files). A chart
// with nothing to draw is left out, and one line names it and says why.
// The page is html_page.cpp; the charts are html_charts.h's files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
#include "vocab/run_results.h"

namespace moebench {

struct HtmlReportInput {
  const RunResults* results = nullptr;  // required
  std::string results_label;            // its file, for the header
  const RunResults* base = nullptr;     // --compare: ratios NEW/BASE by point id
  std::string base_label;
  const RunResults* predicted = nullptr;  // --predicted: analytic rows matched by point id
  std::string predicted_label;
  std::optional<MachineProfile> profile;  // the run's machine profile, when found
  std::string profile_note;               // where it came from, or why there is none
};

// The ids of the chart sections, in document order (tests look for them); a
// chart with nothing to draw is not in the page.
const std::vector<std::string>& report_chart_ids();

std::string write_html_report(const HtmlReportInput& in);
// The same, handed over piece by piece (a report of 10^5 rows is ~250 MB).
void write_html_report_to(const HtmlReportInput& in, const TextSink& emit);

// The decode read rate while reads were outstanding (metric
// read_busy_bytes_s, median over repetitions; bytes/s), or nullopt.
std::optional<double> outstanding_read_rate(const ResultRow& row);

}  // namespace moebench
