// svg_chart.cpp — renders the chart descriptions of svg_chart.h as inline
// SVG. Layout is computed, not measured: text widths are estimated from
// character counts (a sans-serif 11 px glyph averages ~6.2 px), which is
// enough to size margins and legends without a font engine. Every number
// goes through svg::fixed (format_fixed, {fmt}), so output does not depend on the
// locale.
#include "reports/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "vocab/text.h"

namespace moebench::svg {
namespace {

constexpr double kCharW = 6.2;  // estimated width of an 11 px character
constexpr const char* kFont = "font-family=\"sans-serif\"";

std::string px(double v) { return fixed(v, 1); }

double text_width(const std::string& s, double char_w = kCharW) {
  // UTF-8 continuation bytes do not start a glyph.
  std::size_t glyphs = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++glyphs;
  }
  return static_cast<double>(glyphs) * char_w;
}

std::string cut(const std::string& s, std::size_t max_glyphs) {
  std::size_t glyphs = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (glyphs == max_glyphs) return s.substr(0, i) + "\xE2\x80\xA6";  // …
      ++glyphs;
    }
  }
  return s;
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "") {
  return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" + (extra.empty() ? "" : " " + extra) + ">" +
         escape(s) + "</text>\n";
}

std::string title_el(const std::string& tip) { return tip.empty() ? "" : "<title>" + escape(tip) + "</title>"; }

std::string marker_el(Marker m, double x, double y, const std::string& color, const std::string& tip) {
  const std::string fill = " fill=\"" + color + "\" stroke=\"#ffffff\" stroke-width=\"0.8\">";
  switch (m) {
    case Marker::kSquare:
      return "<rect x=\"" + px(x - 3.5) + "\" y=\"" + px(y - 3.5) + "\" width=\"7\" height=\"7\"" + fill +
             title_el(tip) + "</rect>\n";
    case Marker::kTriangle:
      return "<polygon points=\"" + px(x) + "," + px(y - 4.5) + " " + px(x + 4.5) + "," + px(y + 3.5) + " " +
             px(x - 4.5) + "," + px(y + 3.5) + "\"" + fill + title_el(tip) + "</polygon>\n";
    case Marker::kDiamond:
      return "<polygon points=\"" + px(x) + "," + px(y - 5) + " " + px(x + 5) + "," + px(y) + " " + px(x) + "," +
             px(y + 5) + " " + px(x - 5) + "," + px(y) + "\"" + fill + title_el(tip) + "</polygon>\n";
    case Marker::kCircle:
      break;
  }
  return "<circle cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"3.8\"" + fill + title_el(tip) + "</circle>\n";
}

// Decimals that print every value exactly enough (at most 4).
int decimals_for(const std::vector<double>& values) {
  for (int d = 0; d < 4; ++d) {
    const double scale = std::pow(10.0, d);
    bool ok = true;
    for (double v : values) {
      if (std::fabs(std::round(v * scale) / scale - v) > 1e-9 * std::max(1.0, std::fabs(v))) ok = false;
    }
    if (ok) return d;
  }
  return 4;
}

struct Scale {
  double lo = 0, hi = 1;     // data range
  double p0 = 0, p1 = 1;     // pixel range (p0 ↔ lo)
  std::vector<double> ticks;
  std::function<std::string(double)> format;
  double at(double v) const { return p0 + (v - lo) / (hi - lo) * (p1 - p0); }
};

