// svg_xy.cpp — renders svg_chart.h's XYChart: a plot area with grid and
// ticks, shaded bands and reference lines clipped to it, one polyline per
// line series, a whisker per point that carries a range (drawn under its
// marker), a marker per point with its tooltip, × marks on the x axis, axis
// labels and a legend below. The y range covers the whiskers' ends as well
// as the points, so no whisker is clipped; series may be dodged a few
// pixels apart along x so whiskers at one x do not hide each other.
#include <algorithm>
#include <cmath>

#include "reports/svg_chart.h"
#include "reports/svg_draw.h"

namespace moebench::svg {
namespace {

using namespace draw;

// Pixel placement of one chart: its scales and the plot rectangle.
struct Layout {
  Scale sx, sy;
  double left = 0, top = 30, plot_w = 0, plot_h = 0;
  double x_label_y = 0;
};

bool has_range(const XYPoint& p) { return p.y_lo && p.y_hi && std::isfinite(*p.y_lo) && std::isfinite(*p.y_hi); }

// Series i's pixel shift along x (XYChart::dodge_px).
double dodge(const XYChart& c, std::size_t i) {
  return (static_cast<double>(i) - (static_cast<double>(c.series.size()) - 1) / 2) * c.dodge_px;
}

Layout layout_of(const XYChart& c, std::vector<double> xs, std::vector<double> ys) {
  Layout l;
  l.plot_h = c.plot_height;
  if (c.equal_axes) {
    std::vector<double> all = xs;
    all.insert(all.end(), ys.begin(), ys.end());
    xs = ys = all;
  }
  l.sy = make_scale(c.y, ys, l.plot_h);
  l.left = 30 + text_width(tick_label_width_probe(l.sy)) + 8;
  l.plot_w = c.width - l.left - 18;
  l.sx = make_scale(c.x, xs, l.plot_w);
  if (c.equal_axes) {
    // One range for both: the wider of the two.
    const double lo = std::min(l.sx.lo, l.sy.lo), hi = std::max(l.sx.hi, l.sy.hi);
    l.sx.lo = l.sy.lo = lo;
    l.sx.hi = l.sy.hi = hi;
    std::vector<double> inside;
    for (double t : nice_ticks(lo, hi, std::max(2, static_cast<int>(l.plot_h / 60)))) {
      if (t >= lo - 1e-9 && t <= hi + 1e-9) inside.push_back(t);
    }
    l.sx.ticks = l.sy.ticks = inside;
    const int d = decimals_for(inside);
    l.sx.format = l.sy.format = c.x.format ? c.x.format : [d](double v) { return fixed(v, d); };
  }
  l.sx.p0 = l.left;
  l.sx.p1 = l.left + l.plot_w;
  l.sy.p0 = l.top + l.plot_h;
  l.sy.p1 = l.top;
  l.x_label_y = l.top + l.plot_h + 36;
  return l;
}

std::vector<LegendEntry> legend_entries(const XYChart& c) {
  std::vector<LegendEntry> entries;
  bool whiskers = false;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    entries.push_back({LegendEntry::kSeries, s.name, s.color.empty() ? palette_color(i) : s.color, s.dash, s.marker,
                       s.line, 1});
    whiskers = whiskers || std::any_of(s.points.begin(), s.points.end(), has_range);
  }
  for (const Band& b : c.bands) {
    if (!b.label.empty()) entries.push_back({LegendEntry::kBand, b.label, b.color, "", Marker::kCircle, false, b.opacity});
  }
  if (whiskers && !c.whisker_legend.empty()) {
    entries.push_back({LegendEntry::kWhisker, c.whisker_legend, kWhiskerColor, "", Marker::kCircle, false, 1});
  }
  if (!c.marks.empty() && !c.marks_legend.empty()) {
    entries.push_back({LegendEntry::kMark, c.marks_legend, "#B00020", "", Marker::kCircle, false, 1});
  }
  return entries;
}

std::string grid_and_ticks(const Layout& l) {
  const double bottom = l.top + l.plot_h;
  std::string out = "<g class=\"ticks\" font-size=\"11\" " + std::string(kFont) + " fill=\"#333333\">\n";
  for (double t : l.sy.ticks) {
    const double y = l.sy.at(t);
    out += "<line x1=\"" + px(l.left) + "\" y1=\"" + px(y) + "\" x2=\"" + px(l.left + l.plot_w) + "\" y2=\"" + px(y) +
           "\" stroke=\"#eeeeee\"/>\n";
    out += text(l.left - 6, y + 4, l.sy.format(t), "text-anchor=\"end\"");
  }
  for (double t : l.sx.ticks) {
    const double x = l.sx.at(t);
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(l.top) + "\" x2=\"" + px(x) + "\" y2=\"" + px(bottom) +
           "\" stroke=\"#f3f3f3\"/>\n";
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(bottom) + "\" x2=\"" + px(x) + "\" y2=\"" + px(bottom + 5) +
           "\" stroke=\"#333333\"/>\n";
    out += text(x, bottom + 18, l.sx.format(t), "text-anchor=\"middle\"");
  }
  return out + "</g>\n";
}

// Bands, reference lines and series lines, clipped to the plot; the
// reference lines' labels go to `ref_labels` (drawn above everything).
std::string clipped_layer(const XYChart& c, const Layout& l, const std::string& clip, std::string& ref_labels) {
  std::string out = "<g clip-path=\"url(#" + escape(clip) + ")\">\n";
  for (const Band& b : c.bands) {
    std::string pts;
    for (const XYPoint& p : b.corners) pts += (pts.empty() ? "" : " ") + px(l.sx.at(p.x)) + "," + px(l.sy.at(p.y));
    out += "<polygon class=\"band\" points=\"" + pts + "\" fill=\"" + b.color + "\" fill-opacity=\"" +
           fixed(b.opacity, 2) + "\" stroke=\"none\"/>\n";
  }
  for (const RefLine& r : c.refs) {
    double x1 = l.sx.at(r.x1), y1 = l.sy.at(r.y1), x2 = l.sx.at(r.x2), y2 = l.sy.at(r.y2);
    if (!clip_segment(x1, y1, x2, y2, l.left, l.top, l.left + l.plot_w, l.top + l.plot_h)) continue;
    out += "<line class=\"ref\" x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) +
           "\" stroke=\"" + r.color + "\" stroke-width=\"1.3\" stroke-dasharray=\"" + r.dash + "\"/>\n";
    if (r.label.empty()) continue;
    // At the line's right end, above it: for a sloped line the text ends
    // where the line is, 14 px lower, less a gap, so the two never cross.
    const double lx = std::max(x1, x2), ly = x2 >= x1 ? y2 : y1;
    const double slope = std::fabs(x2 - x1) > 1 ? std::fabs(y2 - y1) / std::fabs(x2 - x1) : 0;
    const bool sloped = slope > 0.05;
    ref_labels += text(sloped ? lx - 14 / slope - 6 : lx - 4, sloped ? ly + 14 : std::max(l.top + 12, ly - 5), r.label,
                       "text-anchor=\"end\" font-size=\"11\" " + std::string(kFont) + " fill=\"" + r.color + "\"");
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    if (!s.line || s.points.size() < 2) continue;
    std::vector<XYPoint> pts = s.points;
    std::stable_sort(pts.begin(), pts.end(), [](const XYPoint& a, const XYPoint& b) { return a.x < b.x; });
    std::string d;
    for (const XYPoint& p : pts) d += (d.empty() ? "" : " ") + px(l.sx.at(p.x) + dodge(c, i)) + "," + px(l.sy.at(p.y));
    out += "<polyline class=\"series\" points=\"" + d + "\" fill=\"none\" stroke=\"" +
           (s.color.empty() ? palette_color(i) : s.color) + "\" stroke-width=\"2\"" +
           (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "/>\n";
  }
  return out + "</g>\n";
}

// Whiskers first, then markers over them, then the marks on the x axis.
std::string points_layer(const XYChart& c, const Layout& l) {
  std::string out;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const std::string color = s.color.empty() ? palette_color(i) : s.color;
    for (const XYPoint& p : s.points) {
      if (!std::isfinite(p.x) || !has_range(p)) continue;
      const double x = l.sx.at(p.x) + dodge(c, i);
      out += whisker_el(x, l.sy.at(*p.y_lo), x, l.sy.at(*p.y_hi), color, p.tip);
    }
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    for (const XYPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      out += marker_el(s.marker, l.sx.at(p.x) + dodge(c, i), l.sy.at(p.y), s.color.empty() ? palette_color(i) : s.color,
                       p.tip);
    }
  }
  for (const AxisMark& m : c.marks) {
    const double x = l.sx.at(m.x), y = l.top + l.plot_h - 6;
    out += "<path class=\"mark\" d=\"M" + px(x - 4) + " " + px(y - 4) + "l8 8m0 -8l-8 8\" stroke=\"#B00020\" "
           "stroke-width=\"2\">" + title_el(m.tip) + "</path>\n";
  }
  return out;
}

std::string axes(const XYChart& c, const Layout& l) {
  const double bottom = l.top + l.plot_h;
  std::string out = "<line x1=\"" + px(l.left) + "\" y1=\"" + px(bottom) + "\" x2=\"" + px(l.left + l.plot_w) +
                    "\" y2=\"" + px(bottom) + "\" stroke=\"#333333\"/>\n";
  out += "<line x1=\"" + px(l.left) + "\" y1=\"" + px(l.top) + "\" x2=\"" + px(l.left) + "\" y2=\"" + px(bottom) +
         "\" stroke=\"#333333\"/>\n";
  out += text(l.left + l.plot_w / 2, l.x_label_y, c.x.label,
              "text-anchor=\"middle\" font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\"");
  out += "<text transform=\"translate(14," + px(l.top + l.plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\" "
         "font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\">" + escape(c.y.label) +
         "</text>\n";
  return out;
}

}  // namespace

std::string render_xy_chart(const XYChart& c) {
  std::vector<double> xs, ys;
  for (const Series& s : c.series) {
    for (const XYPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
      if (has_range(p)) ys.insert(ys.end(), {*p.y_lo, *p.y_hi});
    }
  }
  for (const AxisMark& m : c.marks) xs.push_back(m.x);
  if (xs.empty()) return empty_svg(c.id, "chart-panel xy", c.title, c.width, c.empty_message);

  const Layout l = layout_of(c, xs, ys);
  double height = l.x_label_y + 12;
  const std::string legend_svg = legend(legend_entries(c), l.left, height, l.plot_w, height);

  std::string out = svg_open(c.id, "chart-panel xy", c.width, height, c.title);
  const std::string clip = c.id + "-clip";
  out += "<defs><clipPath id=\"" + escape(clip) + "\"><rect x=\"" + px(l.left) + "\" y=\"" + px(l.top) +
         "\" width=\"" + px(l.plot_w) + "\" height=\"" + px(l.plot_h) + "\"/></clipPath></defs>\n";
  out += text(l.left, 18, c.title, "font-size=\"13\" font-weight=\"bold\" " + std::string(kFont) + " fill=\"#222222\"");
  out += "<rect x=\"" + px(l.left) + "\" y=\"" + px(l.top) + "\" width=\"" + px(l.plot_w) + "\" height=\"" +
         px(l.plot_h) + "\" fill=\"#ffffff\" stroke=\"#dddddd\"/>\n";
  out += grid_and_ticks(l);
  std::string ref_labels;
  out += clipped_layer(c, l, clip, ref_labels);
  out += points_layer(c, l);
  out += ref_labels;
  out += axes(c, l);
  out += legend_svg;
  return out + "</svg>\n";
}

}  // namespace moebench::svg
