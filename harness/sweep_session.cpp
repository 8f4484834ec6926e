// sweep_session.cpp — the steps of `moebench run` / `moebench predict`
// (see sweep_session.h): plan, open, run. Messages are the lines the CLI
// prints, prefixed with the request's command name.
#include "harness/sweep_session.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "engines/container/container.h"
#include "engines/executor/run_support.h"
#include "engines/io/throttled_engine.h"
#include "harness/claim_review.h"
#include "harness/explain_writer.h"
#include "harness/rewrite_pacer.h"
#include "model/analytic_engine.h"
#include "model/claim_check.h"
#include "model/cost_model.h"
#include "model/spec_machine.h"
#include "probes/powercap.h"
#include "reports/results_files.h"
#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

Error prefixed(const SweepRequest& r, const std::string& message) {
  return make_error(r.command + ": " + message);
}

// How the results files come back after a failed write: the journal has
// every finished point.
std::string regenerate_hint(const SweepRequest& r) {
  if (r.predict) return "free space, then run the same `moebench predict` command again";
  return std::string("free space, then run the same `moebench run` command with --resume") +
         (r.fresh ? " instead of --fresh" : "");
}

bool uses_drives(const SweepPlan& plan, const std::string& engine) {
  const EngineInfo* e = plan.runs_point(engine);
  return e != nullptr && e->caps.uses_drives;
}

// Drive directories: the sweep needs as many as its largest drive count;
// missing ones are created (they hold containers, made on first use).
Status prepare_drive_dirs(const SweepRequest& r, const SweepPlan& plan, const SayFn& say) {
  int needed = 0;
  for (const Point& p : plan.points) {
    if (uses_drives(plan, p.engine.name)) needed = std::max(needed, p.drives.count);
  }
  if (needed > static_cast<int>(plan.spec.drive_dirs.size())) {
    return prefixed(r, fmt::format("the sweep needs {} drive directories but {} are given; list them in "
                                   "drive_dirs or pass --drive-dir once per drive",
                                   needed, plan.spec.drive_dirs.size()));
  }
  if (r.predict || r.dry_run) return {};
  for (const std::string& dir : plan.spec.drive_dirs) {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec)) continue;
    // Shards of one job may share a drive directory: another process can
    // make it between the check and this call (create_directories then
    // makes nothing and reports no error), which is no failure.
    const bool made = std::filesystem::create_directories(dir, ec);
    std::error_code dir_ec;
    if (ec || !std::filesystem::is_directory(dir, dir_ec)) {
      return prefixed(r, "cannot create drive directory " + dir + ": " + (ec ? ec.message() : std::string("not a directory")));
    }
    if (made && !r.quiet) say(r.command + ": created drive directory " + dir);
  }
  return {};
}

// The disk the containers need, before anything is written (trunk files
// shared by quants and hard-linked replicas counted once): said, and
// refused when it does not fit the drive directories' free space.
Status check_disk_need(const SweepRequest& r, const SweepPlan& plan, const ConfigStore& store, const SayFn& say) {
  if (r.predict || r.dry_run) return {};
  std::vector<Point> drive_points;
  for (const Point& p : plan.points) {
    if (uses_drives(plan, p.engine.name)) drive_points.push_back(p);
  }
  auto specs = container_specs_for_points(
      drive_points, [&store](const std::string& n) { return store.card(n); }, plan.spec.seed,
      plan.spec.drive_dirs);
  if (!specs) return prefixed(r, specs.error().message);
  if (specs->empty()) return {};
  auto need = container_disk_need(*specs);
  if (!need) return prefixed(r, need.error().message);
  if (!r.quiet) say(r.command + ": " + need->summary());
  if (Status fits = need->check_fits(); !fits) return prefixed(r, fits.error().message);
  return {};
}

Status load_machine(const SweepRequest& r, const ConfigStore& store, SweepPlan& plan) {
  const std::string arg = r.machine.empty() ? r.default_machine : r.machine;
  if (arg.empty()) return {};
  auto m = resolve_machine(store, arg,
                           r.machine.empty() ? " (no --machine given: run `moebench probe` first, or pass --machine with "
                                               "a profile file or a configs/hardware name)"
                                             : "");
  if (!m) return prefixed(r, "--machine: " + m.error().message);
  plan.profile_label = m->label();
  plan.machine_label = m->name;
  plan.machine_source = m->source;
  plan.machine = std::move(m->profile);
  return {};
}

