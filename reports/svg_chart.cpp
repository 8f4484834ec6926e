// svg_chart.cpp — the chart kit's shared parts (svg_draw.h: text, markers,
// whiskers, scales and ticks, clipping, legends, the empty panel) and its
// small public helpers (escaping, palette, dash patterns, markers, fixed-point
// numbers, nice ticks). The renderers are svg_xy.cpp (x/y charts) and
// svg_bars.cpp (bar charts). Every number goes through svg::fixed
// (format_fixed, {fmt}), so output does not depend on the locale.
#include "reports/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "reports/svg_draw.h"
#include "vocab/text.h"

namespace moebench::svg {
namespace draw {

std::string px(double v) { return fixed(v, 1); }

double text_width(const std::string& s, double char_w) {
  // UTF-8 continuation bytes do not start a glyph.
  std::size_t glyphs = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++glyphs;
  }
  return static_cast<double>(glyphs) * char_w;
}

std::string text(double x, double y, const std::string& s, const std::string& extra) {
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

std::string whisker_el(double x1, double y1, double x2, double y2, const std::string& color, const std::string& tip,
                       const std::string& cls) {
  const bool vertical = x1 == x2;
  const std::string stroke = "\" stroke=\"" + color + "\" stroke-width=\"1.2\"";
  std::string caps;
  if (vertical) {
    caps = "M" + px(x1 - 3.5) + " " + px(y1) + "h7M" + px(x2 - 3.5) + " " + px(y2) + "h7";
  } else {
    caps = "M" + px(x1) + " " + px(y1 - 3.5) + "v7M" + px(x2) + " " + px(y2 - 3.5) + "v7";
  }
  return "<line class=\"" + cls + "\" x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) +
         stroke + ">" + title_el(tip) + "</line>\n<path class=\"" + cls + "-cap\" d=\"" + caps + stroke + "/>\n";
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
      case LegendEntry::kWhisker:
        out += whisker_el(x + 13, cy - 6, x + 13, cy + 6, e.color, "", "whisker-key");
        break;
      case LegendEntry::kWhiskerAcross:
        out += whisker_el(x + 4, cy, x + 22, cy, e.color, "", "whisker-key");
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

}  // namespace draw

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

}  // namespace moebench::svg
