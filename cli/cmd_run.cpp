// cmd_run.cpp — `moebench run`: load and expand a sweep, open (or resume)
// its journal, drive the points through the engines, and write the results
// files after every point (as one set: reports/results_files.h) and the
// markdown table to stdout.
// --io-throttle caps every drive's read rate as a what-if
// (engines/io/throttled_engine.h); `predict` makes the registry's predicting
// engine (the analytic one) for every point, and --explain N prints one
// point's derivation (harness/explain_writer.h).
// Before anything is written, the disk the sweep's containers need is stated
// (trunk files shared by quants and hard-linked replicas counted once) and a
// sweep that does not fit its drive directories' free space is refused.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "engines/analytic/cost_model.h"
#include "engines/container/container.h"
#include "engines/executor/run_support.h"
#include "engines/io/throttled_engine.h"
#include "engines/registry.h"
#include "cli/commands.h"
#include "harness/explain_writer.h"
#include "harness/terminal_progress.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "harness/journal.h"
#include "vocab/machine_profile.h"
#include "harness/runner.h"
#include "vocab/sweep_spec.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/results_files.h"
#include "reports/writers.h"

namespace moebench {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

struct RunArgs {
  std::string sweep = "quick";
  std::string out_dir;
  bool resume = false;
  bool fresh = false;
  bool quiet = false;
  std::string machine;
  double timeout_s = 0;
  double hard_grace_s = 30;
  std::vector<std::string> formats = {"md", "csv", "json", "jsonl"};
  std::string print = "md";
  std::vector<std::string> drive_dirs;
  std::string io_throttle;  // --io-throttle RATE: what-if cap on every drive's read rate
  bool predict = false;  // `moebench predict`: every point through the analytic engine
  int explain = 0;       // predict: print point N's derivation instead of running
};

const char* kCommand[2] = {"moebench run", "moebench predict"};

// Where `moebench probe` writes this machine's profile by default.
std::string default_probe_path() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return "results/probe.json";
  return "results/probe-" + std::string(host) + ".json";
}

// How the results files come back after a failed write: the journal has
// every finished point.
std::string regenerate_hint(const RunArgs& args) {
  if (args.predict) return "free space, then run the same `moebench predict` command again";
  return std::string("free space, then run the same `moebench run` command with --resume") +
         (args.fresh ? " instead of --fresh" : "");
}

