// analytic_engine.h — the model as an engine: for each point it predicts the
// Measurement the real engine named by the point (resident or streaming)
// would give on the profiled machine, without loading or reading anything.
// Rows carry provenance "predicted". A thin adapter: every figure comes from
// predict_point (cost_model.h); this file only makes it an Engine and gives
// it the predicting row of the engine table (engines/registry.h keeps the
// measuring rows; this row lives here because the layer below cannot reach
// the model).
#pragma once

#include <memory>

#include "engines/engine.h"
#include "engines/engine_options.h"
#include "engines/registry.h"
#include "model/cost_model.h"

namespace moebench {

// No options: the machine and its calibration say everything.
const OptionTable& analytic_engine_options();
std::unique_ptr<Engine> make_analytic_engine(MachineProfile profile, Efficiency eff);

// The predicting row (caps.predicts), made with a machine through
// EngineContext; never in engine_table(), so no sweep can name it.
const EngineInfo* prediction_engine();

}  // namespace moebench
