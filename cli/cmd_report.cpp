// cmd_report.cpp — `moebench report RESULTS.json [--compare BASE.json]
// [--predicted PRED.json] [--machine PROFILE] --html out.html`: one
// self-contained HTML file with the run's conditions, its table and charts
// (reports/html_report.h). This file only finds and loads the inputs: the
// results files, and the machine profile whose probed drive bandwidth the
// achieved read rates are set against — the one the run names in its
// environment, else this host's default probe output; without one the
// report says so and draws the rest.
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/spec_machine.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
#include "vocab/text.h"
#include "reports/fleet_view.h"
#include "reports/html_report.h"
#include "reports/results_reader.h"

namespace moebench {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;  // one results file; several with --fleet
  std::string results;
  std::string compare;
  std::string predicted;
  std::string machine;
  std::string html;
  bool fleet = false;
  std::string md;  // --fleet: also write the markdown table here
  bool quiet = false;
};

struct FoundProfile {
  std::optional<MachineProfile> profile;
  std::string note;
};

// Candidate paths for a profile path recorded relative to the directory the
// run was started in: as given (same working directory), then against each
// ancestor of the results file's directory.
std::vector<std::string> candidates(const std::string& recorded, const std::string& results_path) {
  std::vector<std::string> out = {recorded};
  if (std::filesystem::path(recorded).is_absolute()) return out;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(results_path, ec).parent_path();
  for (int i = 0; i < 4 && !dir.empty(); ++i) {
    out.push_back((dir / recorded).lexically_normal().string());
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return out;
}

FoundProfile find_profile(const ReportArgs& a, const RunResults& r, const CliState& state) {
  const ConfigStore store = state.store();
  auto load = [&](const std::string& name_or_path, const std::string& why) -> std::optional<FoundProfile> {
    auto m = find_machine(store, name_or_path);
    if (!m) return FoundProfile{std::nullopt, name_or_path + " did not load: " + m.error().message};
    if (!*m) return std::nullopt;
    return FoundProfile{std::move((*m)->profile), (*m)->source + ", " + why};
  };
  if (!a.machine.empty()) {
    if (auto f = load(a.machine, "given with --machine")) return *f;
    return {std::nullopt, "--machine " + a.machine + " names no profile file or configs/hardware entry"};
  }
  std::vector<std::string> tried;
  for (const Environment& e : r.environments) {
    const ProfileRef ref = profile_ref(e);
    if (ref.name.empty() && ref.source.empty()) {
      // The run used no profile: this host's default probe output, if it was probed.
      const std::string dflt = "results/probe-" + e.hostname + ".json";
      for (const std::string& c : candidates(dflt, a.results)) {
        tried.push_back(c);
        if (std::filesystem::exists(c)) {
          if (auto f = load(c, "the default probe output of host " + e.hostname + " (the run named no profile)")) {
            return *f;
          }
        }
      }
      continue;
    }
    // The recorded file, relative to where the run started; "embedded:…"
    // sources resolve by name.
    if (!ref.source.empty() && ref.source.rfind("embedded:", 0) != 0) {
      for (const std::string& c : candidates(ref.source, a.results)) {
        tried.push_back(c);
        if (std::filesystem::exists(c)) {
          if (auto f = load(c, "named by the run")) return *f;
        }
      }
    }
    tried.push_back("configs/hardware/" + ref.name + ".json");
    if (auto f = load(ref.name, "named by the run")) return *f;
  }
  if (r.environments.empty()) return {std::nullopt, "the results record no environment"};
  return {std::nullopt, "tried " + join(tried, ", ") + "; pass --machine PROFILE"};
}

// The price a machine's profile gives (a configs/hardware name, or the
// profile file a run recorded).
std::optional<FleetPrice> profile_price(const std::string& machine, const std::vector<RunResults>& runs,
                                        const std::vector<std::string>& labels, const ConfigStore& store) {
  std::vector<std::string> tries = {machine};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const Environment& e : runs[i].environments) {
      const ProfileRef ref = profile_ref(e);
      if (ref.name != machine || ref.source.empty() || ref.source.rfind("embedded:", 0) == 0) continue;
      for (const std::string& c : candidates(ref.source, labels[i])) tries.push_back(c);
    }
  }
  for (const std::string& t : tries) {
    auto m = find_machine(store, t);
    if (!m || !*m || (*m)->name != machine) continue;
    return fleet_price_of((*m)->profile, (*m)->source);
  }
  return std::nullopt;
}

Expected<int> fleet_command(const ReportArgs& a, const CliState& state) {
  auto fail = [](const std::string& m) { return Error{"--fleet: " + m}; };
  std::vector<RunResults> runs;
  for (const std::string& path : a.inputs) {
    auto r = load_results_file(path);
    if (!r) return fail(r.error().message);
    runs.push_back(std::move(*r));
  }
  const ConfigStore store = state.store();
  std::map<std::string, FleetPrice> prices;
  std::set<std::string> machines;
  for (const RunResults& r : runs) {
    for (const ResultRow& row : r.rows) machines.insert(row.machine);
  }
  for (const std::string& m : machines) {
    if (auto p = profile_price(m, runs, a.inputs, store)) prices[m] = *p;
  }
  auto view = build_fleet_view(runs, prices);
  if (!view) return fail(view.error().message);
  const std::string md = write_fleet_markdown(*view);
  const std::string html = write_fleet_html(*view, "moebench fleet: " + view->sweep_name);
  std::vector<FileContent> files = {{a.html, html}};
  if (!a.md.empty()) files.push_back({a.md, md});
  for (const FileContent& f : files) {
    const std::filesystem::path out(f.path);
    if (out.has_parent_path()) {
      if (Status st = ensure_directory(out.parent_path().string()); !st) return fail(st.error().message);
    }
  }
  if (Status st = write_files_atomic(files); !st) return fail(st.error().message);
  if (!a.quiet) {
    fmt::print("{}", md);
    say("moebench report --fleet: wrote {}{} ({} machines, {} points)", a.html,
               a.md.empty() ? "" : " and " + a.md, view->machines.size(), view->rows.size());
  }
  return 0;
}

