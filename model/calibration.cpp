// calibration.cpp — see calibration.h.
#include "model/calibration.h"

#include "model/setup_model.h"

#include <algorithm>
#include <cmath>

#include "vocab/stats.h"

namespace moebench {

double predicted_tok_s(const CalibrationRow& r, const Efficiency& e) {
  const double pre = r.pre_s / e.compute, post = r.post_s / e.compute, io = r.io_s / e.io;
  const double t = decode_token_time_s(pre, post, io, r.hidden, e.overlap);
  return t > 0 ? 1 / t : 0;
}

namespace {
double median_err(const std::vector<CalibrationRow>& rows, bool fit, const Efficiency& e, bool bytes) {
  std::vector<double> errs;
  for (const CalibrationRow& r : rows) {
    if (r.fit != fit) continue;
    if (bytes) {
      if (!r.streaming || r.measured_read_bytes_per_token <= 0) continue;
      errs.push_back(std::fabs(r.predicted_read_bytes_per_token / r.measured_read_bytes_per_token - 1));
    } else {
      errs.push_back(std::fabs(predicted_tok_s(r, e) / r.measured_tok_s - 1));
    }
  }
  return errs.empty() ? -1 : median(errs);
}
}  // namespace

CalibrationFit fit_efficiency(const std::vector<CalibrationRow>& rows) {
  CalibrationFit out;
  bool any_io = false;
  for (const CalibrationRow& r : rows) {
    if (!r.fit) {
      ++out.holdout_rows;
      continue;
    }
    ++out.fit_rows;
    any_io = any_io || r.io_s > 0;
  }
  auto cost = [&](const Efficiency& e) {
    std::vector<double> errs;
    for (const CalibrationRow& r : rows) {
      if (r.fit) errs.push_back(std::fabs(std::log(predicted_tok_s(r, e) / r.measured_tok_s)));
    }
    return errs.empty() ? 0.0 : median(errs) + 0.25 * mean(errs);  // the mean breaks ties between medians
  };
  // Coarse grid, then a finer one around the best point.
  Efficiency best;
  double best_cost = cost(best);
  auto search = [&](double c_lo, double c_hi, double i_lo, double i_hi, int steps) {
    for (int a = 0; a <= steps; ++a) {
      for (int b = 0; b <= (any_io ? steps : 0); ++b) {
        for (int o = 0; o <= (any_io ? 10 : 0); ++o) {
          Efficiency e;
          e.compute = std::exp(std::log(c_lo) + (std::log(c_hi) - std::log(c_lo)) * a / steps);
          e.io = any_io ? std::exp(std::log(i_lo) + (std::log(i_hi) - std::log(i_lo)) * b / steps) : 1.0;
          e.overlap = any_io ? o / 10.0 : 1.0;
          const double c = cost(e);
          if (c < best_cost) {
            best_cost = c;
            best = e;
          }
        }
      }
    }
  };
  search(0.1, 4.0, 0.1, 4.0, 40);
  search(best.compute / 1.15, best.compute * 1.15, best.io / 1.15, best.io * 1.15, 20);
  out.eff = best;
  out.fit_median_err = median_err(rows, true, best, false);
  out.holdout_median_err = median_err(rows, false, best, false);
  out.fit_bytes_median_err = median_err(rows, true, best, true);
  out.holdout_bytes_median_err = median_err(rows, false, best, true);
  return out;
}

}  // namespace moebench
