// prefill_check.cpp — see prefill_check.h.
#include "model/prefill_check.h"

#include <algorithm>

#include "model/engine_families.h"

namespace moebench {

namespace {
constexpr int kWholePromptCap = 8192;  // an engine without a known chunk: the prompt in one pass, up to this
constexpr int kUnknownChunk = 512;     // ... and without a stated prompt
}  // namespace

PrefillCases prefill_cases(const Claim& claim, const ModelCard& card, const MachineProfile& machine) {
  PrefillCases out;
  out.measured_tok_s = claim.prefill_figure_tok_s();
  if (!(out.measured_tok_s > 0)) {
    out.why_not = "no prefill figure (prefill_tok_s, or ttft_s with prompt_tokens)";
    return out;
  }
  const std::int64_t prompt = claim.prompt_tokens.value_or(0);
  const auto chunk = family_prefill_chunk(engine_family(claim.engine.value_or("")));
  if (claim.ubatch) {
    out.ubatch = *claim.ubatch;
    out.ubatch_how = "stated";
  } else if (chunk) {
    out.ubatch = chunk->tokens;
    out.ubatch_how = "the family's default (" + chunk->source + ")";
  } else {
    out.ubatch = prompt > 0 ? static_cast<int>(std::min<std::int64_t>(prompt, kWholePromptCap)) : kUnknownChunk;
    out.ubatch_how = prompt > 0 ? "not stated: the prompt in one pass (assumed)" : "not stated: 512 (assumed)";
  }
  if (prompt > 0 && prompt < out.ubatch) {
    out.ubatch = static_cast<int>(prompt);
    out.ubatch_how += ", cut to the prompt";
  }
  Claim pass = claim;
  const double tokens = prompt > 0 ? static_cast<double>(prompt) : out.ubatch;
  pass.context_tokens = claim.context_tokens.value_or(0) + static_cast<std::int64_t>(tokens / 2);
  pass.context_window_tokens.reset();
  pass.speculative = false;
  std::vector<SetupCase> cases = plausible_cases(pass, card, machine);
  const EngineEfficiency eff;
  for (SetupCase& c : cases) {
    c.batch = out.ubatch;
    c.one_sequence = true;
    CaseEstimate e = estimate_case(card, machine, c, eff);
    if (!e.fits) {
      if (out.why_not.empty()) out.why_not = e.why;
      continue;
    }
    if (e.parts.peak_missing) {
      if (out.why_not.empty()) out.why_not = "no FLOP peak for the processor that computes its prefill (the CPU row lacks its FMA facts, or the GPU its peak)";
      continue;
    }
    e.parts.prefill = true;
    out.all.push_back(e.parts);
    out.realistic.push_back(e.parts);
  }
  if (!out.all.empty()) out.why_not.clear();
  return out;
}

}  // namespace moebench