// --points: the plan narrowed to the points named (1-based, sweep order),
// each of which must be in the sweep (and in the shard, when one is run).
Status keep_points(const SweepRequest& r, SweepPlan& plan) {
  std::vector<Point> kept;
  for (std::size_t n : r.points) {
    if (n < 1 || n > plan.points_total) {
      return make_error(fmt::format("{}: --points: point {} is not in the sweep, which has points 1 to {}", r.command,
                                    n, plan.points_total));
    }
    auto it = std::find_if(plan.points.begin(), plan.points.end(), [n](const Point& p) { return p.index + 1 == n; });
    if (it == plan.points.end()) {
      return make_error(fmt::format("{}: --points: point {} is not in shard {}", r.command, n,
                                    plan.shard ? plan.shard->label() : std::string("?")));
    }
    if (std::none_of(kept.begin(), kept.end(), [n](const Point& p) { return p.index + 1 == n; })) kept.push_back(*it);
  }
  std::sort(kept.begin(), kept.end(), [](const Point& a, const Point& b) { return a.index < b.index; });
  plan.points = std::move(kept);
  return Status::success();
}

}  // namespace

const EngineInfo* SweepPlan::runs_point(const std::string& name) const {
  return predictor != nullptr ? predictor : find_engine(name);
}

Expected<SweepPlan> plan_sweep(const SweepRequest& r, const ConfigStore& store, SweepContext ctx,
                               const SayFn& say) {
  auto src = r.sweep_text.empty() ? store.find("sweeps", r.sweep)
                                   : Expected<ConfigSource>(ConfigSource{r.sweep_label, r.sweep_text, "."});
  if (!src) return prefixed(r, src.error().message);
  SweepPlan plan;
  auto scale_fit = stored_scale_fit(store);
  if (!scale_fit) return prefixed(r, scale_fit.error().message);
  plan.scale_fit = std::move(*scale_fit);
  // The engine that runs a point: its own, or for `predict` the registry's
  // predicting engine (which reads no drive: its points need no drive
  // directories). Abilities are asked by caps, never by name.
  plan.predictor = r.predict ? prediction_engine() : nullptr;
  ctx.base_dir = src->dir;
  ctx.drive_dirs_override = r.drive_dirs;
  if (plan.predictor != nullptr) {
    const EngineInfo* predictor = plan.predictor;
    ctx.engine_uses_drives = [predictor](const std::string&) { return predictor->caps.uses_drives; };
  }
  auto spec = load_sweep_text(src->text, src->label, ctx);
  if (!spec) return spec.error();
  auto points = expand_sweep(*spec, ctx);
  if (!points) return make_error(src->label + ": " + points.error().message);
  plan.spec = std::move(*spec);
  plan.points = std::move(*points);
  plan.points_total = plan.points.size();
  // Only a count that differs from the sweep's changes the digest: the same
  // value given again is the same sweep (and resumes its journal).
  if ((r.repetitions && *r.repetitions != plan.spec.repetitions) || (r.warmup && *r.warmup != plan.spec.warmup)) {
    if (r.repetitions) plan.spec.repetitions = *r.repetitions;
    if (r.warmup) plan.spec.warmup = *r.warmup;
    plan.spec.digest = hex64(fnv1a64(fmt::format("{} repetitions={} warmup={}", plan.spec.digest,
                                                 plan.spec.repetitions, plan.spec.warmup)));
  }
  if (r.shard) {
    ShardSelection sel = select_shard(plan.spec, plan.points, store, ctx.base_dir, *r.shard);
    std::vector<Point> mine;
    mine.reserve(sel.positions.size());
    for (std::size_t pos : sel.positions) mine.push_back(plan.points[pos]);
    plan.points = std::move(mine);
    if (!r.quiet) {
      say(fmt::format("{}: shard {}: {} of {} points, about {} of work ({})", r.command, sel.info.label(),
                      plan.points.size(), plan.points_total, format_duration_s(sel.info.predicted_cost_s), sel.how));
    }
    plan.shard = std::move(sel.info);
  }
  if (!r.points.empty()) {
    if (Status st = keep_points(r, plan); !st) return st.error();
  }
  if (Status st = prepare_drive_dirs(r, plan, say); !st) return st.error();
  if (Status st = check_disk_need(r, plan, store, say); !st) return st.error();
  if (Status st = load_machine(r, store, plan); !st) return st.error();
  return plan;
}

