// claim_review.cpp — see claim_review.h.
#include "harness/claim_review.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "harness/explain_writer.h"
#include "model/regime_store.h"
#include "model/spec_machine.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

Expected<ClaimSetup> resolve_claim_setup(const ConfigStore& store, const Claim& c, const std::string& label,
                                         std::optional<SpecTables>* specs) {
  ClaimSetup out;
  if (c.card) {
    auto k = store.card(*c.card);
    if (!k) return make_error(label + ": claim " + c.id + ": " + k.error().message);
    out.card = *k;
    if (c.scale) {
      auto sc = apply_scale(*out.card, *c.scale);
      if (!sc) return make_error(label + ": claim " + c.id + ": scale: " + sc.error().message);
      out.card = *sc;
    }
  }
  if (c.hardware) {
    auto h = resolve_machine(store, *c.hardware);
    if (!h) return make_error(label + ": claim " + c.id + ": " + h.error().message);
    out.machine = std::move(h->profile);
  }
  if (c.machine_spec) {
    std::optional<SpecTables> own;
    std::optional<SpecTables>& tables = specs != nullptr ? *specs : own;
    if (!tables) {
      auto t = load_spec_tables(store);
      if (!t) return make_error(label + ": claim " + c.id + ": machine_spec: " + t.error().message);
      tables = std::move(*t);
    }
    auto m = build_machine(*c.machine_spec, *tables);
    if (!m) {
      out.machine_error = m.error().message;
    } else {
      out.spec_machine = *m;
      if (!out.machine) out.machine = std::move(*m);
    }
  }
  return out;
}

Expected<EfficiencyTable> stored_efficiency(const ConfigStore& store) {
  auto table = load_optional_config<EfficiencyTable>(store, "engines", "efficiency", load_efficiency_table);
  if (!table) return table.error();
  return table->value_or(EfficiencyTable{});
}

Expected<std::optional<RegimeFit>> stored_regimes(const ConfigStore& store) {
  return load_optional_config<RegimeFit>(store, "fits", "regimes", load_regime_fit);
}

Expected<std::vector<JudgedClaim>> judge_stored_claims(const ConfigStore& store) {
  auto eff = stored_efficiency(store);
  if (!eff) return make_error("moebench claims: " + eff.error().message);
  auto regimes = stored_regimes(store);
  if (!regimes) return make_error("moebench claims: " + regimes.error().message);
  const RegimeFit* fit = *regimes ? &**regimes : nullptr;
  std::vector<JudgedClaim> all;
  std::optional<SpecTables> specs;
  for (const std::string& name : store.names("claims")) {
    auto src = store.find("claims", name);
    if (!src) return make_error("moebench claims: " + src.error().message);
    auto claims = load_config_text<std::vector<Claim>>(src->text, src->label, load_claims);
    if (!claims) return claims.error();
    for (const Claim& c : *claims) {
      auto setup = resolve_claim_setup(store, c, "moebench claims: " + src->label, &specs);
      if (!setup) return setup.error();
      ClaimJudgement j = judge_claim(c, setup->card ? &*setup->card : nullptr, setup->machine ? &*setup->machine : nullptr, &*eff, fit);
      // A machine_spec the tables cannot build: say which part, not "no profile".
      if (!setup->machine && !setup->machine_error.empty()) j.reason = "its machine_spec cannot be built: " + setup->machine_error;
      all.push_back({c, std::move(j)});
    }
  }
  return all;
}

namespace {

std::string lowered(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool contains_any_case(const std::string& text, const std::string& words) {
  return lowered(text).find(lowered(words)) != std::string::npos;
}

}  // namespace

std::string claim_model_text(const Claim& c) { return c.card.value_or(c.model.empty() ? "–" : c.model); }

std::string claim_machine_text(const Claim& c) {
  if (c.hardware) return *c.hardware;
  if (c.machine_spec) return "spec: " + describe_machine_spec(*c.machine_spec);
  return c.machine.value_or("–");
}

bool ClaimFilter::keeps(const JudgedClaim& x) const {
  if (!verdict.empty() && x.j.verdict != verdict) return false;
  if (!machine.empty() && !contains_any_case(claim_machine_text(x.claim) + " " + x.claim.machine.value_or(""), machine)) {
    return false;
  }
  return model.empty() || contains_any_case(claim_model_text(x.claim) + " " + x.claim.model, model);
}

Json claims_json(const std::vector<JudgedClaim>& all, const ClaimFilter& filter) {
  Json out = Json::array();
  for (const JudgedClaim& x : all) {
    if (!filter.keeps(x)) continue;
    Json r = {{"id", x.j.id},
              {"model", claim_model_text(x.claim)},
              {"machine", claim_machine_text(x.claim)},
              {"reported", x.j.reported},
              {"verdict", x.j.verdict},
              {"reason", x.j.reason}};
    if (x.j.predicted_high_tok_s) {
      r["predicted_tok_s"] = {*x.j.predicted_low_tok_s, *x.j.predicted_high_tok_s};
      r["band_ratio"] = x.j.band_ratio();
    }
    if (x.j.predicted_tok_s) r["predicted_realistic_tok_s"] = *x.j.predicted_tok_s;
    if (!x.j.regime.empty()) r["regime"] = x.j.regime;
    if (x.j.implied_storage_bytes_s) r["implied_storage_bytes_s"] = *x.j.implied_storage_bytes_s;
    if (x.j.implied_memory_bytes_s) r["implied_memory_bytes_s"] = *x.j.implied_memory_bytes_s;
    out.push_back(r);
  }
  return out;
}

std::string write_claims_table(const std::vector<JudgedClaim>& all, const ClaimFilter& filter) {
  std::string out = "| claim | model | machine | reported | predicted | implied storage | implied memory | verdict | reason |\n"
                    "|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, int> counts;
  std::size_t kept = 0;
  for (const JudgedClaim& x : all) {
    if (!filter.keeps(x)) continue;
    ++kept;
    ++counts[x.j.verdict];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", x.j.id, claim_model_text(x.claim),
                       claim_machine_text(x.claim), x.j.reported, claim_predicted_text(x.j),
                       claim_rate_or_dash(x.j.implied_storage_bytes_s), claim_rate_or_dash(x.j.implied_memory_bytes_s),
                       x.j.verdict, x.j.reason);
  }
  std::string summary;
  for (const auto& [v, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + v;
  if (summary.empty()) summary = filter.verdict.empty() ? "none judged" : "none " + filter.verdict;
  const bool narrowed = !filter.machine.empty() || !filter.model.empty();
  out += fmt::format("\n{} claims{}: {}. `moebench claims --explain ID` shows a derivation.\n", narrowed ? kept : all.size(),
                     narrowed ? fmt::format(" of {} on that machine and model", all.size()) : "", summary);
  return out;
}

}  // namespace moebench
