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

// The options the flags give (tolerance as every threshold is read).
Expected<ReproduceOptions> reproduce_options(const ReproduceArgs& a) {
  ReproduceOptions o;
  o.repetitions = a.repetitions;
  auto tolerance = parse_relative_change(a.tolerance, "--tolerance");
  if (!tolerance) return tolerance.error();
  if (*tolerance < 0.01) return make_error("--tolerance " + a.tolerance + ": expected 1% or more");
  o.tolerance = *tolerance;
  o.drive_dirs = a.drive_dirs;
  if (!a.scale.empty()) {
    auto sc = parse_scale(a.scale);
    if (!sc) return make_error("--scale: " + sc.error().message);
    o.scale = *sc;
  }
  return o;
}

// The plan, and this machine's profile when the emulation can be planned;
// a plan that cannot be run says why in `cannot`.
struct PlannedReproduction {
  ReproductionPlan plan;
  std::optional<MachineProfile> here;
};

Expected<PlannedReproduction> plan_here(const ConfigStore& store, const Claim& claim, const ClaimSetup& setup,
                                        const ReproduceArgs& a, const std::string& here_path, ReproduceOptions& o) {
  PlannedReproduction out;
  ReproductionPlan& plan = out.plan;
  plan.claim_id = claim.id;
  if (!setup.card) plan.cannot = "the claim names no model card (" + claim.model + "): its bytes are unknown";
  if (!setup.machine) plan.cannot = "the claim's machine is not in the hardware catalog: nothing to emulate";
  if (plan.cannot.empty() && a.dry_run && a.machine.empty() && !std::filesystem::exists(here_path)) {
    // A dry run still answers with the prediction: the emulation alone needs the probe.
    plan.cannot = "no profile of this machine (" + here_path + "): run `moebench probe` to plan the emulation";
  }
  if (!plan.cannot.empty()) return out;
  auto p = resolve_machine(store, here_path,
                           a.machine.empty() ? " (run `moebench probe` first: the emulation needs this machine's measured "
                                               "kernels and drives)"
                                             : "");
  if (!p) return make_error("--machine: " + p.error().message);
  out.here = std::move(p->profile);
  auto eff = stored_efficiency(store);
  if (!eff) return eff.error();
  const EngineEfficiency& fam = eff->for_family(engine_family(claim.engine.value_or("")));
  auto regimes = stored_regimes(store);
  if (!regimes) return regimes.error();
  if (*regimes) o.regimes = &**regimes;
  auto made = plan_reproduction(claim, *setup.card, *setup.machine, *out.here, fam, o);
  if (!made) return made.error();
  plan = std::move(*made);
  return out;
}

// The claim, the reproduction and its verdict, as text or JSON.
void print_reproduction(const ReproductionPlan& plan, const JudgedClaim& found, const ReproductionVerdict* v, bool json) {
  if (json) fmt::print("{}\n", reproduction_json(plan, found.claim, found.j, v).dump(2));
  else fmt::print("{}", write_reproduction(plan, found.claim, found.j, v));
}

// Runs the planned sweep here, prints the verdict and writes reproduce.md
// beside the rows.
Expected<int> run_reproduction(const SweepRequest& req, const SweepPlan& swept, const ConfigStore& store,
                               const ReproductionPlan& plan, const JudgedClaim& found, const ReproduceArgs& a,
                               double tolerance, const SayFn& say_line) {
  auto session = open_sweep_session(req, swept, say_line);
  if (!session) return fail(session.error().message);
  SteadyClock clock;
  StderrProgress shown(clock, a.quiet);
  Progress& progress = shown.get();
  std::signal(SIGINT, on_stop);
  std::signal(SIGTERM, on_stop);
  SweepRunEnd end = run_sweep_session(req, swept, store, *session, clock, progress, &g_stop);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const ReproductionVerdict v = judge_reproduction(plan, found.claim, session->journal.results(), tolerance);
  const std::string text = write_reproduction(plan, found.claim, found.j, &v);
  if (a.json) fmt::print("{}\n", reproduction_json(plan, found.claim, found.j, &v).dump(2));
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
  auto o = reproduce_options(a);
  if (!o) return fail(o.error().message);
  auto setup = resolve_claim_setup(store, claim, "moebench reproduce");
  if (!setup) return fail(setup.error().message);
  const std::string here_path = a.machine.empty() ? default_probe_path() : a.machine;
  auto planned = plan_here(store, claim, *setup, a, here_path, *o);
  if (!planned) return fail(planned.error().message);
  const ReproductionPlan& plan = planned->plan;
  if (!plan.cannot.empty()) {
    const ReproductionVerdict v = judge_reproduction(plan, claim, RunResults{}, o->tolerance);
    print_reproduction(plan, *found, &v, a.json);
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
  if (!a.dry_run) return run_reproduction(req, *swept, store, plan, *found, a, o->tolerance, say_line);
  const ReproductionDryRun d{swept->points.size(), plan.scale, planned->here->name, req.out_dir, o->repetitions,
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
