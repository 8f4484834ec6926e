// html_checks.cpp — the HTML report's charts that set a run against
// something else (html_charts.h): predicted against measured (the cost
// model's rows matched to the measured ones by point id), achieved against
// probed read bandwidth (the machine profile's drive read curve), and the
// per-point ratio NEW ÷ BASE of decode tok/s. These chart the card's own
// figures as it ran: that is what the prediction, the read rate and a
// regression are about. Without their input (no predicted rows, no row
// that read from storage, no --compare) a chart has nothing to draw and
// says why in `skipped`.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reports/html_charts.h"
#include "reports/svg_chart.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench::html {
namespace {

using svg::escape;

// ---- predicted against measured ----------------------------------------------

struct Pair {
  const ResultRow* m;
  const ResultRow* p;
};

// Measured rows with the predicted row of the same point id: from
// --predicted, or rows with provenance "predicted" in the results
// themselves. Empty with why when there is nothing to pair.
struct Pairs {
  std::vector<Pair> pairs;
  std::string why_none;
};

Pairs pair_rows(const HtmlReportInput& in) {
  std::map<std::string, const ResultRow*> predicted;
  if (in.predicted != nullptr) {
    for (const ResultRow& r : in.predicted->rows) {
      if (r.provenance == "predicted") predicted[r.point.id()] = &r;
    }
  }
  std::vector<const ResultRow*> measured;
  for (const ResultRow& r : in.results->rows) {
    if (r.provenance == "predicted") {
      predicted.emplace(r.point.id(), &r);
    } else {
      measured.push_back(&r);
    }
  }
  Pairs out;
  for (const ResultRow* m : measured) {
    auto it = predicted.find(m->point.id());
    if (it != predicted.end()) out.pairs.push_back({m, it->second});
  }
  if (predicted.empty()) {
    out.why_none = "no rows with provenance predicted and no --predicted PRED.json given (moebench predict writes "
                   "them)";
  } else if (measured.empty()) {
    out.why_none = "every row of the results is predicted, with no measurement to set them against (pass the "
                   "measured results with --predicted PRED.json)";
  } else if (out.pairs.empty()) {
    out.why_none = "no predicted row has the point id of a measured row (different sweeps?)";
  }
  return out;
}

// The two scatters (decode tok/s, read bytes per token), the table of every
// pair and the figures the caption gives.
struct Scatters {
  std::vector<std::string> keys;  // engine · quant, in first-seen order
  std::map<std::string, svg::Series> dec, rd;
  std::vector<double> dec_err, rd_err;
  int within = 0, status_agree = 0;
  std::vector<std::string> disagreements;
  std::string table;
};

std::string signed_pct(double e) { return (e >= 0 ? "+" : "") + format_fixed(100 * e, 1) + " %"; }

svg::Series& series_for(std::map<std::string, svg::Series>& m, const std::string& key, std::size_t ki) {
  svg::Series& s = m[key];
  s.name = key;
  s.color = svg::palette_color(ki);
  s.marker = svg::marker_shape(ki);
  s.line = false;
  return s;
}

void add_pair(Scatters& sc, const Pair& pr, const std::vector<std::string>& vary) {
  const std::string label = row_label(*pr.m, vary);
  if (pr.m->status == pr.p->status) {
    ++sc.status_agree;
  } else {
    sc.disagreements.push_back(label + " measured " + to_string(pr.m->status) + ", predicted " +
                               to_string(pr.p->status));
  }
  const std::string key = pr.m->point.engine.to_string() + " · " + pr.m->point.quant;
  if (std::find(sc.keys.begin(), sc.keys.end(), key) == sc.keys.end()) sc.keys.push_back(key);
  const std::size_t ki = static_cast<std::size_t>(std::find(sc.keys.begin(), sc.keys.end(), key) - sc.keys.begin());
  const auto md = pr.m->median("decode_tok_s"), pd = pr.p->median("decode_tok_s");
  const auto mr = pr.m->median("read_bytes_per_token"), prd = pr.p->median("read_bytes_per_token");
  if (pr.m->status != RowStatus::kOk || pr.p->status != RowStatus::kOk) return;
  std::string derr = "–", rerr = "–";
  if (md && pd && *md > 0) {
    const double e = *pd / *md - 1;
    sc.dec_err.push_back(std::fabs(e));
    if (std::fabs(e) <= 0.15) ++sc.within;
    derr = signed_pct(e);
    series_for(sc.dec, key, ki).points.push_back(
        {*md, *pd, label + ": measured " + num(*md) + " tok/s, predicted " + num(*pd) + " tok/s (" + derr + ")", {}, {}});
  }
  if (mr && prd && *mr > 0) {
    const double e = *prd / *mr - 1;
    sc.rd_err.push_back(std::fabs(e));
    rerr = signed_pct(e);
    series_for(sc.rd, key, ki).points.push_back({*mr / kMiB, *prd / kMiB,
                                                 label + ": measured " + format_bytes(*mr) + ", predicted " +
                                                     format_bytes(*prd) + " (" + rerr + ")",
                                                 {}, {}});
  }
  const auto cell = [](const std::string& t) { return "<td class=\"n\">" + escape(t) + "</td>"; };
  sc.table += "<tr><td>" + escape(label) + "</td>" + cell(md ? num(*md) : "–") + cell(pd ? num(*pd) : "–") +
              cell(derr) + cell(mr ? format_bytes(*mr) : "–") + cell(prd ? format_bytes(*prd) : "–") + cell(rerr) +
              "</tr>\n";
}

std::string scatter(const std::string& id, const std::string& title, const std::string& unit_label,
                    const std::vector<std::string>& keys, const std::map<std::string, svg::Series>& series) {
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
    if (auto it = series.find(k); it != series.end()) c.series.push_back(it->second);
  }
  const double big = 1e12;
  c.bands.push_back({{{0, 0, "", {}, {}}, {big, 0.85 * big, "", {}, {}}, {big, 1.15 * big, "", {}, {}}},
                     "±15 % of measured",
                     "#009E73",
                     0.15});
  c.refs.push_back({0, 0, big, big, "y = x", "#333333", "6 4"});
  return svg::render_xy_chart(c);
}

