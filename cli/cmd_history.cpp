// cmd_history.cpp — `moebench history`: results of many runs (one per commit)
// in one SQLite file, and the trend of every point across them.
//
//   history add RESULTS.json... --db FILE   store runs (idempotent, atomic per run)
//   history show --db FILE [filters]        per point series: each run's median ± MAD
//                                           in time order, and the steps found in it
//   history runs --db FILE                  the runs stored
//
// A series is one point (same point id: every axis equal) on one machine with
// one provenance; runs are ordered by their start time. Step detection is
// reports/step_detect.h (binary segmentation, a two-sample t-test, a minimum
// relative change); this file only selects, renders and explains.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "vocab/columns.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/cell_format.h"
#include "reports/history_db.h"
#include "reports/results_reader.h"

namespace moebench {
namespace {

struct AddArgs {
  std::vector<std::string> files;
  std::string db;
  bool replace = false;
};

struct ShowArgs {
  std::string db;
  HistoryFilter filter;
  std::size_t last = 0;
  std::string threshold = "5%";
  double alpha = 0.05;
  std::size_t min_segment = 1;
  bool steps_only = false;
  std::string format = "text";
};

int fail(const char* sub, const std::string& message) {
  fmt::print(stderr, "moebench history {}: {}\n", sub, message);
  return 1;
}

// "5%", "5 %", "2.5" (a bare number is a percentage too) → 0.05, 0.025.
Expected<double> parse_threshold(const std::string& text) {
  std::string t(trim(text));
  if (!t.empty() && t.back() == '%') t = std::string(trim(t.substr(0, t.size() - 1)));
  char* end = nullptr;
  const double v = t.empty() ? -1 : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0 || v >= 1000) {
    return make_error("--threshold: expected a percentage such as 5% or 2.5%, got \"" + text + "\"");
  }
  return v / 100;
}

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

std::string step_detail(const MetricView& m, const HistoryStep& st) {
  return m.direction(st.stats.rel_change) + "; t-test p = " + p_text(st.stats.p_value) + " (t " +
         (std::isfinite(st.stats.t) ? format_fixed(st.stats.t, 2) : std::string(st.stats.t > 0 ? "+inf" : "-inf")) +
         ", df " + format_fixed(st.stats.df, 1) + ")";
}

bool has_values(const HistorySeries& s) { return !s.values.empty(); }

struct ShowContext {
  const ShowArgs& args;
  const MetricView& metric;
  double threshold;
  std::size_t runs;
  const std::vector<HistorySeries>& series;
  std::size_t shown = 0, empty = 0, steps = 0, regressions = 0;
};

std::string header_line(const ShowContext& c) {
  return "steps: change of level >= " + format_fixed(100 * c.threshold, 1) + " % and t-test p < " +
         format_fixed(c.args.alpha, 3) + ", at least " + std::to_string(std::max<std::size_t>(1, c.args.min_segment)) +
         " run(s) per level" + (c.args.last > 0 ? "; last " + std::to_string(c.args.last) + " runs per series" : "");
}

void print_text(ShowContext& c) {
  const MetricView& m = c.metric;
  fmt::print("History of {}{} in {}: {} runs, {} series (point x machine x provenance)\n{}\n",
             m.name, m.unit.empty() ? "" : (" (" + m.unit + ")").c_str(), c.args.db, c.runs,
             c.series.size(), header_line(c));
  std::vector<std::string> summary;
  for (const HistorySeries& s : c.series) {
    if (!has_values(s)) {
      ++c.empty;
      continue;
    }
    if (c.args.steps_only && s.steps.empty()) continue;
    ++c.shown;
    const HistoryEntry& head = s.entries.back();
    fmt::print("\n{} \u00b7 point {} \u00b7 {} \u00b7 {}\n", series_label(head), s.point_id,
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
      fmt::print("  {:<{}}  {}  {}\n", e.git_commit, static_cast<int>(w), date_of(e.started_at), v);
    }
    for (const HistoryStep& st : s.steps) {
      ++c.steps;
      if (m.direction(st.stats.rel_change) == "regression") ++c.regressions;
      fmt::print("  {} \u2014 {}\n", step_sentence(m, s, st), step_detail(m, st));
      summary.push_back(step_sentence(m, s, st) + "  [" + m.direction(st.stats.rel_change) + "] " + series_label(head) +
                        " \u00b7 point " + s.point_id + " \u00b7 " + s.machine);
    }
  }
  fmt::print("\n{} step(s) in {} series with values ({} regression(s))", c.steps, c.series.size() - c.empty,
             c.regressions);
  if (c.empty > 0) fmt::print("; {} series without {} values (no run ok) not shown", c.empty, m.name);
  fmt::print("\n");
  for (const std::string& line : summary) fmt::print("  {}\n", line);
}

void print_markdown(ShowContext& c) {
  const MetricView& m = c.metric;
  fmt::print("# moebench history: {}\n\n", m.name);
  std::string method = header_line(c);
  method[0] = 'S';
  fmt::print("Database `{}`: {} runs, {} series. {}.\n", c.args.db, c.runs, c.series.size(), method);
  fmt::print("\n## Steps\n\n");
  std::size_t n_steps = 0;
  for (const HistorySeries& s : c.series) n_steps += s.steps.size();
  if (n_steps == 0) {
    fmt::print("None.\n");
  } else {
    fmt::print("| commit | previous | point | machine | before | after | change | verdict | p |\n"
               "|---|---|---|---|---:|---:|---:|---|---:|\n");
    for (const HistorySeries& s : c.series) {
      for (const HistoryStep& st : s.steps) {
        fmt::print("| `{}` | `{}` | {} (`{}`) | {} | {} | {} | {} | {} | {} |\n", s.entries[st.entry].git_commit,
                   s.entries[st.prev_entry].git_commit, series_label(s.entries.back()),
                   s.point_id, s.machine, m.value(st.stats.before),
                   m.value(st.stats.after), pct_signed(st.stats.rel_change),
                   m.direction(st.stats.rel_change), p_text(st.stats.p_value));
      }
    }
  }
  fmt::print("\n## Series\n");
  for (const HistorySeries& s : c.series) {
    if (!has_values(s)) {
      ++c.empty;
      continue;
    }
    if (c.args.steps_only && s.steps.empty()) continue;
    ++c.shown;
    fmt::print("\n### {}\n\npoint `{}` on {} ({})\n\n| commit | started | {} | \u00b1 MAD | n | status |\n"
               "|---|---|---:|---:|---:|---|\n",
               series_label(s.entries.back()), s.point_id, s.machine, s.provenance,
               m.name);
    for (const HistoryEntry& e : s.entries) {
      const bool v = e.status == "ok" && e.median.has_value();
      fmt::print("| `{}` | {} | {} | {} | {} | {} |\n", e.git_commit, date_of(e.started_at),
                 v ? m.value(*e.median).c_str() : "-", v && e.mad ? m.value(*e.mad).c_str() : "-",
                 v ? std::to_string(e.n).c_str() : "-", e.status);
    }
    for (const HistoryStep& st : s.steps) {
      fmt::print("\n**{}** \u2014 {}\n", step_sentence(m, s, st), step_detail(m, st));
    }
  }
  if (c.empty > 0) fmt::print("\n{} series without {} values (no run ok) not shown.\n", c.empty, m.name);
}

Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

void print_json(const ShowContext& c) {
  const MetricView& m = c.metric;
  nlohmann::ordered_json out;
  out["db"] = c.args.db;
  out["metric"] = m.name;
  out["unit"] = m.column != nullptr ? m.column->unit : "";
  out["higher_is_better"] = m.better == 0 ? Json(nullptr) : Json(m.better > 0);
  out["method"] = {{"threshold", c.threshold},
                   {"alpha", c.args.alpha},
                   {"min_segment", std::max<std::size_t>(1, c.args.min_segment)},
                   {"last", c.args.last},
                   {"test", "Student's two-sample t-test, pooled variance, on the repetition samples of the runs on each side"},
                   {"segmentation", "binary segmentation on run medians, pruned"}};
  out["runs"] = c.runs;
  out["series"] = nlohmann::ordered_json::array();
  std::size_t steps = 0;
  for (const HistorySeries& s : c.series) {
    if (c.args.steps_only && s.steps.empty()) continue;
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
                             {"p_value", st.stats.p_value},
                             {"t", finite_or_null(st.stats.t)},
                             {"df", st.stats.df}});
    }
    out["series"].push_back(js);
  }
  out["steps"] = steps;
  fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

