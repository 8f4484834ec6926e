// command_writers_test.cpp — the claims and plan writers on small fixed
// rows: the exact table text and the verdict filter.
#include <catch2/catch.hpp>

#include <map>

#include "harness/claim_review.h"
#include "harness/machine_plan.h"
#include "test_support.h"

using namespace moebench;

namespace {

JudgedClaim judged(const std::string& id, const std::string& verdict, bool predicted) {
  JudgedClaim x;
  x.claim.id = id;
  x.j.id = id;
  x.j.reported = "5 tok/s";
  x.j.verdict = verdict;
  x.j.reason = "why " + id;
  if (predicted) {
    x.j.predicted_low_tok_s = 1.0;
    x.j.predicted_high_tok_s = 2.5;
    x.j.implied_storage_bytes_s = 3.25e9;
  }
  return x;
}

}  // namespace

TEST_CASE("claims table: one row per claim, counts per verdict, the filters", "[claims]") {
  std::vector<JudgedClaim> all = {judged("a", "implausible", true), judged("b", "under-specified", false),
                                  judged("c", "implausible", false)};
  all[0].claim.card = "kimi-k3";
  all[0].claim.hardware = "macbook-pro-m5-pro-64gb";
  all[1].claim.model = "Qwen3-235B-A22B";
  all[1].claim.machine = "a Threadripper box";
  CHECK(write_claims_table(all) ==
        "| claim | model | machine | reported | predicted | implied storage | implied memory | verdict | reason |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| a | kimi-k3 | macbook-pro-m5-pro-64gb | 5 tok/s | 1.000–2.500 tok/s (×2.5) | 3.25 GB/s | – | implausible | why a |\n"
        "| b | Qwen3-235B-A22B | a Threadripper box | 5 tok/s | – | – | – | under-specified | why b |\n"
        "| c | – | – | 5 tok/s | – | – | – | implausible | why c |\n"
        "\n3 claims: 2 implausible, 1 under-specified. `moebench claims --explain ID` shows a derivation.\n");
  const std::string only = write_claims_table(all, {"under-specified", "", ""});
  CHECK(only.find("| a |") == std::string::npos);
  CHECK(only.find("3 claims: 1 under-specified.") != std::string::npos);
  CHECK(write_claims_table(all, {"consistent", "", ""}).find("3 claims: none consistent.") != std::string::npos);
  // Machine and model filters match words in any case.
  const std::string m5 = write_claims_table(all, {"", "M5-PRO", ""});
  CHECK(m5.find("| a |") != std::string::npos);
  CHECK(m5.find("| b |") == std::string::npos);
  CHECK(m5.find("1 claims of 3 on that machine and model: 1 implausible.") != std::string::npos);
  CHECK(write_claims_table(all, {"", "", "qwen3"}).find("| b |") != std::string::npos);
  CHECK(write_claims_table(all, {"", "", "qwen3"}).find("| a |") == std::string::npos);
  const Json j = claims_json(all, {"implausible", "", ""});
  REQUIRE(j.size() == 2);
  CHECK(j[0]["model"] == "kimi-k3");
  CHECK(j[0]["machine"] == "macbook-pro-m5-pro-64gb");
  CHECK(j[0]["predicted_tok_s"] == Json::array({1.0, 2.5}));
  CHECK(j[0]["band_ratio"] == 2.5);
  CHECK(j[0]["implied_storage_bytes_s"] == 3.25e9);
  CHECK_FALSE(j[1].contains("predicted_tok_s"));
}

TEST_CASE("plan table: header, ranked rows, footnote", "[plan]") {
  PlanRequest req{"kimi-k3", "mxfp4", 1, 4096, 1000, 10};
  PlanRow fits;
  fits.name = "box";
  fits.meets = true;
  fits.e.tok_s_low = 1.5;
  fits.e.tok_s_high = 2.25;
  fits.e.ttft_low_s = 3.5;
  fits.e.ttft_s = 4.0;
  fits.e.regime = "memory-cpu";
  fits.e.prefill_regime = "prefill-cpu";
  fits.e.drives = 2;
  fits.price_text = "$2000";
  fits.price_per = 888.9;
  fits.reason = "streams";
  PlanRow no;
  no.name = "small";
  no.e.fits = false;
  no.price_text = "–";
  no.reason = "does not fit: too small";
  fits.e.tok_s_real = 1.8;
  PlanRow driveless = no;
  driveless.name = "server";
  driveless.unknown = true;
  driveless.reason = "unknown: no drive";
  CHECK(write_plan_table(req, {fits, driveless}).find("| 2 | server | unknown | – |") != std::string::npos);
  // A published measurement on the machine stands beside the prediction.
  fits.evidence.push_back({"feed-box", "mxfp4", 1.2, "steady_decode", true});
  fits.evidence.push_back({"feed-box-q2", "Q2_K", 3.0, "run_average", false});
  CHECK(write_plan_table(req, {fits, no}) ==
        "moebench plan: kimi-k3, experts in mxfp4, trunk in the card's quant, context 4096, target >= 1.000 tok/s decode, "
        "TTFT <= 10.0 s\n\n"
        "| rank | machine | meets | decode tok/s (realistic) | band | regime | TTFT | drives | price | price per tok/s | why | published on this machine |\n"
        "|---:|---|---|---:|---|---|---:|---:|---:|---:|---|---|\n"
        "| 1 | box | yes | 1.800 | 1.500–2.250 (×1.5) | memory-cpu | 4.0 s (prefill-cpu) | 2 | $2000 | $889 | streams | 1.200 tok/s (feed-box; same quant, "
        "×0.67 the realistic, below the band); 3.000 tok/s (feed-box-q2; quant Q2_K; run average, ×1.67 the realistic, above the band) |\n"
        "| 2 | small | no | – | – | – | – | – | – | – | does not fit: too small | – |\n"
        "\nPredicted by the setup model (model/setup_model.h) from each profile's figures (spec ranges; "
        "measured for a probed machine), priced by the regime fit (configs/fits/regimes.json; docs/model.md): \"yes\" needs "
        "the whole band to clear the target, \"likely\" the realistic value; the band is the realistic value widened by its "
        "regime's spread each way (its ratio in brackets). Ranked: machines that meet the target first, cheapest per tok/s, "
        "then the rest by speed. Streaming setups pin the trunk first and cache "
        "experts in what is left. TTFT: a 1000-token prompt at its prefill regime's rate (a lower bound, ≥, without the "
        "regime fit). \"Published on this machine\": the decode "
        "figures of the claims database (configs/claims) for this model on that profile, as measured, with their quant; "
        "compare like with like.\n");
}