// Range and ticks for values `vs` on an axis of `pixels` length.
Scale make_scale(const Axis& axis, std::vector<double> vs, double pixels) {
  Scale s;
  if (axis.include_zero) vs.push_back(0);
  double lo = vs.empty() ? 0 : *std::min_element(vs.begin(), vs.end());
  double hi = vs.empty() ? 1 : *std::max_element(vs.begin(), vs.end());
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    if (!axis.min) lo -= (axis.include_zero && lo == 0) ? 0 : pad;
    hi += pad;
    if (!(hi > lo)) hi = lo + 1;
  }
  bool data_ticks = false;
  if (!axis.ticks.empty() || axis.ticks_at_data) {
    std::set<double> distinct(axis.ticks.begin(), axis.ticks.end());
    if (axis.ticks.empty()) distinct.insert(vs.begin(), vs.end());
    std::vector<double> t(distinct.begin(), distinct.end());
    double plo = lo, phi = hi;
    if (!axis.min || !axis.max) {
      const double tlo = std::min(lo, t.front()), thi = std::max(hi, t.back());
      const double pad = thi > tlo ? (thi - tlo) * 0.08 : std::max(1.0, std::fabs(thi) * 0.1);
      if (!axis.min) plo = tlo - pad;
      if (!axis.max) phi = thi + pad;
    }
    // Fall back to nice ticks when labels of neighbouring values would touch.
    bool room = t.size() <= 12;
    for (std::size_t i = 1; room && i < t.size(); ++i) {
      if ((t[i] - t[i - 1]) / (phi - plo) * pixels < 44) room = false;
    }
    if (room) {
      data_ticks = true;
      s.ticks = t;
      lo = plo;
      hi = phi;
      const int d = decimals_for(t);
      s.format = axis.format ? axis.format : [d](double v) { return fixed(v, d); };
    }
  }
  if (!data_ticks) {
    const int target = std::max(3, std::min(8, static_cast<int>(pixels / 50)));
    s.ticks = nice_ticks(lo, hi, target);
    if (!axis.min) lo = std::min(lo, s.ticks.front());
    if (!axis.max) hi = std::max(hi, s.ticks.back());
    std::vector<double> inside;
    for (double t : s.ticks) {
      if (t >= lo - 1e-12 * std::fabs(hi - lo) && t <= hi + 1e-12 * std::fabs(hi - lo)) inside.push_back(t);
    }
    s.ticks = inside;
    const int d = decimals_for(s.ticks);
    s.format = axis.format ? axis.format : [d](double v) { return fixed(v, d); };
  }
  s.lo = lo;
  s.hi = hi;
  return s;
}

// Liang–Barsky: clips the segment to the rectangle; false when it misses.
bool clip_segment(double& x1, double& y1, double& x2, double& y2, double left, double top, double right,
                  double bottom) {
  double t0 = 0, t1 = 1;
  const double dx = x2 - x1, dy = y2 - y1;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {x1 - left, right - x1, y1 - top, bottom - y1};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double r = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, r);
    } else {
      t1 = std::min(t1, r);
    }
    if (t0 > t1) return false;
  }
  const double ox = x1, oy = y1;
  x1 = ox + t0 * dx;
  y1 = oy + t0 * dy;
  x2 = ox + t1 * dx;
  y2 = oy + t1 * dy;
  return true;
}

struct LegendEntry {
  enum Kind { kSeries, kBand, kMark, kBar } kind = kSeries;
  std::string label, color, dash;
  Marker marker = Marker::kCircle;
  bool line = true;
  double opacity = 1;
};

// Legend rows below a plot, starting at y; returns the SVG and adds its height to `height`.
std::string legend(const std::vector<LegendEntry>& entries, double x0, double y, double width, double& height) {
  if (entries.empty()) return "";
  double col_w = 0;
  for (const LegendEntry& e : entries) col_w = std::max(col_w, text_width(e.label) + 40);
  const int cols = std::max(1, static_cast<int>(width / col_w));
  col_w = width / cols;
  std::string out = "<g class=\"legend\" font-size=\"11\" " + std::string(kFont) + ">\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    const double x = x0 + static_cast<double>(i % static_cast<std::size_t>(cols)) * col_w;
    const double cy = y + 8 + static_cast<double>(i / static_cast<std::size_t>(cols)) * 17;
    switch (e.kind) {
      case LegendEntry::kSeries:
        if (e.line) {
          out += "<line x1=\"" + px(x) + "\" y1=\"" + px(cy) + "\" x2=\"" + px(x + 26) + "\" y2=\"" + px(cy) +
                 "\" stroke=\"" + e.color + "\" stroke-width=\"2\"" +
                 (e.dash.empty() ? "" : " stroke-dasharray=\"" + e.dash + "\"") + "/>\n";
        }
        out += marker_el(e.marker, x + 13, cy, e.color, "");
        break;
      case LegendEntry::kBand:
      case LegendEntry::kBar:
        out += "<rect x=\"" + px(x + 3) + "\" y=\"" + px(cy - 5) + "\" width=\"20\" height=\"10\" fill=\"" + e.color +
               "\"" + (e.opacity < 1 ? " fill-opacity=\"" + fixed(e.opacity, 2) + "\"" : "") + "/>\n";
        break;
      case LegendEntry::kMark:
        out += "<path d=\"M" + px(x + 9) + " " + px(cy - 4) + "l8 8m0 -8l-8 8\" stroke=\"" + e.color +
               "\" stroke-width=\"2\"/>\n";
        break;
    }
    out += text(x + 32, cy + 4, e.label, "fill=\"#222222\"");
  }
  out += "</g>\n";
  const std::size_t rows = (entries.size() + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols);
  height += static_cast<double>(rows) * 17 + 6;
  return out;
}