int show_command(const ShowArgs& a) {
  auto threshold = parse_threshold(a.threshold);
  if (!threshold) return fail("show", threshold.error().message);
  if (!(a.alpha > 0 && a.alpha < 1)) return fail("show", "--alpha: expected a significance level in (0, 1), e.g. 0.05");
  auto db = HistoryDb::open(a.db, HistoryDb::Mode::kReadOnly);
  if (!db) return fail("show", db.error().message);
  auto names = db->metric_names();
  if (!names) return fail("show", names.error().message);
  if (std::find(names->begin(), names->end(), a.filter.metric) == names->end()) {
    return fail("show", a.db + ": no metric \"" + a.filter.metric + "\" stored" + did_you_mean(a.filter.metric, *names) +
                            "; stored: " + join(*names, ", "));
  }
  auto runs = db->runs();
  if (!runs) return fail("show", runs.error().message);
  auto entries = db->query(a.filter);
  if (!entries) return fail("show", entries.error().message);
  if (entries->empty()) {
    return fail("show", a.db + ": no rows match the filters (" + std::to_string(runs->size()) +
                            " runs stored; `moebench history runs --db " + a.db + "` lists them)");
  }
  StepOptions opt;
  opt.threshold = *threshold;
  opt.alpha = a.alpha;
  opt.min_segment = a.min_segment;
  const std::vector<HistorySeries> series = build_series(*entries, a.last, opt);
  const MetricView m = metric_view(a.filter.metric);
  ShowContext c{a, m, *threshold, runs->size(), series};
  if (a.format == "json") {
    print_json(c);
  } else if (a.format == "md") {
    print_markdown(c);
  } else {
    print_text(c);
  }
  return 0;
}

