// one_answer_test.cpp — one question, one answer: for one setup (model,
// quants, machine, budget, drives, context, engine family) `claims`
// (judge_claim) and `plan` (estimate_machine) price it with the same regime
// fit (configs/fits/regimes.json) and print the same realistic figure,
// band and regime; `reproduce --dry-run` prints the claim's judgement. Then
// the stored fit: it loads, refuses a value outside its physical range with
// the JSON path, and is what the fit on the published figures gives.
#include <catch2/catch.hpp>

#include <cmath>

#include "harness/claim_review.h"
#include "harness/model_validation.h"
#include "harness/regime_validation.h"
#include "model/claim_check.h"
#include "model/regime_store.h"
#include "test_support.h"
#include "vocab/quant_format.h"

using namespace moebench;

namespace {

RegimeFit shipped_fit() {
  auto fit = stored_regimes(testing::shipped_store());
  REQUIRE(fit);
  REQUIRE(fit->has_value());
  return **fit;
}

// A setup, stated in full once and asked both ways.
struct Setup {
  std::string card, hardware, engine, quant, trunk_quant;
  double expert_bits = 0;  // 0: the quant's
  double budget_bytes = 0; // 0: usable memory
  int drives = 1;
  std::int64_t context = 4096;
};

Claim as_claim(const Setup& s) {
  Claim c;
  c.id = "setup-" + s.card + "-" + s.hardware;
  c.model = s.card;
  c.card = s.card;
  c.hardware = s.hardware;
  c.engine = s.engine;
  c.quant = s.quant;
  if (s.expert_bits > 0) c.expert_bits_per_weight = s.expert_bits;
  c.trunk_quant = s.trunk_quant;
  if (s.budget_bytes > 0) c.ram_budget_bytes = static_cast<std::uint64_t>(s.budget_bytes);
  c.drives = s.drives;
  c.context_tokens = s.context;
  c.speculative = false;
  c.figure = "steady_decode";
  c.decode_tok_s = Reported{1, 1};
  return c;
}

MachineSetup as_plan(const Setup& s) {
  MachineSetup m;
  m.quant = s.quant;
  if (s.expert_bits > 0) m.expert_bits = s.expert_bits;
  m.trunk_quant = s.trunk_quant;
  if (s.budget_bytes > 0) m.budget_bytes = s.budget_bytes;
  m.drives = s.drives;
  m.context = s.context;
  m.engine_family = engine_family(s.engine);
  return m;
}

}  // namespace

TEST_CASE("claims and plan give one setup the same realistic figure, band and regime", "[regimes][one-answer]") {
  const RegimeFit fit = shipped_fit();
  const std::vector<Setup> setups = {
      // The question of the issue: Kimi K3 under WASTE on the 64 GB M5 Pro (its article's setup).
      {"kimi-k3", "macbook-pro-m5-pro-64gb", "WASTE", "3-bit residual VQ", "q4g", 2.8, 29.06e9, 1, 4096},
      // DeepSeek V3 in the memory of a 512 GB M3 Ultra under llama.cpp.
      {"deepseek-v3-671b", "mac-studio-m3-ultra-512gb", "llama.cpp", "q4_0", "q8_0", 0, 0, 1, 0},
      // Qwen3-235B on a Threadripper PRO with an A6000, ik_llama.cpp.
      {"qwen3-235b-a22b", "tr-pro-7965wx-256gb-a6000", "ik_llama.cpp", "q8_0", "q8_0", 0, 0, 1, 512},
      // Kimi K3 streamed by kimi-k3-in-c from one drive with a 128 GB budget on a dual-EPYC cloud box.
      {"kimi-k3", "epyc-7j13-2s-oracle-denseio", "kimi-k3-in-c", "mxfp4", "bf16", 0, 128e9, 1, 4096},
  };
  for (const Setup& s : setups) {
    INFO(s.card << " on " << s.hardware << " with " << s.engine);
    const ModelCard card = *testing::shipped_store().card(s.card);
    const MachineProfile m = testing::catalog_profile(s.hardware);
    const ClaimJudgement j = judge_claim(as_claim(s), &card, &m, nullptr, &fit);
    const MachineEstimate e = estimate_machine(card, as_plan(s), m, nullptr, &fit);
    INFO(j.verdict << ": " << j.reason << " / plan: " << e.why);
    REQUIRE(j.predicted_tok_s);
    REQUIRE(e.fits);
    CHECK(j.cases.size() == 1);  // every condition stated: one case
    CHECK(*j.predicted_tok_s == Approx(e.tok_s_real).epsilon(1e-9));
    CHECK(*j.predicted_low_tok_s == Approx(e.tok_s_low).epsilon(1e-9));
    CHECK(*j.predicted_high_tok_s == Approx(e.tok_s_high).epsilon(1e-9));
    CHECK(j.regime == e.regime);
    CHECK_FALSE(j.regime.empty());
    // The band ratio printed beside the answer is the regime's spread both ways.
    CHECK(j.band_ratio() == Approx(std::exp(2 * fit.spread.at(j.regime))).epsilon(1e-9));
  }
}

