// engine_efficiency.h — how well an engine family uses a machine: the
// shares of a profile's memory and drive bandwidth (and compute peak) its
// decode reaches, and the band around the realistic value. Fitted by
// `moebench validate-model --fit` on the fit half of tests/data/published
// (harness/model_validation.h) and stored in configs/engines/efficiency.json;
// read by the setup model (model/setup_model.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/json_reader.h"

namespace moebench {

// How well an engine family uses a machine: the shares of the profile's
// memory and drive bandwidth (and compute peak) its decode reaches, fitted on
// the fit half of tests/data/published (`moebench validate-model --fit`), and
// the band around the realistic value (the fit residuals' spread).
struct EngineEfficiency {
  std::string family = "any";  // engine family the factors were fitted on
  double memory = 0.5;         // achieved ÷ spec memory read bandwidth
  double io = 0.7;             // achieved ÷ the drives' read bandwidth
  double compute = 1.0;        // × the machine's own decode efficiency of its peak (when the profile has one)
  double overlap = 0.5;        // share of min(I/O, compute) hidden
  double band_low = 0.6;       // slow end = realistic × band_low
  double band_high = 1.6;      // fast end = realistic × band_high
  int figures = 0;             // fit-half figures behind the factors (0: defaults)
  std::string source = "defaults: no published figure of this engine was fitted";
};

// Fitted factors per family (configs/engine-efficiency.json, written by
// `moebench validate-model --fit`); the "any" entry when a family has none.
struct EfficiencyTable {
  std::vector<EngineEfficiency> families;
  const EngineEfficiency& for_family(const std::string& family) const;
};
std::optional<EfficiencyTable> load_efficiency_table(const Json& j, Diagnostics& d);
Json efficiency_table_json(const EfficiencyTable& t);

}  // namespace moebench
