// model_validation.h — `moebench validate-model` as a library: the setup
// model (model/setup_model.h) against figures that real engines
// measured and published (tests/data/published/*.json, the claims schema).
//
//   halves    a figure is held out when the FNV-1a hash of its id is odd:
//             stable, and chosen by nobody; only the fit half is ever
//             fitted;
//   fit       per engine family, the memory, I/O and compute efficiencies
//             and the overlap, by grid search (memory and I/O on log grids,
//             compute and overlap on coarse ones) minimising the sum of
//             |log(realistic ÷ measured)| over the family's fit-half figures
//             (L1: the median error is what is judged) plus a pull towards
//             the pooled fit ("any", fitted on every fit-half figure) of
//             kPullWeight × the squared log ratio per factor — one figure
//             cannot pull a family anywhere alone;
//   band      the 80th percentile of the fit half's leave-one-out |log
//             residuals| (each figure predicted by a family fit without it)
//             sets band_low/band_high for every family;
//   validate  each figure judged as `claims` judges it, with the table;
//             error = realistic ÷ measured − 1 (measured: the middle of a
//             stated range), in band = measured inside the slow..fast band.
#pragma once

#include <string>
#include <vector>

#include "model/claim_check.h"
#include "model/setup_model.h"
#include "vocab/claim.h"
#include "vocab/config_store.h"
#include "vocab/expected.h"

namespace moebench {

struct PublishedFigure {
  Claim claim;
  std::string file;
  std::optional<ModelCard> card;
  std::optional<MachineProfile> machine;
  std::string machine_error;  // its machine_spec could not be built: why
  std::optional<MachineProfile> spec_machine;  // its machine_spec, built (the regime model's input)
};

// Every claims-schema file of `dir` (sorted by name; hit_rates.json, the
// routing fit's data, is not one), with cards and
// profiles resolved through `store`.
Expected<std::vector<PublishedFigure>> load_published(const ConfigStore& store, const std::string& dir);

bool is_held_out(const std::string& id);

// Fits the table on the fit half (see the header). `where` names the data
// in the table's source strings. Refuses (an error naming `where`) when fewer
// than kMinFitFigures fit-half figures get a number: a fit on fewer is a grid
// corner, not a measurement.
inline constexpr int kMinFitFigures = 8;
inline constexpr double kPullWeight = 0.1;
Expected<EfficiencyTable> fit_efficiency_table(const std::vector<PublishedFigure>& figures, const std::string& where);

struct ValidationRow {
  std::string id, file, family, machine, figure_kind;
  bool held_out = false;
  bool judged = false;      // a decode figure with a card and a machine
  std::string why_not;      // when not judged
  double measured_tok_s = 0, predicted_tok_s = 0, slow_tok_s = 0, fast_tok_s = 0;
  double error = 0;         // predicted ÷ measured − 1
  bool in_band = false;
  std::string verdict, reason;
};

struct HalfSummary {
  int figures = 0, judged = 0, in_band = 0, infeasible = 0;
  double median_abs_error = 0;
  double p75_abs_error = 0;   // the 75th percentile: how fat the tail past the median is
  int within_25 = 0;          // figures with |error| ≤ 25 %
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  HalfSummary fit, held_out;
};

ValidationReport validate_model(const std::vector<PublishedFigure>& figures, const EfficiencyTable& table);

// Markdown: the summary per half, then one row per figure.
std::string write_validation_table(const ValidationReport& r, const EfficiencyTable& table);
Json validation_json(const ValidationReport& r);

}  // namespace moebench
