// calibrate_rows.cpp — the rows, table and stored profile of `moebench
// calibrate` (see calibrate_rows.h).
#include "harness/calibrate_rows.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/cost_model.h"
#include "engines/registry.h"
#include "vocab/metrics.h"
#include "vocab/stats.h"
#include "vocab/units.h"

namespace moebench {
namespace {

std::string pct(double v) { return v < 0 ? "–" : format_fixed(100 * v, 1) + " %"; }

}  // namespace

Expected<CalibrationSet> collect_calibration_rows(const RunResults& results, const MachineProfile& profile,
                                                  const ConfigStore& store, bool holdout_alternate) {
  CalibrationSet set;
  int n = 0;
  for (const ResultRow& row : results.rows) {
    const std::string label = row.point.label();
    if (row.status != RowStatus::kOk) {
      set.skipped.push_back(label + ": status " + std::string(to_string(row.status)));
      continue;
    }
    if (row.provenance != "measured") {
      set.skipped.push_back(label + ": provenance " + row.provenance + " (only measured rows calibrate)");
      continue;
    }
    // The cost model predicts the real engines (caps: measures, not predicts).
    const EngineInfo* engine = find_engine(row.point.engine.name);
    if (engine == nullptr || !engine->caps.measures || engine->caps.predicts) {
      set.skipped.push_back(label + ": engine " + row.point.engine.name + " is not modelled");
      continue;
    }
    const auto tok_s = row.median(metric::kDecodeTokS);
    if (!tok_s || *tok_s <= 0) {
      set.skipped.push_back(label + ": no decode_tok_s");
      continue;
    }
    auto card = store.card(row.point.model);
    if (!card) return card.error();
    auto scaled = point_card(*card, row.point);
    if (!scaled) return scaled.error();
    CalibrationRow c;
    c.label = label;
    c.streaming = engine->caps.reads_drives_decoding;
    c.measured_tok_s = *tok_s;
    c.measured_read_bytes_per_token = row.median(metric::kReadBytesPerToken).value_or(0);
    c.measured_hit_rate = row.median(metric::kExpertHitRate).value_or(-1);
    std::vector<double> pre, post, io, hidden, bytes, hit;
    for (int rep = 0; rep < std::max(1, row.repetitions); ++rep) {
      PredictContext pc;
      pc.seed = results.sweep.seed;
      pc.repetition = rep;
      auto p = predict_point(profile, *scaled, row.point, Efficiency{}, pc);
      if (!p) return make_error(label + ": " + p.error().message);
      if (p->m.status != RowStatus::kOk) {
        set.skipped.push_back(label + ": the model predicts " + std::string(to_string(p->m.status)) + " (" +
                              p->m.reason + ")");
        pre.clear();
        break;
      }
      pre.push_back(p->t_pre_s);
      post.push_back(p->t_post_s);
      io.push_back(p->t_io_s);
      hidden.push_back(p->hidden_share);
      const double tokens = static_cast<double>(std::max<std::int64_t>(1, row.point.gen_tokens - 1));
      bytes.push_back(static_cast<double>(p->m.read_bytes_decode) / tokens);
      hit.push_back(p->hit_rate_decode);
    }
    if (pre.empty()) continue;
    c.pre_s = median(pre);
    c.post_s = median(post);
    c.io_s = median(io);
    c.hidden = median(hidden);
    c.predicted_read_bytes_per_token = median(bytes);
    c.predicted_hit_rate = c.streaming ? median(hit) : -1;
    c.fit = !holdout_alternate || n % 2 == 0;
    ++n;
    set.rows.push_back(c);
  }
  return set;
}

std::string write_calibration_table(const std::string& results_path, const std::string& profile_name,
                                    const std::string& profile_source, const CalibrationSet& set,
                                    const CalibrationFit& fit) {
  std::string out = fmt::format("moebench calibrate: {} on {} ({}); {} rows fitted, {} held out\n\n", results_path,
                                profile_name, profile_source, fit.fit_rows, fit.holdout_rows);
  out += "| point | set | decode tok/s measured | predicted | error | read/token measured | predicted | error | "
         "hit rate measured | predicted |\n"
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const CalibrationRow& r : set.rows) {
    const double p = predicted_tok_s(r, fit.eff);
    const bool b = r.streaming && r.measured_read_bytes_per_token > 0;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.label, r.fit ? "fit" : "held out",
                       format_fixed(r.measured_tok_s, 3), format_fixed(p, 3),
                       pct(std::fabs(p / r.measured_tok_s - 1)),
                       r.streaming ? format_bytes(r.measured_read_bytes_per_token) : "–",
                       r.streaming ? format_bytes(r.predicted_read_bytes_per_token) : "–",
                       b ? pct(std::fabs(r.predicted_read_bytes_per_token / r.measured_read_bytes_per_token - 1))
                         : "–",
                       r.measured_hit_rate >= 0 && r.streaming ? format_fixed(r.measured_hit_rate, 3) : "–",
                       r.predicted_hit_rate >= 0 ? format_fixed(r.predicted_hit_rate, 3) : "–");
  }
  out += fmt::format("\nfitted: io efficiency {}, compute efficiency {}, overlap {}\n", format_fixed(fit.eff.io, 3),
                     format_fixed(fit.eff.compute, 3), format_fixed(fit.eff.overlap, 2));
  out += fmt::format("median |error| decode tok/s: fitted {}, held out {} (target <= 15 %)\n",
                     pct(fit.fit_median_err), pct(fit.holdout_median_err));
  out += fmt::format("median |error| read bytes/token: fitted {}, held out {} (target <= 5 %)\n",
                     pct(fit.fit_bytes_median_err), pct(fit.holdout_bytes_median_err));
  for (const std::string& s : set.skipped) out += fmt::format("skipped: {}\n", s);
  return out;
}

MachineProfile calibrated_profile(const MachineProfile& profile, const CalibrationFit& fit,
                                  const std::string& results_path, const std::string& sweep_name) {
  MachineProfile calibrated = profile;
  CalibrationInfo info;
  info.io_efficiency = fit.eff.io;
  info.compute_efficiency = fit.eff.compute;
  info.overlap = fit.eff.overlap;
  info.fit_error = fit.fit_median_err;
  if (fit.holdout_median_err >= 0) info.holdout_error = fit.holdout_median_err;
  info.rows = fit.fit_rows;
  info.source = results_path + " (" + sweep_name + ", " + std::to_string(fit.fit_rows) + " rows fitted, " +
                std::to_string(fit.holdout_rows) + " held out)";
  calibrated.calibration = info;
  return calibrated;
}

}  // namespace moebench
