// history_writer.cpp — the text, markdown and JSON of `moebench history
// show`, and the table of `history runs` (see history_writer.h).
#include "reports/history_writer.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/cell_format.h"
#include "vocab/columns.h"
#include "vocab/json_reader.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// How the chosen metric is spelled for people.
struct MetricView {
  std::string name;
  const Column* column = nullptr;  // nullptr for a metric outside the column table
  std::string unit;                // short suffix for values ("tok/s", "s", "")
  int better = 0;                  // +1 higher is better, −1 lower is better, 0 unknown

  std::string value(double v) const {
    if (column == nullptr) return exact_number(v);
    std::string s = human_cell(*column, Cell(v));
    return unit.empty() ? s : s + " " + unit;
  }
  std::string bare(double v) const { return column == nullptr ? exact_number(v) : human_cell(*column, Cell(v)); }
  std::string direction(double rel) const {
    if (better == 0) return rel > 0 ? "up" : "down";
    return (rel > 0) == (better > 0) ? "improvement" : "regression";
  }
};

MetricView metric_view(const std::string& name) {
  MetricView m;
  m.name = name;
  for (const Column& c : result_columns()) {
    if (c.name == name) m.column = &c;
  }
  if (m.column != nullptr) {
    const std::string& u = m.column->unit;
    if (u == "tokens/s") m.unit = "tok/s";
    else if (u == "s") m.unit = "s";
    else if (u == "bytes/token") m.unit = "/token";
  }
  if (name.size() > 6 && name.compare(name.size() - 6, 6, "_tok_s") == 0) m.better = 1;
  else if (name == "expert_hit_rate" || name == "hidden_miss_frac") m.better = 1;
  else if (m.column != nullptr) m.better = -1;  // times, bytes, waits, memory: less is better
  return m;
}

std::string pct_signed(double rel) {
  if (std::isinf(rel)) return rel > 0 ? "from 0" : "to 0";
  const std::string sign = rel < 0 ? "\u2212" : "+";
  return sign + format_fixed(std::fabs(100 * rel), 1) + " %";
}

std::string p_text(double p) { return p < 0.001 ? "< 0.001" : format_fixed(p, 3); }

std::string date_of(const std::string& rfc3339) {  // "2026-11-30T16:41:56Z" → "2026-11-30 16:41"
  if (rfc3339.size() >= 16 && rfc3339[10] == 'T') return rfc3339.substr(0, 10) + " " + rfc3339.substr(11, 5);
  return rfc3339;
}

std::string series_label(const HistoryEntry& e) {
  std::string s = e.engine_spec + " " + e.model + " " + e.scale + " " + e.quant + " " +
                  (e.ram_budget_bytes ? format_bytes(static_cast<double>(*e.ram_budget_bytes)) : "unlimited") + " " +
                  std::to_string(e.drives) + (e.drives == 1 ? " drive" : " drives");
  if (e.drive_layout != "replicate") s += " " + e.drive_layout;
  return s + " ctx " + std::to_string(e.context_tokens);
}

std::string spread_text(const MetricView& m, const HistoryEntry& e) {
  std::string s = m.value(*e.median);
  if (e.mad && std::isfinite(*e.mad)) {
    s = m.bare(*e.median) + " \u00b1 " + m.value(*e.mad);
    if (*e.median != 0 && m.column != nullptr && m.column->type != ColumnType::kFraction) {
      s += " (" + format_fixed(100 * *e.mad / std::fabs(*e.median), 1) + " %)";
    }
  }
  return s;
}

std::string step_sentence(const MetricView& m, const HistorySeries& s, const HistoryStep& st) {
  return "step at " + s.entries[st.entry].git_commit + ": " + m.bare(st.stats.before) + " \u2192 " +
         m.value(st.stats.after) + " (" + pct_signed(st.stats.rel_change) + ")";
}

