// machine_plan.cpp — see machine_plan.h.
#include "harness/machine_plan.h"

#include "model/engine_families.h"
#include "model/spec_machine.h"
#include "reports/history_db.h"
#include "vocab/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>

#include "vocab/claim.h"
#include "vocab/machine_profile.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// Every claim of the claims database, loaded once for all rows.
Expected<std::vector<Claim>> stored_claims(const ConfigStore& store) {
  std::vector<Claim> all;
  for (const std::string& name : store.names("claims")) {
    auto src = store.find("claims", name);
    if (!src) return src.error();
    auto claims = load_config_text<std::vector<Claim>>(src->text, src->label, load_claims);
    if (!claims) return claims.error();
    all.insert(all.end(), claims->begin(), claims->end());
  }
  return all;
}

// The claims' single-stream decode figures of `model` (unscaled) on `hardware`.
std::vector<PlanEvidence> evidence_for(const std::vector<Claim>& claims, const std::string& model,
                                       const std::string& hardware, const std::string& quant) {
  std::vector<PlanEvidence> out;
  for (const Claim& c : claims) {
    if (c.card != model || c.hardware != hardware || c.scale || !(c.decode_figure_tok_s() > 0)) continue;
    if (c.concurrency && *c.concurrency > 1) continue;  // a serving figure, not single-stream decode
    PlanEvidence e;
    e.id = c.id;
    e.quant = c.quant.value_or("not stated");
    e.tok_s = c.decode_figure_tok_s();
    e.figure = c.figure;
    e.same_quant = c.quant && quant_name_of(*c.quant) == quant;
    out.push_back(e);
  }
  return out;
}

// Each claim judged on its own setup, as `claims` does, and where that
// setup differs from the plan's: one line that says why the two answers
// differ when they do.
void judge_evidence(std::vector<PlanEvidence>& evidence, const std::vector<Claim>& claims, const ModelCard& card,
                    const MachineProfile& profile, const PlanRequest& a, int drives, const EfficiencyTable* efficiency,
                    const RegimeFit* regimes) {
  for (PlanEvidence& e : evidence) {
    const auto c = std::find_if(claims.begin(), claims.end(), [&](const Claim& x) { return x.id == e.id; });
    if (c == claims.end()) continue;
    const ClaimJudgement j = judge_claim(*c, &card, &profile, efficiency, regimes);
    e.verdict = j.verdict;
    e.regime = j.regime;
    e.predicted_tok_s = j.predicted_tok_s;
    e.low_tok_s = j.predicted_low_tok_s;
    e.high_tok_s = j.predicted_high_tok_s;
    // Every condition where the two setups are not the same: a value the
    // claim states differently, or one the plan fixes and the claim leaves open.
    const std::string family = engine_family(c->engine.value_or(""));
    const bool same_bits = a.expert_bits && c->expert_bits_per_weight && std::fabs(*a.expert_bits - *c->expert_bits_per_weight) < 1e-9;
    if (!e.same_quant && !same_bits) e.differs.push_back("experts " + e.quant);
    if (family != a.engine_family) e.differs.push_back("engine " + family);
    const std::string plan_trunk = a.trunk_quant.empty() ? card.trunk_quant : a.trunk_quant;
    if (!c->trunk_quant) {
      if (!a.trunk_quant.empty()) e.differs.push_back("trunk not stated");
    } else if (*c->trunk_quant != plan_trunk) {
      e.differs.push_back("trunk " + *c->trunk_quant);
    }
    if (!c->ram_budget_bytes) {
      if (a.budget_bytes) e.differs.push_back("budget not stated");
    } else if (!a.budget_bytes || std::fabs(*a.budget_bytes - static_cast<double>(*c->ram_budget_bytes)) > 1e6) {
      e.differs.push_back("budget " + format_bytes_decimal(static_cast<double>(*c->ram_budget_bytes)));
    }
    if (!c->drives) {
      if (a.drives) e.differs.push_back("drives not stated");
    } else if (*c->drives != drives) {
      e.differs.push_back(std::to_string(*c->drives) + " drive(s)");
    }
    if (c->context_tokens ? *c->context_tokens != a.context : true) {
      e.differs.push_back(c->context_tokens ? "context " + std::to_string(*c->context_tokens) : std::string("context not stated"));
    }
  }
}