std::string svg_open(const std::string& id, const std::string& cls, double w, double h, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + escape(id) + "\" class=\"" + cls + "\" width=\"" +
         px(w) + "\" height=\"" + px(h) + "\" viewBox=\"0 0 " + px(w) + " " + px(h) + "\" role=\"img\" aria-label=\"" +
         escape(title) + "\">\n<title>" + escape(title) + "</title>\n";
}

// Splits a message into lines of at most `width` characters at spaces.
std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    const std::string word = s.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string empty_svg(const std::string& id, const std::string& cls, const std::string& title, double w,
                      const std::string& message) {
  const std::vector<std::string> lines = wrap(message.empty() ? "No data." : message, static_cast<std::size_t>((w - 40) / 6.8));
  const double h = 60 + 18 * static_cast<double>(lines.size());
  std::string out = svg_open(id, cls + " empty", w, h, title);
  out += text(8, 18, title, "font-size=\"13\" font-weight=\"bold\" " + std::string(kFont) + " fill=\"#222222\"");
  out += "<rect x=\"8\" y=\"28\" width=\"" + px(w - 16) + "\" height=\"" + px(h - 36) +
         "\" fill=\"#f6f6f6\" stroke=\"#cccccc\" stroke-dasharray=\"4 3\"/>\n";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += text(w / 2, 50 + 18 * static_cast<double>(i), lines[i],
                "text-anchor=\"middle\" font-size=\"12\" " + std::string(kFont) + " fill=\"#555555\" class=\"no-data\"");
  }
  return out + "</svg>\n";
}

std::string tick_label_width_probe(const Scale& s) {
  std::string longest;
  for (double t : s.ticks) {
    std::string l = s.format(t);
    if (l.size() > longest.size()) longest = l;
  }
  return longest;
}

}  // namespace

std::string escape(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const std::string& palette_color(std::size_t i) {
  static const std::vector<std::string> colors = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                  "#E69F00", "#56B4E9", "#000000", "#8C564B"};
  return colors[i % colors.size()];
}

const std::string& dash_pattern(std::size_t i) {
  static const std::vector<std::string> dashes = {"", "7 4", "2 3", "9 3 2 3"};
  return dashes[i % dashes.size()];
}

