// html_charts.h — the inside of the HTML report (html_report.h is its
// outside), shared by its files and by nothing else:
//
//   html_axes.cpp         the point axes a chart groups by (engine, budget,
//                         drives, context, ...), row labels, number texts,
//                         and the figure a chart draws for a row: a
//                         metric's median with the min–max of its
//                         repetitions, the card's own or the full model's
//   html_panel_chart.cpp  a metric against one point axis, split into panels
//                         and series (the decode, hit-rate, read and TTFT
//                         charts are all this)
//   html_charts.cpp       those charts: which metric, which axis, what the
//                         caption says
//   html_checks.cpp       the charts that check a run against something
//                         else: predicted against measured, achieved against
//                         probed read bandwidth, NEW against BASE
//   html_page.cpp         the page: header, results table, rows not ok, CSS,
//                         the sections in order, and the line naming the
//                         charts left out
//
// Every chart builder is a pure function of the report's input: a Section.
// A Section with nothing to draw carries why in `skipped` and no panel; the
// page leaves it out and names it in one line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reports/html_report.h"

namespace moebench::html {

inline constexpr const char* kChartBudget = "chart-decode-vs-budget";
inline constexpr const char* kChartDrives = "chart-decode-vs-drives";
inline constexpr const char* kChartContext = "chart-decode-vs-context";
inline constexpr const char* kChartHitRate = "chart-hit-rate-vs-budget";
inline constexpr const char* kChartTtft = "chart-ttft-vs-prompt";
inline constexpr const char* kChartRead = "chart-read-per-token-vs-budget";
inline constexpr const char* kChartPredicted = "chart-predicted-vs-measured";
inline constexpr const char* kChartBandwidth = "chart-achieved-vs-probed";
inline constexpr const char* kChartCompare = "chart-compare-ratio";

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;

struct Section {
  std::string id, title, caption;  // caption: plain text, escaped on output
  std::vector<std::string> svgs;   // rendered panels
  std::string extra_html;          // already escaped (tables under the chart)
  std::string skipped;             // nothing to draw: why (plain text); the page leaves the chart out
};

// ---- point axes and texts (html_axes.cpp) ------------------------------------

struct Dim {
  std::string key;
  std::function<std::string(const Point&)> text;           // "budget 7.25 GiB"
  std::function<std::optional<double>(const Point&)> num;  // in the chart unit
};

const std::vector<Dim>& dims();
const Dim& dim(const std::string& key);
// "RAM budget" for "budget", and so on.
std::string axis_name(const std::string& dim_key);
// The dims whose value differs between rows, in dims() order.
std::vector<std::string> varying(const std::vector<const ResultRow*>& rows);
std::string join_texts(const Point& p, const std::vector<std::string>& keys, const std::string& sep);
// "#6 streaming · mxfp4 · 7.25 GiB · 1 drive · ctx 0": the point's number and
// every axis that varies in the results.
std::string row_label(const ResultRow& r, const std::vector<std::string>& vary);
std::vector<const ResultRow*> all_rows(const RunResults& r);

std::string plural(std::int64_t n, const std::string& word);
std::string num(double v, int sig = 3);
std::string pct(double frac);
double median_of(std::vector<double> v);

// ---- the figure a chart draws for a row (html_axes.cpp) ------------------------

// A metric of a row: its median over the recorded repetitions, and their
// min and max (the whisker), n of them. Repetitions that agree exactly
// (a replayed hit rate) have no range to draw.
struct Figure {
  std::string metric;
  double median = 0, min = 0, max = 0;
  std::size_t n = 0;
  bool has_range() const { return n >= 2 && max > min; }
};

// The row's `metric`, or nullopt when the row does not carry it.
std::optional<Figure> figure_of(const ResultRow& row, const std::string& metric);
// The full model's figure: a scaled card's `full_metric` (full_decode_tok_s,
// full_ttft_s), a full-size card's own `card_metric` (it is the full model).
std::optional<Figure> full_model_figure(const ResultRow& row, const std::string& card_metric,
                                        const std::string& full_metric);
// What the whiskers are, for a legend: "whiskers: min–max of 2 repetitions"
// (of "2–3 repetitions" when the rows differ).
std::string whisker_text(const std::set<std::size_t>& repetitions);
// "4.62 tok/s (min 4.49, max 6.52 over 2 repetitions)"; `div` turns the
// metric into the unit.
std::string figure_text(const Figure& f, double div, const std::string& unit);

// ---- a metric against a point axis (html_panel_chart.cpp) ------------------------

struct PanelSpec {
  std::string id, title;
  std::string metric;        // what is plotted
  std::string full_metric;   // set: plot the full model's figure (full_model_figure), `metric` for full-size cards
  double y_div = 1;          // value / y_div = axis unit
  std::string y_label, unit;  // unit for tooltips ("tok/s")
  std::string x_dim, x_label;
  std::vector<std::string> panel_dims;
  std::optional<double> skip_panels_at;  // drop panels whose every value is this (in axis units)
  std::string skip_panels_why;           // "nothing read from storage"
  std::optional<double> y_max;           // the y axis's top (100 for a percentage)
};

Section panel_chart(const RunResults& res, const PanelSpec& spec, const std::string& intro);

// ---- the charts (html_charts.cpp, html_checks.cpp) ------------------------------

// Full-model decode tok/s against "budget", "drives" or "context".
Section decode_chart(const RunResults& res, const std::string& x_dim);
Section hit_rate_chart(const RunResults& res);
Section ttft_chart(const RunResults& res);
Section read_chart(const RunResults& res);
Section predicted_chart(const HtmlReportInput& in);
Section bandwidth_chart(const HtmlReportInput& in);
Section compare_chart(const HtmlReportInput& in);

}  // namespace moebench::html