std::string evidence_cell(const PlanRow& r) {
  if (r.evidence.empty()) return "–";
  std::vector<std::string> parts;
  for (const PlanEvidence& e : r.evidence) {
    std::string where;
    if (r.e.fits && r.e.tok_s_real > 0) {
      where = ", ×" + format_fixed(e.tok_s / r.e.tok_s_real, 2) + " the realistic, " +
              (e.tok_s < r.e.tok_s_low ? "below the band" : e.tok_s > r.e.tok_s_high ? "above the band" : "in the band");
    }
    std::string own;
    if (e.predicted_tok_s) {
      own = "; its own setup: predicted " + format_fixed(*e.predicted_tok_s, 3) + " (" + format_fixed(e.low_tok_s.value_or(0), 3) +
            "–" + format_fixed(e.high_tok_s.value_or(0), 3) + (e.regime.empty() ? "" : ", " + e.regime) + "), " + e.verdict +
            (e.differs.empty() ? ", the plan's setup" : ", differs from the plan in " + join(e.differs, ", "));
    }
    parts.push_back(format_fixed(e.tok_s, 3) + " tok/s (" + e.id + "; " + (e.same_quant ? "same quant" : "quant " + e.quant) +
                    (e.figure == "run_average" ? "; run average" : "") + where + own + ")");
  }
  return join(parts, "; ");
}

}  // namespace

Expected<std::vector<PlanRow>> plan_machines(const ConfigStore& store, const ModelCard& card, const PlanRequest& a,
                                             const std::vector<std::string>& sources, const std::string& this_machine,
                                             const EfficiencyTable* efficiency, const RegimeFit* regimes) {
  auto claims = stored_claims(store);
  if (!claims) return claims.error();
  std::vector<PlanRow> rows;
  for (const std::string& name : sources) {
    auto resolved = resolve_machine(store, name);
    if (!resolved) return resolved.error();
    const MachineProfile* profile = &resolved->profile;
    PlanRow r;
    r.name = profile->name + (name == this_machine ? " (this machine)" : "");
    r.profile = profile->name;
    if (a.drives && !profile->drives.empty() && *a.drives > static_cast<int>(profile->drives.size())) {
      r.e.fits = false;
      r.reason = "does not fit: --drives " + std::to_string(*a.drives) + " is more than the " +
                 std::to_string(profile->drives.size()) + " drive(s) of its profile";
      r.price_text = "–";
      rows.push_back(r);
      continue;
    }
    const int max_drives = a.drives ? *a.drives : static_cast<int>(std::max<std::size_t>(1, profile->drives.size()));
    // The fewest drives that reach the target (all of them if none does), or the stated count.
    for (int d = a.drives ? *a.drives : 1; d <= max_drives; ++d) {
      MachineSetup s;
      s.expert_bits = a.expert_bits;
      s.engine_family = a.engine_family;
      s.quant = a.quant;
      s.trunk_quant = a.trunk_quant;
      s.budget_bytes = a.budget_bytes;
      s.context = a.context;
      s.prompt = a.prompt;
      s.drives = d;
      s.routing = a.routing;
      r.e = estimate_machine(card, s, *profile, efficiency, regimes);
      if (!r.e.fits || r.e.tok_s_real >= a.min_tok_s) break;
    }
    const std::string how_fast = format_fixed(r.e.tok_s_real, 3) + " tok/s (band " + format_fixed(r.e.tok_s_low, 3) + "–" +
                                 format_fixed(r.e.tok_s_high, 3) + ")";
    if (!r.e.fits) {
      r.unknown = r.e.why.find("no drive") != std::string::npos;
      r.reason = r.unknown ? "unknown: the model must stream here and the profile lists no drive; add the machine's drives to "
                             "its hardware profile (configs/hardware/" + profile->name + ".json) for a streaming figure"
                           : "does not fit: " + r.e.why;
    } else if (r.e.tok_s_real < a.min_tok_s) {
      r.reason = (r.e.tok_s_high >= a.min_tok_s ? "only at the fast end: " : "too slow: ") + how_fast +
                 (r.e.resident ? ", all in memory"
                               : ", streaming " + format_bytes_decimal(r.e.storage_bytes_tok) + " per token from " +
                                     std::to_string(r.e.drives) + " drive(s)");
    } else if (a.max_ttft_s > 0 && !r.e.ttft_why.empty()) {
      r.reason = "TTFT: " + r.e.ttft_why;
    } else if (a.max_ttft_s > 0 && (r.e.ttft_s > 0 ? r.e.ttft_s : r.e.ttft_low_s) > a.max_ttft_s) {
      r.reason = r.e.ttft_s > 0 ? "TTFT " + format_fixed(r.e.ttft_s, 2) + " s (" + r.e.prefill_regime + ")"
                                : "TTFT at least " + format_fixed(r.e.ttft_low_s, 2) + " s";
      r.reason += " for " + std::to_string(a.prompt) + " tokens";
    } else {
      // "yes" only when the whole band clears the target; "likely" when the
      // realistic value does and the slow end does not.
      r.meets = r.e.tok_s_low >= a.min_tok_s;
      r.likely = !r.meets;
      r.reason = (r.meets ? "" : "likely (realistic " + how_fast + "): ") +
                 (r.e.resident ? std::string("holds the whole model in memory")
                               : "streams " + format_bytes_decimal(r.e.storage_bytes_tok) + " per token from " +
                                     std::to_string(r.e.drives) + " drive(s)");
      if (!r.e.capacity_note.empty()) r.reason += "; " + r.e.capacity_note;
    }
    if (profile->price_usd) {
      r.price = profile->price_usd->value;
      r.hourly = profile->price_basis.value_or("purchase") == "hourly";
      r.price_text = "$" + format_fixed(r.price, r.hourly ? 2 : 0) + (r.hourly ? "/h" : "");
      if (r.e.fits && r.e.tok_s_real > 0) r.price_per = r.price / r.e.tok_s_real;
    } else {
      r.price_text = "–";
    }
    r.evidence = evidence_for(*claims, card.name, profile->name, a.quant);
    judge_evidence(r.evidence, *claims, card, *profile, a, r.e.drives, efficiency, regimes);
    r.power = profile->power;
    rows.push_back(r);
  }
  // Meeting the target first (cheapest per tok/s, unpriced last), then the rest by speed.
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& x, const PlanRow& y) {
    if (x.meets != y.meets) return x.meets;
    if (x.likely != y.likely) return x.likely;
    if (x.meets || x.likely) {
      if ((x.price_per > 0) != (y.price_per > 0)) return x.price_per > 0;
      if (x.hourly != y.hourly) return !x.hourly;
      if (x.price_per > 0 && x.price_per != y.price_per) return x.price_per < y.price_per;
    }
    return x.e.tok_s_real > y.e.tok_s_real;
  });
  return rows;
}

