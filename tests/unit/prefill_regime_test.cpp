// prefill_regime_test.cpp — the prefill regimes (model/regimes.h) on cases
// worked by hand: a pass over a ubatch reads its weights and then computes
// them on whoever computes it (the two add); a hybrid engine copies its
// CPU-held experts to the GPU by its own rule (llama.cpp: passes of 32
// tokens and more), else where that beats
// the CPU cores; the pass's tokens share one sequence's KV. Then
// how a published prefill figure becomes cases (model/prefill_check.h: the
// ubatch stated, the family's default, cut to the prompt), and the fit's
// per-family efficiencies (model/regime_fit.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "model/case_peaks.h"
#include "model/engine_families.h"
#include "model/prefill_check.h"
#include "model/regime_fit.h"
#include "test_support.h"

using namespace moebench;

namespace {

RegimeParams params() {
  RegimeParams q = RegimeParams::defaults();
  q.set("mem_eff_cpu", 0.5);
  q.set("mem_eff_gpu", 0.8);
  q.set("layer_s_cpu", 10e-6);
  q.set("layer_s_thread", 0.1e-6);
  q.set("layer_s_gpu", 5e-6);
  q.set("layer_s_handoff", 20e-6);
  q.set("prefill_eff_cpu", 0.25);
  q.set("prefill_eff_gpu", 0.5);
  q.set("prefill_serial", 0);
  q.set("link_eff", 0.5);
  q.set("io_eff", 0.5);
  q.set("overlap", 0);
  return q;
}

// A CPU pass of 512 tokens: 1 s of reads at full bandwidth, 2 s of matmuls
// at the CPU's peak, 100 layers.
CaseParts cpu_pass() {
  CaseParts p;
  p.prefill = true;
  p.batch = 512;
  for (double& x : p.mem_cpu_s) x = 1.0;
  p.flops_cpu_peak_s = 2.0;
  p.layers = 100;
  return p;
}

// A prefill figure of `family` from `source` whose CPU pass (a pipe `bits`
// wide, 0 unknown) reaches `eff` of its peak; i varies the pass's size.
RegimeFigure cpu_figure(const std::string& family, const std::string& source, int i, double eff, int bits = 0) {
  RegimeParams truth = params();
  truth.set("prefill_eff_cpu", eff);
  RegimeFigure f;
  f.id = family + std::to_string(bits) + source + std::to_string(i);
  f.source = source;
  f.family = family;
  f.kind = "prefill";
  CaseParts p = cpu_pass();
  p.cpu_vector_bits = bits;
  p.flops_cpu_peak_s = 2.0 * (1 + i);
  f.realistic = {p};
  f.all = {p};
  f.measured_tok_s = 1 / regime_token_s(p, truth);
  return f;
}

}  // namespace

TEST_CASE("prefill-cpu: the pass's flops ÷ (peak × prefill_eff_cpu), plus fixed costs, over the ubatch", "[regimes][prefill]") {
  const CaseParts p = cpu_pass();
  // The reads 1 / 0.5 = 2 s, then the compute 2 / 0.25 = 8 s (the larger
  // part names the regime); + 100 × (10 µs + 1 thread × 0.1 µs at the
  // barriers: no cores stated); ÷ 512 tokens.
  CHECK(regime_token_s(p, params()) == Approx((2.0 + 8.0 + 0.00101) / 512));
  CHECK(case_regime(p, params()) == "prefill-cpu");
  // A small pass that reads more than it computes: the reads are its larger part.
  CaseParts small = p;
  small.flops_cpu_peak_s = 0.1;  // 0.4 s of compute < 2 s of reads
  CHECK(regime_token_s(small, params()) == Approx((2.0 + 0.4 + 0.00101) / 512));
  CHECK(case_regime(small, params()) == "prefill-memory");
  // Run on 64 threads of a 128-core machine, the pass gets half the peak.
  CaseParts half = p;
  half.cores = 128;
  half.threads = 64;
  CHECK(regime_token_s(half, params()) == Approx((2.0 + 16.0 + 100 * (10e-6 + 64 * 0.1e-6)) / 512));
  // A decode's per-thread kernel rate (core_bw) does not cap a pass: it
  // reads each weight once for its whole batch, and few threads slow its
  // matmuls instead (64 cores ÷ 4 threads: 8 × 16 = 128 s).
  RegimeParams q = params();
  q.set("core_bw", 10e9);
  CaseParts few = p;
  few.cores = 64;
  few.threads = 4;
  few.cpu_bytes_tok = 100e9;  // 100 GB ÷ (4 × 10 GB/s) = 2.5 s, were it a decode
  const double fixed4 = 100 * (10e-6 + 4 * 0.1e-6);
  CHECK(regime_token_s(few, q) == Approx((2.0 + 128.0 + fixed4) / 512));
  few.prefill = false;  // the same bytes as one decode token: the cap binds over the 2 s of reads
  CHECK(regime_token_s(few, q) == Approx(2.5 + fixed4));
}

