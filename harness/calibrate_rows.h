// calibrate_rows.h — `moebench calibrate` as a library: the measured rows of
// a results file, each predicted on a machine profile with neutral
// efficiencies (the inputs of model/calibration.h's fit), the
// fit/validation table as text, and the calibrated profile to store.
// Rows that cannot calibrate (not ok, not measured, an engine the cost model
// does not model, no decode rate, predicted infeasible) are skipped with the
// reason, never dropped silently.
#pragma once

#include <string>
#include <vector>

#include "model/calibration.h"
#include "vocab/config_store.h"
#include "vocab/machine_profile.h"
#include "vocab/run_results.h"

namespace moebench {

struct CalibrationSet {
  std::vector<CalibrationRow> rows;  // in sweep order; .fit marks the fitted half
  std::vector<std::string> skipped;  // "point: why"
};

// holdout_alternate: rows alternate between fitted and held out in sweep
// order; otherwise every row is fitted.
Expected<CalibrationSet> collect_calibration_rows(const RunResults& results, const MachineProfile& profile,
                                                  const ConfigStore& store, bool holdout_alternate);

// The table and summary lines `moebench calibrate` prints (markdown).
std::string write_calibration_table(const std::string& results_path, const std::string& profile_name,
                                    const std::string& profile_source, const CalibrationSet& set,
                                    const CalibrationFit& fit);

// The profile with the fit stored in its calibration block.
MachineProfile calibrated_profile(const MachineProfile& profile, const CalibrationFit& fit,
                                  const std::string& results_path, const std::string& sweep_name);

}  // namespace moebench