Marker marker_shape(std::size_t i) {
  static const Marker shapes[] = {Marker::kCircle, Marker::kSquare, Marker::kTriangle, Marker::kDiamond};
  return shapes[i % 4];
}

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  std::string s = format_fixed(v, decimals);
  // "-0.0" → "0.0": a rounded-away sign is noise.
  if (!s.empty() && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::floor(lo / step + 1e-9) * step;
  for (int i = 0; i < 100; ++i) {
    const double t = first + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  return ticks;
}

std::string render_xy_chart(const XYChart& c) {
  std::vector<double> xs, ys;
  for (const Series& s : c.series) {
    for (const XYPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  for (const AxisMark& m : c.marks) xs.push_back(m.x);
  if (xs.empty()) return empty_svg(c.id, "chart-panel xy", c.title, c.width, c.empty_message);

  const double top = 30, plot_h = c.plot_height;
  Axis xa = c.x, ya = c.y;
  if (c.equal_axes) {
    std::vector<double> all = xs;
    all.insert(all.end(), ys.begin(), ys.end());
    xs = ys = all;
  }
  Scale sy = make_scale(ya, ys, plot_h);
  const double left = 30 + text_width(tick_label_width_probe(sy)) + 8;
  const double right = 18;
  const double plot_w = c.width - left - right;
  Scale sx = make_scale(xa, xs, plot_w);
  if (c.equal_axes) {
    // One range for both: the wider of the two.
    const double lo = std::min(sx.lo, sy.lo), hi = std::max(sx.hi, sy.hi);
    sx.lo = sy.lo = lo;
    sx.hi = sy.hi = hi;
    sx.ticks = sy.ticks = nice_ticks(lo, hi, std::max(2, static_cast<int>(plot_h / 60)));
    std::vector<double> inside;
    for (double t : sx.ticks) {
      if (t >= lo - 1e-9 && t <= hi + 1e-9) inside.push_back(t);
    }
    sx.ticks = sy.ticks = inside;
    const int d = decimals_for(inside);
    sx.format = sy.format = xa.format ? xa.format : [d](double v) { return fixed(v, d); };
  }
  sx.p0 = left;
  sx.p1 = left + plot_w;
  sy.p0 = top + plot_h;
  sy.p1 = top;
  const double x_label_y = top + plot_h + 36;

  std::vector<LegendEntry> entries;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    entries.push_back({LegendEntry::kSeries, s.name, s.color.empty() ? palette_color(i) : s.color, s.dash, s.marker,
                       s.line, 1});
  }
  for (const Band& b : c.bands) {
    if (!b.label.empty()) entries.push_back({LegendEntry::kBand, b.label, b.color, "", Marker::kCircle, false, b.opacity});
  }
  if (!c.marks.empty() && !c.marks_legend.empty()) {
    entries.push_back({LegendEntry::kMark, c.marks_legend, "#B00020", "", Marker::kCircle, false, 1});
  }
  double height = x_label_y + 12;
  const std::string legend_svg = legend(entries, left, height, plot_w, height);

  std::string out = svg_open(c.id, "chart-panel xy", c.width, height, c.title);
  const std::string clip = c.id + "-clip";
  out += "<defs><clipPath id=\"" + escape(clip) + "\"><rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" +
         px(plot_w) + "\" height=\"" + px(plot_h) + "\"/></clipPath></defs>\n";
  out += text(left, 18, c.title, "font-size=\"13\" font-weight=\"bold\" " + std::string(kFont) + " fill=\"#222222\"");
  out += "<rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" + px(plot_w) + "\" height=\"" + px(plot_h) +
         "\" fill=\"#ffffff\" stroke=\"#dddddd\"/>\n";

  // Grid and ticks.
  out += "<g class=\"ticks\" font-size=\"11\" " + std::string(kFont) + " fill=\"#333333\">\n";
  for (double t : sy.ticks) {
    const double y = sy.at(t);
    out += "<line x1=\"" + px(left) + "\" y1=\"" + px(y) + "\" x2=\"" + px(left + plot_w) + "\" y2=\"" + px(y) +
           "\" stroke=\"#eeeeee\"/>\n";
    out += text(left - 6, y + 4, sy.format(t), "text-anchor=\"end\"");
  }
  for (double t : sx.ticks) {
    const double x = sx.at(t);
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x) + "\" y2=\"" + px(top + plot_h) +
           "\" stroke=\"#f3f3f3\"/>\n";
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top + plot_h) + "\" x2=\"" + px(x) + "\" y2=\"" +
           px(top + plot_h + 5) + "\" stroke=\"#333333\"/>\n";
    out += text(x, top + plot_h + 18, sx.format(t), "text-anchor=\"middle\"");
  }
  out += "</g>\n";

  // Bands, reference lines, series: clipped to the plot.
  out += "<g clip-path=\"url(#" + escape(clip) + ")\">\n";
  for (const Band& b : c.bands) {
    std::string pts;
    for (const XYPoint& p : b.corners) pts += (pts.empty() ? "" : " ") + px(sx.at(p.x)) + "," + px(sy.at(p.y));
    out += "<polygon class=\"band\" points=\"" + pts + "\" fill=\"" + b.color + "\" fill-opacity=\"" +
           fixed(b.opacity, 2) + "\" stroke=\"none\"/>\n";
  }
  std::string ref_labels;
  for (const RefLine& r : c.refs) {
    double x1 = sx.at(r.x1), y1 = sy.at(r.y1), x2 = sx.at(r.x2), y2 = sy.at(r.y2);
    if (!clip_segment(x1, y1, x2, y2, left, top, left + plot_w, top + plot_h)) continue;
    out += "<line class=\"ref\" x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) +
           "\" stroke=\"" + r.color + "\" stroke-width=\"1.3\" stroke-dasharray=\"" + r.dash + "\"/>\n";
    if (!r.label.empty()) {
      // At the line's right end, above it: for a sloped line the text ends
      // where the line is, 14 px lower, less a gap, so the two never cross.
      const double lx = std::max(x1, x2), ly = x2 >= x1 ? y2 : y1;
      const double slope = std::fabs(x2 - x1) > 1 ? std::fabs(y2 - y1) / std::fabs(x2 - x1) : 0;
      const bool sloped = slope > 0.05;
      ref_labels += text(sloped ? lx - 14 / slope - 6 : lx - 4, sloped ? ly + 14 : std::max(top + 12, ly - 5), r.label,
                         "text-anchor=\"end\" font-size=\"11\" " + std::string(kFont) + " fill=\"" + r.color + "\"");
    }
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    if (!s.line || s.points.size() < 2) continue;
    std::vector<XYPoint> pts = s.points;
    std::stable_sort(pts.begin(), pts.end(), [](const XYPoint& a, const XYPoint& b) { return a.x < b.x; });
    std::string d;
    for (const XYPoint& p : pts) d += (d.empty() ? "" : " ") + px(sx.at(p.x)) + "," + px(sy.at(p.y));
    out += "<polyline class=\"series\" points=\"" + d + "\" fill=\"none\" stroke=\"" +
           (s.color.empty() ? palette_color(i) : s.color) + "\" stroke-width=\"2\"" +
           (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "/>\n";
  }
  out += "</g>\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    for (const XYPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      out += marker_el(s.marker, sx.at(p.x), sy.at(p.y), s.color.empty() ? palette_color(i) : s.color, p.tip);
    }
  }
  for (const AxisMark& m : c.marks) {
    const double x = sx.at(m.x), y = top + plot_h - 6;
    out += "<path class=\"mark\" d=\"M" + px(x - 4) + " " + px(y - 4) + "l8 8m0 -8l-8 8\" stroke=\"#B00020\" "
           "stroke-width=\"2\">" + title_el(m.tip) + "</path>\n";
  }
  out += ref_labels;

  // Axes and their labels.
  out += "<line x1=\"" + px(left) + "\" y1=\"" + px(top + plot_h) + "\" x2=\"" + px(left + plot_w) + "\" y2=\"" +
         px(top + plot_h) + "\" stroke=\"#333333\"/>\n";
  out += "<line x1=\"" + px(left) + "\" y1=\"" + px(top) + "\" x2=\"" + px(left) + "\" y2=\"" + px(top + plot_h) +
         "\" stroke=\"#333333\"/>\n";
  out += text(left + plot_w / 2, x_label_y, xa.label,
              "text-anchor=\"middle\" font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\"");
  out += "<text transform=\"translate(14," + px(top + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\" "
         "font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\">" + escape(ya.label) +
         "</text>\n";
  out += legend_svg;
  return out + "</svg>\n";
}