TEST_CASE("prefill-attention: the attention over a long context at its own share of the peak, after the matmuls", "[regimes][prefill]") {
  RegimeParams q = params();
  q.set("prefill_attn_eff", 0.4);
  // A GPU pass of 512 tokens: 0.5 s of matmuls at peak (÷ 0.5 = 1 s), 2 s
  // of attention over a 32k context at peak (÷ 0.4 = 5 s), 0.2 s of reads,
  // 40 layers of 5 µs: (0.2 + 1 + 5 + 0.0002) s over 512 tokens.
  CaseParts p;
  p.prefill = true;
  p.batch = 512;
  p.layers = 40;
  p.gpu_computes = true;
  for (double& x : p.mem_gpu_s) x = 0.2 * 0.8;  // 0.2 s at mem_eff_gpu 0.8
  p.flops_gpu_peak_s = 0.5;
  p.attn_gpu_peak_s = 2.0;
  CHECK(regime_token_s(p, q) == Approx((0.2 + 1.0 + 5.0 + 40 * 5e-6) / 512));
  CHECK(case_regime(p, q) == "prefill-attention");
  // A short context: the matmuls bind.
  p.attn_gpu_peak_s = 0.1;  // 0.25 s
  CHECK(regime_token_s(p, q) == Approx((0.2 + 1.0 + 0.25 + 40 * 5e-6) / 512));
  CHECK(case_regime(p, q) == "prefill-gpu");
  // On CPU cores the attention runs on the engine's threads like the
  // matmuls: 16 of 32 cores, serial 0, twice the time.
  CaseParts c = cpu_pass();  // 2 s of matmuls ÷ 0.25 = 8 s
  c.cores = 32;
  c.threads = 16;
  c.attn_cpu_peak_s = 4.0;  // ÷ 0.4 = 10 s
  CHECK(regime_token_s(c, q) == Approx((2.0 + 2 * (8.0 + 10.0) + 100 * (10e-6 + 16 * 0.1e-6)) / 512));
  CHECK(case_regime(c, q) == "prefill-attention");
}