std::string predicted_caption(const HtmlReportInput& in, const Pairs& pairs, const Scatters& sc) {
  std::string cap = "Each point is one sweep point: the cost model's prediction (analytic engine, provenance "
                    "\"predicted\"" + std::string(in.predicted ? ", from " + in.predicted_label : "") +
                    ") against the measurement of the card as it ran, matched by point id. Points on the dashed line "
                    "y = x are exact; the shaded band is ±15 % of the measured value.";
  cap += " " + plural(static_cast<std::int64_t>(pairs.pairs.size()), "matched point") + "; status agrees on " +
         std::to_string(sc.status_agree) + ".";
  if (!sc.dec_err.empty()) {
    cap += " Decode tok/s: median |error| " + pct(median_of(sc.dec_err)) + ", " + std::to_string(sc.within) + " of " +
           std::to_string(sc.dec_err.size()) + " within ±15 %.";
  }
  if (!sc.rd_err.empty()) cap += " Read bytes per token: median |error| " + pct(median_of(sc.rd_err)) + ".";
  for (const std::string& d : sc.disagreements) cap += " Status differs: " + d + ".";
  return cap;
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

// The probed bandwidth of each drive count as reference lines on `c`; the
// caption's words on the profile.
std::string probed_refs(const HtmlReportInput& in, const std::set<int>& drive_counts, svg::BarChart& c) {
  if (!in.profile) {
    return " The machine profile was not found (" + in.profile_note + "), so the probed bandwidth is not drawn.";
  }
  const std::vector<std::string> ref_colors = {"#B00020", "#6A3D9A", "#333333"};
  std::size_t i = 0;
  for (int n : drive_counts) {
    if (auto ref = probed_for(*in.profile, n)) {
      c.refs.push_back({ref->bytes_s / 1e9, ref->label, ref_colors[i % ref_colors.size()], "6 4"});
      ++i;
    }
  }
  std::string cap = " Profile: " + in.profile->name + " (" + in.profile_note + ").";
  if (!in.profile->drives.empty()) {
    std::vector<std::string> curves;
    for (const DriveReadPoint& cell : in.profile->drives.front().read_curve) {
      curves.push_back(cell_text(cell) + " " + format_rate(cell.read_bytes_s.value));
    }
    if (!curves.empty()) cap += " Its " + in.profile->drives.front().name + " read curve: " + join(curves, ", ") + ".";
  }
  if (in.profile->calibration) {
    cap += " moebench calibrate fitted an I/O efficiency of " + format_fixed(in.profile->calibration->io_efficiency, 2) +
           " (achieved ÷ probed) for this profile.";
  }
  return cap;
}

}  // namespace

