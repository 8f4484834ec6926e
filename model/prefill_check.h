// prefill_check.h — a published prefill figure as cases of the setup model:
// the same plausible conditions as its decode (setup_model.h), each priced
// as one pass over a ubatch of prompt tokens (regimes.h: prefill regimes).
//
//   ubatch   the stated `ubatch` (llama.cpp -ub), else the family's default
//            (engine_families.h: llama.cpp's 512, mlx-lm's 2048), else the
//            prompt in one pass (up to 8192); never more than the prompt;
//   context  the KV the prompt's tokens attend to on average: the stated
//            context_tokens (a sweep's N_KV; 0 when unstated, as llama-bench
//            ppN and llama-sweep-bench's first row run from an empty cache)
//            plus half the prompt;
//   rate     prefill_tok_s, else the prompt ÷ the TTFT.
#pragma once

#include <string>
#include <vector>

#include "model/setup_model.h"
#include "vocab/claim.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

struct PrefillCases {
  double measured_tok_s = 0;            // the figure, prompt tok/s
  int ubatch = 0;
  std::string ubatch_how;               // "stated" or the assumption
  std::vector<CaseParts> realistic;     // the cases the realistic value is the median over
  std::vector<CaseParts> all;           // every plausible case that fits
  std::string why_not;                  // no figure, or no case fits (the first case's reason)
};

PrefillCases prefill_cases(const Claim& claim, const ModelCard& card, const MachineProfile& machine);

}  // namespace moebench