TEST_CASE("prefill-cpu: a serial share of the pass (Amdahl) costs a machine of many cores more than one of few", "[regimes][prefill]") {
  RegimeParams q = params();
  q.set("prefill_serial", 0.01);
  // 64 threads of 128 cores: the pass takes 128 × (0.01 + 0.99 / 64) =
  // 3.26 times the cores' summed peak time, 2 / 0.25 × 3.26 = 26.08 s.
  CaseParts many = cpu_pass();
  many.cores = 128;
  many.threads = 64;
  const double fixed = 100 * (10e-6 + 64 * 0.1e-6);
  CHECK(regime_token_s(many, q) == Approx((2.0 + 8.0 * 128 * (0.01 + 0.99 / 64) + fixed) / 512));
  // 16 threads of 16 cores lose 16 × (0.01 + 0.99 / 16) = 1.15: 9.2 s.
  CaseParts few = cpu_pass();
  few.cores = 16;
  few.threads = 16;
  CHECK(regime_token_s(few, q) == Approx((2.0 + 8.0 * 16 * (0.01 + 0.99 / 16) + 100 * (10e-6 + 16 * 0.1e-6)) / 512));
  // Doubling 64 threads to 128 gains 1 / (0.01 + 0.99/128) ÷ 1 / (0.01 + 0.99/64) = 1.44, not 2.
  CaseParts all = many;
  all.threads = 128;
  const double reads = 2.0;
  const double pass64 = regime_token_s(many, q) * 512 - fixed - reads,
               pass128 = regime_token_s(all, q) * 512 - 100 * (10e-6 + 128 * 0.1e-6) - reads;
  CHECK(pass64 / pass128 == Approx((0.01 + 0.99 / 64) / (0.01 + 0.99 / 128)));
}

TEST_CASE("hybrid prefill: CPU-held experts copied over the host link by the engine's rule or where that beats the CPU cores", "[regimes][prefill]") {
  CaseParts p;
  p.prefill = true;
  p.batch = 2048;
  p.layers = 50;
  p.experts_on_cpu = true;
  p.gpu_computes = true;
  p.flops_gpu_peak_s = 0.5;       // the trunk's matmuls on the GPU: 0.5 / 0.5 = 1 s
  for (double& x : p.mem_gpu_s) x = 0.08;  // the trunk's reads in VRAM: 0.08 / 0.8 = 0.1 s
  for (double& x : p.mem_cpu_s) x = 1.0;   // the experts' reads in host RAM: 1 / 0.5 = 2 s
  p.flops_cpu_peak_s = 10.0;      // the experts on the CPU cores: 10 / 0.25 = 40 s
  p.flops_offload_peak_s = 1.0;   // the same experts on the GPU: 1 / 0.5 = 2 s
  p.link_s = 8.0;                 // their bytes over the link: 8 / 0.5 = 16 s
  // ggml copies a split's weights, then computes it: 16 s of copy and 2 s
  // of GPU work on the experts take turns, 18 s against 2 + 40 s on the CPU
  // (its RAM reads and its matmuls). The copy is the experts' read from RAM:
  // it is not paid twice. Pass = 0.1 + 1 + 2 + 16 s, + 50 hand-offs of 20 µs.
  CHECK(regime_token_s(p, params()) == Approx((0.1 + 1.0 + 2.0 + 16.0 + 0.001) / 2048));
  CHECK(case_regime(p, params()) == "prefill-link");
  // A slow link (or a fast CPU): the CPU cores read and compute the experts.
  p.link_s = 21.0;  // 42 s of copy + 2 s on the GPU > 2 + 40 s on the CPU
  CHECK(regime_token_s(p, params()) == Approx((0.1 + 2.0 + 1.0 + 40.0 + 0.001) / 2048));
  CHECK(case_regime(p, params()) == "prefill-cpu");
  // The engine's own rule overrides the faster side: llama.cpp copies for
  // any pass of 32 tokens and more, however slow the link.
  p.copies_experts = true;
  CHECK(regime_token_s(p, params()) == Approx((0.1 + 1.0 + 2.0 + 42.0 + 0.001) / 2048));
  CHECK(case_regime(p, params()) == "prefill-link");
  // A rule that keeps them on the CPU does so however fast the link.
  p.copies_experts = false;
  p.link_s = 0.5;
  CHECK(regime_token_s(p, params()) == Approx((0.1 + 2.0 + 1.0 + 40.0 + 0.001) / 2048));
  CHECK(case_regime(p, params()) == "prefill-cpu");
}