int add_command(const AddArgs& a) {
  // Read every file before touching the database, so that a command whose
  // files are all unreadable creates no (empty) database file.
  int rc = 0;
  std::vector<std::pair<std::string, RunResults>> loaded;
  for (const std::string& file : a.files) {
    auto results = load_results_file(file);
    if (!results) {
      rc = fail("add", results.error().message);
      continue;
    }
    loaded.emplace_back(file, std::move(*results));
  }
  if (loaded.empty()) return rc;
  auto db = HistoryDb::open(a.db, HistoryDb::Mode::kReadWrite);
  if (!db) return fail("add", db.error().message);
  for (const auto& [file, results] : loaded) {
    std::error_code ec;
    const std::string abs = std::filesystem::absolute(file, ec).lexically_normal().string();
    HistoryAddOptions opt;
    opt.replace = a.replace;
    auto added = db->add(results, ec ? file : abs, opt);
    if (!added) {
      rc = fail("add", added.error().message + " (" + file + " not added; the database is unchanged)");
      continue;
    }
    for (const std::string& w : added->warnings) fmt::print("warning: {}: {}\n", file, w);
    if (added->outcome == HistoryAddOutcome::kAlreadyPresent) {
      fmt::print("{}: run {} is already in {} (added {} from {}); nothing added\n", file,
                 added->run_id, a.db, added->existing_added_at, added->existing_file);
      continue;
    }
    const Environment& env = results.environments.front();
    fmt::print("{}: {} run {} (sweep {}, commit {}, started {}): {} rows, {} metrics, {} samples\n", file,
               added->outcome == HistoryAddOutcome::kReplaced ? "replaced" : "added", added->run_id,
               results.sweep.name, added->git_commit, env.started_at, added->rows,
               added->metrics, added->samples);
  }
  if (auto counts = db->counts()) {
    fmt::print("{}: {} run(s), {} rows, {} metrics, {} samples (schema version {})\n", a.db,
               static_cast<long long>(counts->runs), static_cast<long long>(counts->rows),
               static_cast<long long>(counts->metrics), static_cast<long long>(counts->samples), db->schema_version());
  }
  return rc;
}

int runs_command(const std::string& path) {
  auto db = HistoryDb::open(path, HistoryDb::Mode::kReadOnly);
  if (!db) return fail("runs", db.error().message);
  auto runs = db->runs();
  if (!runs) return fail("runs", runs.error().message);
  fmt::print("| started | run id | commit | build | sweep | machine | host | rows | file | added |\n"
             "|---|---|---|---|---|---|---|---:|---|---|\n");
  for (const HistoryRun& r : *runs) {
    fmt::print("| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} |\n", r.started_at, r.run_id,
               r.git_commit, r.build_label, r.sweep_name, r.sweep_digest,
               r.machine, r.host, static_cast<long long>(r.rows), r.file_path,
               r.added_at);
  }
  fmt::print("\n{} run(s) in {} (schema version {})\n", runs->size(), path, db->schema_version());
  return 0;
}

}  // namespace

