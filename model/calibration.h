// calibration.h — fitting the cost model's efficiency factors (I/O,
// compute, overlap) to measured rows, and the validation that goes with it.
//
// Each measured row is predicted once at efficiency 1; what depends on the
// factors (the per-token times) is kept as components, so the fit is a grid
// search over the three factors that costs nothing per evaluation. The fit
// minimises the median |log(predicted / measured)| of decode tok/s over the
// rows it is given; validation predicts the other rows with the fitted
// factors. Errors are reported as |predicted / measured − 1|.
#pragma once

#include <string>
#include <vector>

#include "model/cost_model.h"

namespace moebench {

struct CalibrationRow {
  std::string label;
  bool streaming = false;
  bool fit = true;                 // used for fitting (else held out)
  double measured_tok_s = 0;
  double measured_read_bytes_per_token = 0;
  double predicted_read_bytes_per_token = 0;
  double measured_hit_rate = -1, predicted_hit_rate = -1;
  // Components at efficiency 1 (seconds per decode token).
  double pre_s = 0, post_s = 0, io_s = 0, hidden = 0;
};

double predicted_tok_s(const CalibrationRow& r, const Efficiency& e);

struct CalibrationFit {
  Efficiency eff;
  double fit_median_err = 0;       // median |pred/meas − 1| of decode tok/s, fitted rows
  double holdout_median_err = -1;  // same on held-out rows (−1: none)
  double holdout_bytes_median_err = -1;
  double fit_bytes_median_err = -1;
  int fit_rows = 0, holdout_rows = 0;
};

// Rows with fit == true are fitted; the rest are validated.
CalibrationFit fit_efficiency(const std::vector<CalibrationRow>& rows);

}  // namespace moebench