TEST_CASE("llama.cpp's backends copy CPU-held weights for passes of 32 tokens and more, the others' rule is not known", "[regimes][prefill]") {
  const OffloadPolicy main = family_offload("llama.cpp");
  CHECK(main.rule == OffloadRule::kMinBatch);
  CHECK(main.min_batch == 32);
  CHECK(main.source.find("op_offload_min_batch_size") != std::string::npos);  // cited from the code
  CHECK(offload_copies(main, 32) == std::optional<bool>(true));
  CHECK(offload_copies(main, 31) == std::optional<bool>(false));
  CHECK(offload_copies(family_offload("ollama"), 512) == std::optional<bool>(true));  // llama.cpp's backend
  CHECK_FALSE(offload_copies(family_offload("ik_llama.cpp"), 512).has_value());
  CHECK_FALSE(offload_copies(family_offload("ktransformers"), 512).has_value());
}

TEST_CASE("a prompt's tokens share one sequence's KV: read once per pass, attended by every token", "[prefill]") {
  const ModelCard card = *testing::shipped_store().card("qwen3-30b-a3b");
  // 48 layers × 4 × 32 heads × 128 dims of QK and PV per position.
  CHECK(card.attention_flops_per_position() == 48ull * 4 * 32 * 128);
  const ModelCard ds = *testing::shipped_store().card("deepseek-v3-671b");
  // 61 MLA layers × 2 × 128 heads × (2 × 512 latent + 64 rope) dims: the
  // absorbed form scores the latent and sums it back per head.
  CHECK(ds.attention_flops_per_position() == 61ull * 2 * 128 * (2 * 512 + 64));
  const MachineProfile m = testing::catalog_profile("epyc-9965-1s-768gb");
  SetupCase c;
  c.expert_bits = 4.5;
  c.trunk_quant = "q8_0";
  c.trunk_bits = 8.5;
  c.memory_bytes = 500e9;
  c.on_cpu = true;
  c.context = 8192;
  c.batch = 512;
  const EngineEfficiency eff;
  c.one_sequence = false;  // 512 streams, each its own 8192-token KV
  const CaseEstimate streams = estimate_case(card, m, c, eff);
  c.one_sequence = true;   // one prompt: one KV
  const CaseEstimate prompt = estimate_case(card, m, c, eff);
  const double kv = static_cast<double>(card.kv_bytes_per_token()) * 8192;
  CHECK(streams.memory_bytes_tok - prompt.memory_bytes_tok == Approx(511 * kv).epsilon(1e-9));
  // Both compute the same attention: every token attends to 8192 positions.
  CHECK(prompt.parts.flops_cpu_peak_s == Approx(streams.parts.flops_cpu_peak_s));
  CHECK(prompt.parts.batch == 512);
  // The attention is priced apart from the matmuls: its flops at the CPU
  // cores' FP32 FMA peak, the weights' at their int8 dot peak.
  REQUIRE(m.compute);
  REQUIRE(m.compute->cpu_int8_ops);
  const ParamCounts pc = card.parameter_counts();
  const double attn = 512.0 * static_cast<double>(card.attention_flops_at(8192));
  const double matmul = 512.0 * 2 * (static_cast<double>(pc.active()) - static_cast<double>(pc.embedding));
  CHECK(prompt.parts.attn_cpu_peak_s == Approx(attn / m.compute->cpu_flops.value));
  CHECK(prompt.parts.attn_gpu_peak_s == 0);
  CHECK(prompt.parts.flops_cpu_peak_s == Approx(matmul / m.compute->cpu_int8_ops->value));
}

