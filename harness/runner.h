// runner.h — drives a sweep's points through engines.
//
// For each point not already in the journal: warm-up runs (not recorded),
// then `repetitions` recorded runs, then one row (medians, spread, raw
// samples, status) appended durably to the journal before the next point
// starts. Failure isolation: an engine error, an exception or a timeout
// becomes a `failed` row with its reason and the sweep goes on.
//
// Timeouts: each point has timeout_s of clock time. Engines check
// RunContext::cancelled() and stop; the point is recorded as failed. An
// engine that ignores cancellation for another hard_grace_s (real time) is
// beyond rescue in-process: a watchdog records the point as failed in the
// journal and ends the process (exit code kExitHardTimeout), so that
// `--resume` continues with the next point.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "harness/journal.h"
#include "vocab/scale_fit.h"
#include "vocab/sweep_spec.h"

namespace moebench {

inline constexpr int kExitHardTimeout = 124;

struct RunnerDeps {
  Clock& clock;
  Progress& progress;
  std::function<Expected<ModelCard>(const std::string& name)> find_card;
  std::function<Expected<std::unique_ptr<Engine>>(const EngineSpec&)> make_engine;
  EnergyMeter* energy = nullptr;  // package energy counter (probes/powercap.h), when readable
};

// The card (and expert-cache slots) a scaled point's full-model figures
// are for (harness/full_model.h); reproduce sets the claim's card and case.
struct FullModelTarget {
  ModelCard card;
  std::optional<std::size_t> slots;  // nullopt: the run's slots × the expert pool ratio
};

struct RunnerOptions {
  double timeout_s = 600;
  double hard_grace_s = 30;
  std::string machine_label;  // rows' "machine" condition
  std::string build_label;    // rows' "build" condition
  std::string run_id;
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const RunResults&)> on_row;  // after each durable row
  // Rows that ran get this provenance instead of their engine's ("" keeps
  // the engine's): `reproduce` marks its rows "reproduced".
  std::string provenance;
  // Without an energy meter: why (a note on every measured row, beside the
  // empty J/token columns).
  std::string energy_note;
  // A scaled point's full-model target; unset: the point's own card, full.
  std::function<std::optional<FullModelTarget>(const Point&)> full_model_target;
  // bench-engines' checks of the full-model arithmetic (configs/fits/scale.json):
  // the full-model columns' bands. Unset: the columns carry none.
  std::optional<ScaleFit> scale_fit;
};

enum class RunOutcome { kCompleted, kInterrupted };

Expected<RunOutcome> run_sweep(const SweepSpec& spec, const std::vector<Point>& points,
                               Journal& journal, RunnerDeps& deps, const RunnerOptions& options);

}  // namespace moebench
