// claim_check.h — judging a published speed claim against what its machine
// can physically do, with every step kept for `claims --explain`.
//
// The arithmetic, per token of single-stream decode:
//   1. bytes: trunk weights a token reads + k × MoE layers routed experts
//      (+ the KV cache at the stated context), at the claim's bits per
//      weight — from its container size and expert bits when given, else the
//      card's native quant;
//   2. placement: the trunk first, then the experts, fill the fastest memory
//      (GPU memory when the claim's GPUs hold weights, else RAM — the budget
//      or RSS when stated, usable memory otherwise); the rest of the experts
//      lives one tier down (host RAM, then the drives). A token reads from
//      each tier its share of the experts: the article's "one division"
//      (594 GB on 128 GB → 79 % from the SSD);
//   3. time: each tier's bytes ÷ its bandwidth. Upper bound: the high end of
//      every spec range, tiers fully overlapped (the slowest tier alone), plus
//      the per-token synchronisation cost of linked machines at its low end.
//      Lower end: the low figures, tiers one after another, sync at its high
//      end;
//   4. verdict: reported above 1.5 × the upper bound → implausible; above
//      1.05 × → optimistic; otherwise consistent. under-specified when the
//      model or the machine is unknown, when only an aggregate (serving) or
//      prefill figure is given without what it needs, when speculative
//      decoding could explain a figure above the bound, or when a condition
//      the source leaves out decides the verdict (checked by re-running the
//      arithmetic at its unfavourable end: 1 drive, the smallest memory);
//   5. implied rates: reported tok/s × the bytes each tier must deliver.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engines/analytic/cost_model.h"
#include "vocab/claim.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

struct ClaimJudgement {
  std::string id;
  std::string reported;            // as text, with units
  std::optional<double> predicted_low_tok_s, predicted_high_tok_s;
  std::optional<double> implied_storage_bytes_s, implied_memory_bytes_s;
  std::string verdict;             // consistent | optimistic | implausible | under-specified
  std::string reason;              // one line
  std::vector<Step> steps;         // the derivation, in order
};

// `card` and `machine` are the claim's card and hardware profile when known.
ClaimJudgement judge_claim(const Claim& claim, const ModelCard* card, const MachineProfile* machine);

// What a machine can do for a model: the same arithmetic as a claim's,
// for `moebench plan`. GPUs hold weights when the machine has them.
struct MachineEstimate {
  bool fits = true;
  std::string why;               // when it does not fit
  double tok_s_low = 0, tok_s_high = 0;
  double storage_share = 0;      // of the model, read from storage per token
  double ttft_low_s = 0;         // memory-bound lower bound for the prompt
  int drives = 1;
  std::vector<Step> steps;
};
MachineEstimate estimate_machine(const ModelCard& card, const std::string& quant, const MachineProfile& machine,
                                 std::int64_t context, std::int64_t prompt, int drives);

// The article's division: the share of a model's bytes that cannot stay in
// memory and is read from storage on every token.
double storage_share(double model_bytes, double memory_bytes);

}  // namespace moebench