TEST_CASE("a published prefill figure: the ubatch stated, else the family's default, never past the prompt", "[prefill]") {
  const ModelCard card = *testing::shipped_store().card("qwen3-30b-a3b");
  const MachineProfile m = testing::catalog_profile("epyc-9965-1s-768gb");
  Claim c;
  c.id = "pp";
  c.model = "Qwen3-30B-A3B";
  c.engine = "llama.cpp llama-bench";
  c.processor = "cpu";
  c.quant = "q4_0";
  c.prompt_tokens = 2048;
  c.prefill_tok_s = Reported{300, 300};
  c.missing = {"trunk_quant"};
  PrefillCases pc = prefill_cases(c, card, m);
  CHECK(pc.measured_tok_s == 300);
  CHECK(pc.ubatch == 512);  // llama.cpp's -ub default
  CHECK_THAT(pc.ubatch_how, Catch::Contains("default"));
  REQUIRE_FALSE(pc.realistic.empty());
  for (const CaseParts& p : pc.realistic) {
    CHECK(p.prefill);
    CHECK(p.batch == 512);
    CHECK(p.flops_cpu_peak_s > 0);
  }
  c.ubatch = 4096;
  pc = prefill_cases(c, card, m);
  CHECK(pc.ubatch == 2048);  // stated, cut to the 2048-token prompt
  // Only a TTFT: the prompt over it.
  c.prefill_tok_s.reset();
  c.ttft_s = Reported{4, 4};
  CHECK(prefill_cases(c, card, m).measured_tok_s == Approx(512));
  c.ttft_s.reset();
  CHECK_FALSE(prefill_cases(c, card, m).why_not.empty());
}

TEST_CASE("per-family efficiencies: a family with enough figures from two sources, or a few from three, gets its own, in range", "[regimes][prefill]") {
  // Family "fast" reaches 0.5 of the CPU peak, "slow" 0.125; "few" has two
  // figures only; "wide" three, each from a source of its own.
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 8; ++i) figs.push_back(cpu_figure("fast", i % 2 ? "a" : "b", i, 0.5));
  for (int i = 0; i < 8; ++i) figs.push_back(cpu_figure("slow", i % 2 ? "c" : "d", i, 0.125));
  for (int i = 0; i < 2; ++i) figs.push_back(cpu_figure("few", "e", i, 0.5));
  for (int i = 0; i < 3; ++i) figs.push_back(cpu_figure("wide", "w" + std::to_string(i), i, 0.25));
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  const auto& own = fit.params.family.at("prefill_eff_cpu");
  CHECK(own.at("fast") == Approx(0.5).epsilon(0.1));
  CHECK(own.at("slow") == Approx(0.125).epsilon(0.1));
  CHECK(own.count("few") == 0);  // the pooled value, between the two
  CHECK(own.count("wide") == 1);
  CHECK(own.at("wide") == Approx(0.25).epsilon(0.1));
  const double pooled = fit.params.get("prefill_eff_cpu");
  CHECK(pooled > 0.125);
  CHECK(pooled < 0.5);
  CHECK(figure_tok_s(figs[0], fit.params) == Approx(figs[0].measured_tok_s).epsilon(0.1));
  for (const FittedParam& p : fit.fitted) {
    INFO(p.name << " " << p.family);
    CHECK(p.value >= p.low);
    CHECK(p.value <= p.high);
  }
}

