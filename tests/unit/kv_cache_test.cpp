// kv_cache_test.cpp — a stated KV cache type (a claim's cache_type_k and
// cache_type_v, llama.cpp's -ctk/-ctv) read as a tutorial: it sets the
// bytes a cached position costs (the mean of K's and V's bits on a GQA card,
// K's alone on an MLA card, whose one latent tensor is stored in K's type),
// one type stated alone leaves the other at llama.cpp's f16, and on CPU
// cores a prefill's query-key products over an integer K run at the int8
// peak. Each figure below is hand arithmetic from the card's geometry.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/case_peaks.h"
#include "model/setup_model.h"
#include "vocab/claim.h"
#include "vocab/quant_format.h"
#include "test_support.h"

using namespace moebench;

namespace {
ModelCard card_named(const std::string& name) {
  auto card = testing::shipped_store().card(name);
  REQUIRE(card);
  return *card;
}
// The "bytes per token" step of a CPU decode at `context` tokens.
double bytes_per_token(const ModelCard& card, const std::string& k, const std::string& v, double context) {
  SetupCase c;
  c.expert_bits = 4.5;
  c.trunk_quant = "q8_0";
  c.trunk_bits = 8.5;
  c.context = context;
  c.memory_bytes = 700e9;  // everything resident
  c.on_cpu = true;
  c.cache_type_k = k;
  c.cache_type_v = v;
  const CaseEstimate e = estimate_case(card, testing::catalog_profile("epyc-9654-768gb-rtx3090"), c, EngineEfficiency{});
  auto it = std::find_if(e.steps.begin(), e.steps.end(), [](const Step& s) { return s.name == "bytes per token"; });
  REQUIRE(it != e.steps.end());
  return it->value;
}
}  // namespace

TEST_CASE("a KV cache type sets what a cached position costs: K and V on a GQA card", "[setup][kv]") {
  // Qwen3-30B-A3B: 48 layers × K and V × 4 KV heads × 128 dims, bf16 in
  // the card: 98304 bytes per position; 8192 positions 805306368 bytes.
  const ModelCard card = card_named("qwen3-30b-a3b");
  REQUIRE(card.kv_dtype == "bf16");
  REQUIRE(card.kv_bytes_at(8192) == 48ull * 2 * 4 * 128 * 2 * 8192);
  const double kv = 48.0 * 2 * 4 * 128 * 2 * 8192;
  const double unstated = bytes_per_token(card, "", "", 8192);
  // q8_0 is 34 bytes per 32 values: 8.5 bits of 16.
  CHECK(unstated - bytes_per_token(card, "q8_0", "q8_0", 8192) == Approx(kv * (1 - 8.5 / 16)));
  // -ctk q8_0 alone: V stays f16, half the cache shrinks.
  CHECK(unstated - bytes_per_token(card, "q8_0", "f16", 8192) == Approx(kv * (1 - (8.5 + 16) / 32)));
  // q4_0: 18 bytes per 32 values, 4.5 bits.
  CHECK(unstated - bytes_per_token(card, "q4_0", "q4_0", 8192) == Approx(kv * (1 - 4.5 / 16)));
  // f16 costs what the card's bf16 costs.
  CHECK(bytes_per_token(card, "f16", "f16", 8192) == Approx(unstated));
}

TEST_CASE("the linear-attention state is not the KV cache: its bytes keep their own precision", "[setup][kv]") {
  // Kimi-Linear: at no context its 7 MLA layers cache nothing, and a token
  // still reads (and writes) its 20 linear layers' fp32 state.
  const ModelCard card = card_named("kimi-linear-48b");
  REQUIRE(card.linear_state_bytes() > 0);
  CHECK(bytes_per_token(card, "q4_0", "q4_0", 0) == Approx(bytes_per_token(card, "", "", 0)));
  // At 4096 positions only the latent cache shrinks, by K's bits.
  const double kv = static_cast<double>(card.kv_bytes_at(4096));
  CHECK(bytes_per_token(card, "", "", 4096) - bytes_per_token(card, "q4_0", "q4_0", 4096) == Approx(kv * (1 - 4.5 / 16)));
}

