// engine.h — the engine interface: what the runner drives for every point.
//
// An engine turns one Point into one Measurement (timing windows are
// defined in vocab/measurement.h). It may keep set-up (an open container,
// loaded weights) between calls and reuse it while Point::setup_key() stays
// the same; it reports that through Measurement::load_reused. Engines never
// print (they report through ctx.progress) and must stop promptly once
// ctx.cancelled() is true, returning an error. The table of engines is
// explicit (registry.h), not static self-registration.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/clock.h"
#include "vocab/energy_meter.h"
#include "vocab/expected.h"
#include "vocab/measurement.h"
#include "vocab/model_card.h"
#include "vocab/point.h"
#include "vocab/progress.h"

namespace moebench {

struct RunContext {
  Clock& clock;
  Progress& progress;
  const ModelCard& card;  // already scaled as the point says
  const std::vector<std::string>& drive_dirs;
  std::uint64_t seed = 0;   // sweep seed
  int repetition = 0;       // 0-based among recorded repetitions, or warm-up index
  bool warmup = false;
  double deadline_s = 0;    // clock time after which the engine must give up
  const std::atomic<bool>* interrupt = nullptr;  // user asked to stop (SIGINT)
  EnergyMeter* energy = nullptr;  // read at the windows' edges when the machine has a counter

  bool cancelled() const {
    return (interrupt != nullptr && interrupt->load()) || clock.now_s() >= deadline_s;
  }
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<Measurement> run(const Point& point, RunContext& ctx) = 0;
  // Gives back what set-up holds (loaded weights, caches) before another
  // engine runs, so engines never hold memory at the same time.
  virtual void release() {}
};

}  // namespace moebench
