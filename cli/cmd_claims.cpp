// cmd_claims.cpp — `moebench claims`: every published claim in
// configs/claims judged against its machine (engines/analytic/claim_check),
// one line each; `--explain ID` prints one claim's derivation step by step.
#include <cstdio>

#include "engines/analytic/claim_check.h"
#include "cli/commands.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

struct ClaimsArgs {
  std::string explain;
  std::string verdict;  // filter
  bool json = false;
};

std::string rate_or_dash(const std::optional<double>& v) { return v ? format_fixed(*v / 1e9, 2) + " GB/s" : "–"; }

std::string predicted_text(const ClaimJudgement& j) {
  if (!j.predicted_high_tok_s) return "–";
  return format_fixed(*j.predicted_low_tok_s, 3) + "–" + format_fixed(*j.predicted_high_tok_s, 3) + " tok/s";
}

std::string step_value(const Step& s) {
  if (s.unit == "B") return format_bytes(s.value) + " (" + format_fixed(s.value / 1e9, 2) + " GB)";
  if (s.unit == "B/s") return format_fixed(s.value / 1e9, 2) + " GB/s";
  if (s.unit.empty()) return format_fixed(s.value, s.value < 10 ? 3 : 0);
  return format_fixed(s.value, s.value < 10 ? 3 : 2) + " " + s.unit;
}

