// claim_check_test.cpp — the claims arithmetic on known answers (the
// article's divisions), verdicts on the shipped claims, the buying plan's
// estimates, and the calibration fit on rows with a known answer.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/calibration.h"
#include "model/claim_check.h"
#include "test_support.h"

using namespace moebench;

namespace {
MachineProfile catalog(const std::string& name) { return testing::catalog_profile(name); }
Claim shipped_claim(const std::string& id) {
  const ConfigStore& store = testing::shipped_store();
  for (const std::string& name : store.names("claims")) {
    auto src = store.find("claims", name);
    REQUIRE(src);
    auto claims = load_config_text<std::vector<Claim>>(src->text, src->label, load_claims);
    REQUIRE(claims);
    for (const Claim& c : *claims) {
      if (c.id == id) return c;
    }
  }
  FAIL("no claim " << id);
  return {};
}
}  // namespace

TEST_CASE("the article's division: 594 GB on a 128 GB machine reads ~79 % from the SSD every token", "[claims]") {
  CHECK(storage_share(594e9, 128e9) == Approx(0.785).margin(0.005));
  CHECK(storage_share(100e9, 200e9) == 0.0);
}

TEST_CASE("kimi-k3-in-c at 32.69 s/token in 8.24 GB implies ~4 GB/s from storage (article: ~135 GB at 32.69 s)", "[claims]") {
  const Claim c = shipped_claim("k3c-k3-epyc-laptop-preset-8gb");
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card);
  const MachineProfile m = catalog("epyc-7763-2s-228gb");
  const ClaimJudgement j = judge_claim(c, &*card, &m);
  REQUIRE(j.implied_storage_bytes_s);
  // 135 GB / 32.69 s = 4.13 GB/s; the card's trunk-streamed bytes are
  // within a few percent of the article's 135 GB.
  CHECK(*j.implied_storage_bytes_s == Approx(135e9 / 32.69).epsilon(0.10));
  CHECK(j.verdict == "consistent");
  CHECK_FALSE(j.steps.empty());
}

TEST_CASE("a claim faster than its machine can move the bytes is implausible, unknown parts are under-specified", "[claims]") {
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card);
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  Claim c = shipped_claim("waste-k3-m5pro-article");
  c.decode_tok_s = Reported{50, 50};
  CHECK(judge_claim(c, &*card, &m).verdict == "implausible");
  CHECK(judge_claim(c, nullptr, &m).verdict == "under-specified");
  CHECK(judge_claim(c, &*card, nullptr).verdict == "under-specified");
  c.decode_tok_s = Reported{0.001, 0.001};
  CHECK(judge_claim(c, &*card, &m).verdict == "below-band");
}

TEST_CASE("every shipped claim gets a verdict and a reason", "[claims]") {
  const ConfigStore& store = testing::shipped_store();
  int n = 0;
  for (const std::string& name : store.names("claims")) {
    auto src = store.find("claims", name);
    auto claims = load_config_text<std::vector<Claim>>(src->text, src->label, load_claims);
    REQUIRE(claims);
    for (const Claim& c : *claims) {
      std::optional<ModelCard> card;
      if (c.card) card = *store.card(*c.card);
      if (card && c.scale) card = *apply_scale(*card, *c.scale);
      std::optional<MachineProfile> m;
      if (c.hardware) m = catalog(*c.hardware);
      const ClaimJudgement j = judge_claim(c, card ? &*card : nullptr, m ? &*m : nullptr);
      INFO(c.id);
      CHECK((j.verdict == "consistent" || j.verdict == "consistent-if" || j.verdict == "optimistic" ||
             j.verdict == "implausible" || j.verdict == "below-band" || j.verdict == "under-specified" || j.verdict == "contradictory"));
      CHECK_FALSE(j.reason.empty());
      ++n;
    }
  }
  CHECK(n >= 15);
}

TEST_CASE("plan: more drives make a streaming machine faster, and the whole model on GPUs reads nothing from storage", "[claims]") {
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card);
  const MachineProfile m = catalog("macbook-pro-m5-max-128gb");
  MachineSetup s;
  s.quant = "mxfp4";
  s.drives = 1;
  const MachineEstimate one = estimate_machine(*card, s, m);
  s.drives = 4;
  const MachineEstimate four = estimate_machine(*card, s, m);
  REQUIRE(one.fits);
  CHECK_FALSE(one.resident);
  CHECK(four.tok_s_real > 1.5 * one.tok_s_real);
  CHECK(one.tok_s_low <= one.tok_s_real);
  CHECK(one.tok_s_real <= one.tok_s_high);
  s.drives = 1;
  const MachineEstimate gpu = estimate_machine(*card, s, catalog("b300-x8"));
  CHECK(gpu.fits);
  CHECK(gpu.resident);
  CHECK(gpu.storage_share == 0.0);
}

TEST_CASE("calibration recovers the factors that made the rows", "[analytic]") {
  // Rows made with io 0.6, compute 0.8, overlap 0.7: the fit finds them.
  const Efficiency truth{0.6, 0.8, 0.7};
  std::vector<CalibrationRow> rows;
  for (int i = 0; i < 16; ++i) {
    CalibrationRow r;
    r.streaming = i % 4 != 0;
    r.pre_s = 0.05 + 0.01 * i;
    r.post_s = 0.03 + 0.005 * (i % 5);
    r.io_s = r.streaming ? 0.02 * (i % 7 + 1) : 0;
    r.fit = i % 2 == 0;
    r.measured_tok_s = predicted_tok_s(r, truth);
    rows.push_back(r);
  }
  const CalibrationFit fit = fit_efficiency(rows);
  CHECK(fit.eff.compute == Approx(0.8).epsilon(0.03));
  CHECK(fit.eff.io == Approx(0.6).epsilon(0.05));
  CHECK(fit.holdout_median_err < 0.02);
  CHECK(fit.fit_rows == 8);
  CHECK(fit.holdout_rows == 8);
}
