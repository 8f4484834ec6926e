// regime_store.h — the regime fit (model/regime_fit.h) as a config file,
// configs/fits/regimes.json: the one set of parameters `claims`, `plan`,
// `reproduce` and `predict --machine SPEC` answer with.
//
//   {"fitted_by": "<the command that wrote it>", "figures": N,
//    "parameters": [{"name": "mem_eff_cpu", "value": 0.58,
//                    "family": {"llama.cpp": 0.38, ...}}, ...],
//    "spread": {"memory-cpu": 0.52, ...}, "pooled_spread": 0.6}
//
// The ranges are the model's (RegimeParams::defaults), not the file's: a
// value outside its parameter's range, an unknown parameter or regime, or a
// spread that is not a finite non-negative number is refused with its JSON
// path. A parameter the file leaves out keeps its prior.
#pragma once

#include <optional>
#include <string>

#include "model/regime_fit.h"
#include "vocab/json_reader.h"

namespace moebench {

std::optional<RegimeFit> load_regime_fit(const Json& j, Diagnostics& d);
Json regime_fit_json(const RegimeFit& fit, const std::string& fitted_by);
// `moebench validate` of a regime fit: a summary line, or every problem.
Expected<std::string> check_regime_fit(const Json& j, const std::string& label);

}  // namespace moebench
