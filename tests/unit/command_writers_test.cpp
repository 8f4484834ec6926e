// command_writers_test.cpp — the claims and plan writers on small fixed
// rows: the exact table text and the verdict filter.
#include <catch2/catch.hpp>

#include "harness/claim_review.h"
#include "harness/machine_plan.h"

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

TEST_CASE("claims table: one row per claim, counts per verdict, the filter", "[claims]") {
  const std::vector<JudgedClaim> all = {judged("a", "implausible", true), judged("b", "under-specified", false),
                                        judged("c", "implausible", false)};
  CHECK(write_claims_table(all, "") ==
        "| claim | reported | predicted | implied storage | implied memory | verdict | reason |\n"
        "|---|---|---|---|---|---|---|\n"
        "| a | 5 tok/s | 1.000–2.500 tok/s | 3.25 GB/s | – | implausible | why a |\n"
        "| b | 5 tok/s | – | – | – | under-specified | why b |\n"
        "| c | 5 tok/s | – | – | – | implausible | why c |\n"
        "\n3 claims: 2 implausible, 1 under-specified. `moebench claims --explain ID` shows a derivation.\n");
  const std::string only = write_claims_table(all, "under-specified");
  CHECK(only.find("| a |") == std::string::npos);
  CHECK(only.find("3 claims: 1 under-specified.") != std::string::npos);
  CHECK(write_claims_table(all, "consistent").find("3 claims: none consistent.") != std::string::npos);
  const Json j = claims_json(all, "implausible");
  REQUIRE(j.size() == 2);
  CHECK(j[0]["predicted_tok_s"] == Json::array({1.0, 2.5}));
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
  CHECK(write_plan_table(req, {fits, no}) ==
        "moebench plan: kimi-k3, experts in mxfp4, trunk in the card's quant, context 4096, target >= 1.000 tok/s decode, "
        "TTFT <= 10.0 s\n\n"
        "| rank | machine | meets | decode tok/s (realistic) | band | TTFT lower bound | drives | price | price per tok/s | why |\n"
        "|---:|---|---|---:|---|---:|---:|---:|---:|---|\n"
        "| 1 | box | yes | 1.800 | 1.500–2.250 | 3.50 s | 2 | $2000 | $889 | streams |\n"
        "| 2 | small | no | – | – | – | – | – | – | does not fit: too small |\n"
        "\nPredicted by the setup model (engines/analytic/setup_model.h) from each profile's figures (spec ranges; "
        "measured for a probed machine) and the fitted engine efficiencies: \"yes\" needs the whole band to clear "
        "the target, \"likely\" the realistic value; the band runs from the slow to the fast end. Streaming setups pin the trunk first and cache "
        "experts in what is left. TTFT is a lower bound for a 1000-token prompt.\n");
}