TEST_CASE("the stored regime fit refuses a value outside its physical range, naming the JSON path", "[regimes][one-answer]") {
  const RegimeFit fit = shipped_fit();
  Json j = regime_fit_json(fit, "test");
  auto back = load_config_text<RegimeFit>(j.dump(), "regimes.json", load_regime_fit);
  REQUIRE(back);
  CHECK(back->params.get("mem_eff_cpu") == Approx(fit.params.get("mem_eff_cpu")));
  CHECK(back->params.family == fit.params.family);
  CHECK(back->spread == fit.spread);
  for (Json& p : j["parameters"]) {
    if (p["name"] == "mem_eff_gpu") p["value"] = 0.05;  // a twentieth of the bandwidth: a missing term, not a parameter
  }
  auto bad = load_config_text<RegimeFit>(j.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("/parameters/3/value") && Catch::Contains("physical range"));
  Json unknown = regime_fit_json(fit, "test");
  unknown["parameters"].push_back({{"name", "magic"}, {"value", 1}});
  auto bad2 = load_config_text<RegimeFit>(unknown.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad2);
  CHECK_THAT(bad2.error().message, Catch::Contains("unknown regime parameter \"magic\""));
  // A fit written before a parameter existed lacks its entry: refused, naming it.
  Json old = regime_fit_json(fit, "test");
  Json kept = Json::array();
  for (const Json& p : old["parameters"]) {
    if (p["name"] != "layer_s_igpu") kept.push_back(p);
  }
  old["parameters"] = kept;
  auto bad_old = load_config_text<RegimeFit>(old.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad_old);
  CHECK_THAT(bad_old.error().message, Catch::Contains("/parameters") && Catch::Contains("\"layer_s_igpu\"") &&
                                          Catch::Contains("--write-fit"));
  // A family key as no engine is named never matches: refused, not ignored.
  Json upper = regime_fit_json(fit, "test");
  upper["parameters"][0]["family"]["LLAMA.CPP"] = 0.5;
  auto bad3 = load_config_text<RegimeFit>(upper.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad3);
  CHECK_THAT(bad3.error().message, Catch::Contains("/parameters/0/family/LLAMA.CPP") && Catch::Contains("\"llama.cpp\""));
  // A per-kind parameter's keys name a GPU maker: "@apple", "llama.cpp@apple".
  Json kinds = regime_fit_json(fit, "test");
  std::size_t gpu_index = 0;
  for (std::size_t i = 0; i < kinds["parameters"].size(); ++i) {
    if (kinds["parameters"][i]["name"] == "prefill_eff_gpu") gpu_index = i;
  }
  kinds["parameters"][gpu_index]["family"] = Json{{"@apple", 0.4}, {"llama.cpp@amd", 0.1}};
  auto good = load_config_text<RegimeFit>(kinds.dump(), "regimes.json", load_regime_fit);
  REQUIRE(good);
  CHECK(good->params.for_family("llama.cpp", "amd").get("prefill_eff_gpu") == Approx(0.1));
  CHECK(good->params.for_family("mlx-lm", "apple").get("prefill_eff_gpu") == Approx(0.4));
  kinds["parameters"][gpu_index]["family"] = Json{{"llama.cpp", 0.4}};
  auto bad5 = load_config_text<RegimeFit>(kinds.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad5);
  CHECK_THAT(bad5.error().message, Catch::Contains("/parameters/" + std::to_string(gpu_index) + "/family/llama.cpp") &&
                                       Catch::Contains("per GPU kind"));
  kinds["parameters"][gpu_index]["family"] = Json{{"@voodoo", 0.4}};
  CHECK_FALSE(load_config_text<RegimeFit>(kinds.dump(), "regimes.json", load_regime_fit));
  // A per-CPU-kind parameter's keys name a datapath, or a family alone.
  kinds["parameters"][gpu_index]["family"] = Json::object();
  std::size_t cpu_index = 0;
  for (std::size_t i = 0; i < kinds["parameters"].size(); ++i) {
    if (kinds["parameters"][i]["name"] == "prefill_eff_cpu") cpu_index = i;
  }
  kinds["parameters"][cpu_index]["family"] = Json{{"@simd512", 0.2}, {"llama.cpp", 0.1}, {"ik_llama.cpp@simd256", 0.3}};
  auto cpu_good = load_config_text<RegimeFit>(kinds.dump(), "regimes.json", load_regime_fit);
  if (!cpu_good) FAIL(cpu_good.error().message);
  CHECK(cpu_good->params.for_family("ik_llama.cpp", Kinds("", "simd256")).get("prefill_eff_cpu") == Approx(0.3));
  CHECK(cpu_good->params.for_family("llama.cpp", Kinds("", "simd512")).get("prefill_eff_cpu") == Approx(0.1));
  CHECK(cpu_good->params.for_family("mlx-lm", Kinds("", "simd512")).get("prefill_eff_cpu") == Approx(0.2));
  kinds["parameters"][cpu_index]["family"] = Json{{"@avx2", 0.2}};
  auto cpu_bad = load_config_text<RegimeFit>(kinds.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(cpu_bad);
  CHECK_THAT(cpu_bad.error().message, Catch::Contains("/family/@avx2") && Catch::Contains("per CPU kind") && Catch::Contains("simd256"));
  upper = regime_fit_json(fit, "test");
  upper["parameters"][0]["family"]["llama.cpp@apple"] = 0.5;  // mem_eff_cpu is per family only
  CHECK_FALSE(load_config_text<RegimeFit>(upper.dump(), "regimes.json", load_regime_fit));
  // One entry per parameter: a second one would silently win.
  Json twice = regime_fit_json(fit, "test");
  twice["parameters"].push_back(twice["parameters"][0]);
  auto bad4 = load_config_text<RegimeFit>(twice.dump(), "regimes.json", load_regime_fit);
  REQUIRE_FALSE(bad4);
  CHECK_THAT(bad4.error().message, Catch::Contains("appears twice"));
}

TEST_CASE("the stored regime fit is what the fit on every published figure gives", "[regimes][one-answer][published]") {
  const ConfigStore& store = testing::shipped_store();
  auto figures = load_published(store, std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published");
  REQUIRE(figures);
  const RegimeInputs in = regime_inputs(*figures);
  // The parameters are the fit on every figure; the band spreads are those
  // of every figure left out of its own fit (validate-model --regimes source).
  const RegimeFit fresh = validate_regimes(in, "source").full;
  const RegimeFit stored = shipped_fit();
  CHECK(stored.figures == fresh.figures);
  for (const RegimeParam& p : fresh.params.p) {
    INFO(p.name);
    CHECK(stored.params.get(p.name) == Approx(p.value).epsilon(1e-6));
  }
  CHECK(stored.params.family.size() == fresh.params.family.size());
  for (const auto& [name, fams] : fresh.params.family) {
    for (const auto& [family, v] : fams) {
      INFO(name << " [" << family << "]");
      CHECK(stored.params.family.at(name).at(family) == Approx(v).epsilon(1e-6));
    }
  }
  for (const auto& [regime, s] : fresh.spread) {
    INFO(regime);
    CHECK(stored.spread.at(regime) == Approx(s).epsilon(1e-6));
  }
}
