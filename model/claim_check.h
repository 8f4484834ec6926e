// claim_check.h — judging a published speed claim against what its machine
// can do, with every step kept for `claims --explain`, and estimating what a
// machine does for a model (`plan`). Both ask the one setup model
// (model/setup_model.h); nothing here has arithmetic of its own.
//
// A claim is judged over every plausible combination of the conditions it
// leaves out (setup_model.h: plausible_cases):
//   implausible      the figure beats the fast end under every combination
//                    (×1.5), or the model fits none of them;
//   optimistic       above the fast end of every combination, by less;
//   consistent-if    some combinations allow it and others do not: the
//                    reason names the values that make it so;
//   below-band       far below the slow end (÷1.25), with the likely cause:
//                    a run average that includes the first token, paging
//                    past usable memory, small or QD1 reads;
//   consistent       inside the band;
//   under-specified  no card or no machine profile, or a figure the model
//                    does not judge (prefill only, an aggregate without its
//                    concurrency);
//   contradictory    the stated conditions cannot all hold (a container
//                    smaller than the trunk alone, more GPUs, nodes or
//                    drives than the profile has, a GPU processor without a
//                    GPU, a cache above the budget): the reason names the
//                    field to check.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "model/regime_fit.h"
#include "model/setup_model.h"
#include "vocab/claim.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

struct CaseBand {
  std::string label;
  double slow_tok_s = 0, real_tok_s = 0, fast_tok_s = 0;
};

struct ClaimJudgement {
  std::string id;
  std::string reported;            // as text, with units
  std::optional<double> predicted_low_tok_s, predicted_high_tok_s;  // the band over plausible cases
  std::optional<double> predicted_tok_s;                            // realistic
  std::optional<double> implied_storage_bytes_s, implied_memory_bytes_s;
  std::string verdict;
  std::string reason;              // one line
  std::string engine_family, efficiency_source;
  std::vector<CaseBand> cases;     // every plausible combination that fits
  // What the realistic value is made of, for fitting efficiencies: the
  // realistic cases' parts; the value is streams × the median over them of
  // 1 ÷ case_times(parts).real_s, ÷ run_average.
  std::vector<CaseParts> realistic_parts;
  std::vector<CaseParts> all_parts;  // every case that fits (the spread of the unstated conditions)
  double streams = 1, run_average = 1;
  std::string regime;              // with the regime fit: the regime its realistic cases bind
  double spread = 0;               // ... and that regime's spread: the band's widening each way (regime_fit.h)
  std::vector<Step> steps;         // the derivation of the first case that fits
  double band_ratio() const {
    return predicted_low_tok_s && *predicted_low_tok_s > 0 ? predicted_high_tok_s.value_or(0) / *predicted_low_tok_s : 0;
  }
};

// `card` and `machine` are the claim's card and hardware profile when known;
// `efficiency`: fitted engine factors (nullptr: the defaults); `regimes`: the
// regime fit (configs/fits/regimes.json), which then prices every case —
// the answer `validate-model --regimes` checks (nullptr: the efficiencies).
ClaimJudgement judge_claim(const Claim& claim, const ModelCard* card, const MachineProfile* machine,
                           const EfficiencyTable* efficiency = nullptr, const RegimeFit* regimes = nullptr);

// What a machine does for a model, for `moebench plan`.
struct MachineSetup {
  std::string quant = "mxfp4";           // experts
  std::optional<double> expert_bits;     // bits per routed-expert weight, instead of the quant's (a VQ container)
  std::string trunk_quant;               // "" = the card's
  std::optional<double> budget_bytes;    // nullopt = usable memory
  std::int64_t context = 4096, prompt = 1000;
  int drives = 1;
  std::string engine_family = "any";
  std::string routing;                   // "" = the fitted default_real_routing()
};

struct MachineEstimate {
  bool fits = true;
  bool resident = false;
  std::string why;               // when it does not fit
  std::string capacity_note;     // streaming without drive capacities in the profile
  double tok_s_low = 0, tok_s_real = 0, tok_s_high = 0;
  double storage_share = 0;      // of the bytes a token reads, from storage
  double storage_bytes_tok = 0;
  double ttft_low_s = 0;         // lower bound for the prompt
  double ttft_s = 0;             // with the regime fit: the prompt at its prefill regime's realistic rate
  std::string ttft_why;          // when the prompt does not fit (ttft_low_s is then infinite)
  std::string regime, prefill_regime;  // with the regime fit: what binds decode and the prompt
  double band_ratio() const { return tok_s_low > 0 ? tok_s_high / tok_s_low : 0; }
  int drives = 1;
  std::vector<Step> steps;
};
// The realistic tok/s of a judged claim under other efficiencies (as
// judge_claim computes it; 0 when the claim had no realistic case).
double realistic_tok_s(const ClaimJudgement& j, const EngineEfficiency& eff);

MachineEstimate estimate_machine(const ModelCard& card, const MachineSetup& setup, const MachineProfile& machine,
                                 const EfficiencyTable* efficiency = nullptr, const RegimeFit* regimes = nullptr);

// The article's division: the share of a model's bytes that cannot stay in
// memory and is read from storage on every token.
double storage_share(double model_bytes, double memory_bytes);

}  // namespace moebench