int run_command(const RunArgs& args, const CliState& state) {
  const char* cmd = kCommand[args.predict ? 1 : 0];
  const ConfigStore store = state.store();
  std::optional<double> io_cap;
  if (!args.io_throttle.empty()) {
    auto rate = parse_rate_bytes_s(args.io_throttle);
    if (!rate) {
      fmt::print(stderr, "{}: --io-throttle: {}\n", cmd, rate.error().message);
      return 1;
    }
    io_cap = *rate;
  }
  auto src = store.find("sweeps", args.sweep);
  if (!src) {
    fmt::print(stderr, "{}: {}\n", cmd, src.error().message);
    return 1;
  }
  // The engine that runs a point: its own, or for `predict` the registry's
  // predicting engine (which reads no drive: its points need no drive
  // directories). Abilities are asked by caps, never by name.
  const EngineInfo* predictor = args.predict ? prediction_engine() : nullptr;
  auto runs_point = [predictor](const std::string& engine) {
    return predictor != nullptr ? predictor : find_engine(engine);
  };
  auto uses_drives = [runs_point](const std::string& engine) {
    const EngineInfo* e = runs_point(engine);
    return e != nullptr && e->caps.uses_drives;
  };
  SweepContext ctx = state.sweep_context(store);
  ctx.base_dir = src->dir;
  ctx.drive_dirs_override = args.drive_dirs;
  if (predictor != nullptr) ctx.engine_uses_drives = uses_drives;
  auto spec = load_sweep_text(src->text, src->label, ctx);
  if (!spec) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return 1;
  }
  auto points = expand_sweep(*spec, ctx);
  if (!points) {
    fmt::print(stderr, "{}: {}\n", src->label, points.error().message);
    return 1;
  }
  // Drive directories: --drive-dir replaces the sweep's; missing ones are
  // created (they hold containers, made on first use). Predictions read none.
  int drives_needed = 0;
  for (const Point& p : *points) {
    if (uses_drives(p.engine.name)) drives_needed = std::max(drives_needed, p.drives.count);
  }
  if (drives_needed > static_cast<int>(spec->drive_dirs.size())) {
    fmt::print(stderr, "moebench run: the sweep needs {} drive directories but {} are given; list them in "
               "drive_dirs or pass --drive-dir once per drive\n", drives_needed, spec->drive_dirs.size());
    return 1;
  }
  for (const std::string& dir : spec->drive_dirs) {
    if (args.predict) break;
    std::error_code ec;
    if (std::filesystem::exists(dir, ec)) continue;
    if (!std::filesystem::create_directories(dir, ec) || ec) {
      fmt::print(stderr, "moebench run: cannot create drive directory {}: {}\n", dir, ec.message());
      return 1;
    }
    if (!args.quiet) fmt::print(stderr, "moebench run: created drive directory {}\n", dir);
  }

  // The disk the containers need, before anything is written: said on stderr
  // like the lines above (the progress object, which drops notes when stderr
  // is not a terminal, does not exist yet), and refused when it does not fit.
  if (!args.predict) {
    std::vector<Point> drive_points;
    for (const Point& p : *points) {
      if (uses_drives(p.engine.name)) drive_points.push_back(p);
    }
    auto cspecs = container_specs_for_points(
        drive_points, [&store](const std::string& n) { return store.card(n); }, spec->seed, spec->drive_dirs);
    if (!cspecs) {
      fmt::print(stderr, "{}: {}\n", cmd, cspecs.error().message);
      return 1;
    }
    if (!cspecs->empty()) {
      auto need = container_disk_need(*cspecs);
      if (!need) {
        fmt::print(stderr, "{}: {}\n", cmd, need.error().message);
        return 1;
      }
      if (!args.quiet) fmt::print(stderr, "{}: {}\n", cmd, need->summary());
      if (Status fits = need->check_fits(); !fits) {
        fmt::print(stderr, "{}: {}\n", cmd, fits.error().message);
        return 1;
      }
    }
  }

  std::string profile_label;
  std::string machine_label;
  std::optional<MachineProfile> machine;
  std::string machine_arg = args.machine;
  if (args.predict && machine_arg.empty()) machine_arg = default_probe_path();
  if (!machine_arg.empty()) {
    auto msrc = store.find("hardware", machine_arg);
    if (!msrc) {
      fmt::print(stderr, "{}: --machine: {}{}\n", cmd, msrc.error().message,
                 args.machine.empty() ? " (no --machine given: run `moebench probe` first, or pass --machine "
                                        "with a profile file or a configs/hardware name)" : "");
      return 1;
    }
    auto profile = load_config_text<MachineProfile>(msrc->text, msrc->label, load_machine_profile);
    if (!profile) {
      fmt::print(stderr, "{}\n", profile.error().message);
      return 1;
    }
    profile_label = profile->name + " (" + msrc->label + ")";
    machine_label = profile->name;
    machine = *profile;
  }
  if (args.predict && args.explain > 0) {
    if (args.explain > static_cast<int>(points->size())) {
      fmt::print(stderr, "{}: --explain {}: the sweep has {} points\n", cmd, args.explain, points->size());
      return 1;
    }
    const Point& p = (*points)[static_cast<std::size_t>(args.explain - 1)];
    auto card = store.card(p.model);
    if (!card) {
      fmt::print(stderr, "{}: {}\n", cmd, card.error().message);
      return 1;
    }
    auto scaled = apply_scale(*card, p.scale);
    if (!scaled) {
      fmt::print(stderr, "{}: {}\n", cmd, scaled.error().message);
      return 1;
    }
    PredictContext pc;
    pc.seed = spec->seed;
    auto pred = predict_point(*machine, *scaled, p, profile_efficiency(*machine), pc);
    if (!pred) {
      fmt::print(stderr, "{}: {}\n", cmd, pred.error().message);
      return 1;
    }
    fmt::print("{}", write_prediction_explain(args.explain, p.label(), profile_label, *pred));
    return 0;
  }
  Environment env = capture_environment(profile_label, state.command_line);
  if (machine_label.empty()) machine_label = "unprofiled:" + env.hostname;
  if (!env.build_warning().empty()) {
    fmt::print(stderr, "\n*** WARNING: {} ***\n\n", env.build_warning());
  }

  const std::string out_dir = !args.out_dir.empty() ? args.out_dir
                             : args.predict        ? "results/" + spec->name + "-predicted-" + machine_label
                                                   : "results/" + spec->name;
  if (Status st = ensure_directory(out_dir); !st) {
    fmt::print(stderr, "moebench run: {}\n", st.error().message);
    return 1;
  }
  // A results path that is a symlink or a device is refused now, not after the sweep.
  if (Status st = check_results_paths(out_dir, args.formats); !st) {
    fmt::print(stderr, "{}: {}\n", cmd, st.error().message);
    return 1;
  }
  SweepInfo info{spec->name, spec->description, spec->digest, points->size(),
                 spec->repetitions, spec->warmup, spec->seed};
  const Journal::Mode mode = args.fresh ? Journal::Mode::kFresh
                             : args.resume ? Journal::Mode::kResume : Journal::Mode::kCreate;
  auto journal = Journal::open((std::filesystem::path(out_dir) / "journal.jsonl").string(), info, env, mode);
  if (!journal) {
    fmt::print(stderr, "moebench run: {}\n", journal.error().message);
    return 1;
  }

  SteadyClock clock;
  QuietProgress quiet;
  TerminalProgress terminal(stderr, clock);
  Progress& progress = (!args.quiet && is_terminal(stderr)) ? static_cast<Progress&>(terminal)
                                                              : static_cast<Progress&>(quiet);
  RunnerDeps deps{clock, progress, [&store](const std::string& n) { return store.card(n); },
                  [&runs_point, &machine, io_cap](const EngineSpec& s) -> Expected<std::unique_ptr<Engine>> {
                    const EngineInfo* e = runs_point(s.name);
                    if (e == nullptr) return make_error("unknown engine \"" + s.name + "\"");
                    EngineContext ec;
                    if (machine) ec.machine = &*machine;
                    auto made = e->create(s, ec);
                    if (!made || !io_cap) return made;
                    return std::unique_ptr<Engine>(std::make_unique<IoThrottledEngine>(
                        std::move(*made), e->caps.reads_drives_decoding, *io_cap));
                  }};
  RunnerOptions opts;
  opts.timeout_s = args.timeout_s > 0 ? args.timeout_s : spec->timeout_s;
  opts.hard_grace_s = args.hard_grace_s;
  opts.machine_label = machine_label;
  opts.build_label = env.build_label();
  opts.run_id = env.run_id;
  opts.interrupt = &g_interrupted;
  double last_write_s = -1;
  bool write_warned = false;
  opts.on_row = [&](const RunResults& results) {
    // Outputs are refreshed at most every 2 s; the journal is the durable record.
    if (clock.now_s() - last_write_s < 2.0) return;
    last_write_s = clock.now_s();
    if (Status st = write_results_files(results, out_dir, args.formats, regenerate_hint(args)); !st && !write_warned) {
      write_warned = true;  // the journal still holds every row; say so once
      progress.note(std::string(cmd) + ": " + st.error().message + " (the run continues)");
    }
  };

  if (io_cap && !args.quiet) {
    fmt::print(stderr, "moebench run: --io-throttle: drive reads capped at {} per drive (a what-if: noted in every "
               "row, point ids unchanged)\n", format_rate(*io_cap));
  }
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  auto outcome = run_sweep(*spec, *points, *journal, deps, opts);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  const RunResults& results = journal->results();
  Status st = write_results_files(results, out_dir, args.formats, regenerate_hint(args));
  if (!st) fmt::print(stderr, "{}: {}\n", cmd, st.error().message);
  if (args.print == "md") {
    fmt::print("{}", write_markdown(results));
  } else if (args.print == "csv") {
    fmt::print("{}", write_csv(results));
  }
  std::fflush(stdout);
  if (!outcome) {
    fmt::print(stderr, "moebench run: stopped: {}\nmoebench run: the rows finished so far are in {}\n",
               outcome.error().message, out_dir);
    return 1;
  }
  std::vector<std::string> written;
  for (const std::string& f : args.formats) written.push_back(f);
  const std::string files = st ? "journal.jsonl + results.{" + join(written, ",") + "}"
                               : std::string("journal.jsonl; the results files were not updated");
  fmt::print(stderr, "{}: {}/{} points in {} ({})\n", cmd, results.rows.size(), points->size(), out_dir, files);
  if (*outcome == RunOutcome::kInterrupted) {
    fmt::print(stderr, "moebench run: interrupted; finished points are saved. Continue with the same "
                       "command plus --resume.\n");
    return 130;
  }
  return st ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a sweep and write one results row per point (markdown table on stdout).");
  cmd->footer("Run a sweep: every point's engine runs (warm-ups, then repetitions) and one results row per "
      "point is written to OUT/results.{md,csv,json,jsonl}; the markdown table goes to stdout.\n\n"
      "Example:\n"
      "  moebench run                                   # the embedded quick sweep\n"
      "  moebench run configs/sweeps/quick.json --out results/q1\n"
      "  moebench run my-sweep.json --out r --resume    # continue after a crash or Ctrl-C\n"
      "  moebench run ci --out results/slow --io-throttle 20MB/s   # what-if: slower drives, same point ids");
  cmd->add_option("sweep", args->sweep,
                  "sweep file, or the name of one in configs/sweeps (default: quick)");
  cmd->add_option("--out", args->out_dir, "results directory (default: results/<sweep name>)");
  auto* resume = cmd->add_flag("--resume", args->resume,
                               "continue the sweep in --out, skipping every point already finished");
  cmd->add_flag("--fresh", args->fresh, "discard results already in --out and start over")->excludes(resume);
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line on stderr");
  cmd->add_option("--machine", args->machine,
                  "machine profile (file, or name in configs/hardware) recorded as the rows' machine");
  cmd->add_option("--timeout", args->timeout_s,
                  "per-point timeout in seconds, at most 30 days (overrides the sweep's timeout_s)")
      ->check(positive_number())
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            // positive_number() has checked the syntax; here only the limit.
            double v = 0;
            (void)std::from_chars(text.data(), text.data() + text.size(), v);
            if (v > kMaxTimeoutS) {
              return "a timeout of \"" + text + "\" s is longer than the longest allowed, 30 days (" +
                     format_fixed(kMaxTimeoutS, 0) + " s)";
            }
            return {};
          },
          "SECONDS<=2592000", "max_timeout"));
  cmd->add_option("--hard-grace", args->hard_grace_s,
                  "seconds an engine may overrun its timeout before moebench records the point as "
                  "failed and exits (default 30)")
      ->check(positive_number());
  cmd->add_option("--format", args->formats, "result files to write (default: md csv json jsonl)")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}))
      ->delimiter(',');
  cmd->add_option("--drive-dir", args->drive_dirs,
                  "drive directory (repeatable, one per drive): replaces the sweep's drive_dirs; created if "
                  "missing. Containers are made there on first use and reused");
  cmd->add_option("--print", args->print, "what to print on stdout at the end: md, csv or none")
      ->check(CLI::IsMember({"md", "csv", "none"}));
  cmd->add_option("--io-throttle", args->io_throttle,
                  "what-if: cap every drive directory's read rate (e.g. 50MB/s) for the engines that read drives "
                  "per token (streaming); min with the sweep's throttle, recorded in every row's notes, point ids "
                  "unchanged so the rows still compare with an unthrottled run");
  cmd->callback([args, &state] { state.exit_code = run_command(*args, state); });
}