// A step's verdict: its direction, except that a slowdown next to a run
// other work disturbed is inconclusive (the machine may have made it).
std::string step_verdict(const MetricView& m, const HistoryStep& st) {
  const std::string d = m.direction(st.stats.rel_change);
  return d == "regression" && st.disturbed ? std::string("inconclusive (a disturbed run)") : d;
}

// "  (2 of 5 repetitions disturbed)" for a run with disturbed repetitions.
std::string disturbed_note(const HistoryEntry& e) {
  if (e.disturbed.value_or(0) == 0) return "";
  return "  (" + std::to_string(*e.disturbed) + " of " + std::to_string(e.marks.size()) + " repetitions disturbed)";
}

std::string step_detail(const MetricView& m, const HistoryStep& st) {
  return step_verdict(m, st) + "; t-test p = " + p_text(st.stats.p_value) + " (t " +
         (std::isfinite(st.stats.t) ? format_fixed(st.stats.t, 2) : std::string(st.stats.t > 0 ? "+inf" : "-inf")) +
         ", df " + format_fixed(st.stats.df, 1) + ")";
}

bool has_values(const HistorySeries& s) { return !s.values.empty(); }

// The counters a writer keeps while it renders.
struct ShowContext {
  const MetricView metric;
  const std::string& db;
  double threshold, alpha;
  std::size_t min_segment, last;
  bool steps_only;
  std::size_t runs;
  const std::vector<HistorySeries>& series;
  std::size_t shown = 0, empty = 0, steps = 0, regressions = 0, inconclusive = 0;

  explicit ShowContext(const HistoryView& v)
      : metric(metric_view(v.metric)), db(v.db), threshold(v.threshold), alpha(v.alpha),
        min_segment(v.min_segment), last(v.last), steps_only(v.steps_only), runs(v.runs), series(v.series) {}
};

std::string header_line(const ShowContext& c) {
  return "steps: change of level >= " + format_fixed(100 * c.threshold, 1) + " % and t-test p < " +
         format_fixed(c.alpha, 3) + ", at least " + std::to_string(std::max<std::size_t>(1, c.min_segment)) +
         " run(s) per level" + (c.last > 0 ? "; last " + std::to_string(c.last) + " runs per series" : "");
}

// Whether a series is rendered (it has values, and a step when only steps
// are asked for); counts it either way.
bool shown(ShowContext& c, const HistorySeries& s) {
  if (!has_values(s)) {
    ++c.empty;
    return false;
  }
  if (c.steps_only && s.steps.empty()) return false;
  ++c.shown;
  return true;
}

std::string text_of(ShowContext& c) {
  std::string out;
  const MetricView& m = c.metric;
  out += fmt::format("History of {}{} in {}: {} runs, {} series (point x machine x provenance)\n{}\n",
             m.name, m.unit.empty() ? "" : (" (" + m.unit + ")").c_str(), c.db, c.runs,
             c.series.size(), header_line(c));
  std::vector<std::string> summary;
  for (const HistorySeries& s : c.series) {
    if (!shown(c, s)) continue;
    const HistoryEntry& head = s.entries.back();
    out += fmt::format("\n{} \u00b7 point {} \u00b7 {} \u00b7 {}\n", series_label(head), s.point_id,
               s.machine, s.provenance);
    std::size_t w = 6;
    for (const HistoryEntry& e : s.entries) w = std::max(w, e.git_commit.size());
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      const HistoryEntry& e = s.entries[i];
      std::string v;
      if (e.status != "ok") {
        v = e.status + (e.reason.empty() ? "" : ": " + e.reason.substr(0, 100) + (e.reason.size() > 100 ? "..." : ""));
      } else if (!e.median) {
        v = "(no " + m.name + ")";
      } else {
        v = spread_text(m, e) + "  n " + std::to_string(e.n);
      }
      out += fmt::format("  {:<{}}  {}  {}{}\n", e.git_commit, static_cast<int>(w), date_of(e.started_at), v, disturbed_note(e));
    }
    for (const HistoryStep& st : s.steps) {
      ++c.steps;
      const std::string verdict = step_verdict(m, st);
      if (verdict == "regression") ++c.regressions;
      if (verdict != m.direction(st.stats.rel_change)) ++c.inconclusive;
      out += fmt::format("  {} \u2014 {}\n", step_sentence(m, s, st), step_detail(m, st));
      summary.push_back(step_sentence(m, s, st) + "  [" + verdict + "] " + series_label(head) +
                        " \u00b7 point " + s.point_id + " \u00b7 " + s.machine);
    }
  }
  out += fmt::format("\n{} step(s) in {} series with values ({} regression(s)", c.steps, c.series.size() - c.empty,
             c.regressions);
  if (c.inconclusive > 0) out += fmt::format(", {} slowdown(s) inconclusive: next to a run other work disturbed", c.inconclusive);
  out += ")";
  if (c.empty > 0) out += fmt::format("; {} series without {} values (no run ok) not shown", c.empty, m.name);
  out += fmt::format("\n");
  for (const std::string& line : summary) out += fmt::format("  {}\n", line);
  return out;
}

