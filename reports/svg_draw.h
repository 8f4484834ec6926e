// svg_draw.h — the pieces the chart kit's renderers share (svg_chart.cpp
// defines them; svg_xy.cpp and svg_bars.cpp draw with them): estimated text
// widths, <text> and marker elements, value scales with their ticks,
// clipping, legends, whiskers, the <svg> opening and the "nothing to draw"
// panel. Internal to reports/: nothing outside the kit includes it.
//
// Layout is computed, not measured: a sans-serif 11 px glyph averages
// ~6.2 px, enough to size margins and legends without a font engine.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reports/svg_chart.h"

namespace moebench::svg::draw {

inline constexpr double kCharW = 6.2;  // estimated width of an 11 px character
inline constexpr const char* kFont = "font-family=\"sans-serif\"";
inline constexpr const char* kWhiskerColor = "#333333";

// A pixel coordinate, one decimal.
std::string px(double v);
// Estimated width of `s` in pixels (UTF-8 continuation bytes start no glyph).
double text_width(const std::string& s, double char_w = kCharW);
std::string text(double x, double y, const std::string& s, const std::string& extra = "");
std::string title_el(const std::string& tip);
std::string marker_el(Marker m, double x, double y, const std::string& color, const std::string& tip);
// A whisker from (x1, y1) to (x2, y2) with caps across its ends: vertical
// when x1 == x2, else horizontal. One <line class="CLS"> for the span (its
// ends are the range's ends), one <path class="CLS-cap"> for the caps; the
// legend's sample is class "whisker-key", so "whisker" counts data only.
std::string whisker_el(double x1, double y1, double x2, double y2, const std::string& color, const std::string& tip,
                       const std::string& cls = "whisker");

struct Scale {
  double lo = 0, hi = 1;  // data range
  double p0 = 0, p1 = 1;  // pixel range (p0 ↔ lo)
  std::vector<double> ticks;
  std::function<std::string(double)> format;
  double at(double v) const { return p0 + (v - lo) / (hi - lo) * (p1 - p0); }
};

// Range and ticks for values `vs` on an axis of `pixels` length.
Scale make_scale(const Axis& axis, std::vector<double> vs, double pixels);
// Decimals that print every value exactly enough (at most 4).
int decimals_for(const std::vector<double>& values);
// The widest tick label of a scale (to size the margin beside it).
std::string tick_label_width_probe(const Scale& s);

// Liang–Barsky: clips the segment to the rectangle; false when it misses.
bool clip_segment(double& x1, double& y1, double& x2, double& y2, double left, double top, double right,
                  double bottom);

struct LegendEntry {
  enum Kind { kSeries, kBand, kMark, kBar, kWhisker, kWhiskerAcross } kind = kSeries;  // whisker: vertical; across: horizontal
  std::string label, color, dash;
  Marker marker = Marker::kCircle;
  bool line = true;
  double opacity = 1;
};

// Legend rows below a plot, starting at y; returns the SVG and adds its height to `height`.
std::string legend(const std::vector<LegendEntry>& entries, double x0, double y, double width, double& height);

std::string svg_open(const std::string& id, const std::string& cls, double w, double h, const std::string& title);
// Splits a message into lines of at most `width` characters at spaces.
std::vector<std::string> wrap(const std::string& s, std::size_t width);
// The panel drawn in place of a chart with nothing to plot.
std::string empty_svg(const std::string& id, const std::string& cls, const std::string& title, double w,
                      const std::string& message);

}  // namespace moebench::svg::draw
