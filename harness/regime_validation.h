// regime_validation.h — `moebench validate-model --regimes`: the regime
// model (model/regimes.h) judged on figures nobody fitted it to.
//
//   leave one source out   for each source (a repository, a thread, a
//                          page, a reference text), fit the parameters on
//                          every other source's figures and predict this
//                          one's: figures of one thread never inform their
//                          own answer;
//   leave one family out   the same with engine families (llama.cpp,
//                          ik_llama.cpp, MLX, …): how the model does on an
//                          engine it has never seen;
//   summaries              overall, per regime and per engine family: how
//                          many figures got a number, the median |error|,
//                          the share inside their band and the median band
//                          ratio (high ÷ low);
//   bands                  a left-out group's figures are widened by the
//                          spreads of the other groups' held-out distances
//                          (regime_fit.h: set_spreads), never their own;
//   full fit               the parameters fitted on every figure, each
//                          beside its physical range, with every figure's
//                          held-out spread: what `--write-fit` stores for
//                          `claims`, `plan` and `reproduce` (docs/model.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model_validation.h"
#include "model/regime_fit.h"

namespace moebench {

struct RegimeRow {
  std::string id, source, family, regime, why_not;
  std::string kind = "decode";  // "decode" | "prefill": which figure of the source's row
  bool judged = false, in_band = false;
  double measured_tok_s = 0, predicted_tok_s = 0, low_tok_s = 0, high_tok_s = 0, error = 0;
  // The median realistic case's parts and priced terms under the fit that
  // left the row's group out (absent when none has a time).
  struct MedianCase {
    CaseParts parts;
    RegimeTerms terms;
  };
  std::optional<MedianCase> median_case;
  double band_ratio() const { return low_tok_s > 0 ? high_tok_s / low_tok_s : 0; }
};

struct GroupSummary {
  std::string name;
  int figures = 0, judged = 0, in_band = 0;
  double median_abs_error = 0, median_band_ratio = 0;
};

struct RegimeValidation {
  std::string left_out;  // "source" | "family"
  std::vector<RegimeRow> rows;
  GroupSummary overall;
  std::vector<GroupSummary> per_kind, per_regime, per_family;  // per_kind: decode, prefill
  RegimeFit full;        // fitted on every judged figure
  int folds = 0;
  // Each fitted value's lowest and highest over the folds (keyed by
  // fold_key): how far leaving one group out moves it, which the data's own
  // spread cannot show. A value that swings far is not pinned down by them.
  struct FoldRange {
    double low = 0, high = 0;
    int folds = 0;  // folds that fitted it (not the prior kept)
    int low_folds = 0, high_folds = 0;      // folds that fitted exactly each end (grid points tie)
    std::string low_without, high_without;  // the group the first such fold left out
  };
  std::map<std::string, FoldRange> fold_range;
  int folds_settled = 0;  // folds whose fit reached a round that moved no value
};

// A fitted value's key in RegimeValidation::fold_range: "name" for the
// pooled value, "name [group]" for a family's or kind's own.
std::string fold_key(const FittedParam& p);

// The key a figure is left out by: its repository, page or document.
std::string figure_source(const Claim& c);

// Every decode and prefill figure with a card and a machine, as the fit
// reads it (the parts of its plausible cases); the others with why they are
// not. A source row with both gives two figures ("<id> (prefill)").
struct RegimeInputs {
  std::vector<RegimeFigure> figures;
  std::vector<RegimeRow> unanswered;  // why_not set
};
RegimeInputs regime_inputs(const std::vector<PublishedFigure>& published);

RegimeValidation validate_regimes(const RegimeInputs& in, const std::string& left_out);

std::string write_regime_validation(const RegimeValidation& v, bool rows);

// One figure under the fit that left its source (or family) out: the
// parameters its family sees, then each realistic case's parts before any
// efficiency and its priced terms, in ms. "" when no answered figure has
// that id (with or without " (prefill)").
std::string write_regime_explain(const RegimeInputs& in, const std::string& id, const std::string& left_out);
Json regime_validation_json(const RegimeValidation& v);

}  // namespace moebench
