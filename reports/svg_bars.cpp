// svg_bars.cpp — renders svg_chart.h's BarChart: one row per category
// (label at the left, one bar per series from the baseline to its value,
// the value written past the bar's end, a whisker over the bar when the
// series gives the category a range), vertical reference lines with their
// labels above the rows, a value axis and a legend below.
//
// A long category label wraps onto more lines at spaces and its row grows
// to hold them: nothing of a label is cut, so the part that tells two rows
// apart — often at its end — stays on the page.
#include <algorithm>
#include <cmath>

#include "reports/svg_chart.h"
#include "reports/svg_draw.h"

namespace moebench::svg {
namespace {

using namespace draw;

constexpr std::size_t kMaxLabel = 58;  // glyphs per label line
constexpr double kLabelLineH = 13;

// The label's lines: wrapped at spaces, a word longer than a line split.
std::vector<std::string> label_lines(const std::string& label) {
  std::vector<std::string> out;
  for (const std::string& line : wrap(label, kMaxLabel)) {
    std::string rest = line;
    while (text_width(rest, 1) > kMaxLabel) {
      std::size_t glyphs = 0, at = 0;
      for (; at < rest.size(); ++at) {
        if ((static_cast<unsigned char>(rest[at]) & 0xC0) == 0x80) continue;
        if (glyphs++ == kMaxLabel) break;
      }
      out.push_back(rest.substr(0, at));
      rest = rest.substr(at);
    }
    out.push_back(rest);
  }
  if (out.empty()) out.emplace_back();
  return out;
}

std::optional<std::pair<double, double>> range_at(const BarSeries& s, std::size_t r) {
  if (r >= s.ranges.size() || !s.ranges[r]) return std::nullopt;
  const auto& [lo, hi] = *s.ranges[r];
  if (!std::isfinite(lo) || !std::isfinite(hi)) return std::nullopt;
  return s.ranges[r];
}

// Rows, top to bottom: each one's top edge and height.
struct Rows {
  std::vector<std::vector<std::string>> labels;
  std::vector<double> y, h;
  double label_w = 0, total = 0;
};

Rows rows_of(const BarChart& c, double top) {
  Rows rows;
  const std::size_t nser = std::max<std::size_t>(1, c.series.size());
  const double bars_h = static_cast<double>(nser) * c.bar_height + 8;
  double y = top;
  for (const std::string& cat : c.categories) {
    rows.labels.push_back(label_lines(cat));
    for (const std::string& l : rows.labels.back()) rows.label_w = std::max(rows.label_w, text_width(l));
    const double h = std::max(bars_h, kLabelLineH * static_cast<double>(rows.labels.back().size()) + 6);
    rows.y.push_back(y);
    rows.h.push_back(h);
    y += h;
  }
  rows.total = y - top;
  return rows;
}

std::vector<LegendEntry> legend_entries(const BarChart& c) {
  std::vector<LegendEntry> entries;
  if (c.series.size() > 1 || !c.series.front().name.empty()) {
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      entries.push_back({LegendEntry::kBar, c.series[i].name,
                         c.series[i].color.empty() ? palette_color(i) : c.series[i].color, "", Marker::kCircle, false, 1});
    }
  }
  const bool whiskers = std::any_of(c.series.begin(), c.series.end(), [&](const BarSeries& s) {
    for (std::size_t r = 0; r < c.categories.size(); ++r) {
      if (range_at(s, r)) return true;
    }
    return false;
  });
  if (whiskers && !c.whisker_legend.empty()) {
    entries.push_back({LegendEntry::kWhiskerAcross, c.whisker_legend, kWhiskerColor, "", Marker::kCircle, false, 1});
  }
  return entries;
}

// Banding, ticks and the category labels.
std::string background(const BarChart& c, const Rows& rows, const Scale& sx, double top) {
  std::string out;
  for (std::size_t r = 1; r < rows.y.size(); r += 2) {
    out += "<rect x=\"4\" y=\"" + px(rows.y[r]) + "\" width=\"" + px(c.width - 8) + "\" height=\"" + px(rows.h[r]) +
           "\" fill=\"#f5f7fa\"/>\n";
  }
  out += "<g class=\"ticks\" font-size=\"11\" " + std::string(kFont) + " fill=\"#333333\">\n";
  for (double t : sx.ticks) {
    const double x = sx.at(t);
    out += "<line x1=\"" + px(x) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x) + "\" y2=\"" + px(top + rows.total + 5) +
           "\" stroke=\"#e4e4e4\"/>\n";
    out += text(x, top + rows.total + 18, sx.format(t), "text-anchor=\"middle\"");
  }
  out += "</g>\n<g class=\"categories\" font-size=\"11\" " + std::string(kFont) + " fill=\"#222222\">\n";
  for (std::size_t r = 0; r < rows.labels.size(); ++r) {
    const std::vector<std::string>& lines = rows.labels[r];
    const double first = rows.y[r] + rows.h[r] / 2 + 4 - kLabelLineH * static_cast<double>(lines.size() - 1) / 2;
    out += "<text x=\"" + px(sx.p0 - 8) + "\" y=\"" + px(first) + "\" text-anchor=\"end\">";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += i == 0 ? escape(lines[i])
                    : "<tspan x=\"" + px(sx.p0 - 8) + "\" dy=\"" + px(kLabelLineH) + "\">" + escape(lines[i]) + "</tspan>";
    }
    out += "</text>\n";
  }
  return out + "</g>\n";
}

