// cmd_run.cpp — `moebench run` and `moebench predict`: the options, then
// the steps of harness/sweep_session.h (plan the sweep, open its journal,
// run it), then the markdown or CSV writer on stdout. This file owns only
// what belongs to the process: the option table, SIGINT/SIGTERM, stderr.
// --io-throttle caps every drive's read rate as a what-if
// (engines/io/throttled_engine.h); `predict` runs every point through the
// registry's predicting engine, and --explain N prints one point's
// derivation (harness/explain_writer.h).
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/sweep_session.h"
#include "harness/terminal_progress.h"
#include "reports/writers.h"
#include "vocab/sweep_spec.h"
#include "vocab/units.h"

namespace moebench {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

// The library's request, bound to the options directly, plus what only the
// CLI reads.
struct RunArgs {
  SweepRequest req;
  std::string print = "auto";  // auto: table on a terminal, md otherwise
  std::string io_throttle;  // --io-throttle RATE: what-if cap on every drive's read rate
  int explain = 0;          // predict: print point N's derivation instead of running
  std::string shard;        // --shard K/N
  bool shard_from_env = false;
};

const char* kCommand[2] = {"moebench run", "moebench predict"};

// A number of seconds (positive_number() has checked the syntax) no longer
// than the longest a point may run, 30 days.
CLI::Validator at_most_30_days(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        double v = 0;
        (void)std::from_chars(text.data(), text.data() + text.size(), v);
        if (v > kMaxTimeoutS) {
          return "a " + what + " of \"" + text + "\" s is longer than the longest allowed, 30 days (" +
                 format_fixed(kMaxTimeoutS, 0) + " s)";
        }
        return {};
      },
      "SECONDS<=2592000", "max_" + what);
}

Expected<int> run_command(const RunArgs& args, const CliState& state) {
  SweepRequest req = args.req;
  req.command = kCommand[req.predict ? 1 : 0];
  if (req.predict) req.default_machine = default_probe_path();
  req.command_line = state.command_line;
  if (!args.io_throttle.empty()) {
    auto rate = parse_rate_bytes_s(args.io_throttle);
    if (!rate) return make_error("--io-throttle: " + rate.error().message);
    req.io_cap_bytes_s = *rate;
  }
  if (!args.shard.empty() || args.shard_from_env) {
    auto shard = args.shard_from_env ? shard_spec_from_env([](const char* n) { return std::getenv(n); })
                                     : parse_shard_spec(args.shard);
    if (!shard) return shard.error();
    req.shard = *shard;
  }
  const SayFn say_line = [](const std::string& line) { say(line); };
  const ConfigStore store = state.store();

  auto plan = plan_sweep(req, store, state.sweep_context(store), say_line);
  if (!plan) return plan.error();
  if (req.predict && args.explain > 0) {
    auto text = explain_sweep_point(req, *plan, store, args.explain);
    if (!text) return text.error();
    fmt::print("{}", *text);
    return 0;
  }
  auto session = open_sweep_session(req, *plan, say_line);
  if (!session) return session.error();

  if (const std::size_t failed = session->journal.failed_at_open(); failed > 0 && !req.quiet) {
    say("{}: {} point{} journaled as failed {}", req.command, failed, failed == 1 ? "" : "s",
               req.retry_failed ? "run again (--retry-failed)" : "kept as failed; --retry-failed measures them again");
  }
  SteadyClock clock;
  StderrProgress shown(clock, req.quiet);
  Progress& progress = shown.get();
  if (req.io_cap_bytes_s && !req.quiet) {
    say("moebench run: --io-throttle: drive reads capped at {} per drive (a what-if: noted in every "
               "row, point ids unchanged)", format_rate(*req.io_cap_bytes_s));
  }
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  SweepRunEnd end = run_sweep_session(req, *plan, store, *session, clock, progress, &g_interrupted);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  const RunResults& results = session->journal.results();
  const std::string print = args.print != "auto" ? args.print : is_terminal(stdout) ? "table" : "md";
  if (print == "table") {
    fmt::print("{}", write_terminal_table(results, terminal_columns(stdout)));
  } else if (print == "md") {
    fmt::print("{}", write_markdown(results));
  } else if (print == "csv") {
    fmt::print("{}", write_csv(results));
  } else if (print == "json") {
    fmt::print("{}", write_json(results));
  }
  std::fflush(stdout);
  if (!end.outcome) {
    return Error{"stopped: " + end.outcome.error().message + "; the rows finished so far are in " + session->out_dir +
                 (end.written ? "" : " (" + end.written.error().message + ")")};
  }
  say("{}: {}/{} points{} in {} ({})", req.command, results.rows.size(), plan->points.size(),
             plan->shard ? " of shard " + plan->shard->label() : std::string(), session->out_dir,
             sweep_files_written(req, end.written));
  if (*end.outcome == RunOutcome::kInterrupted) {
    say("moebench run: interrupted; finished points are saved. Continue with the same "
                       "command plus --resume.");
    return 130;
  }
  if (!end.written) return Error{end.written.error().message};  // the results files could not be written
  return kExitOk;
}

