// claim_review.h — `moebench claims` as a library: every published claim in
// the config store's claims judged against its machine
// (model/claim_check.h), and the writers for the table and the
// JSON list (one claim's derivation: harness/explain_writer.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/claim_check.h"
#include "model/spec_machine.h"
#include "vocab/claim.h"
#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

struct JudgedClaim {
  Claim claim;
  ClaimJudgement j;
};

// A claim's card (scaled as the claim says) and machine, when it names
// them: its `hardware` profile, else its `machine_spec` built through the
// spec tables (model/spec_machine.h; `specs` loaded once by the caller, or
// here on first need); `label` (the claims file) prefixes errors.
struct ClaimSetup {
  std::optional<ModelCard> card;
  std::optional<MachineProfile> machine;
  // A machine_spec that could not be built (a part the tables lack, a size
  // the chip does not come in): the claim is judged without a machine, and
  // this says why. A broken `hardware` profile is an error instead.
  std::string machine_error;
  // The machine_spec built, also when a `hardware` profile is named: the
  // regime model reads spec figures (a profile may hold measured ones, and
  // its efficiencies are shares of the spec), claims read the profile.
  std::optional<MachineProfile> spec_machine;
};
Expected<ClaimSetup> resolve_claim_setup(const ConfigStore& store, const Claim& c, const std::string& label,
                                         std::optional<SpecTables>* specs = nullptr);

// The fitted engine efficiencies: configs/engines/efficiency.json (written by
// `moebench validate-model --fit --write-fit`); the defaults when absent.
Expected<EfficiencyTable> stored_efficiency(const ConfigStore& store);
// The stored regime fit (configs/fits/regimes.json), none when absent: what
// claims, plan and reproduce answer with.
Expected<std::optional<RegimeFit>> stored_regimes(const ConfigStore& store);

// Every claim of every claims file, in store order, with its card and
// hardware profile resolved, judged with the stored efficiencies.
Expected<std::vector<JudgedClaim>> judge_stored_claims(const ConfigStore& store);

// Which claims a listing keeps: each field, when not empty, must match.
struct ClaimFilter {
  std::string verdict;  // exactly
  std::string machine;  // contained, in any case, in its hardware profile's name, its machine spec or the source's words
  std::string model;    // the same for its card or the model as the source names it
  bool keeps(const JudgedClaim& x) const;
};

// The model and machine a claim names, for a listing: its card, else the
// source's words; its hardware profile, else its machine spec, else the
// source's words.
std::string claim_model_text(const Claim& c);
std::string claim_machine_text(const Claim& c);

// The markdown table (claim, model, machine, reported, predicted, implied
// rates, verdict, reason) and its summary line, of the claims `filter` keeps.
std::string write_claims_table(const std::vector<JudgedClaim>& all, const ClaimFilter& filter = {});
// The JSON list, with the same filter.
Json claims_json(const std::vector<JudgedClaim>& all, const ClaimFilter& filter = {});

}  // namespace moebench