Expected<std::map<std::string, PlanMeasured>> measured_from_history(const HistoryDb& db, const PlanRequest& req,
                                                                    const std::vector<PlanRow>& rows) {
  std::map<std::string, PlanMeasured> out;
  for (const PlanRow& row : rows) {
    std::optional<PlanMeasured> best;
    std::tuple<std::string, std::int64_t> best_key;  // latest run, then the nearest context
    for (const char* metric : {metric::kDecodeTokS, metric::kFullDecodeTokS}) {
      HistoryFilter f;
      f.metric = metric;
      f.model = req.model;
      f.quant = req.quant;
      f.machine = row.profile;
      f.provenance = "measured";
      auto entries = db.query(f);
      if (!entries) return entries.error();
      for (const HistoryEntry& e : *entries) {
        const bool full_size = e.scale == Scale{}.to_string();
        if (e.status != "ok" || !e.median || !(*e.median > 0)) continue;
        if ((std::string(metric) == metric::kDecodeTokS) != full_size) continue;
        const std::int64_t dist = -std::llabs(e.context_tokens - req.context);
        const auto key = std::make_tuple(e.started_at, dist);
        if (best && key <= best_key) continue;
        best_key = key;
        best = PlanMeasured{*e.median, metric, e.run_id, e.started_at, e.point_id, e.engine_spec, e.context_tokens};
      }
    }
    if (best) out[row.profile] = *best;
  }
  return out;
}