Expected<int> report_command(const ReportArgs& a, const CliState& state) {
  if (a.fleet) return fleet_command(a, state);
  if (a.inputs.size() != 1) {
    return fail("one results file, or several with --fleet (the same sweep on several machines side by side)");
  }
  if (!a.md.empty()) return fail("--md writes the fleet table: use it with --fleet");
  auto results = load_results_file(a.results);
  if (!results) return fail(results.error().message);
  std::optional<RunResults> base, predicted;
  if (!a.compare.empty()) {
    auto b = load_results_file(a.compare);
    if (!b) return fail("--compare: " + b.error().message);
    base = std::move(*b);
  }
  if (!a.predicted.empty()) {
    auto p = load_results_file(a.predicted);
    if (!p) return fail("--predicted: " + p.error().message);
    std::size_t n = 0;
    for (const ResultRow& row : p->rows) n += row.provenance == "predicted" ? 1 : 0;
    if (n == 0) return fail("--predicted " + a.predicted + ": no row has provenance \"predicted\" (write it with `moebench predict`)");
    predicted = std::move(*p);
  }
  FoundProfile profile = find_profile(a, *results, state);
  if (!a.machine.empty() && !profile.profile) return fail(profile.note);

  HtmlReportInput in;
  in.results = &*results;
  in.results_label = a.results;
  in.base = base ? &*base : nullptr;
  in.base_label = a.compare;
  in.predicted = predicted ? &*predicted : nullptr;
  in.predicted_label = a.predicted;
  in.profile = profile.profile;
  in.profile_note = profile.note;

  const std::filesystem::path out(a.html);
  if (out.has_parent_path()) {
    if (Status st = ensure_directory(out.parent_path().string()); !st) return fail(st.error().message);
  }
  std::size_t html_bytes = 0;
  FileContent file{a.html, "", [&in, &html_bytes](const TextSink& emit) {
                     write_html_report_to(in, [&](std::string_view piece) {
                       html_bytes += piece.size();
                       emit(piece);
                     });
                   }};
  if (Status st = write_files_atomic({file}); !st) return fail(st.error().message);
  if (!a.quiet) {
    if (!profile.profile) say("moebench report: machine profile not found ({})", profile.note);
    fmt::print("wrote {} ({} rows, {} KiB)\n", a.html, results->rows.size(), html_bytes / 1024);
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "Write one self-contained HTML report (table and SVG charts) of a results file.");
  cmd->footer(
      "The report holds the run's conditions, the results table, the rows that are not ok with their reasons, and "
      "charts: full-model decode tok/s (what the whole model would do, not the scaled card's) against RAM budget, drive "
      "count and context, with min-max whiskers of the repetitions; expert-cache hit rate against budget; full-model "
      "TTFT against prompt length (per point when the sweep did not vary it); bytes read per token against budget; predicted against measured (rows with "
      "provenance predicted, in RESULTS.json or --predicted, matched by point id); achieved storage read rate against "
      "the probed drive bandwidth of the run's machine profile (or --machine); and with --compare the per-point "
      "ratio NEW/BASE of decode tok/s. A chart with nothing to draw is left out, and one line says why. No script and no external resource: open it anywhere, offline.\n\n"
      "Examples:\n"
      "  moebench report results/quick/results.json --html results/quick/report.html\n"
      "  moebench report results/quick/results.json --predicted results/quick-predicted-vm/results.json \\\n"
      "      --html report.html\n"
      "  moebench report new/results.json --compare base/results.json --machine results/probe-vm.json --html cmp.html\n"
      "  moebench report --fleet box-a/results.json box-b/results.json --html fleet.html   # machines side by side");
  cmd->add_option("results", args->inputs,
                  "results.json of a run (moebench run or predict); with --fleet, one per machine (or a merged set)")
      ->required();
  cmd->add_flag("--fleet", args->fleet,
                "the same sweep on several machines side by side: per point and machine the decode tok/s, TTFT, "
                "bytes read per token and, where the machine's profile has a price, the price per tok/s");
  cmd->add_option("--md", args->md, "with --fleet: also write the markdown table to this file");
  cmd->add_option("--html", args->html, "the HTML file to write")->required();
  cmd->add_option("--compare", args->compare, "base results.json: draws NEW/BASE decode tok/s per point");
  cmd->add_option("--predicted", args->predicted, "results.json of `moebench predict` for the same sweep");
  cmd->add_option("--machine", args->machine,
                  "machine profile for the probed bandwidth (default: the one the run names, else "
                  "results/probe-<host>.json)");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cmd->callback([args, &state] {
    if (!args->inputs.empty()) args->results = args->inputs.front();
    finish(state, "report", report_command(*args, state));
  });
}

}  // namespace moebench
