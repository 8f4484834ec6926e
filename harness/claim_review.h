// claim_review.h — `moebench claims` as a library: every published claim in
// the config store's claims judged against its machine
// (engines/analytic/claim_check.h), and the writers for the table and the
// JSON list (one claim's derivation: harness/explain_writer.h).
#pragma once

#include <string>
#include <vector>

#include "engines/analytic/claim_check.h"
#include "vocab/claim.h"
#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

struct JudgedClaim {
  Claim claim;
  ClaimJudgement j;
};

// Every claim of every claims file, in store order, with its card (scaled
// as the claim says) and hardware profile resolved.
Expected<std::vector<JudgedClaim>> judge_stored_claims(const ConfigStore& store);

// The markdown table and its summary line; `verdict` (when not empty) keeps
// only claims with that verdict.
std::string write_claims_table(const std::vector<JudgedClaim>& all, const std::string& verdict);
// The JSON list, with the same filter.
Json claims_json(const std::vector<JudgedClaim>& all, const std::string& verdict);

}  // namespace moebench