// --print and --json, the same for run and predict.
void add_print_options(CLI::App* cmd, const std::shared_ptr<RunArgs>& args) {
  cmd->add_option("--print", args->print,
                  "what to print on stdout at the end: table (aligned, the columns that answer the sweep, fitted to "
                  "the terminal), md (every markdown column, notes and legend), csv, json (results.json) or none; "
                  "default: table on a terminal, md otherwise")
      ->check(CLI::IsMember({"auto", "table", "md", "csv", "json", "none"}));
  cmd->add_flag_callback("--json", [args] { args->print = "json"; }, "print results.json on stdout at the end (--print json)");
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
      "  moebench run ci --out results/slow --io-throttle 20MB/s   # what-if: slower drives, same point ids\n"
      "  moebench run ci --shard 2/4                    # the second of four shards → results/ci/shards/2-of-4\n"
      "  moebench merge results/ci/shards/* --out results/ci    # the shards joined into one results set");
  cmd->add_option("sweep", args->req.sweep,
                  "sweep file, or the name of one in configs/sweeps (default: quick)");
  cmd->add_option("--out", args->req.out_dir, "results directory (default: results/<sweep name>)");
  auto* resume = cmd->add_flag("--resume", args->req.resume,
                               "continue the sweep in --out, skipping every point already finished");
  cmd->add_flag("--fresh", args->req.fresh, "discard results already in --out and start over")->excludes(resume);
  cmd->add_flag("--retry-failed", args->req.retry_failed,
                "with --resume: measure again the points journaled as failed (a full disk, a read-only drive); "
                "their new rows replace the failed ones; a timed-out point runs, and may time out, again. "
                "Without it a failed point stays failed")
      ->needs(resume);
  cmd->add_flag("--quiet,-q", args->req.quiet, "no progress line on stderr");
  cmd->add_option("--machine", args->req.machine,
                  "machine profile (file, or name in configs/hardware) recorded as the rows' machine");
  cmd->add_option("--timeout", args->req.timeout_s,
                  "per-point timeout in seconds, at most 30 days (overrides the sweep's timeout_s)")
      ->check(positive_number())
      ->check(at_most_30_days("timeout"));
  cmd->add_option("--hard-grace", args->req.hard_grace_s,
                  "seconds an engine may overrun its timeout before moebench records the point as "
                  "failed and exits (default 30)")
      ->check(positive_number())
      ->check(at_most_30_days("hard grace"));
  cmd->add_option("--format", args->req.formats, "result files to write (default: md csv json jsonl)")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}))
      ->delimiter(',');
  cmd->add_option("--drive-dir", args->req.drive_dirs,
                  "drive directory (repeatable, one per drive): replaces the sweep's drive_dirs; created if "
                  "missing. Containers are made there on first use and reused");
  add_print_options(cmd, args);
  cmd->add_option("--io-throttle", args->io_throttle,
                  "what-if: cap every drive directory's read rate (e.g. 50MB/s) for the engines that read drives "
                  "per token (streaming); min with the sweep's throttle, recorded in every row's notes, point ids "
                  "unchanged so the rows still compare with an unthrottled run");
  auto* shard = cmd->add_option("--shard", args->shard,
                                "run only shard K of N (K/N, 1-based): a deterministic partition of the points, "
                                "balanced by their predicted cost, points sharing a container kept together; "
                                "default --out results/<sweep>/shards/K-of-N; join the shards with `moebench merge`");
  cmd->add_flag("--shard-from-env", args->shard_from_env,
                "take the shard from the scheduler: a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) "
                "or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with MOEBENCH_SHARD_COUNT set to its "
                "completions)")
      ->excludes(shard);
  cmd->add_option("--points", args->req.points,
                  "run only these points (1-based, sweep order, comma-separated), e.g. one at a time for a paired "
                  "A/B gate (moebench compare-builds)")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::numeric_limits<std::size_t>::max()));
  cmd->add_option("--repetitions", args->req.repetitions,
                  "measured repetitions per point, instead of the sweep's (the run's sweep digest says so)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", args->req.warmup, "warm-up runs per point, instead of the sweep's")
      ->check(CLI::Range(0, 100));
  cmd->callback([args, &state] { finish(state, "run", run_command(*args, state)); });
}

void add_predict_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<RunArgs>();
  args->req.predict = true;
  CLI::App* cmd = app.add_subcommand("predict", "Predict a sweep on a machine with the analytic engine (same results table).");
  cmd->footer("Runs every point of a sweep through the analytic cost model instead of the real engines: nothing is "
      "loaded or read. The machine is a probe output (default: this machine's, results/probe-<host>.json) or a "
      "configs/hardware profile; its calibration (moebench calibrate), when present, applies. Rows carry "
      "provenance \"predicted\" and the same columns as measured rows.\n\n"
      "Example:\n"
      "  moebench predict quick                              # this machine (after moebench probe)\n"
      "  moebench predict my-sweep.json --machine macbook-pro-m5-max-128gb");
  cmd->add_option("sweep", args->req.sweep, "sweep file, or the name of one in configs/sweeps (default: quick)");
  cmd->add_option("--machine", args->req.machine, "machine profile: file, or name in configs/hardware");
  cmd->add_option("--explain", args->explain, "print point N's derivation (1-based, sweep order) step by step and stop")
      ->check(positive_number());
  cmd->add_option("--out", args->req.out_dir, "results directory (default: results/<sweep>-predicted-<machine>)");
  cmd->add_flag("--quiet,-q", args->req.quiet, "no progress line on stderr");
  cmd->add_option("--format", args->req.formats, "result files to write (default: md csv json jsonl)")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}))
      ->delimiter(',');
  add_print_options(cmd, args);
  args->req.fresh = true;  // a prediction is cheap: always start over
  cmd->callback([args, &state] { finish(state, "predict", run_command(*args, state)); });
}

}  // namespace moebench