void rank_measured_first(std::vector<PlanRow>& rows, const std::map<std::string, PlanMeasured>& measured,
                         const PlanRequest& req) {
  for (PlanRow& r : rows) {
    auto it = measured.find(r.profile);
    if (it == measured.end()) continue;
    r.measured = it->second;
    r.meets = it->second.tok_s >= req.min_tok_s;
    r.likely = false;
    r.unknown = false;
    r.price_per = r.price > 0 ? r.price / it->second.tok_s : 0;
    r.reason = fmt::format("measured {} tok/s ({} of run {}, {}, context {}){}",
                           format_fixed(it->second.tok_s, 3), it->second.metric, it->second.run_id,
                           it->second.engine, it->second.context,
                           r.meets ? "" : ": below the target");
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& x, const PlanRow& y) {
    if (x.measured.has_value() != y.measured.has_value()) return x.measured.has_value();
    if (!x.measured) return false;  // predicted rows keep their order
    if (x.meets != y.meets) return x.meets;
    if (x.meets) {
      if ((x.price_per > 0) != (y.price_per > 0)) return x.price_per > 0;
      if (x.hourly != y.hourly) return !x.hourly;
      if (x.price_per > 0 && x.price_per != y.price_per) return x.price_per < y.price_per;
    }
    return x.measured->tok_s > y.measured->tok_s;
  });
}

namespace {
// The "meets" cell of the table and the JSON.
const char* meets_text(const PlanRow& r) { return r.meets ? "yes" : r.likely ? "likely" : r.unknown ? "unknown" : "no"; }
}  // namespace

std::string write_plan_table(const PlanRequest& a, const std::vector<PlanRow>& rows) {
  const bool any_measured = std::any_of(rows.begin(), rows.end(), [](const PlanRow& r) { return r.measured.has_value(); });
  std::string out = fmt::format("moebench plan: {}, experts in {}, trunk in {}, context {}, target >= {} tok/s decode{}\n\n",
                                a.model, a.quant, a.trunk_quant.empty() ? std::string("the card's quant") : a.trunk_quant, a.context, format_fixed(a.min_tok_s, 3),
                                a.max_ttft_s > 0 ? ", TTFT <= " + format_fixed(a.max_ttft_s, 1) + " s" : std::string());
  out += std::string("| rank | machine |") + (any_measured ? " basis |" : "") +
         " meets | decode tok/s (realistic) | band | regime | TTFT | drives | price | price per tok/s | why | "
         "published on this machine |\n|---:|---|" + (any_measured ? "---|" : "") + "---|---:|---|---|---:|---:|---:|---:|---|---|\n";
  int rank = 0;
  for (const PlanRow& r : rows) {
    const std::string basis = !any_measured ? "" : r.measured ? " measured |" : " predicted |";
    out += fmt::format("| {} | {} |{} {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", ++rank, r.name, basis,
                       meets_text(r),
                       r.measured ? format_fixed(r.measured->tok_s, 3) + " (measured)"
                       : r.e.fits ? format_fixed(r.e.tok_s_real, 3) : "–",
                       r.e.fits ? format_fixed(r.e.tok_s_low, 3) + "–" + format_fixed(r.e.tok_s_high, 3) + " (×" +
                                      format_fixed(r.e.band_ratio(), 1) + ")"
                                : "–",
                       r.e.fits && !r.e.regime.empty() ? r.e.regime : "–",
                       !r.e.fits                ? "–"
                       : !r.e.ttft_why.empty() ? std::string("– (the prompt does not fit)")
                       : r.e.ttft_s > 0        ? format_fixed(r.e.ttft_s, 1) + " s (" + r.e.prefill_regime + ")"
                                               : "≥ " + format_fixed(r.e.ttft_low_s, 2) + " s",
                       r.e.fits ? std::to_string(r.e.drives) : "–", r.price_text,
                       r.price_per > 0 ? "$" + format_fixed(r.price_per, r.hourly ? 2 : 0) + (r.hourly ? "/h" : "") : "–",
                       r.reason, evidence_cell(r));
  }
  out += fmt::format("\nPredicted by the setup model (model/setup_model.h) from each profile's figures (spec "
                     "ranges; measured for a probed machine), priced by the regime fit (configs/fits/regimes.json; "
                     "docs/model.md): \"yes\" needs the whole band to clear the target, \"likely\" the realistic value; "
                     "the band is the realistic value widened by its regime's spread each way (its ratio in brackets). "
                     "Ranked: machines that meet the target first, cheapest per tok/s, then the rest by speed. Streaming "
                     "setups pin the trunk first and cache experts in what is left. TTFT: a "
                     "{}-token prompt at its prefill regime's rate (a lower bound, ≥, without the regime fit). \"Published on this machine\": the decode figures of the claims database (configs/claims) "
                     "for this model on that profile, as measured, with their quant; compare like with like.\n",
                     a.prompt);
  if (any_measured) {
    out += "Basis \"measured\": the machine's latest measured row of this model and quant in the history database "
           "(--measured-db), ranked first and judged on that figure (\"why\" names the run); \"predicted\": the "
           "setup model, as above. Band and TTFT stay the predicted ones.\n";
  }
  return out;
}

