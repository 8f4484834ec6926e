// cmd_history.cpp — `moebench history`: results of many runs (one per commit,
// one per machine) in one SQLite file or PostgreSQL database (--db
// postgresql://…), and the trend of every point across them.
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
#include <map>
#include <set>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/spec_machine.h"
#include "vocab/columns.h"
#include "vocab/machine_profile.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/fleet_view.h"
#include "reports/history_db.h"
#include "reports/history_writer.h"
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

// One file `history add` could not read or add: said, and the others go on.
int skip_file(const std::string& message) {
  say_error("history add", message);
  return kExitBadInput;
}

Expected<int> show_command(const ShowArgs& a) {
  auto threshold = parse_relative_change(a.threshold, "--threshold");  // as compare reads it
  if (!threshold) return fail(threshold.error().message);
  if (*threshold <= 0) return fail("--threshold: a step needs a change above 0, e.g. 5%");
  if (!(a.alpha > 0 && a.alpha < 1)) return fail("--alpha: expected a significance level in (0, 1), e.g. 0.05");
  auto db = HistoryDb::open(a.db, HistoryDb::Mode::kReadOnly);
  if (!db) return fail(db.error().message);
  auto names = db->metric_names();
  if (!names) return fail(names.error().message);
  if (std::find(names->begin(), names->end(), a.filter.metric) == names->end()) {
    return fail(db->path() + ": no metric \"" + a.filter.metric + "\" stored" + did_you_mean(a.filter.metric, *names) +
                            "; stored: " + join(*names, ", "));
  }
  auto runs = db->runs();
  if (!runs) return fail(runs.error().message);
  auto entries = db->query(a.filter);
  if (!entries) return fail(entries.error().message);
  if (entries->empty()) {
    return fail(db->path() + ": no rows match the filters (" + std::to_string(runs->size()) +
                            " runs stored; `moebench history runs --db " + db->path() + "` lists them)");
  }
  StepOptions opt;
  opt.threshold = *threshold;
  opt.alpha = a.alpha;
  opt.min_segment = a.min_segment;
  HistoryView view;
  view.db = db->path();
  view.metric = a.filter.metric;
  view.threshold = *threshold;
  view.alpha = a.alpha;
  view.min_segment = a.min_segment;
  view.last = a.last;
  view.steps_only = a.steps_only;
  view.runs = runs->size();
  view.series = build_series(*entries, a.last, opt);
  fmt::print("{}", write_history(view, a.format == "json" ? HistoryFormat::kJson
                                   : a.format == "md"   ? HistoryFormat::kMarkdown
                                                        : HistoryFormat::kText));
  return 0;
}

Expected<int> add_command(const AddArgs& a) {
  // Read every file before touching the database, so that a command whose
  // files are all unreadable creates no (empty) database file.
  int rc = 0;
  std::vector<std::pair<std::string, RunResults>> loaded;
  for (const std::string& file : a.files) {
    auto results = load_results_file(file);
    if (!results) {
      rc = skip_file(results.error().message);
      continue;
    }
    loaded.emplace_back(file, std::move(*results));
  }
  if (loaded.empty()) return rc;
  auto db = HistoryDb::open(a.db, HistoryDb::Mode::kReadWrite);
  if (!db) return fail(db.error().message);
  for (const auto& [file, results] : loaded) {
    std::error_code ec;
    const std::string abs = std::filesystem::absolute(file, ec).lexically_normal().string();
    HistoryAddOptions opt;
    opt.replace = a.replace;
    auto added = db->add(results, ec ? file : abs, opt);
    if (!added) {
      rc = skip_file(added.error().message + " (" + file + " not added; the database is unchanged)");
      continue;
    }
    for (const std::string& w : added->warnings) fmt::print("warning: {}: {}\n", file, w);
    if (added->outcome == HistoryAddOutcome::kAlreadyPresent) {
      fmt::print("{}: run {} is already in {} (added {} from {}); nothing added\n", file,
                 added->run_id, db->path(), added->existing_added_at, added->existing_file);
      continue;
    }
    const Environment& env = results.environments.front();
    fmt::print("{}: {} run {} (sweep {}, commit {}, started {}): {} rows, {} metrics, {} samples\n", file,
               added->outcome == HistoryAddOutcome::kReplaced ? "replaced" : "added", added->run_id,
               results.sweep.name, added->git_commit, env.started_at, added->rows,
               added->metrics, added->samples);
  }
  if (auto counts = db->counts()) {
    fmt::print("{}: {} run(s), {} rows, {} metrics, {} samples (schema version {})\n", db->path(),
               static_cast<long long>(counts->runs), static_cast<long long>(counts->rows),
               static_cast<long long>(counts->metrics), static_cast<long long>(counts->samples), db->schema_version());
  }
  return rc;
}