std::string render_bar_chart(const BarChart& c) {
  bool any = false;
  std::vector<double> vs = {c.baseline};
  for (const BarSeries& s : c.series) {
    for (const auto& v : s.values) {
      if (v && std::isfinite(*v)) {
        any = true;
        vs.push_back(*v);
      }
    }
  }
  if (!any || c.categories.empty()) return empty_svg(c.id, "chart-panel bars", c.title, c.width, c.empty_message);
  for (const BarRef& r : c.refs) vs.push_back(r.x);

  constexpr std::size_t kMaxLabel = 58;
  double label_w = 0;
  for (const std::string& cat : c.categories) label_w = std::max(label_w, text_width(cut(cat, kMaxLabel)));
  const double left = std::min(420.0, label_w + 16);
  const double right = 64;  // room for value labels past the largest bar
  const double plot_w = c.width - left - right;
  const double top = 30 + 14 * static_cast<double>(c.refs.size());
  const std::size_t nser = std::max<std::size_t>(1, c.series.size());
  const double row_h = static_cast<double>(nser) * c.bar_height + 8;
  const double plot_h = row_h * static_cast<double>(c.categories.size());

  Axis axis = c.value_axis;
  Scale sx = make_scale(axis, vs, plot_w);
  sx.p0 = left;
  sx.p1 = left + plot_w;
  const auto value_text = c.value_label ? c.value_label : sx.format;

  std::vector<LegendEntry> entries;
  if (c.series.size() > 1 || !c.series.front().name.empty()) {
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      entries.push_back({LegendEntry::kBar, c.series[i].name,
                         c.series[i].color.empty() ? palette_color(i) : c.series[i].color, "", Marker::kCircle, false, 1});
    }
  }
  const double x_label_y = top + plot_h + 36;
  double height = x_label_y + 12;
  const std::string legend_svg = legend(entries, left, height, plot_w, height);

  std::string out = svg_open(c.id, "chart-panel bars", c.width, height, c.title);
  out += text(8, 18, c.title, "font-size=\"13\" font-weight=\"bold\" " + std::string(kFont) + " fill=\"#222222\"");
  for (std::size_t r = 0; r < c.categories.size(); ++r) {
    if (r % 2 == 1) {
      out += "<rect x=\"4\" y=\"" + px(top + row_h * static_cast<double>(r)) + "\" width=\"" + px(c.width - 8) +
             "\" height=\"" + px(row_h) + "\" fill=\"#f5f7fa\"/>\n";
    }
  }
  out += "<g class=\"ticks\" font-size=\"11\" " + std::string(kFont) + " fill=\"#333333\">\n";
  for (double t : sx.ticks) {
    const double x = sx.at(t);
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x) + "\" y2=\"" + px(top + plot_h + 5) +
           "\" stroke=\"#e4e4e4\"/>\n";
    out += text(x, top + plot_h + 18, sx.format(t), "text-anchor=\"middle\"");
  }
  out += "</g>\n";
  out += "<g class=\"categories\" font-size=\"11\" " + std::string(kFont) + " fill=\"#222222\">\n";
  for (std::size_t r = 0; r < c.categories.size(); ++r) {
    const std::string& cat = c.categories[r];
    const std::string shown = cut(cat, kMaxLabel);
    out += "<text x=\"" + px(left - 8) + "\" y=\"" + px(top + row_h * static_cast<double>(r) + row_h / 2 + 4) +
           "\" text-anchor=\"end\">" + escape(shown) + (shown != cat ? title_el(cat) : "") + "</text>\n";
  }
  out += "</g>\n";
  // Reference lines under the bars: the value labels' halo keeps them readable.
  for (std::size_t i = 0; i < c.refs.size(); ++i) {
    const BarRef& r = c.refs[i];
    const double x = sx.at(r.x);
    const double label_y = 30 + 14 * static_cast<double>(i) + 8;
    out += "<line class=\"ref\" x1=\"" + px(x) + "\" y1=\"" + px(label_y + 3) + "\" x2=\"" + px(x) + "\" y2=\"" +
           px(top + plot_h) + "\" stroke=\"" + r.color + "\" stroke-width=\"1.5\" stroke-dasharray=\"" + r.dash +
           "\"/>\n";
    if (!r.label.empty()) {
      // Anchor the label on the side with more room.
      const bool to_left = x - left > left + plot_w - x;
      out += text(to_left ? x - 4 : x + 4, label_y, r.label,
                  std::string(to_left ? "text-anchor=\"end\" " : "") + "font-size=\"11\" " + kFont + " fill=\"" +
                      r.color + "\"");
    }
  }
  const double x_base = sx.at(c.baseline);
  out += "<g class=\"bars\" font-size=\"10\" " + std::string(kFont) + ">\n";
  for (std::size_t r = 0; r < c.categories.size(); ++r) {
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      const BarSeries& s = c.series[i];
      const double y = top + row_h * static_cast<double>(r) + 4 + c.bar_height * static_cast<double>(i);
      const std::optional<double> v = r < s.values.size() ? s.values[r] : std::nullopt;
      if (!v || !std::isfinite(*v)) {
        out += text(x_base + 4, y + c.bar_height - 2, "n/a", "fill=\"#888888\"");
        continue;
      }
      const std::string color = r < s.bar_colors.size() && !s.bar_colors[r].empty()
                                    ? s.bar_colors[r]
                                    : (s.color.empty() ? palette_color(i) : s.color);
      const double xv = sx.at(*v);
      const double x0 = std::min(x_base, xv), w = std::max(1.0, std::fabs(xv - x_base));
      const std::string tip = r < s.tips.size() ? s.tips[r] : "";
      out += "<rect x=\"" + px(x0) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" +
             px(c.bar_height - 1) + "\" fill=\"" + color + "\">" + title_el(tip) + "</rect>\n";
      const bool after = *v >= c.baseline;
      // A white halo keeps the value readable where a reference line crosses it.
      out += text(after ? xv + 4 : xv - 4, y + c.bar_height - 2.5, value_text(*v),
                  std::string("fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"") +
                      (after ? "" : " text-anchor=\"end\""));
    }
  }
  out += "</g>\n";
  out += "<line x1=\"" + px(x_base) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x_base) + "\" y2=\"" +
         px(top + plot_h) + "\" stroke=\"#333333\"/>\n";
  out += "<line x1=\"" + px(left) + "\" y1=\"" + px(top + plot_h) + "\" x2=\"" + px(left + plot_w) + "\" y2=\"" +
         px(top + plot_h) + "\" stroke=\"#333333\"/>\n";
  out += text(left + plot_w / 2, x_label_y, axis.label,
              "text-anchor=\"middle\" font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\"");
  out += legend_svg;
  return out + "</svg>\n";
}

}  // namespace moebench::svg
