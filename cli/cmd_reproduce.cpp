// cmd_reproduce.cpp — `moebench reproduce CLAIM_ID`: emulate a published
// claim on this machine (harness/reproduce.h), run the sweep through the
// ordinary sweep session (rows with provenance "reproduced"), and print the
// claim, the reproduction and the prediction side by side with a verdict.
// --dry-run prints the plan, its disk need and its predicted time instead.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/spec_machine.h"
#include "model/engine_families.h"
#include "harness/claim_review.h"
#include "harness/reproduce.h"
#include "harness/reproduce_run.h"
#include "harness/sweep_session.h"
#include "harness/terminal_progress.h"
#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop(int) { g_stop.store(true); }

struct ReproduceArgs {
  std::string claim_id;
  bool dry_run = false;
  std::string out_dir;
  std::string machine;
  std::string scale;
  int repetitions = 2;
  std::string tolerance = "25%";
  std::vector<std::string> drive_dirs;
  bool resume = false, fresh = false, quiet = false;
  bool json = false;  // the reproduction as JSON on stdout instead of the text
};

Expected<int> reproduce_command(const ReproduceArgs& a, const CliState& state) {
  const ConfigStore store = state.store();
  auto judged = judge_stored_claims(store);
  if (!judged) return fail(judged.error().message);
  const JudgedClaim* found = nullptr;
  std::vector<std::string> ids;
  for (const JudgedClaim& x : *judged) {
    ids.push_back(x.claim.id);
    if (x.claim.id == a.claim_id) found = &x;
  }
  if (!found) {
    return fail("no claim \"" + a.claim_id + "\"" + did_you_mean(a.claim_id, ids) + " (moebench claims lists every id)");
  }
  const Claim& claim = found->claim;
  ReproduceOptions o;
  o.repetitions = a.repetitions;
  auto tolerance = parse_relative_change(a.tolerance, "--tolerance");  // as every threshold is read
  if (!tolerance) return fail(tolerance.error().message);
  if (*tolerance < 0.01) return fail("--tolerance " + a.tolerance + ": expected 1% or more");
  o.tolerance = *tolerance;
  o.drive_dirs = a.drive_dirs;
  if (!a.scale.empty()) {
    auto sc = parse_scale(a.scale);
    if (!sc) return fail("--scale: " + sc.error().message);
    o.scale = *sc;
  }

  auto setup = resolve_claim_setup(store, claim, "moebench reproduce");
  if (!setup) return fail(setup.error().message);
  ReproductionPlan plan;
  plan.claim_id = claim.id;
  if (!setup->card) plan.cannot = "the claim names no model card (" + claim.model + "): its bytes are unknown";
  if (!setup->machine) plan.cannot = "the claim's machine is not in the hardware catalog: nothing to emulate";
  const std::string here_path = a.machine.empty() ? default_probe_path() : a.machine;
  std::optional<MachineProfile> here;
  if (plan.cannot.empty() && a.dry_run && a.machine.empty() && !std::filesystem::exists(here_path)) {
    // A dry run still answers with the prediction: the emulation alone needs the probe.
    plan.cannot = "no profile of this machine (" + here_path + "): run `moebench probe` to plan the emulation";
  }
  if (plan.cannot.empty()) {
    auto p = resolve_machine(store, here_path,
                             a.machine.empty() ? " (run `moebench probe` first: the emulation needs this machine's measured "
                                                 "kernels and drives)"
                                               : "");
    if (!p) return fail("--machine: " + p.error().message);
    here = std::move(p->profile);
    auto eff = stored_efficiency(store);
    if (!eff) return fail(eff.error().message);
    const EngineEfficiency& fam = eff->for_family(engine_family(claim.engine.value_or("")));
    auto regimes = stored_regimes(store);
    if (!regimes) return fail(regimes.error().message);
    if (*regimes) o.regimes = &**regimes;
    auto made = plan_reproduction(claim, *setup->card, *setup->machine, *here, fam, o);
    if (!made) return fail(made.error().message);
    plan = std::move(*made);
  }
  if (!plan.cannot.empty()) {
    const ReproductionVerdict v = judge_reproduction(plan, claim, RunResults{}, o.tolerance);
    if (a.json) fmt::print("{}\n", reproduction_json(plan, claim, found->j, &v).dump(2));
    else fmt::print("{}", write_reproduction(plan, claim, found->j, &v));
    return kExitOk;
  }

  ReproduceRun run;
  run.out_dir = a.out_dir;
  run.machine = here_path;
  run.resume = a.resume;
  run.fresh = a.fresh;
  run.quiet = a.quiet;
  run.dry_run = a.dry_run;
  run.command_line = state.command_line;
  const SweepRequest req = reproduction_request(plan, claim, *setup->card, run);
  const SayFn say_line = [](const std::string& line) { say(line); };
  auto swept = plan_sweep(req, store, state.sweep_context(store), say_line);
  if (!swept) return fail(swept.error().message);
  if (a.dry_run) {
    const ReproductionDryRun d{swept->points.size(), plan.scale, here->name, req.out_dir, o.repetitions,
                               plan.predicted_run_s, reproduction_containers(swept->points, store)};
    if (a.json) {
      Json j = reproduction_json(plan, claim, found->j, nullptr);
      j["dry_run_plan"] = reproduction_dry_run_json(d);
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{}{}", write_reproduction(plan, claim, found->j, nullptr), write_reproduction_dry_run(d));
    }
    return kExitOk;
  }
  auto session = open_sweep_session(req, *swept, say_line);
  if (!session) return fail(session.error().message);
  SteadyClock clock;
  StderrProgress shown(clock, a.quiet);
  Progress& progress = shown.get();
  std::signal(SIGINT, on_stop);
  std::signal(SIGTERM, on_stop);
  SweepRunEnd end = run_sweep_session(req, *swept, store, *session, clock, progress, &g_stop);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const ReproductionVerdict v = judge_reproduction(plan, claim, session->journal.results(), o.tolerance);
  const std::string text = write_reproduction(plan, claim, found->j, &v);
  if (a.json) fmt::print("{}\n", reproduction_json(plan, claim, found->j, &v).dump(2));
  else fmt::print("{}", text);
  if (Status st = write_file_atomic(req.out_dir + "/reproduce.md", text); !st) {
    say("moebench reproduce: {}", st.error().message);
  }
  if (!end.outcome) return fail("stopped: " + end.outcome.error().message + "; rows so far are in " + session->out_dir);
  if (*end.outcome == RunOutcome::kInterrupted) {
    say("moebench reproduce: interrupted; continue with the same command plus --resume");
    return 130;
  }
  say("moebench reproduce: rows (provenance \"reproduced\") in {}", session->out_dir);
  if (!end.written) return fail(end.written.error().message);
  return kExitOk;
}

}  // namespace

