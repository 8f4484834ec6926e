// runner.cpp — see runner.h.
#include "harness/runner.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "harness/full_model.h"
#include "probes/machine_activity.h"
#include "vocab/deadline.h"
#include "vocab/metrics.h"
#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// Watches one point at a time in real time; see runner.h for why it exits.
class Watchdog {
 public:
  explicit Watchdog(Journal& journal) : journal_(journal), thread_([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void arm(ResultRow failed_row, double limit_s) {
    std::lock_guard<std::mutex> lock(mu_);
    row_ = std::move(failed_row);
    deadline_ = steady_deadline_after(limit_s);  // saturates: --timeout 1e10 is not a deadline in the past
    armed_ = true;
    cv_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
          std::chrono::steady_clock::now() >= deadline_) {
        const Status st = journal_.append(row_);
        // fwrite, not fmt::print: a failed write to stderr must not throw here,
        // the process has to reach _Exit below.
        const std::string msg = fmt::format("\nmoebench: {}\nmoebench: {}; exiting. Run the same command with "
                                            "--resume to continue with the next point.\n",
                                            row_.reason, st ? "the point is recorded as failed in the journal"
                                                            : st.error().message.c_str());
        std::fwrite(msg.data(), 1, msg.size(), stderr);
        std::fflush(stderr);
        std::_Exit(kExitHardTimeout);
      }
    }
  }

