// machine_plan.h — `moebench plan` as a library: rank machine profiles for a
// model at a target decode speed (model/claim_check.h's
// estimate_machine per profile, the fewest drives that reach the target),
// and the writer for the ranking table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/claim_check.h"
#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

struct PlanRequest {
  std::string model;
  std::string quant;  // resolved (never empty)
  double min_tok_s = 0;
  std::int64_t context = 4096;
  std::int64_t prompt = 1000;
  double max_ttft_s = 0;  // 0: no limit
  std::string trunk_quant;               // "" = the card's
  std::optional<double> budget_bytes;    // nullopt = usable memory
  std::string routing;                   // "" = the fitted default_real_routing()
  std::string engine_family = "any";     // whose efficiencies (and defaults: processor, residency, prefill chunk)
  std::optional<int> drives;             // a fixed drive count (default: the fewest that reach the target)
  std::optional<double> expert_bits;     // bits per routed-expert weight instead of the quant's
};

// A published measurement of the planned model on a row's machine, from
// the claims database (configs/claims): its figure beside the prediction.
struct PlanEvidence {
  std::string id, quant;   // the claim, and its quant as stated
  double tok_s = 0;        // decode figure (the geometric middle of a range)
  std::string figure;      // steady_decode | run_average | unknown
  bool same_quant = false; // the claim names the planned expert quant
  // `claims`'s answer for the claim's own setup (the same estimator), and
  // the conditions where that setup differs from the plan's.
  std::optional<double> predicted_tok_s, low_tok_s, high_tok_s;
  std::string verdict, regime;
  std::vector<std::string> differs;
};

// A decode rate measured for the planned model and quant on a plan row's
// machine, from a history database (`plan --measured-db`).
struct PlanMeasured {
  double tok_s = 0;
  std::string metric;   // decode_tok_s (the card at full size) or full_decode_tok_s (a scaled card's full-model figure)
  std::string run_id, started_at, point_id, engine;
  std::int64_t context = 0;
};

struct PlanRow {
  std::string name, price_text;
  std::string profile;  // the profile's name (`name` may add "(this machine)")
  std::optional<PlanMeasured> measured;
  MachineEstimate e;
  bool meets = false;   // the whole band clears the target
  bool likely = false;  // the realistic value does, the slow end does not
  bool unknown = false; // it must stream and the profile lists no drive: no number, not "no"
  std::string reason;
  double price = 0, price_per = 0;
  bool hourly = false;
  std::vector<PlanEvidence> evidence;
  std::optional<PowerInfo> power;  // the profile's, when it has one
};

// `sources`: hardware names or profile files, looked up in `store`;
// `this_machine` (when one of them) is labelled "(this machine)". Rows come
// ranked: meeting the target first (cheapest per tok/s, unpriced last), then
// the rest by speed.
Expected<std::vector<PlanRow>> plan_machines(const ConfigStore& store, const ModelCard& card, const PlanRequest& req,
                                             const std::vector<std::string>& sources, const std::string& this_machine,
                                             const EfficiencyTable* efficiency = nullptr, const RegimeFit* regimes = nullptr);

// Each row's measured figure, where the history holds one: the latest run's
// ok row of the planned model and quant on that machine (full-size rows by
// decode_tok_s, scaled ones by full_decode_tok_s), the context nearest the
// plan's.
class HistoryDb;
Expected<std::map<std::string, PlanMeasured>> measured_from_history(const HistoryDb& db, const PlanRequest& req,
                                                                    const std::vector<PlanRow>& rows);

// Ranks the machines with a measured figure first — judged on it: meeting
// the target cheapest per measured tok/s, then by measured speed — and the
// predicted rest after them in their order.
void rank_measured_first(std::vector<PlanRow>& rows, const std::map<std::string, PlanMeasured>& measured,
                         const PlanRequest& req);

// The header, the ranking table and its footnote (a "basis" column when a
// row is measured).
std::string write_plan_table(const PlanRequest& req, const std::vector<PlanRow>& rows);

// The same ranking as JSON (`plan --json`): {"request": …, "ranked_by": …,
// "machines": [{rank, machine, meets: "yes"|"likely"|"unknown"|"no", basis,
// decode_tok_s {realistic, low, high, band_ratio}, regime, ttft_s,
// drives, price_usd, price_basis, usd_per_tok_s, why, published: […]}]}.
// A figure a row does not have is null.
Json plan_json(const PlanRequest& req, const std::vector<PlanRow>& rows);

}  // namespace moebench