TEST_CASE("per-kind efficiencies: GPUs of each maker get their own, then a family on that maker", "[regimes][prefill]") {
  // Apple GPUs reach 0.5 of their peak, AMD ones 0.1 (engine family "x"
  // on both); family "y" on Apple reaches 0.25.
  auto figure = [](const std::string& family, const std::string& kind, const std::string& source, int i, double eff) {
    RegimeParams truth = params();
    truth.set("prefill_eff_gpu", eff);
    RegimeFigure f;
    f.id = family + kind + source + std::to_string(i);
    f.source = source;
    f.family = family;
    f.kind = "prefill";
    CaseParts p;
    p.prefill = true;
    p.batch = 512;
    p.gpu_computes = true;
    p.gpu_kind = kind;
    for (double& x : p.mem_gpu_s) x = 0.01;
    p.flops_gpu_peak_s = 1.0 * (1 + i);
    p.layers = 10;
    f.realistic = {p};
    f.all = {p};
    f.measured_tok_s = 1 / regime_token_s(p, truth);
    return f;
  };
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 8; ++i) figs.push_back(figure("x", "apple", i % 2 ? "a" : "b", i, 0.5));
  for (int i = 0; i < 8; ++i) figs.push_back(figure("x", "amd", i % 2 ? "c" : "d", i, 0.1));
  for (int i = 0; i < 8; ++i) figs.push_back(figure("y", "apple", i % 2 ? "e" : "f", i, 0.25));
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  const auto& own = fit.params.family.at("prefill_eff_gpu");
  CHECK(own.count("@apple") == 1);
  CHECK(own.at("@amd") == Approx(0.1).epsilon(0.1));
  CHECK(own.at("x@apple") == Approx(0.5).epsilon(0.1));
  CHECK(own.at("y@apple") == Approx(0.25).epsilon(0.1));
  CHECK(own.count("x") == 0);  // never a family alone: its makers differ
  // A family the fit never saw, on an Apple GPU, gets Apple's value; on a
  // GPU of a maker without figures, or on none, the pooled one.
  const RegimeParams unseen = fit.params.for_family("z", "apple");
  CHECK(unseen.get("prefill_eff_gpu") == Approx(own.at("@apple")));
  CHECK(fit.params.for_family("z", "intel").get("prefill_eff_gpu") == Approx(fit.params.get("prefill_eff_gpu")));
  CHECK(fit.params.for_family("x", "").get("prefill_eff_gpu") == Approx(fit.params.get("prefill_eff_gpu")));
  CHECK(figure_tok_s(figs[0], fit.params) == Approx(figs[0].measured_tok_s).epsilon(0.1));
}

TEST_CASE("per-CPU-kind efficiencies: each vector datapath gets its own, a family's own comes before a kind's", "[regimes][prefill]") {
  // Family "x" reaches 0.4 of the CPU peak on 256-bit pipes and 0.2 on
  // 512-bit ones; family "y" 0.1 on 256-bit pipes, with no 512-bit figures.
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 8; ++i) figs.push_back(cpu_figure("x", i % 2 ? "a" : "b", i, 0.4, 256));
  for (int i = 0; i < 8; ++i) figs.push_back(cpu_figure("x", i % 2 ? "c" : "d", i, 0.2, 512));
  for (int i = 0; i < 8; ++i) figs.push_back(cpu_figure("y", i % 2 ? "e" : "f", i, 0.1, 256));
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  const auto& own = fit.params.family.at("prefill_eff_cpu");
  CHECK(own.at("x@simd256") == Approx(0.4).epsilon(0.1));
  CHECK(own.at("x@simd512") == Approx(0.2).epsilon(0.1));
  CHECK(own.at("y@simd256") == Approx(0.1).epsilon(0.1));
  CHECK(own.count("@simd512") == 1);  // the kind, fitted on x's figures alone
  CHECK(own.count("y") == 1);          // the family over all its figures
  // y on a 512-bit CPU: its family's value (0.1), not the kind's (x's 0.2);
  // a family the fit never saw on one: the kind's; of unknown width: the pooled.
  CHECK(fit.params.for_family("y", Kinds("", "simd512")).get("prefill_eff_cpu") == Approx(own.at("y")));
  CHECK(fit.params.for_family("z", Kinds("", "simd512")).get("prefill_eff_cpu") == Approx(own.at("@simd512")));
  CHECK(fit.params.for_family("z", Kinds()).get("prefill_eff_cpu") == Approx(fit.params.get("prefill_eff_cpu")));
  for (const RegimeFigure& f : figs) {
    INFO(f.id);
    CHECK(figure_tok_s(f, fit.params) == Approx(f.measured_tok_s).epsilon(0.1));
  }
}