  Journal& journal_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, stop_ = false;
  ResultRow row_;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

ResultRow base_row(const Point& p, const SweepSpec& spec, const RunnerOptions& o) {
  ResultRow r;
  r.point = p;
  r.run_id = o.run_id;
  r.machine = o.machine_label;
  r.build = o.build_label;
  r.warmup = spec.warmup;
  r.provenance = "none";
  return r;
}

std::string timeout_reason(double timeout_s) {
  return "timed out after " + format_duration_s(timeout_s) +
         " (timeout_s in the sweep, or --timeout on the command line)";
}

// ---------------------------------------------------------------- steps
// A point runs as three named steps: prepare (the scaled card and the
// engine, made once per engine spec; the other engines give back their
// set-up), run_repetitions (warm-ups and recorded runs under the deadline),
// and fold (the measurements into the row). The loop in run_sweep only
// sequences them and records the row.

using EngineTable = std::map<std::string, std::unique_ptr<Engine>>;  // by canonical engine spec

struct Prepared {
  ModelCard card;
  Engine* engine = nullptr;
};

Expected<Prepared> prepare_point(const Point& p, RunnerDeps& deps, EngineTable& engines) {
  auto card = deps.find_card(p.model);
  Expected<ModelCard> scaled = card ? point_card(*card, p) : Expected<ModelCard>(card.error());
  if (!scaled) return scaled.error();
  const std::string engine_key = p.engine.to_string();
  if (engines.count(engine_key) == 0) {
    auto made = deps.make_engine(p.engine);
    if (!made) return made.error();
    engines[engine_key] = std::move(*made);
  }
  for (auto& [key, other] : engines) {
    if (key != engine_key) other->release();  // one engine's weights in memory at a time
  }
  return Prepared{std::move(*scaled), engines[engine_key].get()};
}

struct Repetitions {
  std::vector<Measurement> warmups, recorded;
  std::vector<std::optional<Disturbance>> activity;  // per recorded repetition: what other work did
  std::string failure;       // non-empty: the point failed (reason)
  bool interrupted = false;  // the point is not recorded; --resume re-runs it
  bool stopped = false;      // the engine declared the point infeasible/invalid
  RowStatus stop_status = RowStatus::kOk;
  std::string stop_reason;
  std::vector<std::string> stop_notes;
  std::optional<std::uint64_t> stop_min_budget_bytes;
  std::string provenance;    // of the last run that answered
};

Repetitions run_repetitions(const Point& p, const SweepSpec& spec, Engine& engine, RunContext& ctx,
                            const RunnerDeps& deps, const RunnerOptions& options) {
  Repetitions reps;
  const int total_runs = spec.warmup + spec.repetitions;
  for (int run = 0; run < total_runs; ++run) {
    ctx.warmup = run < spec.warmup;
    ctx.repetition = ctx.warmup ? run : run - spec.warmup;
    const std::string what = ctx.warmup
        ? "warm-up " + std::to_string(run + 1) + "/" + std::to_string(spec.warmup)
        : "repetition " + std::to_string(ctx.repetition + 1) + "/" + std::to_string(spec.repetitions);
    deps.progress.phase(what, -1);
    Expected<Measurement> m = make_error("engine returned nothing");
    const std::optional<ActivitySnapshot> before = ctx.warmup ? std::nullopt : take_activity_snapshot();
    try {
      m = engine.run(p, ctx);
    } catch (const std::exception& e) {
      m = make_error(std::string("engine threw an exception: ") + e.what());
    } catch (...) {
      m = make_error("engine threw an unknown exception");
    }
    if (options.interrupt && options.interrupt->load()) {
      reps.interrupted = true;
      return reps;
    }
    if (!m) {
      reps.failure = deps.clock.now_s() >= ctx.deadline_s ? timeout_reason(options.timeout_s)
                                                          : what + ": " + m.error().message;
      return reps;
    }
    if (m->status != RowStatus::kOk) {
      reps.stopped = true;
      reps.stop_status = m->status;
      reps.stop_reason = m->reason.empty() ? std::string("engine declared the point ") + to_string(m->status)
                                           : m->reason;
      reps.stop_notes = m->notes;
      reps.stop_min_budget_bytes = m->min_budget_bytes;
      reps.provenance = m->provenance;
      return reps;
    }
    if (auto bad = check_measurement(*m)) {
      reps.failure = what + ": engine returned an inconsistent measurement: " + *bad;
      return reps;
    }
    if (deps.clock.now_s() >= ctx.deadline_s) {
      reps.failure = timeout_reason(options.timeout_s);
      return reps;
    }
    reps.provenance = m->provenance;
    if (!ctx.warmup) {
      const std::optional<ActivitySnapshot> after = before ? take_activity_snapshot() : std::nullopt;
      reps.activity.push_back(after ? std::optional<Disturbance>(disturbance_between(*before, *after)) : std::nullopt);
    }
    (ctx.warmup ? reps.warmups : reps.recorded).push_back(std::move(*m));
  }
  return reps;
}

// The repetitions into the row: a stop's status and reason, the aggregate
// (medians, spread, samples, notes) of whatever ran, and the failure.
// A scaled row also carries the full model's decode and TTFT
// (full_model.h), one sample per recorded repetition; the derivation of the
// first goes in the notes. Engines without per-layer timings add nothing.
// With bench-engines' checks of that arithmetic (`fit`), each carries its
// band: ÷ and × the error they measured for its kind (streaming when the
// run read its experts from the drives).
void add_full_model_bands(ResultRow& row, const Repetitions& reps, const ScaleFit& fit) {
  const bool streaming = reps.recorded.front().read_bytes_decode > 0;
  auto band = [&](const char* value, const char* low, const char* high, FullModelKind kind, const char* what) {
    const auto b = scale_band(fit, kind);
    if (!b) {
      row.notes.push_back(std::string("no band on the full-model ") + what + ": configs/fits/scale.json has no check of it");
      return;
    }
    std::vector<double> lo, hi;
    for (double v : row.samples[value]) {
      lo.push_back(v / b->factor);
      hi.push_back(v * b->factor);
    }
    row.samples[low] = lo;
    row.samples[high] = hi;
    row.metrics[low] = summarize(lo);
    row.metrics[high] = summarize(hi);
    row.notes.push_back(std::string("full-model ") + what + " band ×" + format_fixed(b->factor, 3) +
                        " each way: the error bench-engines' line 6 measured for the arithmetic (" +
                        (b->ratios >= 10 ? "90th percentile" : "largest") + " of " + std::to_string(b->ratios) +
                        " checks, configs/fits/scale.json)");
  };
  band(metric::kFullDecodeTokS, metric::kFullDecodeTokSLow, metric::kFullDecodeTokSHigh,
       streaming ? FullModelKind::kStreamingDecode : FullModelKind::kResidentDecode, "decode");
  band(metric::kFullTtftS, metric::kFullTtftSLow, metric::kFullTtftSHigh,
       streaming ? FullModelKind::kStreamingTtft : FullModelKind::kResidentTtft, "TTFT");
}

void add_full_model(ResultRow& row, const Repetitions& reps, const Point& p, const ModelCard& ran, const ModelCard& full,
                    std::optional<std::size_t> full_slots, const std::optional<ScaleFit>& fit) {
  std::vector<double> tok_s, ttft;
  std::string why_not;
  std::vector<std::string> steps;
  for (const Measurement& m : reps.recorded) {
    auto f = full_model_figures(ran, full, m, p, full_slots);
    if (!f) {
      why_not = f.error().message;
      break;
    }
    if (steps.empty()) steps = f->steps;
    tok_s.push_back(1 / std::max(1e-12, f->decode_s_per_token));
    ttft.push_back(f->ttft_s);
  }
  if (!why_not.empty() || tok_s.empty()) {
    if (!why_not.empty()) row.notes.push_back("no full-model figures: " + why_not);
    return;
  }
  row.samples[metric::kFullDecodeTokS] = tok_s;
  row.samples[metric::kFullTtftS] = ttft;
  row.metrics[metric::kFullDecodeTokS] = summarize(tok_s);
  row.metrics[metric::kFullTtftS] = summarize(ttft);
  row.notes.push_back("full model (" + full.name + ", repetition 1): " + join(steps, "; "));
  if (fit) add_full_model_bands(row, reps, *fit);
}

// What other work did, one sample per recorded repetition, for measured
// rows (a synthetic or predicted number is a formula, not a timing), and a
// note when any repetition was disturbed.
void add_activity(ResultRow& row, const Repetitions& reps) {
  if (reps.provenance == "synthetic" || reps.provenance == "predicted" || reps.recorded.empty() ||
      reps.activity.size() != reps.recorded.size()) {
    return;
  }
  std::vector<double> other, steal, load, csw, disturbed;
  std::string first_why;
  for (const std::optional<Disturbance>& d : reps.activity) {
    if (!d) return;  // /proc/stat unreadable: nothing recorded
    other.push_back(d->other_cpu_frac);
    steal.push_back(d->steal_frac);
    load.push_back(d->load_avg_1m);
    csw.push_back(d->invol_ctx_switches);
    disturbed.push_back(d->disturbed ? 1 : 0);
    if (d->disturbed && first_why.empty()) first_why = d->why;
  }
  const std::pair<const char*, std::vector<double>*> series[] = {{metric::kOtherCpuFrac, &other},
                                                                  {metric::kStealFrac, &steal},
                                                                  {metric::kLoadAvg1m, &load},
                                                                  {metric::kInvolCtxSwitches, &csw},
                                                                  {metric::kDisturbed, &disturbed}};
  for (const auto& [name, values] : series) {
    row.metrics[name] = summarize(*values);
    row.samples[name] = std::move(*values);
  }
  if (const std::size_t n = row.disturbed_repetitions().value_or(0); n > 0) {
    row.notes.push_back(fmt::format("{} of {} repetitions disturbed by other work on the machine (the first: {})", n,
                                    reps.recorded.size(), first_why));
  }
}

void fold(ResultRow& row, Repetitions& reps, const Point& p) {
  if (!reps.provenance.empty()) row.provenance = reps.provenance;
  if (reps.stopped) {
    row.status = reps.stop_status;
    row.reason = reps.stop_reason;
    row.notes = reps.stop_notes;
    row.min_budget_bytes = reps.stop_min_budget_bytes;
  }
  if (!reps.recorded.empty() || !reps.warmups.empty()) {
    Aggregate agg = aggregate(reps.recorded, reps.warmups, p.ram_budget_bytes);
    row.metrics = std::move(agg.summaries);
    row.samples = std::move(agg.samples);
    row.notes.insert(row.notes.end(), agg.notes.begin(), agg.notes.end());
    row.repetitions = static_cast<int>(reps.recorded.size());
    add_activity(row, reps);
    if (!reps.stopped && reps.failure.empty() && agg.status != RowStatus::kOk) {
      row.status = agg.status;
      row.reason = agg.reason;
    }
  }
  if (!reps.failure.empty()) {
    if (!reps.recorded.empty()) {
      row.notes.push_back("metrics cover the " + std::to_string(reps.recorded.size()) +
                          " repetitions that finished before the failure");
    }
    row.status = RowStatus::kFailed;
    row.reason = reps.failure;
  }
}

}  // namespace