void add_predict_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<RunArgs>();
  args->predict = true;
  CLI::App* cmd = app.add_subcommand("predict", "Predict a sweep on a machine with the analytic engine (same results table).");
  cmd->footer("Runs every point of a sweep through the analytic cost model instead of the real engines: nothing is "
      "loaded or read. The machine is a probe output (default: this machine's, results/probe-<host>.json) or a "
      "configs/hardware profile; its calibration (moebench calibrate), when present, applies. Rows carry "
      "provenance \"predicted\" and the same columns as measured rows.\n\n"
      "Example:\n"
      "  moebench predict quick                              # this machine (after moebench probe)\n"
      "  moebench predict my-sweep.json --machine macbook-pro-m5-max-128gb");
  cmd->add_option("sweep", args->sweep, "sweep file, or the name of one in configs/sweeps (default: quick)");
  cmd->add_option("--machine", args->machine, "machine profile: file, or name in configs/hardware");
  cmd->add_option("--explain", args->explain, "print point N's derivation (1-based, sweep order) step by step and stop")
      ->check(positive_number());
  cmd->add_option("--out", args->out_dir, "results directory (default: results/<sweep>-predicted-<machine>)");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line on stderr");
  cmd->add_option("--format", args->formats, "result files to write (default: md csv json jsonl)")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}))
      ->delimiter(',');
  cmd->add_option("--print", args->print, "what to print on stdout at the end: md, csv or none")
      ->check(CLI::IsMember({"md", "csv", "none"}));
  args->fresh = true;  // a prediction is cheap: always start over
  cmd->callback([args, &state] { state.exit_code = run_command(*args, state); });
}

}  // namespace moebench