int claims_command(const ClaimsArgs& a, const CliState& state) {
  const ConfigStore store = state.store();
  struct Judged {
    Claim claim;
    ClaimJudgement j;
  };
  std::vector<Judged> all;
  for (const std::string& name : store.names("claims")) {
    auto src = store.find("claims", name);
    if (!src) {
      std::fprintf(stderr, "moebench claims: %s\n", src.error().message.c_str());
      return 1;
    }
    auto claims = load_config_text<std::vector<Claim>>(src->text, src->label, load_claims);
    if (!claims) {
      std::fprintf(stderr, "%s\n", claims.error().message.c_str());
      return 1;
    }
    for (const Claim& c : *claims) {
      std::optional<ModelCard> card;
      if (c.card) {
        auto k = store.card(*c.card);
        if (!k) {
          std::fprintf(stderr, "moebench claims: %s: claim %s: %s\n", src->label.c_str(), c.id.c_str(), k.error().message.c_str());
          return 1;
        }
        card = *k;
        if (c.scale) {
          auto sc = apply_scale(*card, *c.scale);
          if (!sc) {
            std::fprintf(stderr, "moebench claims: %s: claim %s: scale: %s\n", src->label.c_str(), c.id.c_str(),
                         sc.error().message.c_str());
            return 1;
          }
          card = *sc;
        }
      }
      std::optional<MachineProfile> machine;
      if (c.hardware) {
        auto h = store.find("hardware", *c.hardware);
        if (!h) {
          std::fprintf(stderr, "moebench claims: %s: claim %s: %s\n", src->label.c_str(), c.id.c_str(), h.error().message.c_str());
          return 1;
        }
        auto p = load_config_text<MachineProfile>(h->text, h->label, load_machine_profile);
        if (!p) {
          std::fprintf(stderr, "%s\n", p.error().message.c_str());
          return 1;
        }
        machine = *p;
      }
      all.push_back({c, judge_claim(c, card ? &*card : nullptr, machine ? &*machine : nullptr)});
    }
  }
  if (!a.explain.empty()) {
    for (const Judged& x : all) {
      if (x.claim.id != a.explain) continue;
      const Claim& c = x.claim;
      std::printf("%s\n%s\n\nsource: %s\n  \"%s\"\n", c.id.c_str(), c.title.c_str(), c.source_document.c_str(),
                  c.source_quote.c_str());
      std::printf("model: %s (card %s); machine: %s (profile %s); engine: %s; quant: %s\n", c.model.c_str(),
                  c.card.value_or("none").c_str(), c.machine.value_or("not stated").c_str(),
                  c.hardware.value_or("none").c_str(), c.engine.value_or("not stated").c_str(),
                  c.quant.value_or("not stated").c_str());
      std::printf("left out by the source: %s\n", c.missing.empty() ? "nothing" : join(c.missing, ", ").c_str());
      if (c.notes) std::printf("notes: %s\n", c.notes->c_str());
      std::printf("\nderivation:\n");
      int n = 0;
      for (const Step& s : x.j.steps) {
        std::printf("  %2d. %-44s %s\n      %s\n", ++n, s.name.c_str(), step_value(s).c_str(), s.how.c_str());
      }
      std::printf("\npredicted %s; implied storage %s, memory %s\nverdict: %s — %s\n", predicted_text(x.j).c_str(),
                  rate_or_dash(x.j.implied_storage_bytes_s).c_str(), rate_or_dash(x.j.implied_memory_bytes_s).c_str(),
                  x.j.verdict.c_str(), x.j.reason.c_str());
      return 0;
    }
    std::fprintf(stderr, "moebench claims: no claim \"%s\" (moebench claims lists every id)\n", a.explain.c_str());
    return 1;
  }
  if (a.json) {
    Json out = Json::array();
    for (const Judged& x : all) {
      if (!a.verdict.empty() && x.j.verdict != a.verdict) continue;
      Json r = {{"id", x.j.id}, {"reported", x.j.reported}, {"verdict", x.j.verdict}, {"reason", x.j.reason}};
      if (x.j.predicted_high_tok_s) r["predicted_tok_s"] = {*x.j.predicted_low_tok_s, *x.j.predicted_high_tok_s};
      if (x.j.implied_storage_bytes_s) r["implied_storage_bytes_s"] = *x.j.implied_storage_bytes_s;
      if (x.j.implied_memory_bytes_s) r["implied_memory_bytes_s"] = *x.j.implied_memory_bytes_s;
      out.push_back(r);
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("| claim | reported | predicted | implied storage | implied memory | verdict | reason |\n"
              "|---|---|---|---|---|---|---|\n");
  std::map<std::string, int> counts;
  for (const Judged& x : all) {
    if (!a.verdict.empty() && x.j.verdict != a.verdict) continue;
    ++counts[x.j.verdict];
    std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", x.j.id.c_str(), x.j.reported.c_str(), predicted_text(x.j).c_str(),
                rate_or_dash(x.j.implied_storage_bytes_s).c_str(), rate_or_dash(x.j.implied_memory_bytes_s).c_str(),
                x.j.verdict.c_str(), x.j.reason.c_str());
  }
  std::string summary;
  for (const auto& [v, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + v;
  std::printf("\n%zu claims: %s. `moebench claims --explain ID` shows a derivation.\n", all.size(), summary.c_str());
  return 0;
}

}  // namespace

void add_claims_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ClaimsArgs>();
  CLI::App* cmd = app.add_subcommand("claims", "Judge every published speed claim against what its machine can do.");
  cmd->footer("For each claim in configs/claims: the reported figure, the predicted range on the claimed machine (from "
      "the spec ranges of its catalog profile), the storage and memory rates the claim implies, and a verdict "
      "(consistent, optimistic, implausible, under-specified) with a one-line reason.\n\n"
      "Example:\n"
      "  moebench claims\n"
      "  moebench claims --explain k3c-k3-epyc-laptop-preset-8gb\n"
      "  moebench claims --verdict implausible --json");
  cmd->add_option("--explain", args->explain, "print one claim's derivation, step by step, with units");
  cmd->add_option("--verdict", args->verdict, "only claims with this verdict")
      ->check(CLI::IsMember({"consistent", "optimistic", "implausible", "under-specified"}));
  cmd->add_flag("--json", args->json, "JSON instead of the markdown table");
  cmd->callback([args, &state] { state.exit_code = claims_command(*args, state); });
}

}  // namespace moebench