TEST_CASE("every cache type a claim may name has its bits", "[setup][kv][claims]") {
  for (const std::string& t : claim_cache_types()) {
    INFO(t);
    CHECK(published_quant_bits(t).has_value());
  }
}

TEST_CASE("an MLA card's one latent cache takes K's type, whatever V's", "[setup][kv]") {
  // DeepSeek-V3: 61 layers × (512 latent + 64 rope dims) × 2 bytes.
  const ModelCard card = card_named("deepseek-v3-671b");
  const double kv = 61.0 * (512 + 64) * 2 * 4096;
  REQUIRE(static_cast<double>(card.kv_bytes_at(4096)) == Approx(kv));
  const double unstated = bytes_per_token(card, "", "", 4096);
  CHECK(unstated - bytes_per_token(card, "q8_0", "f16", 4096) == Approx(kv * (1 - 8.5 / 16)));
  CHECK(bytes_per_token(card, "f16", "q4_0", 4096) == Approx(unstated));
}

TEST_CASE("a claim stating one cache type leaves the other at llama.cpp's f16", "[setup][kv][claims]") {
  Claim cl;
  cl.id = "kv";
  cl.model = "Qwen3-30B-A3B";
  cl.card = "qwen3-30b-a3b";
  cl.engine = "ik_llama.cpp";
  cl.machine = "EPYC 9654";
  cl.hardware = "epyc-9654-768gb-rtx3090";
  cl.quant = "Q4_K_M";
  cl.expert_bits_per_weight = 4.5;
  cl.trunk_quant = "q8_0";
  cl.processor = "cpu";
  cl.drives = 1;
  cl.context_tokens = 8192;
  cl.speculative = false;
  cl.decode_tok_s = Reported{10, 10};
  cl.missing = {"ram_budget"};
  const ModelCard card = card_named("qwen3-30b-a3b");
  const MachineProfile m = testing::catalog_profile("epyc-9654-768gb-rtx3090");
  for (const SetupCase& c : plausible_cases(cl, card, m)) CHECK((c.cache_type_k.empty() && c.cache_type_v.empty()));
  cl.cache_type_k = "q8_0";
  for (const SetupCase& c : plausible_cases(cl, card, m)) {
    CHECK(c.cache_type_k == "q8_0");
    CHECK(c.cache_type_v == "f16");
  }
  cl.cache_type_k.reset();
  cl.cache_type_v = "q4_0";
  for (const SetupCase& c : plausible_cases(cl, card, m)) {
    CHECK(c.cache_type_k == "f16");
    CHECK(c.cache_type_v == "q4_0");
  }
}

TEST_CASE("on CPU cores a prefill's query-key half runs at the int8 peak over an integer K", "[setup][kv][prefill]") {
  MachineProfile m;
  m.compute = ComputeInfo{};
  m.compute->cpu_flops.value = 2e12;  // FP32 FMA
  SetupCase c;
  const double flops = 1e12;
  // f16 K (or unstated): every product at the FP32 peak, 0.5 s.
  CHECK(cpu_attention_peak_s(m, c, flops) == Approx(0.5));
  c.cache_type_k = "f16";
  CHECK(cpu_attention_peak_s(m, c, flops) == Approx(0.5));
  // q8_0 K without a dot-product instruction: the query-key half at twice
  // FP32 (16-bit pairwise multiply-adds), 0.5e12 / 4e12 + 0.5e12 / 2e12.
  c.cache_type_k = "q8_0";
  CHECK(cpu_attention_peak_s(m, c, flops) == Approx(0.125 + 0.25));
  // With an int8 dot product of 8e12 ops/s: 0.5e12 / 8e12 + 0.5e12 / 2e12.
  m.compute->cpu_int8_ops = Figure{8e12};
  CHECK(cpu_attention_peak_s(m, c, flops) == Approx(0.0625 + 0.25));
  // No stated peak: no time (the case reports no number for it).
  m.compute.reset();
  CHECK(cpu_attention_peak_s(m, c, flops) == 0);
}
