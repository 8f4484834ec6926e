// html_page.cpp — the page of the HTML report (html_report.h): the header
// with the run's conditions, the results table, the rows that are not ok
// with their reasons and notes, the CSS, and the chart sections in order
// (html_charts.h builds them, all at once on threads of their own while the
// table is written beside them). A chart with nothing to draw is left out
// of the page and of its contents, and one line under the contents names it
// and says why.
#include "reports/html_report.h"

#include <functional>
#include <future>
#include <map>
#include <set>
#include <system_error>

#include "reports/cell_format.h"
#include "reports/html_charts.h"
#include "reports/svg_chart.h"
#include "vocab/columns.h"
#include "vocab/metrics.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

using html::Section;
using html::plural;
using html::row_label;
using svg::escape;

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

// One line naming the charts with nothing to draw, and why; "" when none.
std::string skipped_html(const std::vector<Section>& sections) {
  std::vector<std::string> items;
  for (const Section& s : sections) {
    if (!s.skipped.empty()) items.push_back("<b>" + escape(s.title) + "</b>: " + escape(s.skipped));
  }
  if (items.empty()) return "";
  return "<p class=\"caption\" id=\"charts-skipped\">Not drawn, as there is nothing to draw — " +
         join(items, " · ") + ".</p>\n";
}

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
  const std::vector<std::string> vary = html::varying(html::all_rows(r));
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
  static const std::vector<std::string> ids = {html::kChartBudget, html::kChartDrives,    html::kChartContext,
                                               html::kChartHitRate, html::kChartTtft,   html::kChartRead,
                                               html::kChartPredicted, html::kChartBandwidth, html::kChartCompare};
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
      [&] { return html::decode_chart(r, "budget"); },  [&] { return html::decode_chart(r, "drives"); },
      [&] { return html::decode_chart(r, "context"); }, [&] { return html::hit_rate_chart(r); },
      [&] { return html::ttft_chart(r); },           [&] { return html::read_chart(r); },
      [&] { return html::predicted_chart(in); },     [&] { return html::bandwidth_chart(in); },
      [&] { return html::compare_chart(in); },
  };
  // The results table is drawn beside the charts (a row of HTML per point).
  std::string table;
  std::vector<Section> sections = compute_sections(makers, [&] {
    results_table(r, [&table](std::string_view piece) { table.append(piece); });
  });

  out += "<nav>\n<ul>\n<li><a href=\"#results\">Results</a></li>\n<li><a href=\"#status\">Rows not ok</a></li>\n";
  for (const Section& s : sections) {
    if (s.skipped.empty()) out += "<li><a href=\"#" + escape(s.id) + "\">" + escape(s.title) + "</a></li>\n";
  }
  out += "</ul>\n</nav>\n" + skipped_html(sections);
  out += "<section id=\"results\">\n<h2>Results</h2>\n";
  emit(out);
  emit(table);
  table = std::string();
  emit("</section>\n");
  emit(status_html(r));
  for (const Section& s : sections) {
    if (s.skipped.empty()) render_section(s, emit);
  }
  out = "<footer><p class=\"caption\">Written by moebench report from " + escape(in.results_label) +
         (in.predicted ? ", predicted rows from " + escape(in.predicted_label) : std::string()) +
         (in.base ? ", base " + escape(in.base_label) : std::string()) +
         ". Self-contained: no script, no external resource.</p></footer>\n</body>\n</html>\n";
  emit(out);
}

}  // namespace moebench