TEST_CASE("a CPU's kind is its FMA pipe's width, from the spec row or the profile", "[regimes]") {
  CaseParts p;
  CHECK(kinds_of({&p}).cpu.empty());  // unknown width
  p.cpu_vector_bits = 512;
  p.gpu_kind = "nvidia";
  CHECK(kinds_of({&p}).cpu == "simd512");
  CHECK(kinds_of({&p}).gpu == "nvidia");
  for (const std::string& k : cpu_kinds()) CHECK(k.rfind("simd", 0) == 0);
}

TEST_CASE("a GPU's kind is its maker: discrete models, else the integrated GPU of the CPU's name", "[regimes]") {
  MachineProfile m;
  CHECK(gpu_kind(m).empty());  // no GPU
  m.accelerators = AcceleratorInfo{};
  m.accelerators->count = 2;
  m.accelerators->model = "NVIDIA GeForce RTX 3090";
  CHECK(gpu_kind(m) == "nvidia");
  m.accelerators->model = "AMD Instinct MI300X";
  CHECK(gpu_kind(m) == "amd");
  m.accelerators.reset();
  m.cpu_model = "Apple M3 Ultra";
  CHECK(gpu_kind(m).empty());  // a CPU name alone is no GPU ...
  m.compute = ComputeInfo{};
  m.compute->gpu_flops = Figure{};
  CHECK(gpu_kind(m) == "apple");  // ... its integrated GPU is
  m.cpu_model = "AMD Ryzen AI Max+ 395";
  CHECK(gpu_kind(m) == "amd");
  m.cpu_model = "NVIDIA GB10 (10 × Cortex-X925 + 10 × Cortex-A725)";
  CHECK(gpu_kind(m) == "nvidia");
  for (const std::string& k : {std::string("nvidia"), std::string("amd"), std::string("apple")}) {
    CHECK(std::find(gpu_kinds().begin(), gpu_kinds().end(), k) != gpu_kinds().end());
  }
}

TEST_CASE("a prompt's attention on an AMD GPU runs at its FP32 vector rate, on any other GPU at the dense peak", "[regimes][prefill]") {
  MachineProfile m;
  m.accelerators = AcceleratorInfo{};
  m.accelerators->count = 2;
  m.accelerators->model = "AMD Radeon AI PRO R9700";
  m.accelerators->flops = Figure{191e12};
  m.accelerators->vector_flops = Figure{47.8e12};
  const double dense = 2 * 191e12;
  // Two cards: 2 × 47.8 TFLOP/s, not the 382 TFLOP/s the matmuls get.
  CHECK(gpu_attention_peak(m, true, dense) == Approx(95.6e12));
  SetupCase c;
  CaseParts P;
  // 10 TFLOP in the pass, 4 of them attention: the matmuls at the dense
  // peak, the attention at the vector rate.
  prefill_parts(m, c, 10e12, 0, 4e12, /*on_gpu=*/true, /*igpu=*/false, 0, P);
  CHECK(P.flops_gpu_peak_s == Approx(6e12 / dense));
  CHECK(P.attn_gpu_peak_s == Approx(4e12 / 95.6e12));
  // Without a stated vector rate, or on another maker's GPU: the dense peak.
  m.accelerators->vector_flops.reset();
  CHECK(gpu_attention_peak(m, true, dense) == dense);
  m.accelerators->vector_flops = Figure{47.8e12};
  m.accelerators->model = "NVIDIA GeForce RTX 4090";
  CHECK(gpu_attention_peak(m, true, dense) == dense);
  // An integrated AMD GPU on unified memory: the CPU row's GPU figures.
  MachineProfile apu;
  apu.cpu_model = "AMD Ryzen AI Max+ 395";
  apu.compute = ComputeInfo{};
  apu.compute->gpu_flops = Figure{59.4e12};
  apu.compute->gpu_vector_flops = Figure{14.85e12};
  CHECK(gpu_attention_peak(apu, false, 59.4e12) == Approx(14.85e12));
}
