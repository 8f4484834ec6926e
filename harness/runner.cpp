// runner.cpp — see runner.h.
#include "harness/runner.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "harness/deadline.h"
#include "harness/metrics.h"
#include "harness/units.h"

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
        std::fprintf(stderr, "\nmoebench: %s\nmoebench: %s; exiting. Run the same command with "
                     "--resume to continue with the next point.\n",
                     row_.reason.c_str(), st ? "the point is recorded as failed in the journal"
                                             : st.error().message.c_str());
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

}  // namespace

Expected<RunOutcome> run_sweep(const SweepSpec& spec, const std::vector<Point>& points,
                               Journal& journal, RunnerDeps& deps, const RunnerOptions& options) {
  Watchdog watchdog(journal);
  std::map<std::string, std::unique_ptr<Engine>> engines;  // by canonical engine spec
  std::size_t already = 0;
  for (const Point& p : points) already += journal.has(p.id()) ? 1 : 0;
  deps.progress.sweep_started(points.size(), already);

  for (const Point& p : points) {
    if (journal.has(p.id())) continue;
    if (options.interrupt && options.interrupt->load()) return RunOutcome::kInterrupted;
    deps.progress.point_started(p.index + 1, p.label());
    const double start_s = deps.clock.now_s();
    ResultRow row = base_row(p, spec, options);

    auto finish = [&](ResultRow& r) -> Status {
      watchdog.disarm();
      r.wall_s = deps.clock.now_s() - start_s;
      Status st = journal.append(r);
      if (!st) return st;
      deps.progress.point_finished(r.status, r.wall_s);
      if (options.on_row) options.on_row(journal.results());
      return Status::success();
    };
    auto fail = [&](std::string reason) -> Status {
      row.status = RowStatus::kFailed;
      row.reason = std::move(reason);
      return finish(row);
    };

    auto card = deps.find_card(p.model);
    Expected<ModelCard> scaled = card ? apply_scale(*card, p.scale) : Expected<ModelCard>(card.error());
    if (!scaled) {
      if (Status st = fail(scaled.error().message); !st) return st.error();
      continue;
    }
    const std::string engine_key = p.engine.to_string();
    if (engines.count(engine_key) == 0) {
      auto made = deps.make_engine(p.engine);
      if (!made) {
        if (Status st = fail(made.error().message); !st) return st.error();
        continue;
      }
      engines[engine_key] = std::move(*made);
    }
    Engine& engine = *engines[engine_key];
    for (auto& [key, other] : engines) {
      if (key != engine_key) other->release();  // one engine's weights in memory at a time
    }

    ResultRow hard_fail = row;
    hard_fail.status = RowStatus::kFailed;
    hard_fail.reason = "engine did not stop within timeout_s + " + format_duration_s(options.hard_grace_s) +
                       " grace (" + format_duration_s(options.timeout_s) + " timeout)";
    watchdog.arm(hard_fail, options.timeout_s + options.hard_grace_s);

    RunContext ctx{deps.clock, deps.progress, *scaled, spec.drive_dirs, spec.seed, 0, false,
                   start_s + options.timeout_s, options.interrupt};
    std::vector<Measurement> warmups, recorded;
    std::string failure;
    bool interrupted = false;
    bool stopped = false;  // infeasible/invalid declared by the engine
    const int total_runs = spec.warmup + spec.repetitions;
    for (int run = 0; run < total_runs && failure.empty() && !stopped; ++run) {
      ctx.warmup = run < spec.warmup;
      ctx.repetition = ctx.warmup ? run : run - spec.warmup;
      const std::string what = ctx.warmup
          ? "warm-up " + std::to_string(run + 1) + "/" + std::to_string(spec.warmup)
          : "repetition " + std::to_string(ctx.repetition + 1) + "/" + std::to_string(spec.repetitions);
      deps.progress.phase(what, -1);
      Expected<Measurement> m = make_error("engine returned nothing");
      try {
        m = engine.run(p, ctx);
      } catch (const std::exception& e) {
        m = make_error(std::string("engine threw an exception: ") + e.what());
      } catch (...) {
        m = make_error("engine threw an unknown exception");
      }
      if (options.interrupt && options.interrupt->load()) {
        interrupted = true;
        break;
      }
      if (!m) {
        failure = deps.clock.now_s() >= ctx.deadline_s ? timeout_reason(options.timeout_s)
                                                       : what + ": " + m.error().message;
        break;
      }
      if (m->status != RowStatus::kOk) {
        row.status = m->status;
        row.reason = m->reason.empty() ? std::string("engine declared the point ") + to_string(m->status)
                                       : m->reason;
        row.provenance = m->provenance;
        row.notes = m->notes;
        stopped = true;
        break;
      }
      if (auto bad = check_measurement(*m)) {
        failure = what + ": engine returned an inconsistent measurement: " + *bad;
        break;
      }
      if (deps.clock.now_s() >= ctx.deadline_s) {
        failure = timeout_reason(options.timeout_s);
        break;
      }
      row.provenance = m->provenance;
      (ctx.warmup ? warmups : recorded).push_back(std::move(*m));
    }
    if (interrupted) {
      watchdog.disarm();
      return RunOutcome::kInterrupted;  // the point is not recorded; --resume re-runs it
    }
    if (!recorded.empty() || !warmups.empty()) {
      Aggregate agg = aggregate(recorded, warmups, p.ram_budget_bytes);
      row.metrics = std::move(agg.summaries);
      row.samples = std::move(agg.samples);
      row.notes.insert(row.notes.end(), agg.notes.begin(), agg.notes.end());
      row.repetitions = static_cast<int>(recorded.size());
      if (!stopped && failure.empty() && agg.status != RowStatus::kOk) {
        row.status = agg.status;
        row.reason = agg.reason;
      }
    }
    if (!failure.empty()) {
      if (!recorded.empty()) {
        row.notes.push_back("metrics cover the " + std::to_string(recorded.size()) +
                            " repetitions that finished before the failure");
      }
      if (Status st = fail(failure); !st) return st.error();
      continue;
    }
    if (Status st = finish(row); !st) return st.error();
  }
  deps.progress.sweep_finished();
  return RunOutcome::kCompleted;
}

}  // namespace moebench