namespace {

// What `plan` and `claims` answer for the point's setup (the regime fit,
// engine family "any"), and why it may differ from the row above: the row
// is moebench's own engine (its memory plan, cache replay and measured or
// calibrated efficiencies), another engine family.
std::string regime_answer_line(const ConfigStore& store, const ModelCard& card, const Point& p, const MachineProfile& m,
                               double row_tok_s) {
  auto fit = stored_regimes(store);
  if (!fit) return "\nregime model: not read: " + fit.error().message + "\n";
  if (!*fit) return "";
  MachineSetup s;
  s.quant = p.quant;
  s.trunk_quant = p.trunk_quant;
  if (p.ram_budget_bytes) s.budget_bytes = static_cast<double>(*p.ram_budget_bytes);
  s.drives = p.drives.count;
  s.context = p.context_tokens;
  s.prompt = p.prompt_tokens;
  const MachineEstimate e = estimate_machine(card, s, m, nullptr, &**fit);
  if (!e.fits) return "\nregime model (as `plan` and `claims`, engine family any): does not fit: " + e.why + "\n";
  const std::string row = row_tok_s > 0 ? "this row's " + format_fixed(row_tok_s, 3) + " tok/s" : "this row (no figure)";
  return fmt::format("\nregime model (as `plan` and `claims`, engine family any): {} tok/s (band {}–{}, ×{}, {}); "
                     "{} is moebench's own engine (its memory plan, cache replay and efficiencies), another engine "
                     "family\n",
                     format_fixed(e.tok_s_real, 3), format_fixed(e.tok_s_low, 3), format_fixed(e.tok_s_high, 3),
                     format_fixed(e.band_ratio(), 1), e.regime, row);
}

}  // namespace

Expected<std::string> explain_sweep_point(const SweepRequest& r, const SweepPlan& plan, const ConfigStore& store,
                                          int n) {
  if (n < 1 || n > static_cast<int>(plan.points.size())) {
    return prefixed(r, fmt::format("--explain {}: the sweep has {} points", n, plan.points.size()));
  }
  if (!plan.machine) return prefixed(r, "--explain needs a machine profile (--machine)");
  const Point& p = plan.points[static_cast<std::size_t>(n - 1)];
  auto card = store.card(p.model);
  if (!card) return prefixed(r, card.error().message);
  auto scaled = point_card(*card, p);
  if (!scaled) return prefixed(r, scaled.error().message);
  PredictContext pc;
  pc.seed = plan.spec.seed;
  auto pred = predict_point(*plan.machine, *scaled, p, profile_efficiency(*plan.machine), pc);
  if (!pred) return prefixed(r, pred.error().message);
  return write_prediction_explain(n, p.label(), plan.profile_label, *pred) +
         regime_answer_line(store, *scaled, p, *plan.machine, pred->t_token_s > 0 ? 1 / pred->t_token_s : 0);
}

Expected<SweepSession> open_sweep_session(const SweepRequest& r, const SweepPlan& plan, const SayFn& say) {
  Environment env = capture_environment(plan.profile_label, r.command_line);
  if (!plan.machine_source.empty()) {
    env.machine_name = plan.machine_label;
    env.machine_source = plan.machine_source;
  }
  std::string machine_label = plan.machine_label.empty() ? "unprofiled:" + env.hostname : plan.machine_label;
  if (!env.build_warning().empty()) say("\n*** WARNING: " + env.build_warning() + " ***\n");
  std::string out_dir = !r.out_dir.empty() ? r.out_dir
                        : r.predict        ? "results/" + plan.spec.name + "-predicted-" + machine_label
                                           : "results/" + plan.spec.name;
  if (r.out_dir.empty() && plan.shard) {
    out_dir += fmt::format("/shards/{}-of-{}", plan.shard->index, plan.shard->count);
  }
  if (Status st = ensure_directory(out_dir); !st) return prefixed(r, st.error().message);
  auto lock = DirLock::acquire(out_dir, r.command_line.empty() ? r.command : r.command_line);
  if (!lock) return prefixed(r, lock.error().message);
  // A results path that is a symlink or a device is refused now, not after the sweep.
  if (Status st = check_results_paths(out_dir, r.formats); !st) return prefixed(r, st.error().message);
  SweepInfo info{plan.spec.name, plan.spec.description, plan.spec.digest, plan.points_total,
                 plan.spec.repetitions, plan.spec.warmup, plan.spec.seed, plan.shard};
  const Journal::Mode mode = r.fresh ? Journal::Mode::kFresh
                             : r.resume ? Journal::Mode::kResume : Journal::Mode::kCreate;
  const std::string journal_path = (std::filesystem::path(out_dir) / "journal.jsonl").string();
  auto journal = Journal::open(journal_path, info, env, mode, r.retry_failed);
  if (!journal) return prefixed(r, journal.error().message);
  return SweepSession{std::move(*lock), std::move(env), std::move(machine_label), out_dir, std::move(*journal)};
}

