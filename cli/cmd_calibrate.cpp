// cmd_calibrate.cpp — `moebench calibrate RESULTS.json`: fits the analytic
// engine's efficiency factors (I/O, compute, overlap) to measured rows of a
// machine, validates them on held-out rows, prints both tables, and stores
// the factors with their fit error in the machine's profile. The rows, the
// table and the stored profile come from harness/calibrate_rows.h.
//
// Validation (--holdout alternate, the default): rows alternate between the
// fitted half and the held-out half in sweep order, so both halves span the
// sweep's axes; the held-out errors are the model's honest error on this
// machine.
#include <cmath>
#include <cstdio>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/calibrate_rows.h"
#include "model/spec_machine.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
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

Expected<int> calibrate_command(const CalibrateArgs& a, const CliState& state) {
  auto results = load_results_file(a.results);
  if (!results) return fail(results.error().message);
  const ConfigStore store = state.store();
  std::string machine_arg = a.machine;
  if (machine_arg.empty()) machine_arg = default_probe_path();
  auto machine = resolve_machine(store, machine_arg,
                                 a.machine.empty() ? " (no --machine given: run `moebench probe` first or pass the profile)" : "");
  if (!machine) return fail("--machine: " + machine.error().message);
  const MachineProfile* profile = &machine->profile;

  auto set = collect_calibration_rows(*results, *profile, store, a.holdout != "none");
  if (!set) return fail(set.error().message);
  if (set->rows.size() < 2) {
    return fail(a.results + ": " + std::to_string(set->rows.size()) +
                " usable measured rows; calibration needs at least 2");
  }
  const CalibrationFit fit = fit_efficiency(set->rows);
  fmt::print("{}", write_calibration_table(a.results, profile->name, machine->source, *set, fit));

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
  const bool catalog = machine->source.rfind("embedded:", 0) == 0 || machine->source.find("configs/hardware/") != std::string::npos;
  if (a.out.empty() && (catalog || machine->from_spec)) {
    fmt::print("\nnot stored: {} is a {}; pass --out FILE to write a calibrated copy\n", machine->source,
               machine->from_spec ? "machine spec, not a profile" : "catalog profile");
    return 0;
  }
  const std::string out = !a.out.empty() ? a.out : machine->source;
  const MachineProfile calibrated = calibrated_profile(*profile, fit, a.results, results->sweep.name);
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
  cmd->callback([args, &state] { finish(state, "calibrate", calibrate_command(*args, state)); });
}

}  // namespace moebench
