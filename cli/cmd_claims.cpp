// cmd_claims.cpp — `moebench claims`: every published claim in
// configs/claims judged against its machine (harness/claim_review.h), one
// line each; `--explain ID` prints one claim's derivation step by step
// (harness/explain_writer.h).
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/claim_review.h"
#include "harness/explain_writer.h"

namespace moebench {
namespace {

struct ClaimsArgs {
  std::string explain;
  ClaimFilter filter;
  bool json = false;
};

Expected<int> claims_command(const ClaimsArgs& a, const CliState& state) {
  auto all = judge_stored_claims(state.store());
  if (!all) return all.error();
  if (!a.explain.empty()) {
    for (const JudgedClaim& x : *all) {
      if (x.claim.id != a.explain) continue;
      fmt::print("{}", write_claim_explain(x.claim, x.j));
      return 0;
    }
    return Error{"no claim \"" + a.explain + "\" (moebench claims lists every id)"};
  }
  if (a.json) {
    fmt::print("{}\n", claims_json(*all, a.filter).dump(2));
    return 0;
  }
  fmt::print("{}", write_claims_table(*all, a.filter));
  return 0;
}

}  // namespace

void add_claims_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ClaimsArgs>();
  CLI::App* cmd = app.add_subcommand("claims", "Judge every published speed claim against what its machine can do.");
  cmd->footer("For each claim in configs/claims: the reported figure, the predicted range on the claimed machine (from "
      "the spec ranges of its catalog profile), the storage and memory rates the claim implies, and a verdict "
      "(consistent, consistent-if, optimistic, implausible, below-band, under-specified) with a one-line reason. "
      "Conditions a claim leaves out are ranges: the claim is judged under every plausible combination.\n\n"
      "Example:\n"
      "  moebench claims\n"
      "  moebench claims --explain k3c-k3-epyc-laptop-preset-8gb\n"
      "  moebench claims --verdict implausible --json\n"
      "  moebench claims --machine m5-pro --model kimi-k3");
  cmd->add_option("--explain", args->explain, "print one claim's derivation, step by step, with units");
  cmd->add_option("--machine", args->filter.machine,
                  "only claims whose machine (profile name, spec or the source's words) contains these words, any case");
  cmd->add_option("--model", args->filter.model, "only claims whose model (card or the source's name) contains these words, any case");
  cmd->add_option("--verdict", args->filter.verdict, "only claims with this verdict")
      ->check(CLI::IsMember({"consistent", "consistent-if", "optimistic", "implausible", "below-band", "under-specified", "contradictory"}));
  cmd->add_flag("--json", args->json, "JSON instead of the markdown table");
  cmd->callback([args, &state] { finish(state, "claims", claims_command(*args, state)); });
}

}  // namespace moebench
