// svg_chart.h — a small, dependency-free inline-SVG chart kit for the HTML
// report: x/y charts (line series, scatter, whiskers, reference lines, shaded
// bands, marks on the x axis; svg_xy.cpp) and horizontal bar charts (grouped
// bars, whiskers, reference lines, value labels, category labels wrapped
// rather than cut; svg_bars.cpp). Each render function is a pure function from a
// description to one <svg> element: the same description gives the same
// bytes (numbers are printed locale-independently, through format_fixed), all text is
// XML-escaped, and nothing refers to anything outside the element except the
// SVG namespace.
//
// Deliberately left out: log axes, interactivity beyond <title> tooltips,
// text measurement (label widths are estimated from character counts), and
// any knowledge of moebench results — the report (html_charts*.cpp) turns
// rows into these descriptions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace moebench::svg {

// Escapes &, <, >, " and ' for text and attribute values (HTML and SVG).
std::string escape(const std::string& text);

// The report's qualitative palette (Okabe–Ito, colour-blind safe), cycled.
const std::string& palette_color(std::size_t i);
// Stroke dash patterns ("" = solid), cycled; marker shapes cycle with them.
const std::string& dash_pattern(std::size_t i);

enum class Marker { kCircle, kSquare, kTriangle, kDiamond };
Marker marker_shape(std::size_t i);

struct Axis {
  std::string label;                 // with its unit: "RAM budget (GiB)"
  std::optional<double> min, max;    // forced range ends; else from the data
  bool include_zero = false;         // extend the range to 0
  bool ticks_at_data = false;        // ticks at the data's distinct values (few discrete values)
  std::vector<double> ticks;         // explicit tick values (e.g. shared by panels); crowded → nice ticks
  std::function<std::string(double)> format;  // tick label; default: decimals from the tick step
};

struct XYPoint {
  double x = 0, y = 0;
  std::string tip;  // tooltip (<title>); the chart adds nothing of its own
  // A range around y (e.g. min–max of the repetitions), drawn as a whisker;
  // both or neither.
  std::optional<double> y_lo, y_hi;
};

struct Series {
  std::string name;  // legend entry
  std::vector<XYPoint> points;
  std::string color;  // "" = palette by series index
  std::string dash;   // stroke-dasharray, "" = solid
  Marker marker = Marker::kCircle;
  bool line = true;   // join points in x order; false = scatter
};

// A straight reference line in data coordinates from (x1, y1) to (x2, y2),
// clipped to the plot area; e.g. y = x, or a probed bandwidth.
struct RefLine {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  std::string label;  // drawn near the line's end inside the plot
  std::string color = "#555555";
  std::string dash = "6 4";
};

// A filled polygon in data coordinates (clipped), e.g. a ±15 % band.
struct Band {
  std::vector<XYPoint> corners;
  std::string label;  // legend entry
  std::string color = "#999999";
  double opacity = 0.18;
};

// A mark on the x axis for an x value without a y (e.g. an infeasible point).
struct AxisMark {
  double x = 0;
  std::string tip;
};

struct XYChart {
  std::string id;     // unique in the document (clip paths derive from it)
  std::string title;  // drawn at the top of the panel
  Axis x, y;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  std::vector<Band> bands;
  std::vector<AxisMark> marks;
  std::string marks_legend;    // legend entry for the marks ("× infeasible")
  std::string whisker_legend;  // legend entry for the points' whiskers, when any has one
  bool equal_axes = false;     // x and y share one range (predicted vs measured)
  // Shifts series i by (i − (n − 1) / 2) × dodge_px pixels along x (line,
  // markers and whiskers alike), so series that meet at one x keep their
  // whiskers apart; 0 = no shift.
  double dodge_px = 0;
  std::string empty_message;   // shown instead of the plot when there is no point
  int width = 560;
  int plot_height = 250;       // the legend adds its own height below
};

std::string render_xy_chart(const XYChart& chart);

// Horizontal bars: one row per category, one bar per series in the row.
struct BarSeries {
  std::string name;                     // legend entry
  std::vector<std::optional<double>> values;  // one per category; nullopt = no bar ("n/a")
  std::string color;                    // "" = palette by series index
  std::vector<std::string> bar_colors;  // optional per-category override
  std::vector<std::string> tips;        // optional per-category tooltip
  // Optional per-category range (lo, hi) around the value, drawn as a whisker.
  std::vector<std::optional<std::pair<double, double>>> ranges;
};

// A vertical reference line at value x across all rows (1.0 for ratios,
// a probed bandwidth).
struct BarRef {
  double x = 0;
  std::string label;
  std::string color = "#555555";
  std::string dash = "6 4";
};

struct BarChart {
  std::string id;
  std::string title;
  std::vector<std::string> categories;  // row labels (long ones wrap onto more lines at spaces, never cut)
  std::vector<BarSeries> series;
  std::vector<BarRef> refs;
  Axis value_axis;                          // the horizontal axis
  std::function<std::string(double)> value_label;  // text at each bar's end; default: axis format
  std::string whisker_legend;   // legend entry for the bars' whiskers, when any has one
  double baseline = 0;          // bars run from here to their value (1 for ratios)
  std::string empty_message;
  int width = 1120;
  int bar_height = 12;
};

std::string render_bar_chart(const BarChart& chart);

// "Nice" tick values (1, 2, 5 × 10^k steps) covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);
// A number with `decimals` digits after the point, "-0" printed as "0".
std::string fixed(double v, int decimals);

}  // namespace moebench::svg