TEST_CASE("plan --json: the same ranking, a figure a row lacks is null", "[plan]") {
  PlanRequest req{"kimi-k3", "mxfp4", 1, 4096, 1000, 0};
  PlanRow fits;
  fits.name = "box";
  fits.profile = "box";
  fits.meets = true;
  fits.e.tok_s_low = 1.5;
  fits.e.tok_s_real = 1.8;
  fits.e.tok_s_high = 2.25;
  fits.e.ttft_s = 4.0;
  fits.e.regime = "memory-cpu";
  fits.e.drives = 2;
  fits.price = 3.5;
  fits.hourly = true;
  fits.price_per = 3.5 / 1.8;
  fits.evidence.push_back({"feed-box", "mxfp4", 1.2, "steady_decode", true});
  PlanRow no;
  no.name = "small";
  no.e.fits = false;
  no.reason = "does not fit: too small";
  const Json j = plan_json(req, {fits, no});
  CHECK(j["request"]["model"] == "kimi-k3");
  CHECK(j["request"]["max_ttft_s"].is_null());
  CHECK(j["ranked_by"].get<std::string>().find("cheapest per tok/s") != std::string::npos);
  REQUIRE(j["machines"].size() == 2);
  const Json& a = j["machines"][0];
  CHECK(a["rank"] == 1);
  CHECK(a["meets"] == "yes");
  CHECK(a["basis"] == "predicted");
  CHECK(a["decode_tok_s"]["realistic"] == 1.8);
  CHECK(a["decode_tok_s"]["band_ratio"] == 1.5);
  CHECK(a["ttft_s"] == 4.0);
  CHECK(a["ttft_low_s"].is_null());
  CHECK(a["price_usd"] == 3.5);
  CHECK(a["price_basis"] == "hourly");  // a price and its basis apart, never "$3.50/h" in one field
  CHECK(a["published"][0]["claim"] == "feed-box");
  const Json& b = j["machines"][1];
  CHECK(b["meets"] == "no");
  CHECK(b["decode_tok_s"]["realistic"].is_null());
  CHECK(b["drives"].is_null());
  CHECK(b["price_usd"].is_null());
  CHECK(b["why"] == "does not fit: too small");
}

TEST_CASE("plan rows carry the claims database's figures for that model on that machine", "[plan]") {
  const ConfigStore& store = testing::shipped_store();
  auto card = store.card("kimi-k3");
  REQUIRE(card);
  PlanRequest req{"kimi-k3", "mxfp4", 1, 4096, 1000, 0};
  auto rows = plan_machines(store, *card, req, {"a100-40gb-x4", "macbook-pro-m5-max-128gb", "apple-m5-24gb"}, "");
  REQUIRE(rows);
  std::map<std::string, std::vector<PlanEvidence>> by;
  for (const PlanRow& r : *rows) by[r.name] = r.evidence;
  // ComputingForGeeks' 0.10 tok/s on 4 x A100 (UD-IQ1_S, another quant).
  REQUIRE(by["a100-40gb-x4"].size() == 1);
  CHECK(by["a100-40gb-x4"][0].id == "article-cfg-k3-ud-iq1s-4xa100-40gb");
  CHECK(by["a100-40gb-x4"][0].tok_s == Approx(0.10));
  CHECK_FALSE(by["a100-40gb-x4"][0].same_quant);
  // The M5 Max drive ladder: one figure per drive count and length.
  CHECK(by["macbook-pro-m5-max-128gb"].size() >= 4);
  CHECK(by["apple-m5-24gb"].empty());
}
