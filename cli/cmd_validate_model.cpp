// cmd_validate_model.cpp — `moebench validate-model`: the setup model
// against figures that real engines measured and published
// (harness/model_validation.h): predicted against measured for every
// figure, the median |error| and the share inside the band for the fit half
// and the held-out half. `--fit` refits the engine efficiencies on the fit
// half; `--write-fit FILE` stores them (configs/engines/efficiency.json is
// what this command's hash-split view uses); with `--regimes`, the regime
// fit on every answered figure (configs/fits/regimes.json: what `claims`,
// `plan` and `reproduce` answer with).
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/claim_review.h"
#include "harness/explain_writer.h"
#include "harness/regime_validation.h"
#include "harness/model_validation.h"
#include "model/regime_store.h"
#include "vocab/file_io.h"

namespace moebench {
namespace {

struct ValidateModelArgs {
  std::string published = "tests/data/published";
  bool fit = false;
  std::string write_fit;
  bool json = false;
  std::string explain;
  std::string regimes;  // "source" | "family": the regime model, leaving that out
  bool rows = false;
};

Expected<int> validate_model_command(const ValidateModelArgs& a, const CliState& state) {
  const ConfigStore store = state.store();
  auto figures = load_published(store, a.published);
  if (!figures) return fail(figures.error().message);
  if (!a.explain.empty() && std::none_of(figures->begin(), figures->end(), [&](const PublishedFigure& f) { return f.claim.id == a.explain; })) {
    return fail("no published figure \"" + a.explain + "\" (moebench validate-model lists every id)");
  }
  if (!a.regimes.empty() && !a.explain.empty()) {
    const std::string text = write_regime_explain(regime_inputs(*figures), a.explain, a.regimes);
    if (text.empty()) return fail("figure \"" + a.explain + "\" has no number from the regime model (--rows says why)");
    fmt::print("{}", text);
    return 0;
  }
  if (!a.regimes.empty()) {
    const RegimeValidation v = validate_regimes(regime_inputs(*figures), a.regimes);
    if (!a.write_fit.empty()) {
      const std::string by = "moebench validate-model --regimes " + a.regimes + " --write-fit " + a.write_fit +
                             " (every answered figure of " + a.published + ")";
      auto st = write_file_atomic(a.write_fit, regime_fit_json(v.full, by).dump(2) + "\n");
      if (!st) return fail(st.error().message);
    }
    fmt::print("{}", a.json ? regime_validation_json(v).dump(2) + "\n" : write_regime_validation(v, a.rows));
    return 0;
  }
  EfficiencyTable table;
  if (a.fit || !a.write_fit.empty()) {
    auto fitted = fit_efficiency_table(*figures, a.published);
    if (!fitted) return fail(fitted.error().message);
    table = *fitted;
    if (!a.write_fit.empty()) {
      auto st = write_file_atomic(a.write_fit, efficiency_table_json(table).dump(2) + "\n");
      if (!st) return fail(st.error().message);
    }
  } else {
    auto stored = stored_efficiency(store);
    if (!stored) return fail(stored.error().message);
    table = *stored;
  }
  if (!a.explain.empty()) {
    for (const PublishedFigure& f : *figures) {
      if (f.claim.id != a.explain) continue;
      const ClaimJudgement j = judge_claim(f.claim, f.card ? &*f.card : nullptr, f.machine ? &*f.machine : nullptr, &table);
      fmt::print("{}", write_claim_explain(f.claim, j));
      return 0;
    }
    return fail("no published figure \"" + a.explain + "\" (moebench validate-model lists every id)");
  }
  const ValidationReport rep = validate_model(*figures, table);
  if (a.json) {
    fmt::print("{}\n", validation_json(rep).dump(2));
  } else {
    fmt::print("{}", write_validation_table(rep, table));
  }
  return 0;
}

}  // namespace

void add_validate_model_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ValidateModelArgs>();
  CLI::App* cmd = app.add_subcommand("validate-model", "Predicted against measured for every published figure, both halves.");
  cmd->footer("Each figure of the published set (the claims schema: conditions, source, steady decode or run average) is "
      "judged as `moebench claims` judges a claim. A figure is held out when the hash of its id is odd; only the "
      "fit half is ever fitted. Prints the median |predicted/measured − 1| and the share of measurements inside "
      "the predicted band for each half, then every figure.\n\n"
      "Example:\n"
      "  moebench validate-model\n"
      "  moebench validate-model --fit --write-fit configs/engines/efficiency.json\n"
      "  moebench validate-model --regimes source      # leave one source out; per regime and family\n"
      "  moebench validate-model --regimes family      # leave one engine family out\n"
      "  moebench validate-model --regimes source --explain ID  # one figure's parts and priced terms under its fold\n"
      "  moebench validate-model --regimes source --write-fit configs/fits/regimes.json  # store the fit on every figure");
  cmd->add_option("--published", args->published, "directory of published figures (default tests/data/published)");
  cmd->add_flag("--fit", args->fit, "refit the engine efficiencies on the fit half instead of using the stored ones");
  cmd->add_option("--write-fit", args->write_fit,
                  "write the fitted efficiencies to this file (implies --fit); with --regimes, the regime fit on every "
                  "answered figure (configs/fits/regimes.json is what claims, plan and reproduce answer with)");
  cmd->add_flag("--json", args->json, "JSON instead of the markdown table");
  cmd->add_option("--explain", args->explain,
                  "print one figure's derivation, step by step, with units; with --regimes, its parts before any "
                  "efficiency and each priced term under the fit that left its source (or family) out");
  cmd->add_option("--regimes", args->regimes,
                  "the regime model instead, validated by leaving one whole source (or engine family) out at a time")
      ->check(CLI::IsMember({"source", "family"}));
  cmd->add_flag("--rows", args->rows, "with --regimes: every figure's row and why the others have no number");
  cmd->callback([args, &state] { finish(state, "validate-model", validate_model_command(*args, state)); });
}

}  // namespace moebench