void add_reproduce_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ReproduceArgs>();
  CLI::App* cmd = app.add_subcommand("reproduce", "Emulate a published claim on this machine and say whether it reproduces.");
  cmd->footer("Builds the sweep that emulates the claim here: the card scaled to fit this machine, the memory split and "
      "expert-cache share carried over, the drives throttled to the claimed machine's rate divided by the two "
      "machines' kernel-throughput ratio (time dilation), quants and context as stated (unstated ones over their "
      "plausible range: the slowest and fastest cases are run). The rows' full-model times, divided by the dilation, give "
      "the claimed machine's decode rate: printed beside the claim and moebench's prediction with a verdict. Claims "
      "on GPUs, linked nodes or speculative decoding cannot be emulated here, and say why.\n\n"
      "Example:\n"
      "  moebench probe --quick                 # once: this machine's kernels and drives\n"
      "  moebench reproduce feed-m5max-k3-2drives --dry-run\n"
      "  moebench reproduce feed-m5max-k3-2drives --out results/repro-m5max");
  cmd->add_option("claim", args->claim_id, "claim id (moebench claims lists them)")->required();
  cmd->add_flag("--dry-run", args->dry_run, "print the plan, its disk need and predicted time; run nothing");
  cmd->add_option("--out", args->out_dir, "results directory (default results/reproduce-<claim>)");
  cmd->add_option("--machine", args->machine, "this machine's probe profile (default results/probe-<host>.json)");
  cmd->add_option("--scale", args->scale, "scale of the emulated card (default layers=2,experts=64)");
  cmd->add_option("--reps", args->repetitions, "repetitions per case (default 2)")->check(CLI::Range(1, 100));
  cmd->add_option("--tolerance", args->tolerance, "reproduced within this relative change: 25% or 0.25 (default 25%)");
  cmd->add_option("--drive-dir", args->drive_dirs, "drive directory (repeatable; default moebench-drives/d0, d1, …)");
  auto* resume = cmd->add_flag("--resume", args->resume, "continue a reproduction in --out");
  cmd->add_flag("--fresh", args->fresh, "discard results already in --out")->excludes(resume);
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line");
  cmd->add_flag("--json", args->json, "the reproduction as JSON on stdout (reproduce.md keeps the text)");
  cmd->callback([args, &state] { finish(state, "reproduce", reproduce_command(*args, state)); });
}

}  // namespace moebench