// Reference lines under the bars: the value labels' halo keeps them readable.
std::string ref_lines(const BarChart& c, const Scale& sx, double bottom) {
  std::string out;
  for (std::size_t i = 0; i < c.refs.size(); ++i) {
    const BarRef& r = c.refs[i];
    const double x = sx.at(r.x);
    const double label_y = 30 + 14 * static_cast<double>(i) + 8;
    out += "<line class=\"ref\" x1=\"" + px(x) + "\" y1=\"" + px(label_y + 3) + "\" x2=\"" + px(x) + "\" y2=\"" +
           px(bottom) + "\" stroke=\"" + r.color + "\" stroke-width=\"1.5\" stroke-dasharray=\"" + r.dash + "\"/>\n";
    if (r.label.empty()) continue;
    // Anchor the label on the side with more room.
    const bool to_left = x - sx.p0 > sx.p1 - x;
    out += text(to_left ? x - 4 : x + 4, label_y, r.label,
                std::string(to_left ? "text-anchor=\"end\" " : "") + "font-size=\"11\" " + kFont + " fill=\"" +
                    r.color + "\"");
  }
  return out;
}

std::string bars(const BarChart& c, const Rows& rows, const Scale& sx) {
  const auto value_text = c.value_label ? c.value_label : sx.format;
  const double x_base = sx.at(c.baseline);
  std::string out = "<g class=\"bars\" font-size=\"10\" " + std::string(kFont) + ">\n";
  for (std::size_t r = 0; r < c.categories.size(); ++r) {
    const double nser = static_cast<double>(std::max<std::size_t>(1, c.series.size()));
    const double row_top = rows.y[r] + (rows.h[r] - nser * c.bar_height) / 2;
    for (std::size_t i = 0; i < c.series.size(); ++i) {
      const BarSeries& s = c.series[i];
      const double y = row_top + c.bar_height * static_cast<double>(i);
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
      double label_x = after ? xv + 4 : xv - 4;
      if (const auto range = range_at(s, r)) {
        const double mid = y + (c.bar_height - 1) / 2.0;
        out += whisker_el(sx.at(range->first), mid, sx.at(range->second), mid, kWhiskerColor, tip);
        label_x = after ? std::max(xv, sx.at(range->second)) + 4 : std::min(xv, sx.at(range->first)) - 4;
      }
      // A white halo keeps the value readable where a reference line crosses it.
      out += text(label_x, y + c.bar_height - 2.5, value_text(*v),
                  std::string("fill=\"#222222\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"") +
                      (after ? "" : " text-anchor=\"end\""));
    }
  }
  return out + "</g>\n";
}

}  // namespace

std::string render_bar_chart(const BarChart& c) {
  bool any = false;
  std::vector<double> vs = {c.baseline};
  for (const BarSeries& s : c.series) {
    for (std::size_t r = 0; r < s.values.size(); ++r) {
      const std::optional<double>& v = s.values[r];
      if (!v || !std::isfinite(*v)) continue;
      any = true;
      vs.push_back(*v);
      if (const auto range = range_at(s, r)) vs.insert(vs.end(), {range->first, range->second});
    }
  }
  if (!any || c.categories.empty()) return empty_svg(c.id, "chart-panel bars", c.title, c.width, c.empty_message);
  for (const BarRef& r : c.refs) vs.push_back(r.x);

  const double top = 30 + 14 * static_cast<double>(c.refs.size());
  const Rows rows = rows_of(c, top);
  const double left = std::min(420.0, rows.label_w + 16);
  const double right = 64;  // room for value labels past the largest bar
  const double plot_w = c.width - left - right;
  Scale sx = make_scale(c.value_axis, vs, plot_w);
  sx.p0 = left;
  sx.p1 = left + plot_w;

  const double x_label_y = top + rows.total + 36;
  double height = x_label_y + 12;
  const std::string legend_svg = legend(legend_entries(c), left, height, plot_w, height);

  std::string out = svg_open(c.id, "chart-panel bars", c.width, height, c.title);
  out += text(8, 18, c.title, "font-size=\"13\" font-weight=\"bold\" " + std::string(kFont) + " fill=\"#222222\"");
  out += background(c, rows, sx, top);
  out += ref_lines(c, sx, top + rows.total);
  out += bars(c, rows, sx);
  const double x_base = sx.at(c.baseline);
  out += "<line x1=\"" + px(x_base) + "\" y1=\"" + px(top) + "\" x2=\"" + px(x_base) + "\" y2=\"" +
         px(top + rows.total) + "\" stroke=\"#333333\"/>\n";
  out += "<line x1=\"" + px(left) + "\" y1=\"" + px(top + rows.total) + "\" x2=\"" + px(left + plot_w) + "\" y2=\"" +
         px(top + rows.total) + "\" stroke=\"#333333\"/>\n";
  out += text(left + plot_w / 2, x_label_y, c.value_axis.label,
              "text-anchor=\"middle\" font-size=\"12\" " + std::string(kFont) + " fill=\"#222222\" class=\"axis-label\"");
  out += legend_svg;
  return out + "</svg>\n";
}

}  // namespace moebench::svg