Expected<int> runs_command(const std::string& path) {
  auto db = HistoryDb::open(path, HistoryDb::Mode::kReadOnly);
  if (!db) return fail(db.error().message);
  auto runs = db->runs();
  if (!runs) return fail(runs.error().message);
  fmt::print("{}", write_history_runs(*runs, db->path(), db->schema_version()));
  return 0;
}

struct MachinesArgs {
  std::string db;
  std::string sweep;  // "" = every sweep run on two machines or more
};

// `history machines`: who measured what, then per sweep the machines side by
// side (each machine's latest run of the sweep's latest digest).
Expected<int> machines_command(const MachinesArgs& a, const CliState& state) {
  auto db = HistoryDb::open(a.db, HistoryDb::Mode::kReadOnly);
  if (!db) return fail(db.error().message);
  auto machines = db->machines();
  if (!machines) return fail(machines.error().message);
  auto runs = db->runs();
  if (!runs) return fail(runs.error().message);
  fmt::print("| machine | runs | rows | first run | last run | sweeps |\n|---|---:|---:|---|---|---|\n");
  for (const HistoryMachine& m : *machines) {
    fmt::print("| {} | {} | {} | {} | {} | {} |\n", m.machine, static_cast<long long>(m.runs),
               static_cast<long long>(m.rows), m.first_started_at, m.last_started_at, join(m.sweeps, ", "));
  }
  fmt::print("\n{} machine(s) in {}\n", machines->size(), db->path());
  // Sweeps to set side by side: the one asked for, else those with two machines or more.
  std::map<std::string, std::set<std::string>> machines_of_sweep;
  for (const HistoryMachine& m : *machines) {
    for (const std::string& s : m.sweeps) machines_of_sweep[s].insert(m.machine);
  }
  if (!a.sweep.empty() && machines_of_sweep.count(a.sweep) == 0) {
    return fail(db->path() + ": no run of sweep \"" + a.sweep + "\" stored");
  }
  const ConfigStore store = state.store();
  for (const auto& [sweep, names] : machines_of_sweep) {
    if (a.sweep.empty() ? names.size() < 2 : sweep != a.sweep) continue;
    // The sweep's latest digest, then each machine's latest run of it (runs() is in time order).
    std::string digest;
    for (const HistoryRun& r : *runs) {
      if (r.sweep_name == sweep) digest = r.sweep_digest;
    }
    std::map<std::string, std::string> latest;  // run machine → run id
    for (const HistoryRun& r : *runs) {
      if (r.sweep_name == sweep && r.sweep_digest == digest) latest[r.machine] = r.run_id;
    }
    std::vector<RunResults> loaded;
    for (const auto& [machine, run_id] : latest) {
      auto r = db->load_run(run_id);
      if (!r) return fail(r.error().message);
      loaded.push_back(std::move(*r));
    }
    std::map<std::string, FleetPrice> prices;
    for (const std::string& m : names) {
      auto found = find_machine(store, m);
      if (!found || !*found) continue;
      if (auto price = fleet_price_of((*found)->profile, (*found)->source)) prices[m] = *price;
    }
    auto view = build_fleet_view(loaded, prices);
    if (!view) return fail(view.error().message);
    fmt::print("\n{}", write_fleet_markdown(*view));
  }
  return 0;
}

}  // namespace