SweepRunEnd run_sweep_session(const SweepRequest& r, const SweepPlan& plan, const ConfigStore& store,
                              SweepSession& session, Clock& clock, Progress& progress,
                              std::atomic<bool>* interrupt) {
  const std::optional<double> io_cap = r.io_cap_bytes_s;
  RunnerDeps deps{clock, progress, [&store](const std::string& n) { return store.card(n); },
                  [&plan, io_cap](const EngineSpec& s) -> Expected<std::unique_ptr<Engine>> {
                    const EngineInfo* e = plan.runs_point(s.name);
                    if (e == nullptr) return make_error("unknown engine \"" + s.name + "\"");
                    EngineContext ec;
                    if (plan.machine) ec.machine = &*plan.machine;
                    auto made = e->create(s, ec);
                    if (!made || !io_cap) return made;
                    return std::unique_ptr<Engine>(std::make_unique<IoThrottledEngine>(
                        std::move(*made), e->caps.reads_drives_decoding, *io_cap));
                  }};
  RunnerOptions opts;
  // Package energy where Linux powercap is readable; otherwise rows say why.
  std::unique_ptr<PowercapMeter> meter;
  if (!r.predict) {
    auto m = PowercapMeter::open();
    if (m) {
      meter = std::move(*m);
      deps.energy = meter.get();
    } else {
      opts.energy_note = m.error().message;
    }
  }
  opts.timeout_s = r.timeout_s > 0 ? r.timeout_s : plan.spec.timeout_s;
  opts.hard_grace_s = r.hard_grace_s;
  opts.machine_label = session.machine_label;
  opts.build_label = session.env.build_label();
  opts.run_id = session.env.run_id;
  opts.interrupt = interrupt;
  opts.provenance = r.provenance;
  opts.full_model_target = r.full_model_target;
  opts.scale_fit = plan.scale_fit;
  RewritePacer pacer;  // the results files are the journal's compaction: refreshed at a bounded cost
  bool write_warned = false, size_noted = false;
  opts.on_row = [&](const RunResults& results) {
    const std::size_t rows = results.rows.size();
    if (!pacer.due(clock.now_s(), rows)) {
      if (pacer.too_big(rows) && !size_noted) {
        size_noted = true;
        progress.note(fmt::format("{}: {} rows: the results files are now written at the end only (the journal "
                                  "holds every row as it finishes)", r.command, rows));
      }
      return;
    }
    const double start_s = clock.now_s();
    Status st = write_results_files(results, session.out_dir, r.formats, regenerate_hint(r));
    pacer.wrote(start_s, clock.now_s(), rows);
    if (!st && !write_warned) {
      write_warned = true;  // the journal still holds every row; say so once
      progress.note(r.command + ": " + st.error().message + " (the run continues)");
    }
  };
  SweepRunEnd end{run_sweep(plan.spec, plan.points, session.journal, deps, opts), Status{}};
  end.written = write_results_files(session.journal.results(), session.out_dir, r.formats, regenerate_hint(r));
  return end;
}

std::string sweep_files_written(const SweepRequest& r, const Status& written) {
  if (!written) return "journal.jsonl; the results files were not updated";
  return "journal.jsonl + results.{" + join(r.formats, ",") + "}";
}

}  // namespace moebench
