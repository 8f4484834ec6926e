// html_panel_chart.cpp — one metric against one point axis (budget, drive
// count, context, prompt length), as the HTML report draws it
// (html_charts.h's panel_chart). Rows become chart descriptions here;
// drawing them is the chart kit's job (svg_chart.h).
//
// Grouping: among the axes other than x, those that vary in the results
// split the chart into panels (the spec's panel axes: engine, model, scale,
// and drives or context) or into series inside a panel (quant by colour,
// everything else by line style and marker), so each line holds exactly one
// axis changing. Panels of one chart share their x ticks and y range so
// they can be compared by eye. Every point with repetitions carries a
// whisker from their min to their max.
//
// Nothing to draw — no row on the axis, one value of it only, no row with
// the metric — gives a Section with `skipped` set and no panel.
#include <algorithm>
#include <map>
#include <set>

#include "reports/html_charts.h"
#include "reports/svg_chart.h"
#include "vocab/text.h"

namespace moebench::html {
namespace {

struct Split {
  std::vector<std::string> panel, series, color, style;  // dim keys
};

Split split_dims(const std::vector<std::string>& vary, const PanelSpec& spec) {
  Split s;
  for (const std::string& k : vary) {
    if (k == spec.x_dim) continue;
    const bool panel = std::find(spec.panel_dims.begin(), spec.panel_dims.end(), k) != spec.panel_dims.end();
    (panel ? s.panel : s.series).push_back(k);
  }
  // Colour by the first series axis (quant when it varies), style by the rest.
  if (!s.series.empty()) s.color.push_back(s.series.front());
  s.style.assign(s.series.begin() + (s.series.empty() ? 0 : 1), s.series.end());
  return s;
}

struct PanelData {
  std::map<std::pair<std::size_t, std::size_t>, svg::Series> series;
  std::vector<svg::AxisMark> marks;
  bool any_not_skipped = false;  // a value other than spec.skip_panels_at
};

// Every row with an x value, drawn into its panel and series.
struct Panels {
  std::vector<std::string> keys;  // panel texts, in first-seen order
  std::map<std::size_t, PanelData> data;
  std::set<double> xs;            // every x of a row on the axis
  std::set<std::size_t> repetitions;  // n of the figures with a range
  double y_max = 0;
  int no_x = 0, on_axis = 0, without_metric = 0;
};

std::size_t index_of(std::vector<std::string>& keys, const std::string& k) {
  auto it = std::find(keys.begin(), keys.end(), k);
  if (it != keys.end()) return static_cast<std::size_t>(it - keys.begin());
  keys.push_back(k);
  return keys.size() - 1;
}

void add_mark(PanelData& pd, double x, const std::string& tip) {
  // One mark per x: its tooltip lists every point not ok there.
  auto m = std::find_if(pd.marks.begin(), pd.marks.end(), [x](const svg::AxisMark& a) { return a.x == x; });
  if (m == pd.marks.end()) {
    pd.marks.push_back({x, tip});
  } else {
    m->tip += "\n" + tip;
  }
}

Panels fill_panels(const RunResults& res, const PanelSpec& spec, const Split& split) {
  Panels out;
  const Dim& xd = dim(spec.x_dim);
  const std::vector<std::string> vary = varying(all_rows(res));
  std::vector<std::string> color_keys, style_keys;
  for (const ResultRow& r : res.rows) {
    const std::optional<double> x = xd.num(r.point);
    if (!x) {
      ++out.no_x;
      continue;
    }
    ++out.on_axis;
    out.xs.insert(*x);
    PanelData& pd = out.data[index_of(out.keys, join_texts(r.point, split.panel, " · "))];
    const std::string label = row_label(r, vary);
    if (r.status != RowStatus::kOk) {
      add_mark(pd, *x, label + ": " + to_string(r.status) + (r.reason.empty() ? "" : " — " + r.reason));
      continue;
    }
    const std::optional<Figure> f =
        spec.full_metric.empty() ? figure_of(r, spec.metric) : full_model_figure(r, spec.metric, spec.full_metric);
    if (!f) {
      ++out.without_metric;
      continue;
    }
    const double y = f->median / spec.y_div;
    out.y_max = std::max(out.y_max, f->max / spec.y_div);
    if (!spec.skip_panels_at || y != *spec.skip_panels_at) pd.any_not_skipped = true;
    const std::size_t ci = index_of(color_keys, join_texts(r.point, split.color, " · "));
    const std::size_t si = index_of(style_keys, join_texts(r.point, split.style, " · "));
    svg::Series& s = pd.series[{ci, si}];
    if (s.points.empty()) {
      const std::string name = join_texts(r.point, split.series, " · ");
      s.name = name.empty() ? "all points" : name;
      s.color = svg::palette_color(ci);
      s.dash = svg::dash_pattern(si);
      s.marker = svg::marker_shape(si);
    }
    svg::XYPoint p{*x, y, label + ": " + figure_text(*f, spec.y_div, spec.unit) + ", " + f->metric, {}, {}};
    if (f->has_range()) {
      p.y_lo = f->min / spec.y_div;
      p.y_hi = f->max / spec.y_div;
      out.repetitions.insert(f->n);
    }
    s.points.push_back(std::move(p));
  }
  return out;
}

struct Drawn {
  std::vector<std::string> svgs;
  int dropped = 0;                    // panels whose every value is spec.skip_panels_at
  std::vector<std::string> single_x;  // panels whose points sit at one x
};

Drawn draw_panels(Panels& panels, const PanelSpec& spec) {
  Drawn out;
  svg::XYChart c;
  c.x.label = spec.x_label;
  c.x.ticks.assign(panels.xs.begin(), panels.xs.end());
  c.y.label = spec.y_label;
  c.y.include_zero = true;
  if (spec.y_max) {
    c.y.max = *spec.y_max;
  } else if (panels.y_max > 0) {
    c.y.max = svg::nice_ticks(0, panels.y_max, 5).back();
  }
  c.marks_legend = "point not ok (listed under Rows not ok)";
  c.whisker_legend = whisker_text(panels.repetitions);
  c.dodge_px = 4;
  for (std::size_t pi = 0; pi < panels.keys.size(); ++pi) {
    PanelData& pd = panels.data[pi];
    if (spec.skip_panels_at && !pd.any_not_skipped && !pd.series.empty()) {
      ++out.dropped;
      continue;
    }
    std::set<double> panel_xs;
    for (const auto& [k, s] : pd.series) {
      for (const svg::XYPoint& p : s.points) panel_xs.insert(p.x);
    }
    for (const svg::AxisMark& m : pd.marks) panel_xs.insert(m.x);
    const std::string name = panels.keys[pi].empty() ? "all points" : panels.keys[pi];
    if (panel_xs.size() < 2) {
      // Nothing varies along x here (e.g. resident points at one drive count).
      out.single_x.push_back(name);
      continue;
    }
    c.id = spec.id + "-p" + std::to_string(pi);
    c.title = name;
    c.series.clear();
    for (auto& [k, s] : pd.series) c.series.push_back(s);
    c.marks = pd.marks;
    out.svgs.push_back(svg::render_xy_chart(c));
  }
  return out;
}

std::string metric_text(const PanelSpec& spec) {
  return spec.full_metric.empty() ? spec.metric : spec.full_metric + " (" + spec.metric + " for a full-size card)";
}

// Why a chart has nothing to draw, or "".
std::string nothing_to_draw(const RunResults& res, const PanelSpec& spec, const Panels& panels, const Drawn& drawn) {
  const std::string axis = axis_name(spec.x_dim);
  if (panels.on_axis == 0) return "no row has a " + axis;
  if (panels.xs.size() < 2) {
    for (const ResultRow& r : res.rows) {
      if (dim(spec.x_dim).num(r.point)) {
        return "the sweep did not vary the " + axis + " (every point: " + dim(spec.x_dim).text(r.point) + ")";
      }
    }
  }
  std::size_t points = 0;
  for (const auto& [pi, pd] : panels.data) {
    for (const auto& [k, s] : pd.series) points += s.points.size();
  }
  if (points == 0) return "no ok row carries " + metric_text(spec);
  if (!drawn.svgs.empty()) return "";
  if (drawn.dropped > 0 && drawn.single_x.empty()) return "in every panel " + spec.skip_panels_why;
  return "in every panel the points sit at one " + axis;
}

std::string panel_caption(const std::string& intro, const PanelSpec& spec, const Split& split, const Panels& panels,
                          const Drawn& drawn) {
  std::string caption = intro;
  if (!split.panel.empty()) caption += " One panel per " + join(split.panel, " × ") + ";";
  if (!split.series.empty()) {
    caption += " one line per " + join(split.series, " × ") + " (colour: " + split.series.front() +
               (split.series.size() > 1 ? "; line style and marker: " + join(split.style, " × ") : "") + ").";
  }
  if (!panels.repetitions.empty()) {
    caption += " Each point is the median; its " + whisker_text(panels.repetitions) + " (the row's spread).";
  }
  if (drawn.dropped > 0) {
    caption += " " + plural(drawn.dropped, "panel") + " where " + spec.skip_panels_why + " " +
               (drawn.dropped == 1 ? "is" : "are") + " left out.";
  }
  if (!drawn.single_x.empty()) {
    caption += " Left out, as their points all sit at one " + axis_name(spec.x_dim) + ": " +
               join(drawn.single_x, "; ") + ".";
  }
  if (panels.no_x > 0) {
    caption += " " + plural(panels.no_x, "row") + " without a value on this axis (unlimited budget) are left out.";
  }
  if (panels.without_metric > 0) {
    caption += " " + plural(panels.without_metric, "ok row") + " without " + metric_text(spec) +
               (spec.full_metric.empty() ? "" : " (a scaled card whose engine does not time its layers)") +
               (panels.without_metric == 1 ? " is" : " are") + " left out.";
  }
  return caption;
}

}  // namespace

Section panel_chart(const RunResults& res, const PanelSpec& spec, const std::string& intro) {
  Section sec{spec.id, spec.title, intro, {}, "", ""};
  const Split split = split_dims(varying(all_rows(res)), spec);
  Panels panels = fill_panels(res, spec, split);
  Drawn drawn;
  if (panels.xs.size() >= 2) drawn = draw_panels(panels, spec);
  sec.skipped = nothing_to_draw(res, spec, panels, drawn);
  if (!sec.skipped.empty()) return sec;
  sec.svgs = std::move(drawn.svgs);
  sec.caption = panel_caption(intro, spec, split, panels, drawn);
  return sec;
}

}  // namespace moebench::html