void add_history_command(CLI::App& app, CliState& state) {
  CLI::App* cmd = app.add_subcommand("history", "Results across commits in an SQLite file: add runs, show trends and steps.");
  cmd->require_subcommand(1);
  cmd->footer(
      "Keeps the results of many runs (typically one per commit, from CI) in one SQLite file and follows each "
      "point across them.\n\n"
      "Example:\n"
      "  moebench run quick --out results/quick\n"
      "  moebench history add results/quick/results.json --db history.sqlite\n"
      "  moebench history show --db history.sqlite --engine streaming --last 20");

  auto add = std::make_shared<AddArgs>();
  CLI::App* addc = cmd->add_subcommand("add", "Store one or more results.json files (each run once; atomic per run).");
  addc->footer(
      "Stores each run's rows, metric summaries and raw samples with its commit, build, machine, host and start "
      "time. The run is identified by its run id: adding the same results again adds nothing and says so; a run "
      "already stored with other rows (a resumed run) is refused unless --replace. Each file is one transaction: "
      "a failure leaves the database as it was. The file and its schema are created on first use.\n\n"
      "Example:\n"
      "  moebench history add results/quick/results.json --db history.sqlite\n"
      "  moebench history add ci/*/results.json --db /srv/moebench/history.sqlite");
  addc->add_option("results", add->files, "results.json of `moebench run` or `moebench predict`")->required();
  addc->add_option("--db", add->db, "the history database (created when missing)")->required();
  addc->add_flag("--replace", add->replace, "replace a stored run whose rows differ (e.g. after --resume)");
  addc->callback([add, &state] { state.exit_code = add_command(*add); });

  auto show = std::make_shared<ShowArgs>();
  CLI::App* showc = cmd->add_subcommand("show", "Each point's values across runs (commit, date, median \u00b1 MAD) and its steps.");
  showc->footer(
      "A series is one point (every axis equal) on one machine with one provenance, its runs in start-time order. "
      "A step is a change of level between consecutive segments of a series that is both statistically clear "
      "(Student's two-sample t-test with pooled variance on the repetition samples of the runs on each side, "
      "p < --alpha) and large (the median "
      "level changes by at least --threshold). Segments are found by binary segmentation: in a segment, the passing "
      "split with the largest least-squares gain on the run medians is taken, then both sides are searched again; "
      "finally every step is re-tested between its neighbouring steps. Regression or improvement follows the "
      "metric's direction (tok/s and hit rate: higher is better; times, bytes, waits: lower is better).\n\n"
      "Examples:\n"
      "  moebench history show --db history.sqlite\n"
      "  moebench history show --db history.sqlite --metric ttft_s --engine streaming --quant mxfp4 --last 30\n"
      "  moebench history show --db history.sqlite --point 9a289dde --threshold 3% --format md\n"
      "  moebench history show --db history.sqlite --steps-only --format json");
  showc->add_option("--db", show->db, "the history database")->required();
  showc->add_option("--metric", show->filter.metric, "metric to follow (default decode_tok_s; `moebench schema` lists them)");
  showc->add_option("--engine", show->filter.engine, "only this engine (name, or full spec such as streaming:packed=1)");
  showc->add_option("--model", show->filter.model, "only this model card");
  showc->add_option("--quant", show->filter.quant, "only this quant");
  showc->add_option("--machine", show->filter.machine, "only this machine (profile name, or unprofiled:HOST)");
  showc->add_option("--point", show->filter.point, "only this point id (or a prefix of it)");
  showc->add_option("--provenance", show->filter.provenance, "only measured, predicted or synthetic rows")
      ->check(CLI::IsMember({"measured", "predicted", "synthetic"}));
  showc->add_option("--sweep", show->filter.sweep, "only runs of this sweep name");
  showc->add_option("--last", show->last, "only the last N runs of each series (default all)");
  showc->add_option("--threshold", show->threshold, "smallest change of level reported as a step (default 5%)");
  showc->add_option("--alpha", show->alpha, "significance level of the t-test (default 0.05)");
  showc->add_option("--min-segment", show->min_segment, "runs on each side of a step, at least (default 1)");
  showc->add_flag("--steps-only", show->steps_only, "show only the series that have a step");
  showc->add_option("--format", show->format, "text (default), md or json")->check(CLI::IsMember({"text", "md", "json"}));
  showc->callback([show, &state] { state.exit_code = show_command(*show); });

  auto runs_db = std::make_shared<std::string>();
  CLI::App* runsc = cmd->add_subcommand("runs", "List the runs stored in a history database.");
  runsc->footer("Example:\n  moebench history runs --db history.sqlite");
  runsc->add_option("--db", *runs_db, "the history database")->required();
  runsc->callback([runs_db, &state] { state.exit_code = runs_command(*runs_db); });
}

}  // namespace moebench
