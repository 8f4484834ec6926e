// cmd_calibrate.cpp — `moebench calibrate RESULTS.json`: fits the analytic
// engine's efficiency factors (I/O, compute, overlap) to measured rows of a
// machine, validates them on held-out rows, prints both tables, and stores
// the factors with their fit error in the machine's profile.
//
// Validation (--holdout alternate, the default): rows alternate between the
// fitted half and the held-out half in sweep order, so both halves span the
// sweep's axes; the held-out errors are the model's honest error on this
// machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>

#include <fmt/format.h>

#include "engines/analytic/calibration.h"
#include "engines/analytic/cost_model.h"
#include "engines/registry.h"
#include "cli/commands.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
#include "vocab/metrics.h"
#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/results_reader.h"

namespace moebench {
namespace {

struct CalibrateArgs {
  std::string results;
  std::string machine;
  std::string holdout = "alternate";
  std::string out;
  bool dry_run = false;
};

std::string pct(double v) { return v < 0 ? "–" : format_fixed(100 * v, 1) + " %"; }

int calibrate_command(const CalibrateArgs& a, const CliState& state) {
  auto fail = [](const std::string& m) {
    fmt::print(stderr, "moebench calibrate: {}\n", m);
    return 1;
  };
  auto results = load_results_file(a.results);
  if (!results) return fail(results.error().message);
  const ConfigStore store = state.store();
  std::string machine_arg = a.machine;
  if (machine_arg.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    machine_arg = "results/probe-" + std::string(host) + ".json";
  }
  auto msrc = store.find("hardware", machine_arg);
  if (!msrc) {
    return fail("--machine: " + msrc.error().message +
                (a.machine.empty() ? " (no --machine given: run `moebench probe` first or pass the profile)" : ""));
  }
  auto profile = load_config_text<MachineProfile>(msrc->text, msrc->label, load_machine_profile);
  if (!profile) return fail(profile.error().message);

  std::vector<CalibrationRow> rows;
  std::vector<std::string> skipped;
  int n = 0;
  for (const ResultRow& row : results->rows) {
    const std::string label = row.point.label();
    if (row.status != RowStatus::kOk) {
      skipped.push_back(label + ": status " + std::string(to_string(row.status)));
      continue;
    }
    if (row.provenance != "measured") {
      skipped.push_back(label + ": provenance " + row.provenance + " (only measured rows calibrate)");
      continue;
    }
    // The cost model predicts the real engines (caps: measures, not predicts).
    const EngineInfo* engine = find_engine(row.point.engine.name);
    if (engine == nullptr || !engine->caps.measures || engine->caps.predicts) {
      skipped.push_back(label + ": engine " + row.point.engine.name + " is not modelled");
      continue;
    }
    const auto tok_s = row.median(metric::kDecodeTokS);
    if (!tok_s || *tok_s <= 0) {
      skipped.push_back(label + ": no decode_tok_s");
      continue;
    }
    auto card = store.card(row.point.model);
    if (!card) return fail(card.error().message);
    auto scaled = apply_scale(*card, row.point.scale);
    if (!scaled) return fail(scaled.error().message);
    CalibrationRow c;
    c.label = label;
    c.streaming = engine->caps.reads_drives_decoding;
    c.measured_tok_s = *tok_s;
    c.measured_read_bytes_per_token = row.median(metric::kReadBytesPerToken).value_or(0);
    c.measured_hit_rate = row.median(metric::kExpertHitRate).value_or(-1);
    std::vector<double> pre, post, io, hidden, bytes, hit;
    for (int rep = 0; rep < std::max(1, row.repetitions); ++rep) {
      PredictContext pc;
      pc.seed = results->sweep.seed;
      pc.repetition = rep;
      auto p = predict_point(*profile, *scaled, row.point, Efficiency{}, pc);
      if (!p) return fail(label + ": " + p.error().message);
      if (p->m.status != RowStatus::kOk) {
        skipped.push_back(label + ": the model predicts " + std::string(to_string(p->m.status)) + " (" + p->m.reason + ")");
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
    c.fit = a.holdout == "none" || n % 2 == 0;
    ++n;
    rows.push_back(c);
  }
  if (rows.size() < 2) return fail(a.results + ": " + std::to_string(rows.size()) + " usable measured rows; calibration needs at least 2");
  const CalibrationFit fit = fit_efficiency(rows);

  fmt::print("moebench calibrate: {} on {} ({}); {} rows fitted, {} held out\n\n", a.results, profile->name, msrc->label,
             fit.fit_rows, fit.holdout_rows);
  fmt::print("| point | set | decode tok/s measured | predicted | error | read/token measured | predicted | error | hit rate measured | predicted |\n"
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const CalibrationRow& r : rows) {
    const double p = predicted_tok_s(r, fit.eff);
    const bool b = r.streaming && r.measured_read_bytes_per_token > 0;
    fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.label, r.fit ? "fit" : "held out",
               format_fixed(r.measured_tok_s, 3), format_fixed(p, 3), pct(std::fabs(p / r.measured_tok_s - 1)),
               r.streaming ? format_bytes(r.measured_read_bytes_per_token) : "–",
               r.streaming ? format_bytes(r.predicted_read_bytes_per_token) : "–",
               b ? pct(std::fabs(r.predicted_read_bytes_per_token / r.measured_read_bytes_per_token - 1)) : "–",
               r.measured_hit_rate >= 0 && r.streaming ? format_fixed(r.measured_hit_rate, 3) : "–",
               r.predicted_hit_rate >= 0 ? format_fixed(r.predicted_hit_rate, 3) : "–");
  }
  fmt::print("\nfitted: io efficiency {}, compute efficiency {}, overlap {}\n", format_fixed(fit.eff.io, 3),
             format_fixed(fit.eff.compute, 3), format_fixed(fit.eff.overlap, 2));
  fmt::print("median |error| decode tok/s: fitted {}, held out {} (target <= 15 %)\n", pct(fit.fit_median_err),
             pct(fit.holdout_median_err));
  fmt::print("median |error| read bytes/token: fitted {}, held out {} (target <= 5 %)\n", pct(fit.fit_bytes_median_err),
             pct(fit.holdout_bytes_median_err));
  for (const std::string& s : skipped) fmt::print("skipped: {}\n", s);

  if (a.dry_run) return 0;
  // The profile loader accepts errors up to 100 (10,000 %); a fit beyond that
  // (rows that are not this machine's, or implausible figures) is not stored.
  for (const double err : {fit.fit_median_err, fit.holdout_median_err}) {
    if (!std::isfinite(err) || err > 100) {
      return fail(a.results + ": the fit's median error is " + (std::isfinite(err) ? pct(err) : std::string("not finite")) +
                  ": these rows do not fit the cost model on " + profile->name +
                  " (another machine's results, or figures edited by hand); nothing stored");
    }
  }
  const bool catalog = msrc->label.rfind("embedded:", 0) == 0 || msrc->label.find("configs/hardware/") != std::string::npos;
  if (a.out.empty() && catalog) {
    fmt::print("\nnot stored: {} is a catalog profile; pass --out FILE to write a calibrated copy\n", msrc->label);
    return 0;
  }
  const std::string out = !a.out.empty() ? a.out : msrc->label;
  MachineProfile calibrated = *profile;
  CalibrationInfo info;
  info.io_efficiency = fit.eff.io;
  info.compute_efficiency = fit.eff.compute;
  info.overlap = fit.eff.overlap;
  info.fit_error = fit.fit_median_err;
  if (fit.holdout_median_err >= 0) info.holdout_error = fit.holdout_median_err;
  info.rows = fit.fit_rows;
  info.source = a.results + " (" + results->sweep.name + ", " + std::to_string(fit.fit_rows) + " rows fitted, " +
                std::to_string(fit.holdout_rows) + " held out)";
  calibrated.calibration = info;
  if (Status st = write_file_atomic(out, dump_untrusted(machine_profile_to_json(calibrated), 2) + "\n"); !st) return fail(st.error().message);
  fmt::print("\nstored in {}\n", out);
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand("calibrate", "Fit the cost model's efficiency factors to measured rows; validate on held-out rows.");
  cmd->footer("Predicts every measured row of RESULTS.json on the machine's profile, fits the I/O, compute and overlap "
      "factors on half the rows (alternating in sweep order) and reports the error on the other half, then stores "
      "the factors and the fit error in the profile (moebench predict uses them).\n\n"
      "Example:\n"
      "  moebench run quick --out results/quick && moebench probe\n"
      "  moebench calibrate results/quick/results.json\n"
      "  moebench calibrate r/results.json --machine m.json --holdout none --out m-calibrated.json");
  cmd->add_option("results", args->results, "results.json of a measured run")->required();
  cmd->add_option("--machine", args->machine, "the machine's profile (default: results/probe-<host>.json)");
  cmd->add_option("--holdout", args->holdout, "alternate (fit half, validate half; default) or none (fit all)")
      ->check(CLI::IsMember({"alternate", "none"}));
  cmd->add_option("--out", args->out, "write the calibrated profile here (default: the profile file itself)");
  cmd->add_flag("--dry-run", args->dry_run, "print the fit and the validation, store nothing");
  cmd->callback([args, &state] { state.exit_code = calibrate_command(*args, state); });
}

}  // namespace moebench