namespace {

Json or_null(bool has, double v) { return has ? Json(v) : Json(nullptr); }

Json evidence_json(const PlanEvidence& ev) {
  Json j = {{"claim", ev.id},          {"quant", ev.quant},       {"tok_s", ev.tok_s},
            {"figure", ev.figure},     {"same_quant", ev.same_quant}, {"verdict", ev.verdict},
            {"regime", ev.regime},     {"differs", ev.differs}};
  j["predicted_tok_s"] = or_null(ev.predicted_tok_s.has_value(), ev.predicted_tok_s.value_or(0));
  j["band_tok_s"] = ev.low_tok_s && ev.high_tok_s ? Json{*ev.low_tok_s, *ev.high_tok_s} : Json(nullptr);
  return j;
}

}  // namespace

Json plan_json(const PlanRequest& a, const std::vector<PlanRow>& rows) {
  Json req = {{"model", a.model},
              {"quant", a.quant},
              {"trunk_quant", a.trunk_quant.empty() ? Json(nullptr) : Json(a.trunk_quant)},
              {"context_tokens", a.context},
              {"prompt_tokens", a.prompt},
              {"min_decode_tok_s", a.min_tok_s},
              {"max_ttft_s", or_null(a.max_ttft_s > 0, a.max_ttft_s)},
              {"engine_family", a.engine_family},
              {"drives", a.drives ? Json(*a.drives) : Json(nullptr)},
              {"budget_bytes", a.budget_bytes ? Json(*a.budget_bytes) : Json(nullptr)},
              {"expert_bits", a.expert_bits ? Json(*a.expert_bits) : Json(nullptr)}};
  Json machines = Json::array();
  int rank = 0;
  for (const PlanRow& r : rows) {
    const bool fits = r.e.fits;
    Json m = {{"rank", ++rank},
              {"machine", r.name},
              {"profile", r.profile},
              {"meets", meets_text(r)},
              {"basis", r.measured ? "measured" : "predicted"},
              {"fits", fits},
              {"resident", fits ? Json(r.e.resident) : Json(nullptr)},
              {"regime", fits && !r.e.regime.empty() ? Json(r.e.regime) : Json(nullptr)},
              {"drives", fits ? Json(r.e.drives) : Json(nullptr)},
              {"why", r.reason}};
    m["decode_tok_s"] = {{"realistic", or_null(fits, r.e.tok_s_real)},
                         {"low", or_null(fits, r.e.tok_s_low)},
                         {"high", or_null(fits, r.e.tok_s_high)},
                         {"band_ratio", or_null(fits && r.e.tok_s_low > 0, r.e.band_ratio())},
                         {"measured", r.measured ? Json(r.measured->tok_s) : Json(nullptr)}};
    const bool ttft = fits && r.e.ttft_why.empty();
    m["ttft_s"] = or_null(ttft && r.e.ttft_s > 0, r.e.ttft_s);
    m["ttft_low_s"] = or_null(ttft && r.e.ttft_s <= 0, r.e.ttft_low_s);
    m["prefill_regime"] = ttft && !r.e.prefill_regime.empty() ? Json(r.e.prefill_regime) : Json(nullptr);
    m["price_usd"] = or_null(r.price > 0, r.price);
    m["price_basis"] = r.price > 0 ? Json(r.hourly ? "hourly" : "purchase") : Json(nullptr);
    m["usd_per_tok_s"] = or_null(r.price_per > 0, r.price_per);
    if (r.measured) {
      m["measured"] = {{"tok_s", r.measured->tok_s}, {"metric", r.measured->metric}, {"run_id", r.measured->run_id},
                       {"started_at", r.measured->started_at}, {"point_id", r.measured->point_id},
                       {"engine", r.measured->engine}, {"context_tokens", r.measured->context}};
    }
    Json published = Json::array();
    for (const PlanEvidence& ev : r.evidence) published.push_back(evidence_json(ev));
    m["published"] = published;
    machines.push_back(m);
  }
  return {{"request", req},
          {"ranked_by", "meeting the target first (measured before predicted), cheapest per tok/s (purchase before hourly, "
                        "unpriced last), then the rest by decode speed"},
          {"machines", machines}};
}

}  // namespace moebench
