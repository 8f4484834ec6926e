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
#include <set>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/spec_machine.h"
#include "model/engine_families.h"
#include "harness/claim_review.h"
#include "harness/reproduce.h"
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

  SweepRequest req;
  req.command = "moebench reproduce";
  req.sweep_text = plan.sweep_json;
  req.sweep_label = "reproduce " + claim.id;
  req.out_dir = a.out_dir.empty() ? "results/reproduce-" + claim.id : a.out_dir;
  req.machine = here_path;
  req.resume = a.resume;
  req.fresh = a.fresh;
  req.quiet = a.quiet;
  req.dry_run = a.dry_run;
  req.provenance = "reproduced";
  req.command_line = state.command_line;
  const ModelCard full_card = *setup->card;
  req.full_model_target = [&plan, full_card](const Point& p) -> std::optional<FullModelTarget> {
    const EmulatedCase* c = case_of_point(plan, p);
    if (!c) return std::nullopt;
    FullModelTarget t{full_card, std::nullopt};
    t.card.trunk_quant = c->trunk_quant;
    if (c->full_slots > 0) t.slots = c->full_slots;
    return t;
  };
  const SayFn say_line = [](const std::string& line) { say(line); };
  auto swept = plan_sweep(req, store, state.sweep_context(store), say_line);
  if (!swept) return fail(swept.error().message);
  if (a.dry_run) {
    if (!a.json) fmt::print("{}", write_reproduction(plan, claim, found->j, nullptr));
    // The containers: one trunk file per trunk quant, one expert file per
    // quant (drive directories on one filesystem share them by hard links).
    std::set<std::string> trunks, experts;
    double disk = 0;
    for (const Point& p : swept->points) {
      auto card = store.card(p.model);
      if (!card) continue;
      auto scaled = point_card(*card, p);
      if (!scaled) continue;
      if (trunks.insert(p.trunk_quant).second) disk += static_cast<double>(scaled->trunk().total());
      if (experts.insert(p.quant).second) disk += static_cast<double>(scaled->routed_bytes_total(p.quant));
    }
    if (a.json) {
      Json j = reproduction_json(plan, claim, found->j, nullptr);
      j["dry_run_plan"] = {{"points", swept->points.size()}, {"machine", here->name}, {"repetitions", o.repetitions},
                           {"predicted_run_s", plan.predicted_run_s}, {"container_bytes", disk},
                           {"trunk_files", trunks.size()}, {"expert_files", experts.size()}, {"out_dir", req.out_dir}};
      fmt::print("{}\n", j.dump(2));
      return kExitOk;
    }
    fmt::print("Dry run: {} point(s) of {} on this machine ({}), {} repetition(s) each; predicted run time {} "
               "(this machine's cost model; writing containers not included). Containers: {} ({} trunk file(s), "
               "{} expert file(s); reused when already in the drive directories, hard-linked across directories on "
               "one filesystem). Results would go to {}.\n",
               swept->points.size(), plan.scale, here->name, o.repetitions, format_duration_s(plan.predicted_run_s),
               format_bytes(disk), trunks.size(), experts.size(), req.out_dir);
    return 0;
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