std::string markdown_of(ShowContext& c) {
  std::string out;
  const MetricView& m = c.metric;
  out += fmt::format("# moebench history: {}\n\n", m.name);
  std::string method = header_line(c);
  method[0] = 'S';
  out += fmt::format("Database `{}`: {} runs, {} series. {}.\n", c.db, c.runs, c.series.size(), method);
  out += fmt::format("\n## Steps\n\n");
  std::size_t n_steps = 0;
  for (const HistorySeries& s : c.series) n_steps += s.steps.size();
  if (n_steps == 0) {
    out += fmt::format("None.\n");
  } else {
    out += fmt::format("| commit | previous | point | machine | before | after | change | verdict | p |\n"
               "|---|---|---|---|---:|---:|---:|---|---:|\n");
    for (const HistorySeries& s : c.series) {
      for (const HistoryStep& st : s.steps) {
        out += fmt::format("| `{}` | `{}` | {} (`{}`) | {} | {} | {} | {} | {} | {} |\n", s.entries[st.entry].git_commit,
                   s.entries[st.prev_entry].git_commit, series_label(s.entries.back()),
                   s.point_id, s.machine, m.value(st.stats.before),
                   m.value(st.stats.after), pct_signed(st.stats.rel_change),
                   step_verdict(m, st), p_text(st.stats.p_value));
      }
    }
  }
  out += fmt::format("\n## Series\n");
  for (const HistorySeries& s : c.series) {
    if (!shown(c, s)) continue;
    out += fmt::format("\n### {}\n\npoint `{}` on {} ({})\n\n| commit | started | {} | \u00b1 MAD | n | disturbed | status |\n"
               "|---|---|---:|---:|---:|---:|---|\n",
               series_label(s.entries.back()), s.point_id, s.machine, s.provenance,
               m.name);
    for (const HistoryEntry& e : s.entries) {
      const bool v = e.status == "ok" && e.median.has_value();
      const std::string dist = e.disturbed ? std::to_string(*e.disturbed) + " of " + std::to_string(e.marks.size()) : "-";
      out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", e.git_commit, date_of(e.started_at),
                 v ? m.value(*e.median).c_str() : "-", v && e.mad ? m.value(*e.mad).c_str() : "-",
                 v ? std::to_string(e.n).c_str() : "-", dist, e.status);
    }
    for (const HistoryStep& st : s.steps) {
      out += fmt::format("\n**{}** \u2014 {}\n", step_sentence(m, s, st), step_detail(m, st));
    }
  }
  if (c.empty > 0) out += fmt::format("\n{} series without {} values (no run ok) not shown.\n", c.empty, m.name);
  return out;
}

Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string json_of(const ShowContext& c) {
  const MetricView& m = c.metric;
  nlohmann::ordered_json doc;
  doc["db"] = c.db;
  doc["metric"] = m.name;
  doc["unit"] = m.column != nullptr ? m.column->unit : "";
  doc["higher_is_better"] = m.better == 0 ? Json(nullptr) : Json(m.better > 0);
  doc["method"] = {{"threshold", c.threshold},
                   {"alpha", c.alpha},
                   {"min_segment", std::max<std::size_t>(1, c.min_segment)},
                   {"last", c.last},
                   {"test", "Student's two-sample t-test, pooled variance, on the repetition samples of the runs on each side"},
                   {"segmentation", "binary segmentation on run medians, pruned"}};
  doc["runs"] = c.runs;
  doc["series"] = nlohmann::ordered_json::array();
  std::size_t steps = 0;
  for (const HistorySeries& s : c.series) {
    if (c.steps_only && s.steps.empty()) continue;
    nlohmann::ordered_json js;
    js["point_id"] = s.point_id;
    js["machine"] = s.machine;
    js["provenance"] = s.provenance;
    js["label"] = series_label(s.entries.back());
    // Stored by `history add`; a database edited by hand may hold anything.
    Json point = Json::parse(s.entries.back().point_key_json, nullptr, false);
    js["point"] = point.is_discarded() ? Json(nullptr) : point;
    js["entries"] = nlohmann::ordered_json::array();
    for (const HistoryEntry& e : s.entries) {
      nlohmann::ordered_json je;
      je["run_id"] = e.run_id;
      je["commit"] = e.git_commit;
      je["build"] = e.build_label;
      je["started_at"] = e.started_at;
      je["host"] = e.host;
      je["sweep"] = e.sweep_name;
      je["status"] = e.status;
      if (!e.reason.empty()) je["reason"] = e.reason;
      je["median"] = e.median ? finite_or_null(*e.median) : Json(nullptr);
      je["mad"] = e.mad ? finite_or_null(*e.mad) : Json(nullptr);
      je["n"] = e.n;
      je["disturbed_repetitions"] = e.disturbed ? Json(*e.disturbed) : Json(nullptr);
      Json samples = Json::array();
      for (double x : e.samples) samples.push_back(finite_or_null(x));
      je["samples"] = samples;
      js["entries"].push_back(je);
    }
    js["steps"] = nlohmann::ordered_json::array();
    for (const HistoryStep& st : s.steps) {
      ++steps;
      js["steps"].push_back({{"commit", s.entries[st.entry].git_commit},
                             {"run_id", s.entries[st.entry].run_id},
                             {"previous_commit", s.entries[st.prev_entry].git_commit},
                             {"entry", st.entry},
                             {"before", st.stats.before},
                             {"after", st.stats.after},
                             {"rel_change", finite_or_null(st.stats.rel_change)},
                             {"direction", m.direction(st.stats.rel_change)},
                             {"verdict", step_verdict(m, st)},
                             {"disturbed", st.disturbed},
                             {"p_value", st.stats.p_value},
                             {"t", finite_or_null(st.stats.t)},
                             {"df", st.stats.df}});
    }
    doc["series"].push_back(js);
  }
  doc["steps"] = steps;
  return fmt::format("{}\n", doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace

std::string write_history(const HistoryView& view, HistoryFormat format) {
  ShowContext c(view);
  switch (format) {
    case HistoryFormat::kJson: return json_of(c);
    case HistoryFormat::kMarkdown: return markdown_of(c);
    case HistoryFormat::kText: break;
  }
  return text_of(c);
}

std::string write_history_runs(const std::vector<HistoryRun>& runs, const std::string& path, int schema_version) {
  std::string out;
  out += fmt::format("| started | run id | commit | build | sweep | machine | host | rows | file | added |\n"
             "|---|---|---|---|---|---|---|---:|---|---|\n");
  for (const HistoryRun& r : runs) {
    out += fmt::format("| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} |\n", r.started_at, r.run_id,
               r.git_commit, r.build_label, r.sweep_name, r.sweep_digest,
               r.machine, r.host, static_cast<long long>(r.rows), r.file_path,
               r.added_at);
  }
  out += fmt::format("\n{} run(s) in {} (schema version {})\n", runs.size(), path, schema_version);
  return out;
}

}  // namespace moebench
