// layer_split_test.cpp — llama.cpp's -ngl below the card's layers (the
// claim field gpu_layers): the GPU holds its share of the layers whole, the
// other layers and the output head stay in RAM and run on the CPU cores, on
// the threads the source states. Worked on the figure that needs it
// (llama.cpp #11474: DeepSeek-R1 UD-IQ1_S, 8 of 61 layers on an RTX 3090,
// 12 threads of an EPYC 9654) and on a regime case worked by hand.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/regimes.h"
#include "model/setup_model.h"
#include "test_support.h"

using namespace moebench;

namespace {

Claim ngl_claim(int gpu_layers) {
  Claim c;
  c.id = "ngl";
  c.model = "DeepSeek-R1 UD-IQ1_S";
  c.card = "deepseek-v3-671b";
  c.engine = "llama.cpp";
  c.hardware = "epyc-9654-768gb-rtx3090";
  c.quant = "UD-IQ1_S";
  c.expert_bits_per_weight = 1.58;
  c.trunk_quant = "q4_0";
  c.processor = "gpu";
  c.gpus = 1;
  c.threads = 12;
  c.gpu_layers = gpu_layers;
  c.drives = 1;
  c.context_tokens = 0;
  c.speculative = false;
  c.decode_tok_s = Reported{3.28, 3.28};
  return c;
}

bool has_step(const CaseEstimate& e, const std::string& name) {
  return std::any_of(e.steps.begin(), e.steps.end(), [&](const Step& s) { return s.name == name; });
}

}  // namespace

TEST_CASE("a layer split (-ngl below the layers): the GPU holds its share of the layers whole, the CPU runs the rest", "[setup][split]") {
  const auto card = testing::shipped_store().card("deepseek-v3-671b");
  REQUIRE(card);
  const MachineProfile m = testing::catalog_profile("epyc-9654-768gb-rtx3090");
  const std::vector<SetupCase> cases = plausible_cases(ngl_claim(8), *card, m);
  REQUIRE(cases.size() == 1);
  const SetupCase& k = cases.front();
  REQUIRE(k.contradiction.empty());
  const double share = 8.0 / card->total_layers();
  CHECK(k.gpu_layer_share == Approx(share));

  const CaseEstimate e = estimate_case(*card, m, k, EngineEfficiency{});
  REQUIRE(e.fits);
  CHECK(has_step(e, "layer split"));
  CHECK(e.parts.gpu_computes);
  CHECK_FALSE(e.parts.unified);  // a discrete card: its layers pay layer_s_gpu
  CHECK(e.parts.cpu_layers == card->total_layers() - 8);
  CHECK(e.parts.threads == 12);
  // Of what a token reads from memory, the GPU serves its layers' share
  // (the output head, read every token, stays in RAM: a little less).
  const double gpu_bytes = e.memory_bytes_tok - e.parts.cpu_bytes_tok;
  CHECK(gpu_bytes / e.memory_bytes_tok <= share);
  CHECK(gpu_bytes / e.memory_bytes_tok > 0.9 * share);
  // The CPU layers' matmuls are computed on the CPU cores.
  CHECK(e.parts.flops_cpu_peak_dec_s > 0.8 * (1 - share) * e.parts.flops_peak_s[1]);

  // Without the split the GPU holds the trunk of every layer first: far
  // more of each token comes from GPU memory.
  const CaseEstimate whole = estimate_case(*card, m, plausible_cases(ngl_claim(card->total_layers()), *card, m).front(), EngineEfficiency{});
  CHECK(whole.parts.cpu_layers == 0);
  CHECK(!has_step(whole, "layer split"));
  CHECK(whole.memory_bytes_tok - whole.parts.cpu_bytes_tok > 3 * gpu_bytes);

  // -ngl 0 on a GPU engine is a CPU run: a contradiction naming the field.
  CHECK_THAT(plausible_cases(ngl_claim(0), *card, m).front().contradiction, Catch::Contains("gpu_layers 0"));
  // A CPU engine's -ngl says nothing.
  Claim on_cpu = ngl_claim(8);
  on_cpu.processor = "cpu";
  CHECK(plausible_cases(on_cpu, *card, m).front().gpu_layer_share == 1.0);
}

TEST_CASE("a layer split's fixed costs: a GPU layer each on the GPU, a CPU layer and its barriers each on the CPU", "[regimes][split]") {
  RegimeParams q = RegimeParams::defaults();
  q.set("layer_s_gpu", 5e-6);
  q.set("layer_s_cpu", 10e-6);
  q.set("layer_s_thread", 0.1e-6);
  q.set("compute_eff", 0.25);
  q.set("mem_eff_cpu", 0.5);
  q.set("mem_eff_gpu", 0.5);
  CaseParts p;
  p.layers = 10;
  p.cpu_layers = 6;
  p.gpu_computes = true;
  p.threads = 4;
  p.cores = 16;
  for (double& x : p.mem_gpu_s) x = 0.001;
  for (double& x : p.mem_cpu_s) x = 0.01;
  RegimeTerms t = regime_terms(p, q);
  // 4 GPU layers × 5 µs + 6 CPU layers × (10 µs + 4 threads × 0.1 µs).
  CHECK(t.fixed_s == Approx(4 * 5e-6 + 6 * (10e-6 + 4 * 0.1e-6)));
  CHECK(t.regime == "hybrid");
  // The CPU's part of the flops runs on 4 of 16 cores; the GPU's at its peak.
  for (double& x : p.flops_peak_s) x = 0.01;
  p.flops_cpu_peak_dec_s = 0.008;
  t = regime_terms(p, q);
  CHECK(t.flops_s == Approx((0.002 + 0.008 * 16 / 4) / 0.25));
  CHECK(t.regime == "compute");
}

TEST_CASE("a GPU on unified memory is marked so: its layers pay layer_s_igpu, not a discrete card's cost", "[setup][regimes]") {
  const auto card = testing::shipped_store().card("gpt-oss-20b");
  REQUIRE(card);
  Claim c = ngl_claim(99);
  c.model = "gpt-oss-20b MXFP4";
  c.card = "gpt-oss-20b";
  c.quant = "mxfp4";
  c.expert_bits_per_weight.reset();
  c.threads.reset();
  c.gpu_layers.reset();
  c.hardware = "dgx-spark";
  const MachineProfile spark = testing::catalog_profile("dgx-spark");
  const std::vector<SetupCase> cases = plausible_cases(c, *card, spark);
  REQUIRE_FALSE(cases.empty());
  const CaseEstimate e = estimate_case(*card, spark, cases.front(), EngineEfficiency{});
  REQUIRE(e.fits);
  CHECK(e.parts.gpu_computes);
  CHECK(e.parts.unified);
  CHECK(e.parts.cpu_layers == 0);
  RegimeParams q = RegimeParams::defaults();
  q.set("layer_s_gpu", 100e-6);
  q.set("layer_s_igpu", 10e-6);
  // Every layer at the integrated GPU's cost: the discrete one never enters.
  CHECK(regime_terms(e.parts, q).fixed_s == Approx(e.parts.layers * 10e-6));
  // The same engine on the CPU cores of that machine pays CPU layers.
  c.processor = "cpu";
  const CaseEstimate on_cpu = estimate_case(*card, spark, plausible_cases(c, *card, spark).front(), EngineEfficiency{});
  REQUIRE(on_cpu.fits);
  CHECK_FALSE(on_cpu.parts.gpu_computes);
}
