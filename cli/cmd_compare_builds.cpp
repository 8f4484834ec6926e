// cmd_compare_builds.cpp — `moebench compare-builds BASE_BIN NEW_BIN
// [SWEEP]`: the paired A/B gate of two builds (harness/build_gate.h). Plans
// the sweep's points with this build, runs both builds point by point in
// ABBA blocks, prints the verdicts (markdown, or JSON with --json) and
// writes gate.md and gate.json into --out.
//
// Exit codes: 0 no regression (unchanged or improved); 1 regressed;
// 3 inconclusive (too few pairs, or a slowdown only in disturbed
// repetitions); 2 nothing judged (bad input, a build failed to run, or the
// builds read different configs).
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/build_gate.h"
#include "harness/sweep_session.h"
#include "vocab/file_io.h"
#include "vocab/units.h"

namespace moebench {
namespace {

struct CompareBuildsArgs {
  BuildGateRequest req;
  std::string min_effect = "2%";
  bool json = false;
  bool quiet = false;
};

Expected<int> compare_builds_command(CompareBuildsArgs args, const CliState& state) {
  BuildGateRequest& r = args.req;
  r.config_dirs = state.config_dirs;
  auto effect = parse_relative_change(args.min_effect, "--min-effect");
  if (!effect) return fail(effect.error().message);
  r.gate.min_effect = *effect;
  for (std::string* bin : {&r.base_bin, &r.new_bin}) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*bin, ec)) return fail(*bin + ": no such file; give the path of a moebench binary");
    *bin = std::filesystem::absolute(*bin).string();
  }
  // The points, as this build expands the sweep; each run checks its build agrees.
  SweepRequest plan_req;
  plan_req.command = "moebench compare-builds";
  plan_req.sweep = r.sweep;
  plan_req.drive_dirs = r.drive_dirs;
  plan_req.points = r.points;
  plan_req.dry_run = true;
  plan_req.quiet = true;
  const ConfigStore store = state.store();
  auto plan = plan_sweep(plan_req, store, state.sweep_context(store), [](const std::string&) {});
  if (!plan) return fail(plan.error().message);
  std::vector<GatePoint> points;
  for (const Point& p : plan->points) points.push_back({p.index + 1, p.id(), p.label()});
  if (Status st = ensure_directory(r.out_dir); !st) return fail(st.error().message);
  const auto progress_line = [&args](const std::string& line) {
    if (!args.quiet) say("moebench compare-builds: {}", line);
  };
  if (r.blocks <= 0) r.blocks = gate_default_blocks(points.size() * gate_timed_metrics().size(), r.gate.alpha);
  progress_line(fmt::format("{} points × {} blocks × 4 runs of {} repetitions (+{} warm-up), A = {}, B = {}", points.size(),
                            r.blocks, r.repetitions, r.warmup, r.base_bin, r.new_bin));
  auto report = run_build_gate(r, points, progress_line);
  if (!report) return fail(report.error().message);
  const std::string md = gate_markdown(*report), json = gate_json(*report);
  const auto dir = std::filesystem::path(r.out_dir);
  if (Status st = write_files_atomic({{(dir / "gate.md").string(), md}, {(dir / "gate.json").string(), json}}); !st) {
    say("moebench compare-builds: {} (the verdict below stands)", st.error().message);
  }
  fmt::print("{}", args.json ? json : md);
  const int code = gate_exit_code(report->verdict);
  say("moebench compare-builds: {} ({} series, {} changes of work; exit {})",
             to_string(report->verdict), report->judged.size(), report->work.size(), code);
  return code;
}

}  // namespace

void add_compare_builds_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<CompareBuildsArgs>();
  auto* cmd = app.add_subcommand("compare-builds",
                                 "paired A/B gate: two moebench builds run the same points in ABBA blocks; exit 1 "
                                 "on a regression, 3 when inconclusive");
  cmd->add_option("base", args->req.base_bin, "the baseline build's moebench binary (A)")->required();
  cmd->add_option("new", args->req.new_bin, "the candidate build's moebench binary (B)")->required();
  cmd->add_option("sweep", args->req.sweep, "sweep file, or the name of one in configs/sweeps (default: ci)");
  cmd->add_option("--out", args->req.out_dir, "directory for the runs, gate.md and gate.json (default: "
                                              "results/compare-builds)");
  cmd->add_option("--drive-dir", args->req.drive_dirs, "drive directories for both builds' runs (as run --drive-dir)");
  cmd->add_option("--points", args->req.points, "only these points (1-based, comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  cmd->add_option("--blocks", args->req.blocks,
                  "ABBA blocks per point, two run pairs each (default: the fewest whose test can pass Holm's first "
                  "step over the gate's series, plus one)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--repetitions", args->req.repetitions, "measured repetitions per run (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", args->req.warmup, "warm-up runs per run (default 1)")->check(CLI::Range(0, 100));
  cmd->add_option("--alpha", args->req.gate.alpha, "family-wise false-alarm rate over every series (default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--min-effect", args->min_effect, "smallest slowdown that fails the gate (default 2%)");
  cmd->add_option("--timeout", args->req.timeout_s, "seconds per run before it is killed (default 600)")
      ->check(CLI::Range(1.0, 86400.0));
  cmd->add_flag("--json", args->json, "print JSON instead of markdown");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress lines on stderr");
  cmd->callback([args, &state] { finish(state, "compare-builds", compare_builds_command(*args, state)); });
}

}  // namespace moebench
