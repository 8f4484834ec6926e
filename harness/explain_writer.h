// explain_writer.h — the `--explain` texts as pure writers: a typed
// derivation in, the text out (nothing printed, nothing computed here).
//   predict --explain N: one point's Prediction (model/cost_model.h);
//   claims --explain ID: one claim's judgement (model/claim_check.h).
// In harness/ because the derivation types live in engines/.
#pragma once

#include <string>

#include "model/claim_check.h"
#include "model/cost_model.h"
#include "vocab/claim.h"

namespace moebench {

// `moebench predict --explain N`: the header line (point N, its label, the
// machine), one line per step, the outcome and the notes.
std::string write_prediction_explain(int point_number, const std::string& point_label,
                                     const std::string& profile_label, const Prediction& prediction);

// `moebench claims --explain ID`: the claim as its source states it, the
// numbered derivation, the prediction and the verdict.
std::string write_claim_explain(const Claim& claim, const ClaimJudgement& judgement);

// Pieces `moebench claims` also prints in its table.
std::string claim_predicted_text(const ClaimJudgement& j);             // "1.234–5.678 tok/s" or "–"
std::string claim_rate_or_dash(const std::optional<double>& bytes_s);  // "12.34 GB/s" or "–"

}  // namespace moebench