Expected<RunOutcome> run_sweep(const SweepSpec& spec, const std::vector<Point>& points,
                               Journal& journal, RunnerDeps& deps, const RunnerOptions& options) {
  Watchdog watchdog(journal);
  EngineTable engines;
  std::size_t already = 0;
  for (const Point& p : points) already += journal.has(p.id()) ? 1 : 0;
  deps.progress.sweep_started(points.size(), already);

  for (const Point& p : points) {
    if (journal.has(p.id())) continue;
    if (options.interrupt && options.interrupt->load()) return RunOutcome::kInterrupted;
    deps.progress.point_started(p.index + 1, p.label());
    const double start_s = deps.clock.now_s();
    ResultRow row = base_row(p, spec, options);
    auto record = [&]() -> Status {
      watchdog.disarm();
      row.wall_s = deps.clock.now_s() - start_s;
      Status st = journal.append(row);
      if (!st) return st;
      deps.progress.point_finished(row.status, row.wall_s);
      if (options.on_row) options.on_row(journal.results());
      return Status::success();
    };

    auto prepared = prepare_point(p, deps, engines);
    if (!prepared) {
      row.status = RowStatus::kFailed;
      row.reason = prepared.error().message;
      if (Status st = record(); !st) return st.error();
      continue;
    }
    ResultRow hard_fail = row;
    hard_fail.status = RowStatus::kFailed;
    hard_fail.reason = "engine did not stop within timeout_s + " + format_duration_s(options.hard_grace_s) +
                       " grace (" + format_duration_s(options.timeout_s) + " timeout)";
    watchdog.arm(hard_fail, options.timeout_s + options.hard_grace_s);

    RunContext ctx{deps.clock, deps.progress, prepared->card, spec.drive_dirs, spec.seed, 0, false,
                   start_s + options.timeout_s, options.interrupt};
    ctx.energy = deps.energy;
    Repetitions reps = run_repetitions(p, spec, *prepared->engine, ctx, deps, options);
    if (reps.interrupted) {
      watchdog.disarm();
      return RunOutcome::kInterrupted;  // the point is not recorded; --resume re-runs it
    }
    fold(row, reps, p);
    if (!p.scale.is_identity() && row.status == RowStatus::kOk) {
      if (options.full_model_target) {
        if (auto t = options.full_model_target(p)) add_full_model(row, reps, p, prepared->card, t->card, t->slots, options.scale_fit);
      } else if (auto full = deps.find_card(p.model)) {
        add_full_model(row, reps, p, prepared->card, *full, std::nullopt, options.scale_fit);
      }
    }
    if (!options.energy_note.empty() && row.status == RowStatus::kOk && row.provenance == "measured") {
      row.notes.push_back(options.energy_note);
    }
    if (!options.provenance.empty() && row.provenance != "none") row.provenance = options.provenance;
    if (Status st = record(); !st) return st.error();
  }
  deps.progress.sweep_finished();
  return RunOutcome::kCompleted;
}

}  // namespace moebench
