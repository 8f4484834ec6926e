// reproduce_json.cpp — `moebench reproduce --json`: the reproduction as
// JSON, the same facts write_reproduction (reproduce.cpp) lays out as text:
// the claim, the reproduction's band, the setup model's prediction, the
// verdict, and per case what ran and what its row gave. A figure that is
// not there (a dry run, a failed row) is null.
#include "harness/reproduce.h"

namespace moebench {
namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json case_json(const EmulatedCase& ec, const ReproductionVerdict* v) {
  Json c = {{"label", ec.label},
            {"engine", ec.engine},
            {"quant", ec.quant},
            {"trunk_quant", ec.trunk_quant},
            {"budget_bytes", ec.budget_bytes ? Json(*ec.budget_bytes) : Json(nullptr)},
            {"drives", ec.drives},
            {"throttle_bytes_s", opt(ec.throttle_bytes_s)},
            {"context_tokens", ec.context},
            {"prompt_tokens", ec.prompt},
            {"gen_tokens", ec.gen},
            {"threads", ec.threads},
            {"dilation", ec.dilation},
            {"predicted_tok_s", ec.predicted_tok_s},
            {"derivation", ec.derivation},
            {"row", nullptr}};
  if (!v) return c;
  for (const ReproducedCase& rc : v->cases) {
    if (rc.c != &ec) continue;
    c["row"] = {{"status", rc.status},
                {"scaled_tok_s", opt(rc.scaled_tok_s)},
                {"here_full_tok_s", opt(rc.here_full_tok_s)},
                {"claimed_tok_s", opt(rc.claimed_tok_s)},
                {"claimed_ttft_s", opt(rc.claimed_ttft_s)},
                {"read_busy_bytes_s", opt(rc.read_busy_bytes_s)},
                {"caveat", rc.caveat}};
  }
  return c;
}

}  // namespace

Json reproduction_json(const ReproductionPlan& plan, const Claim& claim, const ClaimJudgement& judged,
                       const ReproductionVerdict* v) {
  Json out = {{"claim", {{"id", claim.id},
                         {"title", claim.title},
                         {"source", claim.source_label()},
                         {"machine", claim.machine ? Json(*claim.machine) : Json(nullptr)},
                         {"figure", claim.figure},
                         {"decode_tok_s", claim.decode_figure_tok_s()}}},
              {"scale", plan.scale},
              {"dry_run", v == nullptr && plan.cannot.empty()}};
  if (v) {
    out["verdict"] = v->verdict;
    out["reason"] = v->reason;
  } else if (!plan.cannot.empty()) {
    out["verdict"] = "cannot be emulated here";
    out["reason"] = plan.cannot;
  } else {
    out["verdict"] = nullptr;
    out["reason"] = nullptr;
  }
  out["reproduction_tok_s"] = v && v->low_tok_s ? Json{{"low", *v->low_tok_s}, {"high", v->high_tok_s.value_or(*v->low_tok_s)}}
                                                : Json(nullptr);
  out["prediction"] = judged.predicted_tok_s
                          ? Json{{"realistic_tok_s", *judged.predicted_tok_s},
                                 {"low_tok_s", opt(judged.predicted_low_tok_s)},
                                 {"high_tok_s", opt(judged.predicted_high_tok_s)},
                                 {"band_ratio", judged.band_ratio()},
                                 {"regime", judged.regime},
                                 {"claims_verdict", judged.verdict}}
                          : Json(nullptr);
  Json cases = Json::array();
  for (const EmulatedCase& ec : plan.cases) cases.push_back(case_json(ec, v));
  out["cases"] = cases;
  out["skipped"] = plan.skipped;
  out["notes"] = plan.notes;
  out["predicted_run_s"] = plan.predicted_run_s;
  return out;
}

}  // namespace moebench