Section bandwidth_chart(const HtmlReportInput& in) {
  const RunResults& res = *in.results;
  Section sec{kChartBandwidth, "Achieved against probed read bandwidth", "", {}, "", ""};
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarChart c;
  c.id = std::string(kChartBandwidth) + "-p0";
  c.title = "storage read rate during decode";
  c.value_axis.label = "read rate (GB/s, decimal)";
  c.value_axis.include_zero = true;
  c.value_label = [](double v) { return format_fixed(v, 2) + " GB/s"; };
  svg::BarSeries avg{"average over the decode window (read bytes per token × decode tok/s)", {}, svg::palette_color(0), {}, {}, {}};
  svg::BarSeries busy{"while reads were outstanding (read_busy_bytes_s)", {}, svg::palette_color(4), {}, {}, {}};
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
  if (avgs.empty()) {
    sec.skipped = "no ok row read from storage during decode (resident rows read nothing; streaming rows whose "
                  "experts all fit in the cache may read nothing too)";
    return sec;
  }
  c.series = {avg, busy};
  std::string cap = "For every ok row that read from storage during decode: the average read rate over the decode "
                    "window (read bytes per token × decode tok/s) and the rate while at least one read was "
                    "outstanding (the streaming engine's \"decode reads\" note, averaged over repetitions), against "
                    "the drive read bandwidth the machine profile probed.";
  cap += probed_refs(in, drive_counts, c);
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

Section predicted_chart(const HtmlReportInput& in) {
  Section sec{kChartPredicted, "Predicted against measured", "", {}, "", ""};
  const Pairs pairs = pair_rows(in);
  if (!pairs.why_none.empty()) {
    sec.skipped = pairs.why_none;
    return sec;
  }
  const std::vector<std::string> vary = varying(all_rows(*in.results));
  Scatters sc;
  for (const Pair& pr : pairs.pairs) add_pair(sc, pr, vary);
  if (sc.dec.empty() && sc.rd.empty()) {
    sec.skipped = "no matched pair of ok rows with decode tok/s or read bytes per token";
    return sec;
  }
  if (!sc.dec.empty()) {
    sec.svgs.push_back(scatter(std::string(kChartPredicted) + "-p0", "decode throughput of the card as run",
                               "decode (tokens/s)", sc.keys, sc.dec));
  }
  if (!sc.rd.empty()) {
    sec.svgs.push_back(scatter(std::string(kChartPredicted) + "-p1", "storage bytes read per decode token",
                               "read per token (MiB)", sc.keys, sc.rd));
  }
  sec.caption = predicted_caption(in, pairs, sc);
  if (!sc.table.empty()) {
    sec.extra_html = "<details><summary>Every matched point</summary>\n<table class=\"results\">\n<tr><th>point</th>"
                     "<th>decode tok/s measured</th><th>predicted</th><th>error</th><th>read/token measured</th>"
                     "<th>predicted</th><th>error</th></tr>\n" + sc.table + "</table>\n</details>\n";
  }
  return sec;
}

// ---- NEW / BASE ----------------------------------------------------------------

Section compare_chart(const HtmlReportInput& in) {
  const RunResults& res = *in.results;
  Section sec{kChartCompare, "Decode throughput against the base run", "", {}, "", ""};
  if (in.base == nullptr) {
    sec.skipped = "no --compare BASE.json given";
    return sec;
  }
  svg::BarChart c;
  c.id = std::string(kChartCompare) + "-p0";
  c.title = "decode tok/s, NEW ÷ BASE";
  c.value_axis.label = "NEW ÷ BASE decode tok/s (ratio)";
  c.baseline = 1;
  c.value_label = [](double v) { return format_fixed(v, 3) + "×"; };
  c.refs.push_back({1, "equal (1×)", "#333333", "4 3"});
  c.whisker_legend = "whiskers: NEW min ÷ BASE max to NEW max ÷ BASE min over the repetitions";
  std::map<std::string, const ResultRow*> base;
  std::set<std::string> base_prov, new_prov;
  for (const ResultRow& r : in.base->rows) {
    base[r.point.id()] = &r;
    base_prov.insert(r.provenance);
  }
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarSeries s;
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
    const auto nv = figure_of(r, "decode_tok_s"), bv = figure_of(*it->second, "decode_tok_s");
    if (!nv && !bv) continue;
    const std::string label = row_label(r, vary);
    c.categories.push_back(label);
    if (!nv || !bv || !(bv->median > 0)) {
      s.values.push_back(std::nullopt);
      s.ranges.push_back(std::nullopt);
      s.bar_colors.push_back("");
      s.tips.push_back(label + ": " + (nv ? "no decode tok/s in BASE" : "no decode tok/s in NEW"));
      continue;
    }
    const double ratio = nv->median / bv->median;
    s.values.push_back(ratio);
    const bool ranged = nv->has_range() && bv->has_range() && bv->min > 0;
    s.ranges.push_back(ranged ? std::optional(std::make_pair(nv->min / bv->max, nv->max / bv->min)) : std::nullopt);
    s.bar_colors.push_back(ratio >= 1 ? "#009E73" : "#D55E00");
    s.tips.push_back(label + ": " + num(nv->median) + " tok/s ÷ " + num(bv->median) + " tok/s = " +
                     format_fixed(ratio, 3) + "×" +
                     (ranged ? " (repetitions allow " + format_fixed(s.ranges.back()->first, 3) + "–" +
                                   format_fixed(s.ranges.back()->second, 3) + "×)"
                             : ""));
    logs.push_back(std::log(ratio));
    (ratio >= 1 ? faster : slower)++;
  }
  if (logs.empty()) {
    sec.skipped = "no point of the results has a point id in " + in.base_label + " with decode tok/s in both runs";
    return sec;
  }
  c.series.push_back(s);
  std::string cap = "Ratio of decode tok/s of the card as run, NEW (" + in.results_label + ") ÷ BASE (" +
                    in.base_label + "), per point matched by point id; above 1 (green) NEW is faster. Bars are "
                    "ratios of medians; a whisker runs from NEW's slowest repetition ÷ BASE's fastest to NEW's "
                    "fastest ÷ BASE's slowest: a ratio whose whisker crosses 1× is within the repetitions' spread.";
  cap += " " + plural(matched, "point") + " matched, " + std::to_string(unmatched) + " of NEW not in BASE.";
  double sum = 0;
  for (double l : logs) sum += l;
  cap += " Geometric mean ratio " + format_fixed(std::exp(sum / static_cast<double>(logs.size())), 3) + "×; " +
         std::to_string(faster) + " at or above 1, " + std::to_string(slower) + " below.";
  if (base_prov != new_prov) {
    cap += " Note: the runs' provenances differ (NEW " + join({new_prov.begin(), new_prov.end()}, ", ") + ", BASE " +
           join({base_prov.begin(), base_prov.end()}, ", ") + ").";
  }
  sec.caption = cap;
  sec.svgs.push_back(svg::render_bar_chart(c));
  return sec;
}

}  // namespace moebench::html