void add_history_command(CLI::App& app, CliState& state) {
  CLI::App* cmd = app.add_subcommand("history", "Results across commits and machines in an SQLite file or a PostgreSQL "
                                                "database: add runs, show trends and steps, compare machines.");
  cmd->require_subcommand(1);
  cmd->footer(
      "Keeps the results of many runs (typically one per commit, from CI, and one per machine of a fleet) in one "
      "SQLite file or one PostgreSQL database (--db postgresql://USER@HOST/DB: many machines and CI runners write "
      "it at once) and follows each point across them.\n\n"
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
  addc->add_option("--db", add->db, "the history database: an SQLite file (created when missing) or postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE (schema created when missing)")->required();
  addc->add_flag("--replace", add->replace, "replace a stored run whose rows differ (e.g. after --resume)");
  addc->callback([add, &state] { finish(state, "history add", add_command(*add)); });

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
  showc->add_option("--db", show->db, "the history database: an SQLite file or a postgresql:// URL")->required();
  showc->add_option("--metric", show->filter.metric, "metric to follow (default decode_tok_s; `moebench schema` lists them)");
  showc->add_option("--engine", show->filter.engine, "only this engine (name, or full spec such as streaming:packed=1)");
  showc->add_option("--model", show->filter.model, "only this model card");
  showc->add_option("--quant", show->filter.quant, "only this quant");
  showc->add_option("--machine", show->filter.machine, "only this machine (profile name, or unprofiled:HOST)");
  showc->add_option("--point", show->filter.point, "only this point id (or a prefix of it)");
  showc->add_option("--provenance", show->filter.provenance, "only measured, predicted or synthetic rows")
      ->check(CLI::IsMember({"measured", "predicted", "reproduced", "synthetic"}));
  showc->add_option("--sweep", show->filter.sweep, "only runs of this sweep name");
  showc->add_option("--last", show->last, "only the last N runs of each series (default all)");
  showc->add_option("--threshold", show->threshold, "smallest change of level reported as a step: 5% or 0.05 (default 5%)");
  showc->add_option("--alpha", show->alpha, "significance level of the t-test (default 0.05)");
  showc->add_option("--min-segment", show->min_segment, "runs on each side of a step, at least (default 1)");
  showc->add_flag("--steps-only", show->steps_only, "show only the series that have a step");
  showc->add_option("--format", show->format, "text (default), md or json")->check(CLI::IsMember({"text", "md", "json"}));
  showc->callback([show, &state] { finish(state, "history show", show_command(*show)); });

  auto runs_db = std::make_shared<std::string>();
  CLI::App* runsc = cmd->add_subcommand("runs", "List the runs stored in a history database.");
  runsc->footer("Example:\n  moebench history runs --db history.sqlite");
  runsc->add_option("--db", *runs_db, "the history database: an SQLite file or a postgresql:// URL")->required();
  runsc->callback([runs_db, &state] { finish(state, "history runs", runs_command(*runs_db)); });

  auto mach = std::make_shared<MachinesArgs>();
  CLI::App* machc = cmd->add_subcommand("machines", "The machines in a history database, and one sweep's points "
                                                   "side by side across them.");
  machc->footer(
      "Lists every machine with its runs, rows and sweeps; then, for each sweep run on two machines or more (or the "
      "one --sweep names), a table of its points with each machine's latest run side by side: decode tok/s, TTFT, "
      "bytes read per token and, where the machine's profile (configs/hardware) has a price, the price per tok/s.\n\n"
      "Example:\n"
      "  moebench history machines --db postgresql://moebench@db.lab/moebench --sweep ci");
  machc->add_option("--db", mach->db, "the history database: an SQLite file or a postgresql:// URL")->required();
  machc->add_option("--sweep", mach->sweep, "only this sweep (default: every sweep with two machines or more)");
  machc->callback([mach, &state] { finish(state, "history machines", machines_command(*mach, state)); });
}

}  // namespace moebench
