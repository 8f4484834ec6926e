// analytic_engine.h — the cost model as an engine: for each point it
// predicts the Measurement the real engine named by the point (resident or
// streaming) would give on the profiled machine, without loading or reading
// anything. Rows carry provenance "predicted".
#pragma once

#include <memory>

#include "engines/analytic/cost_model.h"
#include "engines/engine.h"
#include "engines/engine_options.h"

namespace moebench {

// No options: the machine and its calibration say everything (registry.h).
const OptionTable& analytic_engine_options();
std::unique_ptr<Engine> make_analytic_engine(MachineProfile profile, Efficiency eff);

}  // namespace moebench
