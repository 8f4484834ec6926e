// html_report.cpp — assembles the HTML report of html_report.h: header with
// the run's conditions, the results table, the rows that are not ok, and the
// chart sections. Rows become chart descriptions here; drawing them is
// svg_chart.cpp's job.
//
// Grouping: a chart plots one metric against one point axis (budget, drive
// count, context, prompt length). Among the other axes, those that vary in
// the results split the chart into panels (engine, model, scale, and drives
// or context) or into series inside a panel (quant by colour, everything
// else by line style and marker), so each line holds exactly one axis
// changing. Panels of one chart share their x ticks and y range so they can
// be compared by eye.
#include "reports/html_report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <system_error>

#include "vocab/columns.h"
#include "vocab/metrics.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/cell_format.h"
#include "reports/svg_chart.h"

namespace moebench {
namespace {

using svg::escape;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

const char* const kChartBudget = "chart-decode-vs-budget";
const char* const kChartDrives = "chart-decode-vs-drives";
const char* const kChartContext = "chart-decode-vs-context";
const char* const kChartTtft = "chart-ttft-vs-prompt";
const char* const kChartRead = "chart-read-per-token-vs-budget";
const char* const kChartPredicted = "chart-predicted-vs-measured";
const char* const kChartBandwidth = "chart-achieved-vs-probed";
const char* const kChartCompare = "chart-compare-ratio";

// ---- point axes ------------------------------------------------------------

struct Dim {
  std::string key;
  std::function<std::string(const Point&)> text;      // "budget 7.25 GiB"
  std::function<std::optional<double>(const Point&)> num;  // in the chart unit
};

std::string plural(std::int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

const std::vector<Dim>& dims() {
  static const std::vector<Dim> d = {
      {"engine", [](const Point& p) { return p.engine.to_string(); }, nullptr},
      {"model", [](const Point& p) { return p.model; }, nullptr},
      {"scale", [](const Point& p) { return p.scale.to_string(); }, nullptr},
      {"quant", [](const Point& p) { return p.quant; }, nullptr},
      {"budget",
       [](const Point& p) {
         return p.ram_budget_bytes ? format_bytes(static_cast<double>(*p.ram_budget_bytes)) : std::string("unlimited");
       },
       [](const Point& p) -> std::optional<double> {
         if (!p.ram_budget_bytes) return std::nullopt;
         return static_cast<double>(*p.ram_budget_bytes) / kGiB;
       }},
      {"drives",
       [](const Point& p) {
         std::string s = plural(p.drives.count, "drive");
         if (p.drives.layout != "replicate") s += " " + p.drives.layout;
         if (p.drives.throttle_bytes_s) s += " @" + format_rate(*p.drives.throttle_bytes_s);
         return s;
       },
       [](const Point& p) -> std::optional<double> { return p.drives.count; }},
      {"context", [](const Point& p) { return "ctx " + std::to_string(p.context_tokens); },
       [](const Point& p) -> std::optional<double> { return static_cast<double>(p.context_tokens); }},
      {"prompt", [](const Point& p) { return "prompt " + std::to_string(p.prompt_tokens); },
       [](const Point& p) -> std::optional<double> { return static_cast<double>(p.prompt_tokens); }},
      {"gen", [](const Point& p) { return "gen " + std::to_string(p.gen_tokens); }, nullptr},
      {"threads", [](const Point& p) { return p.threads == 0 ? std::string("all threads") : plural(p.threads, "thread"); },
       nullptr},
      {"routing", [](const Point& p) { return "routing " + p.routing; }, nullptr},
      {"cache", [](const Point& p) { return "cache " + p.cache_policy; }, nullptr},
      {"prefetch", [](const Point& p) { return "prefetch " + p.prefetch; }, nullptr},
  };
  return d;
}

const Dim& dim(const std::string& key) {
  for (const Dim& d : dims()) {
    if (d.key == key) return d;
  }
  return dims().front();  // unreachable with the keys used below
}

// The dims whose value differs between rows, in dims() order.
std::vector<std::string> varying(const std::vector<const ResultRow*>& rows) {
  std::vector<std::string> out;
  for (const Dim& d : dims()) {
    std::set<std::string> values;
    for (const ResultRow* r : rows) values.insert(d.text(r->point));
    if (values.size() > 1) out.push_back(d.key);
  }
  return out;
}

std::string join_texts(const Point& p, const std::vector<std::string>& keys, const std::string& sep) {
  std::vector<std::string> parts;
  for (const std::string& k : keys) parts.push_back(dim(k).text(p));
  return join(parts, sep);
}

// "#6 streaming · mxfp4 · 7.25 GiB · 1 drive · ctx 0": the point's index and
// every axis that varies in the results.
std::string row_label(const ResultRow& r, const std::vector<std::string>& vary) {
  const std::string rest = join_texts(r.point, vary, " · ");
  return "#" + std::to_string(r.point.number()) + (rest.empty() ? "" : " " + rest);
}

std::vector<const ResultRow*> all_rows(const RunResults& r) {
  std::vector<const ResultRow*> out;
  for (const ResultRow& row : r.rows) out.push_back(&row);
  return out;
}

std::string num(double v, int sig = 3) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  int decimals = a >= 100 ? 1 : a >= 10 ? sig - 2 : a >= 1 ? sig - 1 : sig;
  if (a != 0 && a < 0.01) return format_scientific(v, sig);
  return format_fixed(v, std::max(0, decimals));
}

std::string pct(double frac) { return format_fixed(100 * frac, 1) + " %"; }

double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// ---- sections ----------------------------------------------------------------

struct Section {
  std::string id, title, caption;  // caption: plain text, escaped on output
  std::vector<std::string> svgs;   // rendered panels
  std::string extra_html;          // already escaped (tables under the chart)
};

void render_section(const Section& s, const TextSink& emit) {
  emit("<section class=\"chart\" id=\"" + escape(s.id) + "\">\n<h2>" + escape(s.title) + "</h2>\n");
  emit("<p class=\"caption\">" + escape(s.caption) + "</p>\n<div class=\"panels\">\n");
  for (const std::string& svg : s.svgs) {
    emit("<figure class=\"panel\">\n");
    emit(svg);
    emit("</figure>\n");
  }
  emit("</div>\n");
  emit(s.extra_html);
  emit("</section>\n");
}

// A metric against a point axis, panelled and split into series (see the top).
struct PanelSpec {
  std::string id, title;
  std::string metric;
  double y_div = 1;            // value / y_div = axis unit
  std::string y_label, unit;   // unit for tooltips ("tok/s")
  std::string x_dim, x_label;
  std::vector<std::string> panel_dims;
  bool skip_zero_panels = false;  // drop panels whose every value is 0 (resident reads)
};

std::string axis_name(const std::string& dim_key) {
  static const std::map<std::string, std::string> names = {
      {"budget", "RAM budget"}, {"drives", "drive count"}, {"context", "context length"}, {"prompt", "prompt length"}};
  auto it = names.find(dim_key);
  return it == names.end() ? dim_key : it->second;
}

Section panel_chart(const RunResults& res, const PanelSpec& spec, const std::string& intro) {
  Section sec{spec.id, spec.title, intro, {}, ""};
  const Dim& xd = dim(spec.x_dim);
  std::vector<const ResultRow*> rows;
  int no_x = 0;
  for (const ResultRow& r : res.rows) {
    if (xd.num(r.point)) {
      rows.push_back(&r);
    } else {
      ++no_x;
    }
  }
  const std::vector<std::string> vary = varying(all_rows(res));
  std::set<double> xs;
  for (const ResultRow* r : rows) xs.insert(*xd.num(r->point));
  std::string empty;
  if (rows.empty()) {
    empty = "No data: no row has a " + axis_name(spec.x_dim) + ".";
  } else if (xs.size() < 2) {
    empty = "No data to draw: the sweep did not vary the " + axis_name(spec.x_dim) + " (every point: " +
            xd.text(rows.front()->point) + ").";
  }
  std::vector<std::string> pdims, sdims;
  for (const std::string& k : vary) {
    if (k == spec.x_dim) continue;
    if (std::find(spec.panel_dims.begin(), spec.panel_dims.end(), k) != spec.panel_dims.end()) {
      pdims.push_back(k);
    } else {
      sdims.push_back(k);
    }
  }
  // Colour by the first series axis (quant when it varies), style by the rest.
  std::vector<std::string> color_dim, style_dims;
  if (!sdims.empty()) color_dim.push_back(sdims.front());
  style_dims.assign(sdims.begin() + (sdims.empty() ? 0 : 1), sdims.end());

  std::vector<std::string> panel_keys, color_keys, style_keys;
  auto index_of = [](std::vector<std::string>& keys, const std::string& k) {
    auto it = std::find(keys.begin(), keys.end(), k);
    if (it != keys.end()) return static_cast<std::size_t>(it - keys.begin());
    keys.push_back(k);
    return keys.size() - 1;
  };
  struct PanelData {
    std::map<std::pair<std::size_t, std::size_t>, svg::Series> series;
    std::vector<svg::AxisMark> marks;
    bool any_nonzero = false;
  };
  std::map<std::size_t, PanelData> panels;
  double y_max = 0;
  int skipped_ok_without_metric = 0;
  for (const ResultRow* r : rows) {
    const std::size_t pi = index_of(panel_keys, join_texts(r->point, pdims, " · "));
    const std::size_t ci = index_of(color_keys, join_texts(r->point, color_dim, " · "));
    const std::size_t si = index_of(style_keys, join_texts(r->point, style_dims, " · "));
    PanelData& pd = panels[pi];
    const double x = *xd.num(r->point);
    const std::string label = row_label(*r, vary);
    if (r->status != RowStatus::kOk) {
      // One mark per x: its tooltip lists every point not ok there.
      const std::string tip = label + ": " + to_string(r->status) + (r->reason.empty() ? "" : " — " + r->reason);
      auto m = std::find_if(pd.marks.begin(), pd.marks.end(), [x](const svg::AxisMark& a) { return a.x == x; });
      if (m == pd.marks.end()) {
        pd.marks.push_back({x, tip});
      } else {
        m->tip += "\n" + tip;
      }
      continue;
    }
    const std::optional<double> v = r->median(spec.metric);
    if (!v) {
      ++skipped_ok_without_metric;
      continue;
    }
    const double y = *v / spec.y_div;
    y_max = std::max(y_max, y);
    if (y != 0) pd.any_nonzero = true;
    svg::Series& s = pd.series[{ci, si}];
    if (s.points.empty()) {
      std::string name = join_texts(r->point, sdims, " · ");
      s.name = name.empty() ? "all points" : name;
      s.color = svg::palette_color(ci);
      s.dash = svg::dash_pattern(si);
      s.marker = svg::marker_shape(si);
    }
    s.points.push_back({x, y, label + ": " + num(*v / spec.y_div) + " " + spec.unit});
  }
  std::string caption = intro;
  svg::Axis xa;
  xa.label = spec.x_label;
  xa.ticks.assign(xs.begin(), xs.end());
  svg::Axis ya;
  ya.label = spec.y_label;
  ya.include_zero = true;
  if (y_max > 0) ya.max = svg::nice_ticks(0, y_max, 5).back();
  int dropped_zero = 0;
  std::vector<std::string> single_x;
  for (std::size_t pi = 0; pi < panel_keys.size() && empty.empty(); ++pi) {
    PanelData& pd = panels[pi];
    if (spec.skip_zero_panels && !pd.any_nonzero && !pd.series.empty()) {
      ++dropped_zero;
      continue;
    }
    std::set<double> panel_xs;
    for (const auto& [k, s] : pd.series) {
      for (const svg::XYPoint& p : s.points) panel_xs.insert(p.x);
    }
    for (const svg::AxisMark& m : pd.marks) panel_xs.insert(m.x);
    if (panel_xs.size() < 2) {
      // Nothing varies along x here (e.g. resident points at one drive count).
      single_x.push_back(panel_keys[pi].empty() ? "all points" : panel_keys[pi]);
      continue;
    }
    svg::XYChart c;
    c.id = spec.id + "-p" + std::to_string(pi);
    c.title = panel_keys[pi].empty() ? "all points" : panel_keys[pi];
    c.x = xa;
    c.y = ya;
    for (auto& [k, s] : pd.series) c.series.push_back(s);
    c.marks = pd.marks;
    c.marks_legend = "point not ok (listed under Rows not ok)";
    c.empty_message = "No ok row with " + spec.metric + " in this panel.";
    sec.svgs.push_back(svg::render_xy_chart(c));
  }
  if (empty.empty() && sec.svgs.empty()) {
    empty = "No data to draw: in every panel the points sit at one " + axis_name(spec.x_dim) + ".";
  }
  if (!empty.empty()) {
    svg::XYChart c;
    c.id = spec.id + "-p0";
    c.title = spec.title;
    c.empty_message = empty;
    sec.svgs.push_back(svg::render_xy_chart(c));
  }
  if (!pdims.empty() && empty.empty()) caption += " One panel per " + join(pdims, " × ") + ";";
  if (!sdims.empty() && empty.empty()) {
    caption += " one line per " + join(sdims, " × ") + " (colour: " + sdims.front() +
               (sdims.size() > 1 ? "; line style and marker: " + join(style_dims, " × ") : "") + ").";
  }
  if (dropped_zero > 0) {
    caption += " " + plural(dropped_zero, "panel") + " where every value is 0 (nothing read from storage) " +
               (dropped_zero == 1 ? "is" : "are") + " left out.";
  }
  if (!single_x.empty()) {
    caption += " Left out, as their points all sit at one " + axis_name(spec.x_dim) + ": " + join(single_x, "; ") + ".";
  }
  if (no_x > 0) caption += " " + plural(no_x, "row") + " without a value on this axis (unlimited budget) are left out.";
  if (skipped_ok_without_metric > 0) {
    caption += " " + plural(skipped_ok_without_metric, "ok row") + " without " + spec.metric + " are left out.";
  }
  sec.caption = caption;
  return sec;
}

// ---- TTFT --------------------------------------------------------------------

Section ttft_chart(const RunResults& res) {
  std::set<std::int64_t> prompts;
  for (const ResultRow& r : res.rows) prompts.insert(r.point.prompt_tokens);
  const std::string title = "Time to first token against prompt length";
  if (prompts.size() > 1) {
    PanelSpec spec{kChartTtft, title, "ttft_s", 1, "time to first token (s)", "s", "prompt",
                   "prompt length (tokens)", {"engine", "model", "scale", "drives"}, false};
    return panel_chart(res, spec,
                       "TTFT (prompt handed to the engine → first generated token: prefill, the first decode step and "
                       "the cold reads they cause), median over repetitions, against the prompt length.");
  }
  Section sec{kChartTtft, title, "", {}, ""};
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarChart c;
  c.id = std::string(kChartTtft) + "-p0";
  c.title = "TTFT per point";
  c.value_axis.label = "time to first token (s)";
  c.value_axis.include_zero = true;
  c.value_label = [](double v) { return num(v) + " s"; };
  svg::BarSeries s;
  s.color = svg::palette_color(0);
  std::vector<double> vals;
  for (const ResultRow& r : res.rows) {
    const std::optional<double> v = r.median("ttft_s");
    if (r.status != RowStatus::kOk || !v) continue;
    c.categories.push_back(row_label(r, vary));
    s.values.push_back(*v);
    s.tips.push_back(row_label(r, vary) + ": TTFT " + num(*v) + " s, prefill " +
                     (r.median("prefill_tok_s") ? num(*r.median("prefill_tok_s")) + " tok/s" : "–"));
    vals.push_back(*v);
  }
  c.series.push_back(s);
  c.empty_message = "No data: no ok row has a TTFT.";
  sec.svgs.push_back(svg::render_bar_chart(c));
  sec.caption = "The sweep did not vary prompt length (every point: " +
                (prompts.empty() ? std::string("no points") : plural(*prompts.begin(), "token")) +
                "), so TTFT is shown per point instead of against prompt length. TTFT runs from the prompt being "
                "handed to the engine to the first generated token: prefill, the first decode step and the cold "
                "reads they cause; median over repetitions.";
  if (!vals.empty()) {
    sec.caption += " Range " + num(*std::min_element(vals.begin(), vals.end())) + "–" +
                   num(*std::max_element(vals.begin(), vals.end())) + " s over " + plural(static_cast<std::int64_t>(vals.size()), "ok point") + ".";
  }
  return sec;
}

// ---- predicted against measured ----------------------------------------------

Section predicted_chart(const HtmlReportInput& in) {
  const RunResults& res = *in.results;
  Section sec{kChartPredicted, "Predicted against measured", "", {}, ""};
  std::map<std::string, const ResultRow*> predicted;
  if (in.predicted != nullptr) {
    for (const ResultRow& r : in.predicted->rows) {
      if (r.provenance == "predicted") predicted[r.point.id()] = &r;
    }
  }
  std::vector<const ResultRow*> measured;
  for (const ResultRow& r : res.rows) {
    if (r.provenance == "predicted") {
      predicted.emplace(r.point.id(), &r);
    } else {
      measured.push_back(&r);
    }
  }
  struct Pair {
    const ResultRow* m;
    const ResultRow* p;
  };
  std::vector<Pair> pairs;
  for (const ResultRow* m : measured) {
    auto it = predicted.find(m->point.id());
    if (it != predicted.end()) pairs.push_back({m, it->second});
  }
  std::string why_empty;
  if (predicted.empty()) {
    why_empty = "No data: no analytic rows (provenance \"predicted\") in the results and no --predicted PRED.json "
                "given. `moebench predict SWEEP` writes them.";
  } else if (measured.empty()) {
    why_empty = "No data: every row of the results is predicted; there is no measurement to set them against "
                "(pass the measured results with --predicted PRED.json).";
  } else if (pairs.empty()) {
    why_empty = "No data: no predicted row has the point id of a measured row (different sweeps?).";
  }
  const std::vector<std::string> vary = varying(all_rows(res));
  std::vector<std::string> keys;
  std::map<std::string, svg::Series> dec, rd;
  std::vector<double> dec_err, rd_err;
  int within = 0, status_agree = 0;
  std::vector<std::string> disagreements;
  std::string table;
  for (const Pair& pr : pairs) {
    if (pr.m->status == pr.p->status) {
      ++status_agree;
    } else {
      disagreements.push_back(row_label(*pr.m, vary) + " measured " + to_string(pr.m->status) + ", predicted " +
                              to_string(pr.p->status));
    }
    const std::string key = pr.m->point.engine.to_string() + " · " + pr.m->point.quant;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    const std::size_t ki = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
    const auto md = pr.m->median("decode_tok_s"), pd = pr.p->median("decode_tok_s");
    const auto mr = pr.m->median("read_bytes_per_token"), prd = pr.p->median("read_bytes_per_token");
    if (pr.m->status != RowStatus::kOk || pr.p->status != RowStatus::kOk) continue;
    std::string derr = "–", rerr = "–";
    if (md && pd && *md > 0) {
      const double e = *pd / *md - 1;
      dec_err.push_back(std::fabs(e));
      if (std::fabs(e) <= 0.15) ++within;
      derr = (e >= 0 ? "+" : "") + format_fixed(100 * e, 1) + " %";
      svg::Series& s = dec[key];
      s.name = key;
      s.color = svg::palette_color(ki);
      s.marker = svg::marker_shape(ki);
      s.line = false;
      s.points.push_back({*md, *pd, row_label(*pr.m, vary) + ": measured " + num(*md) + " tok/s, predicted " +
                                        num(*pd) + " tok/s (" + derr + ")"});
    }
    if (mr && prd && *mr > 0) {
      const double e = *prd / *mr - 1;
      rd_err.push_back(std::fabs(e));
      rerr = (e >= 0 ? "+" : "") + format_fixed(100 * e, 1) + " %";
      svg::Series& s = rd[key];
      s.name = key;
      s.color = svg::palette_color(ki);
      s.marker = svg::marker_shape(ki);
      s.line = false;
      s.points.push_back({*mr / kMiB, *prd / kMiB, row_label(*pr.m, vary) + ": measured " + format_bytes(*mr) +
                                                       ", predicted " + format_bytes(*prd) + " (" + rerr + ")"});
    }
    table += "<tr><td>" + escape(row_label(*pr.m, vary)) + "</td><td class=\"n\">" +
             (md ? num(*md) : std::string("–")) + "</td><td class=\"n\">" + (pd ? num(*pd) : std::string("–")) +
             "</td><td class=\"n\">" + escape(derr) + "</td><td class=\"n\">" +
             (mr ? escape(format_bytes(*mr)) : "–") + "</td><td class=\"n\">" +
             (prd ? escape(format_bytes(*prd)) : "–") + "</td><td class=\"n\">" + escape(rerr) + "</td></tr>\n";
  }
  auto scatter = [&](const std::string& id, const std::string& title, const std::string& unit_label,
                     std::map<std::string, svg::Series>& series, const std::string& empty) {
    svg::XYChart c;
    c.id = id;
    c.title = title;
    c.x.label = "measured " + unit_label;
    c.y.label = "predicted " + unit_label;
    c.x.include_zero = c.y.include_zero = true;
    c.equal_axes = true;
    c.width = 520;
    c.plot_height = 300;
    for (const std::string& k : keys) {
      if (series.count(k)) c.series.push_back(series[k]);
    }
    const double big = 1e12;
    c.bands.push_back({{{0, 0, ""}, {big, 0.85 * big, ""}, {big, 1.15 * big, ""}}, "±15 % of measured", "#009E73", 0.15});
    c.refs.push_back({0, 0, big, big, "y = x", "#333333", "6 4"});
    c.empty_message = empty;
    return svg::render_xy_chart(c);
  };
  sec.svgs.push_back(scatter(std::string(kChartPredicted) + "-p0", "decode throughput", "decode (tokens/s)", dec,
                             why_empty.empty() ? "No matched pair of ok rows with decode tok/s." : why_empty));
  sec.svgs.push_back(scatter(std::string(kChartPredicted) + "-p1", "storage bytes read per decode token",
                             "read per token (MiB)", rd,
                             why_empty.empty() ? "No matched pair of ok rows that read from storage during decode."
                                               : why_empty));
  std::string cap = "Each point is one sweep point: the cost model's prediction (analytic engine, provenance "
                    "\"predicted\"" + std::string(in.predicted ? ", from " + in.predicted_label : "") +
                    ") against the measurement, matched by point id. Points on the dashed line y = x are exact; "
                    "the shaded band is ±15 % of the measured value.";
  if (!pairs.empty()) {
    cap += " " + plural(static_cast<std::int64_t>(pairs.size()), "matched point") + "; status agrees on " +
           std::to_string(status_agree) + ".";
    if (!dec_err.empty()) {
      cap += " Decode tok/s: median |error| " + pct(median_of(dec_err)) + ", " + std::to_string(within) + " of " +
             std::to_string(dec_err.size()) + " within ±15 %.";
    }
    if (!rd_err.empty()) cap += " Read bytes per token: median |error| " + pct(median_of(rd_err)) + ".";
    for (const std::string& d : disagreements) cap += " Status differs: " + d + ".";
  }
  sec.caption = cap;
  if (!table.empty()) {
    sec.extra_html = "<details><summary>Every matched point</summary>\n<table class=\"results\">\n<tr><th>point</th>"
                     "<th>decode tok/s measured</th><th>predicted</th><th>error</th><th>read/token measured</th>"
                     "<th>predicted</th><th>error</th></tr>\n" + table + "</table>\n</details>\n";
  }
  return sec;
}

// ---- achieved against probed bandwidth -----------------------------------------

struct ProbedRef {
  double bytes_s = 0;
  std::string label;
};

std::string cell_text(const DriveReadPoint& c) {
  return format_bytes(static_cast<double>(c.block_bytes)) + " " + c.pattern + " QD" + std::to_string(c.queue_depth);
}

// The best cell of a read curve, random reads preferred (expert reads are random).
const DriveReadPoint* best_cell(const std::vector<DriveReadPoint>& curve) {
  const DriveReadPoint* best = nullptr;
  for (const DriveReadPoint& c : curve) {
    if (c.pattern != "random") continue;
    if (!best || c.read_bytes_s.value > best->read_bytes_s.value) best = &c;
  }
  for (const DriveReadPoint& c : curve) {
    if (!best || (best->pattern != "random" && c.read_bytes_s.value > best->read_bytes_s.value)) best = &c;
  }
  return best;
}

std::optional<ProbedRef> probed_for(const MachineProfile& p, int drives) {
  if (drives > 1) {
    for (const DriveSetProfile& s : p.drive_sets) {
      if (static_cast<int>(s.drives.size()) != drives) continue;
      if (const DriveReadPoint* c = best_cell(s.read_curve)) {
        return ProbedRef{c->read_bytes_s.value, "probed " + std::to_string(drives) + "-drive set, best cell (" +
                                                    cell_text(*c) + "): " + format_rate(c->read_bytes_s.value)};
      }
    }
  }
  if (p.drives.empty()) return std::nullopt;
  const DriveProfile& d = p.drives.front();
  const DriveReadPoint* c = best_cell(d.read_curve);
  const double one = c ? c->read_bytes_s.value : d.seq_read_bytes_s.value;
  const std::string how = c ? cell_text(*c) : "sequential";
  if (drives <= 1) return ProbedRef{one, "probed " + d.name + ", best cell (" + how + "): " + format_rate(one)};
  return ProbedRef{one * drives, std::to_string(drives) + " × probed " + d.name + " (" + how +
                                     ", no drive-set cell): " + format_rate(one * drives)};
}

Section bandwidth_chart(const HtmlReportInput& in) {
  const RunResults& res = *in.results;
  Section sec{kChartBandwidth, "Achieved against probed read bandwidth", "", {}, ""};
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarChart c;
  c.id = std::string(kChartBandwidth) + "-p0";
  c.title = "storage read rate during decode";
  c.value_axis.label = "read rate (GB/s, decimal)";
  c.value_axis.include_zero = true;
  c.value_label = [](double v) { return format_fixed(v, 2) + " GB/s"; };
  svg::BarSeries avg{"average over the decode window (read bytes per token × decode tok/s)", {}, svg::palette_color(0), {}, {}};
  svg::BarSeries busy{"while reads were outstanding (read_busy_bytes_s)", {}, svg::palette_color(4), {}, {}};
  std::set<int> drive_counts;
  std::vector<double> avgs, busys;
  for (const ResultRow& r : res.rows) {
    const auto rb = r.median("read_bytes_per_token"), tok = r.median("decode_tok_s");
    if (r.status != RowStatus::kOk || !rb || !tok || *rb <= 0) continue;
    const double a = *rb * *tok;
    const std::optional<double> b = outstanding_read_rate(r);
    const std::string label = row_label(r, vary);
    c.categories.push_back(label);
    avg.values.push_back(a / 1e9);
    avg.tips.push_back(label + ": " + format_bytes(*rb) + "/token × " + num(*tok) + " tok/s = " + format_rate(a));
    busy.values.push_back(b ? std::optional<double>(*b / 1e9) : std::nullopt);
    busy.tips.push_back(label + (b ? ": " + format_rate(*b) + " while reads were outstanding" : ": no read_busy_bytes_s"));
    avgs.push_back(a);
    if (b) busys.push_back(*b);
    drive_counts.insert(r.point.drives.count);
  }
  c.series = {avg, busy};
  c.empty_message = "No data: no ok row read from storage during decode (resident rows read nothing; streaming rows "
                    "whose experts all fit in the cache may read nothing too).";
  std::string cap = "For every ok row that read from storage during decode: the average read rate over the decode "
                    "window (read bytes per token × decode tok/s) and the rate while at least one read was "
                    "outstanding (the streaming engine's \"decode reads\" note, averaged over repetitions), against "
                    "the drive read bandwidth the machine profile probed.";
  const std::vector<std::string> ref_colors = {"#B00020", "#6A3D9A", "#333333"};
  if (in.profile) {
    std::size_t i = 0;
    std::vector<std::string> curves;
    for (int n : drive_counts) {
      if (auto ref = probed_for(*in.profile, n)) {
        c.refs.push_back({ref->bytes_s / 1e9, ref->label, ref_colors[i % ref_colors.size()], "6 4"});
        ++i;
      }
    }
    cap += " Profile: " + in.profile->name + " (" + in.profile_note + ").";
    if (!in.profile->drives.empty()) {
      for (const DriveReadPoint& cell : in.profile->drives.front().read_curve) {
        curves.push_back(cell_text(cell) + " " + format_rate(cell.read_bytes_s.value));
      }
      if (!curves.empty()) cap += " Its " + in.profile->drives.front().name + " read curve: " + join(curves, ", ") + ".";
    }
    if (in.profile->calibration) {
      cap += " moebench calibrate fitted an I/O efficiency of " + format_fixed(in.profile->calibration->io_efficiency, 2) +
             " (achieved ÷ probed) for this profile.";
    }
  } else {
    cap += " The machine profile was not found (" + in.profile_note + "), so the probed bandwidth is not drawn.";
  }
  if (!avgs.empty()) {
    cap += " Average: " + format_rate(*std::min_element(avgs.begin(), avgs.end())) + "–" +
           format_rate(*std::max_element(avgs.begin(), avgs.end())) + ".";
  }
  if (!busys.empty()) {
    cap += " While outstanding: " + format_rate(*std::min_element(busys.begin(), busys.end())) + "–" +
           format_rate(*std::max_element(busys.begin(), busys.end())) + ".";
  }
  sec.caption = cap;
  sec.svgs.push_back(svg::render_bar_chart(c));
  return sec;
}

// ---- NEW / BASE ----------------------------------------------------------------

Section compare_chart(const HtmlReportInput& in) {
  const RunResults& res = *in.results;
  Section sec{kChartCompare, "Decode throughput against the base run", "", {}, ""};
  svg::BarChart c;
  c.id = std::string(kChartCompare) + "-p0";
  c.title = "decode tok/s, NEW ÷ BASE";
  c.value_axis.label = "NEW ÷ BASE decode tok/s (ratio)";
  c.baseline = 1;
  c.value_label = [](double v) { return format_fixed(v, 3) + "×"; };
  c.refs.push_back({1, "equal (1×)", "#333333", "4 3"});
  if (in.base == nullptr) {
    c.empty_message = "No data: no --compare BASE.json given. `moebench report NEW.json --compare BASE.json --html "
                      "out.html` draws the ratio of decode tok/s for every point both runs hold.";
    sec.caption = "Without a base run there is nothing to compare.";
    sec.svgs.push_back(svg::render_bar_chart(c));
    return sec;
  }
  std::map<std::string, const ResultRow*> base;
  std::set<std::string> base_prov, new_prov;
  for (const ResultRow& r : in.base->rows) {
    base[r.point.id()] = &r;
    base_prov.insert(r.provenance);
  }
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarSeries s{"", {}, "", {}, {}};
  std::vector<double> logs;
  int faster = 0, slower = 0, unmatched = 0, matched = 0;
  for (const ResultRow& r : res.rows) {
    new_prov.insert(r.provenance);
    auto it = base.find(r.point.id());
    if (it == base.end()) {
      ++unmatched;
      continue;
    }
    ++matched;
    const auto nv = r.median("decode_tok_s"), bv = it->second->median("decode_tok_s");
    if (!nv && !bv) continue;
    const std::string label = row_label(r, vary);
    c.categories.push_back(label);
    if (nv && bv && *bv > 0) {
      const double ratio = *nv / *bv;
      s.values.push_back(ratio);
      s.bar_colors.push_back(ratio >= 1 ? "#009E73" : "#D55E00");
      s.tips.push_back(label + ": " + num(*nv) + " tok/s ÷ " + num(*bv) + " tok/s = " + format_fixed(ratio, 3) + "×");
      logs.push_back(std::log(ratio));
      (ratio >= 1 ? faster : slower)++;
    } else {
      s.values.push_back(std::nullopt);
      s.bar_colors.push_back("");
      s.tips.push_back(label + ": " + (nv ? "no decode tok/s in BASE" : "no decode tok/s in NEW"));
    }
  }
  c.series.push_back(s);
  c.empty_message = "No data: no point of the results has a point id in " + in.base_label + " with decode tok/s.";
  std::string cap = "Ratio of decode tok/s, NEW (" + in.results_label + ") ÷ BASE (" + in.base_label +
                    "), per point matched by point id; above 1 (green) NEW is faster. Medians over repetitions: "
                    "compare a ratio with the rows' spread (±% column) before calling it a change.";
  cap += " " + plural(matched, "point") + " matched, " + std::to_string(unmatched) + " of NEW not in BASE.";
  if (!logs.empty()) {
    double sum = 0;
    for (double l : logs) sum += l;
    cap += " Geometric mean ratio " + format_fixed(std::exp(sum / static_cast<double>(logs.size())), 3) + "×; " +
           std::to_string(faster) + " at or above 1, " + std::to_string(slower) + " below.";
  }
  if (base_prov != new_prov) {
    cap += " Note: the runs' provenances differ (NEW " + join({new_prov.begin(), new_prov.end()}, ", ") + ", BASE " +
           join({base_prov.begin(), base_prov.end()}, ", ") + ").";
  }
  sec.caption = cap;
  sec.svgs.push_back(svg::render_bar_chart(c));
  return sec;
}

// ---- header, table, status --------------------------------------------------------

std::string conditions_html(const HtmlReportInput& in) {
  const RunResults& r = *in.results;
  const SweepInfo& s = r.sweep;
  std::string out = "<dl class=\"conditions\">\n";
  auto item = [&](const std::string& k, const std::string& v) {
    out += "<dt>" + escape(k) + "</dt><dd>" + escape(v) + "</dd>\n";
  };
  item("Sweep", s.name + " (digest " + s.digest + ") — " + std::to_string(r.rows.size()) + " of " +
                    std::to_string(s.points_total) + " points" +
                    (s.shard ? " (shard " + s.shard->label() + ": " + std::to_string(s.shard->point_ids.size()) +
                                   " of them)"
                             : "") +
                    ", " + plural(s.repetitions, "repetition") + " + " +
                    std::to_string(s.warmup) + " warm-up each, seed " + std::to_string(s.seed));
  if (!s.description.empty()) item("Description", s.description);
  item("Results", in.results_label);
  double wall = 0;
  for (const ResultRow& row : r.rows) wall += row.wall_s;
  item("Point wall time", format_duration_s(wall) + " summed over the points (warm-ups and loads included)");
  for (const Environment& e : r.environments) {
    item("Run", e.run_id + ", started " + e.started_at);
    item("Machine", "profile " + e.machine_profile + " · host " + e.hostname + " · " + e.cpu_model + " (" +
                        std::to_string(e.logical_cpus) + " logical CPUs) · " +
                        format_bytes(static_cast<double>(e.memory_total_bytes)) + " RAM · " + e.kernel);
    item("Build", e.build_label() + " · " + e.compiler + " " + e.compiler_flags);
    item("Commit", e.git_commit);
    item("Command", e.command_line);
  }
  out += "</dl>\n";
  for (const Environment& e : r.environments) {
    if (!e.build_warning().empty()) out += "<p class=\"warning\">WARNING: " + escape(e.build_warning()) + "</p>\n";
  }
  return out;
}

// Handed over a row at a time (a sweep of 10^5 points gives 10^8 bytes of
// table); the report collects it while its charts are drawn beside it.
void results_table(const RunResults& r, const TextSink& emit) {
  std::vector<const Column*> shown;
  for (const Column& c : result_columns()) {
    if (c.markdown) shown.push_back(&c);
  }
  std::string out = "<div class=\"scroll\"><table class=\"results\" id=\"results-table\">\n<tr><th>#</th>";
  for (const Column* c : shown) {
    out += "<th title=\"" + escape(c->name + (c->unit.empty() ? "" : " (" + c->unit + ")") + ": " + c->description) +
           "\">" + escape(c->md_header) + "</th>";
  }
  out += "</tr>\n";
  for (const ResultRow& row : r.rows) {
    out.append("<tr class=\"").append(to_string(row.status)).append("\"><td class=\"n\">");
    out.append(std::to_string(row.point.number())).append("</td>");
    for (const Column* c : shown) {
      out.append(c->type == ColumnType::kString ? "<td>" : "<td class=\"n\">");
      out.append(escape(human_cell(*c, c->get(row)))).append("</td>");
    }
    out += "</tr>\n";
    emit(out);
    out.clear();
  }
  out += "</table></div>\n";
  if (r.rows.empty()) out += "<p>No finished points.</p>\n";
  out += "<details><summary>Columns</summary>\n<ul class=\"legend\">\n";
  for (const Column* c : shown) {
    out += "<li><b>" + escape(c->md_header) + "</b> (<code>" + escape(c->name) + "</code>" +
           escape(c->unit.empty() ? "" : ", " + c->unit) + "): " + escape(c->description) + "</li>\n";
  }
  out += "</ul>\n<p>Metrics are medians over repetitions; full precision, spread and raw samples are in "
         "results.csv and results.json.</p>\n</details>\n";
  emit(out);
}

std::string status_html(const RunResults& r) {
  std::map<std::string, int> counts;
  for (const ResultRow& row : r.rows) ++counts[to_string(row.status)];
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) parts.push_back(std::to_string(n) + " " + status);
  std::string out = "<section id=\"status\">\n<h2>Rows not ok</h2>\n<p>Status: " +
                    escape(parts.empty() ? std::string("no rows") : join(parts, ", ")) + ".</p>\n";
  const std::vector<std::string> vary = varying(all_rows(r));
  std::string rows;
  for (const ResultRow& row : r.rows) {
    if (row.status == RowStatus::kOk) continue;
    rows += "<tr><td class=\"n\">" + std::to_string(row.point.number()) + "</td><td>" + escape(row.point.label()) +
            "</td><td>" + to_string(row.status) + "</td><td>" + escape(row.reason) + "</td></tr>\n";
  }
  out += rows.empty() ? "<p>Every row is ok.</p>\n"
                      : "<table class=\"results wrap\" id=\"not-ok\">\n<tr><th>#</th><th>point</th><th>status</th>"
                        "<th>reason</th></tr>\n" + rows + "</table>\n";
  std::string notes;
  for (const ResultRow& row : r.rows) {
    if (row.notes.empty()) continue;
    notes += "<li>" + escape(row_label(row, vary)) + "<ul>";
    for (const std::string& n : row.notes) notes += "<li>" + escape(n) + "</li>";
    notes += "</ul></li>\n";
  }
  if (!notes.empty()) out += "<details><summary>Notes per row</summary>\n<ul class=\"notes\">\n" + notes + "</ul>\n</details>\n";
  return out + "</section>\n";
}

const char* kStyle = R"(body{font-family:sans-serif;font-size:14px;color:#222;margin:24px auto;max-width:1180px;padding:0 12px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;padding-bottom:3px}
dl.conditions{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px}
dl.conditions dt{font-weight:bold;color:#444}dl.conditions dd{margin:0}
.banner{background:#fff4d6;border:1px solid #e0b000;padding:6px 10px}
.warning{background:#fde2e2;border:1px solid #c00;padding:6px 10px;font-weight:bold}
table.results{border-collapse:collapse;font-size:12px;margin:6px 0}
table.results th,table.results td{border:1px solid #ddd;padding:2px 6px;white-space:nowrap}
table.results th{background:#f0f2f5}table.wrap td{white-space:normal}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.infeasible td,tr.failed td,tr.invalid td{color:#8a1c1c;background:#fff6f6}
.scroll{overflow-x:auto}.caption{color:#444;font-size:13px;max-width:1100px}
.panels{display:flex;flex-wrap:wrap;gap:8px 16px}figure.panel{margin:0}
nav ul{columns:2;font-size:13px}ul.notes{font-size:12px}details{margin:6px 0;font-size:13px}
)";

// Every section computed at once (each reads the input and nothing else): on
// a large sweep the charts are most of the report's work.
// `beside` runs on this thread meanwhile.
std::vector<Section> compute_sections(const std::vector<std::function<Section()>>& makers,
                                      const std::function<void()>& beside) {
  std::vector<std::future<Section>> pending;
  for (const auto& make : makers) {
    try {
      pending.push_back(std::async(std::launch::async, make));
    } catch (const std::system_error&) {  // no thread to be had: compute it here
      std::promise<Section> here;
      here.set_value(make());
      pending.push_back(here.get_future());
    }
  }
  beside();
  std::vector<Section> out;
  for (auto& p : pending) out.push_back(p.get());
  return out;
}

}  // namespace

const std::vector<std::string>& report_chart_ids() {
  static const std::vector<std::string> ids = {kChartBudget, kChartDrives,    kChartContext,   kChartTtft,
                                               kChartRead,   kChartPredicted, kChartBandwidth, kChartCompare};
  return ids;
}

std::optional<double> outstanding_read_rate(const ResultRow& row) { return row.median(metric::kReadBusyBytesS); }

std::string write_html_report(const HtmlReportInput& in) {
  std::string out;
  write_html_report_to(in, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

void write_html_report_to(const HtmlReportInput& in, const TextSink& emit) {
  const RunResults& r = *in.results;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>moebench report: " +
                    escape(r.sweep.name) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<header>\n<h1>moebench report: " + escape(r.sweep.name) + "</h1>\n";
  std::set<std::string> provenances;
  for (const ResultRow& row : r.rows) provenances.insert(row.provenance);
  if (provenances.count("synthetic")) {
    out += "<p class=\"warning\">SYNTHETIC DATA — NOT A MEASUREMENT. Rows with provenance synthetic come from the null "
           "engine, a test double that touches no hardware; their numbers mean nothing about any machine.</p>\n";
  }
  if (provenances.count("predicted")) {
    out += "<p class=\"banner\">Rows with provenance predicted come from the cost model, not from running the "
           "model.</p>\n";
  }
  out += conditions_html(in) + "</header>\n";

  const std::vector<std::function<Section()>> makers = {
      [&] { return panel_chart(
      r,
      {kChartBudget, "Decode throughput against RAM budget", "decode_tok_s", 1, "decode (tokens/s)", "tok/s", "budget",
       "RAM budget (GiB)", {"engine", "model", "scale", "drives"}, false},
      "Steady decode throughput ((generated tokens − 1) ÷ decode time, first token excluded), median over "
      "repetitions, against the point's RAM budget. × on the x axis: a point that did not run ok at that budget."); },
      [&] { return panel_chart(
      r,
      {kChartDrives, "Decode throughput against drive count", "decode_tok_s", 1, "decode (tokens/s)", "tok/s", "drives",
       "drives (count)", {"engine", "model", "scale", "context"}, false},
      "Steady decode throughput, median over repetitions, against the number of drives (directories) the "
      "container was read from."); },
      [&] { return panel_chart(
      r,
      {kChartContext, "Decode throughput against context length", "decode_tok_s", 1, "decode (tokens/s)", "tok/s",
       "context", "context (tokens)", {"engine", "model", "scale", "drives"}, false},
      "Steady decode throughput, median over repetitions, against the context the KV cache / linear state was "
      "filled to before the prompt (decode attention runs over it)."); },
      [&] { return ttft_chart(r); },
      [&] { return panel_chart(
      r,
      {kChartRead, "Storage bytes read per decode token against RAM budget", "read_bytes_per_token", kMiB,
       "read per token (MiB)", "MiB", "budget", "RAM budget (GiB)", {"engine", "model", "scale", "drives"}, true},
      "Storage bytes read in the decode window ÷ decode tokens (engine counters), median over repetitions, against "
      "the RAM budget: a larger budget holds more experts in the cache, so fewer are read per token."); },
      [&] { return predicted_chart(in); },
      [&] { return bandwidth_chart(in); },
      [&] { return compare_chart(in); },
  };
  // The results table is drawn beside the charts (a row of HTML per point).
  std::string table;
  std::vector<Section> sections = compute_sections(makers, [&] {
    results_table(r, [&table](std::string_view piece) { table.append(piece); });
  });

  out += "<nav>\n<ul>\n<li><a href=\"#results\">Results</a></li>\n<li><a href=\"#status\">Rows not ok</a></li>\n";
  for (const Section& s : sections) out += "<li><a href=\"#" + escape(s.id) + "\">" + escape(s.title) + "</a></li>\n";
  out += "</ul>\n</nav>\n";
  out += "<section id=\"results\">\n<h2>Results</h2>\n";
  emit(out);
  emit(table);
  table = std::string();
  emit("</section>\n");
  emit(status_html(r));
  for (const Section& s : sections) render_section(s, emit);
  out = "<footer><p class=\"caption\">Written by moebench report from " + escape(in.results_label) +
         (in.predicted ? ", predicted rows from " + escape(in.predicted_label) : std::string()) +
         (in.base ? ", base " + escape(in.base_label) : std::string()) +
         ". Self-contained: no script, no external resource.</p></footer>\n</body>\n</html>\n";
  emit(out);
}

}  // namespace moebench
