// setup_model_test.cpp — the one setup model (model/setup_model.h)
// read as a tutorial: a token's time from its parts; a budget below the
// trunk streams the trunk too and still gets a number; the bytes agree with
// the card's own figures; paging past usable memory costs small reads; and
// the verdicts over plausible conditions — implausible under every
// combination, consistent only if a missing condition takes some value, far
// below the band with its likely cause. The validation against the
// published set is published_validation_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/claim_check.h"
#include "model/hit_rate.h"
#include "model/routing_fit.h"
#include "model/setup_model.h"
#include "harness/claim_review.h"
#include "harness/model_validation.h"
#include "test_support.h"

using namespace moebench;

namespace {
MachineProfile catalog(const std::string& name) { return testing::catalog_profile(name); }
ModelCard k3() {
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card);
  return *card;
}
// MXFP4 experts, a trunk in `quant` of `bits` per weight, one drive.
SetupCase mxfp4_case(const std::string& quant, double bits) {
  SetupCase c;
  c.expert_bits = 4.25;
  c.trunk_quant = quant;
  c.trunk_bits = bits;
  c.drives = 1;
  return c;
}
// A claim whose every condition but the trunk's quant is stated.
Claim stated_claim(double tok_s) {
  Claim c;
  c.id = "test";
  c.model = "Kimi K3";
  c.card = "kimi-k3";
  c.engine = "waste";
  c.machine = "M5 Pro";
  c.hardware = "macbook-pro-m5-pro-64gb";
  c.quant = "mxfp4";
  c.ram_budget_bytes = 40'000'000'000ull;
  c.drives = 1;
  c.context_tokens = 4096;
  c.speculative = false;
  c.decode_tok_s = Reported{tok_s, tok_s};
  c.missing = {"trunk_quant"};
  return c;
}
}  // namespace

TEST_CASE("a token takes max(compute, I/O) plus what the pipeline does not overlap", "[setup]") {
  // Compute 1 s after routing, I/O 0.6 s: fully overlapped 1 s, not at all 1.6 s.
  CHECK(decode_token_time_s(0, 1.0, 0.6, 0, 1) == Approx(1.0));
  CHECK(decode_token_time_s(0, 1.0, 0.6, 0, 0) == Approx(1.6));
  // Work before routing cannot hide a read it must wait for.
  CHECK(decode_token_time_s(0.5, 0.2, 1.0, 0, 1) == Approx(1.5));
  // ... unless a prefetch issued it before the router chose.
  CHECK(decode_token_time_s(0.5, 0.2, 1.0, 1, 1) == Approx(1.0));
}

TEST_CASE("a budget below the trunk streams the trunk too: a number, and the card's everything-streamed bytes", "[setup]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("epyc-7763-2s-228gb");
  SetupCase c;
  c.expert_bits = 4.25;
  c.trunk_quant = card.trunk_quant;
  c.trunk_bits = 16;
  c.memory_bytes = 8e9;  // far below the 108.8 GB trunk
  c.context = 0;
  c.drives = 1;
  const CaseEstimate e = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(e.fits);
  CHECK_FALSE(e.resident);
  CHECK(e.tok_s_real() > 0);
  CHECK(e.pinned_trunk_bytes == 0);  // 8 GB holds the head, KV and one token's experts, no trunk layer
  // At (almost) no hits, storage per token is the card's all-streamed figure.
  const double all_streamed = static_cast<double>(card.decode_bytes("mxfp4").all_streamed.storage);
  CHECK(e.hit_rate < 0.01);
  CHECK(e.storage_bytes_tok == Approx(all_streamed).epsilon(0.02));
  // More budget pins trunk layers and reads less.
  c.memory_bytes = 64e9;
  const CaseEstimate more = estimate_case(card, m, c, EngineEfficiency{});
  CHECK(more.pinned_trunk_bytes > 0);
  CHECK(more.storage_bytes_tok < e.storage_bytes_tok);
  CHECK(more.tok_s_real() > e.tok_s_real());
}

TEST_CASE("memory counted on past usable memory pages: hits become small reads and the number collapses", "[setup]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  REQUIRE(m.os == std::optional<std::string>("macos"));
  SetupCase c = mxfp4_case("q4_0", 4.5);
  c.routing = default_real_routing();  // real routing: the cache has hits to lose
  // A GPU engine on unified memory is held to the GPU wired limit (the low
  // end of the profile's usable range); a CPU engine to the usable figure.
  CHECK(usable_for(m, "any") < usable_for(m, "kimi-k3-in-c"));
  c.memory_bytes = usable_for(m, c.family);
  const CaseEstimate at = estimate_case(card, m, c, EngineEfficiency{});
  c.memory_bytes = usable_for(m, c.family) * 1.3;
  const CaseEstimate past = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(at.fits);
  REQUIRE(past.fits);
  CHECK(at.paged_bytes_tok == 0);
  // On macOS every cache hit becomes a page fault (WASTE measured it so):
  // the paged bytes are the hits' bytes, read at the small-block rate.
  const double routed_tok = static_cast<double>(card.parameter_counts().routed_active) * c.expert_bits / 8;
  CHECK(past.hit_rate > 0.1);
  CHECK(past.paged_bytes_tok == Approx(past.hit_rate * routed_tok).epsilon(0.01));
  CHECK(past.tok_s_real() < 0.5 * at.tok_s_real());
  // A CPU engine is held to the usable figure, not the GPU wired limit: a
  // budget between the two pages a GPU engine only.
  c.memory_bytes = usable_for(m, "kimi-k3-in-c");
  const CaseEstimate gpu = estimate_case(card, m, c, EngineEfficiency{});
  c.on_cpu = true;
  const CaseEstimate cpu = estimate_case(card, m, c, EngineEfficiency{});
  CHECK(gpu.paged_bytes_tok > 0);
  CHECK(cpu.paged_bytes_tok == 0);
}

TEST_CASE("a streaming engine pages only what it holds: a stated cache that fits usable memory faults nothing", "[setup]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  SetupCase c = mxfp4_case("q4_0", 4.5);
  c.routing = default_real_routing();
  c.on_cpu = true;
  const double usable = usable_for(m, "kimi-k3-in-c");
  c.memory_bytes = 1.3 * usable;  // the budget (a whole machine's RAM) is above usable memory ...
  c.cache_bytes = 4e9;            // ... but the engine holds its 4 GB cache, the head and KV
  const CaseEstimate small = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(small.fits);
  CHECK_FALSE(small.resident);
  CHECK(small.cache_bytes <= 4e9);
  CHECK(small.paged_bytes_tok == 0);
  // With no cache stated it fills the budget, and what lies past usable memory pages.
  c.cache_bytes.reset();
  const CaseEstimate filled = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(filled.fits);
  CHECK(filled.paged_bytes_tok > 0);
  // A stated cache of 0 is a condition: the engine keeps only a token's working set.
  c.cache_bytes = 0;
  const CaseEstimate none = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(none.fits);
  CHECK(none.slots == static_cast<double>(card.moe.active));
  CHECK(none.paged_bytes_tok == 0);
}

TEST_CASE("a budget above usable memory is not memory: the resident case pages too", "[setup]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("epyc-7763-2s-228gb");
  SetupCase c = mxfp4_case("q8_0", 8.5);
  c.memory_bytes = 10 * m.memory_total_bytes.value;  // "resident" only because the budget says so
  const CaseEstimate big = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(big.fits);
  CHECK(big.resident);
  CHECK(big.paged_bytes_tok > 0);
  CHECK(big.storage_bytes_tok >= big.paged_bytes_tok);
  c.memory_bytes = usable_for(m, c.family);
  const CaseEstimate usable = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(usable.fits);
  // Claiming more memory than the machine has never makes it faster.
  CHECK(big.tok_s_real() <= usable.tok_s_real());
}

TEST_CASE("a claim's gpus and nodes are the part of the machine it used", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("b300-x8");
  REQUIRE(m.accelerators);
  Claim c = stated_claim(1.0);
  c.hardware = "b300-x8";
  c.ram_budget_bytes.reset();
  c.missing.push_back("ram_budget");
  c.engine = "sglang";
  c.quant = "int4";
  c.trunk_quant = "bf16";
  c.missing = {"ram_budget"};
  const ClaimJudgement all = judge_claim(c, &card, &m);
  c.gpus = 1;
  const ClaimJudgement one = judge_claim(c, &card, &m);
  REQUIRE(all.predicted_tok_s);
  REQUIRE(one.predicted_tok_s);
  CHECK(*one.predicted_tok_s < *all.predicted_tok_s);
  c.gpus = m.accelerators->count + 1;
  const ClaimJudgement more = judge_claim(c, &card, &m);
  CHECK(more.verdict == "contradictory");
  CHECK(more.reason.find("gpus") != std::string::npos);
  // Half the nodes of a linked pair: half the memory.
  const MachineProfile pair = catalog("mac-studio-m3-ultra-512gb-x4");
  const MachineProfile half = machine_share(pair, pair.nodes / 2, 0);
  CHECK(half.memory_usable_bytes.value == Approx(pair.memory_usable_bytes.value / 2));
  CHECK(half.nodes == pair.nodes / 2);
}

TEST_CASE("conditions the hardware cannot have are contradictory and name their field", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile cpu_only = catalog("epyc-7763-2s-228gb");
  REQUIRE_FALSE(cpu_only.accelerators);
  Claim c = stated_claim(0.05);
  c.hardware = cpu_only.name;
  c.processor = "gpu";
  CHECK(judge_claim(c, &card, &cpu_only).verdict == "contradictory");
  c.processor.reset();
  c.drives = static_cast<int>(cpu_only.drives.size()) + 1;
  const ClaimJudgement drives = judge_claim(c, &card, &cpu_only);
  CHECK(drives.verdict == "contradictory");
  CHECK(drives.reason.find("drives") != std::string::npos);
  c.drives = 1;
  c.cache_bytes = 2 * *c.ram_budget_bytes;  // a cache bigger than the whole budget
  const ClaimJudgement cache = judge_claim(c, &card, &cpu_only);
  CHECK(cache.verdict == "contradictory");
  CHECK(cache.reason.find("cache_bytes") != std::string::npos);
  // A stated cache below the budget is what the engine ran, even with memory to spare.
  c.cache_bytes = 4'000'000'000ull;
  for (const SetupCase& sc : plausible_cases(c, card, cpu_only)) {
    const CaseEstimate e = estimate_case(card, cpu_only, sc, EngineEfficiency{});
    REQUIRE(e.fits);
    CHECK(e.cache_bytes <= 4e9);
  }
}

TEST_CASE("a container smaller than the trunk is a contradiction naming container_bytes, not 1-bit experts", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  Claim c = stated_claim(0.1);
  c.quant.reset();
  c.missing.push_back("quant");
  c.container_bytes = 20'000'000'000ull;  // below even a 4.5-bit K3 trunk
  const ClaimJudgement j = judge_claim(c, &card, &m);
  CHECK(j.verdict == "contradictory");
  CHECK(j.reason.find("container_bytes") != std::string::npos);
  // A container that leaves 1.1 bits per expert weight beside a q4_0 trunk
  // leaves less than 1 beside a bf16 one (K3's trunk is ~2 % of its
  // experts): bf16 is ruled out, q4_0 stays.
  const double trunk = static_cast<double>(card.parameter_counts().trunk());
  const double routed = static_cast<double>(card.parameter_counts().routed_experts);
  REQUIRE(1.1 - trunk * (16 - 4.5) / routed < 1.0);
  c.container_bytes = static_cast<std::uint64_t>(trunk * 4.5 / 8 + routed * 1.1 / 8);
  const std::vector<SetupCase> cases = plausible_cases(c, card, m);
  REQUIRE_FALSE(cases.empty());
  bool q4 = false;
  for (const SetupCase& sc : cases) {
    CHECK(sc.trunk_quant != "bf16");
    CHECK(sc.contradiction.empty());
    if (sc.trunk_quant == "q4_0") {
      q4 = true;
      CHECK(sc.expert_bits == Approx(1.1).epsilon(0.01));
    }
  }
  CHECK(q4);
}

TEST_CASE("the split as stated, the processor as stated and streamed bytes as memory work", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("epyc-7763-2s-228gb");
  SetupCase c = mxfp4_case("bf16", 16);
  c.memory_bytes = 128e9;
  c.routing = default_real_routing();
  const CaseEstimate trunk_first = estimate_case(card, m, c, EngineEfficiency{});
  c.cache_bytes = 110.7e9;  // kimi-k3-in-c's cache-heavy split at 128 GB
  const CaseEstimate cache_heavy = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(trunk_first.fits);
  REQUIRE(cache_heavy.fits);
  CHECK(cache_heavy.cache_bytes > 100e9);
  CHECK(cache_heavy.cache_bytes <= 110.7e9);
  CHECK(cache_heavy.pinned_trunk_bytes < trunk_first.pinned_trunk_bytes);
  CHECK(cache_heavy.trunk_streamed_bytes_tok > trunk_first.trunk_streamed_bytes_tok);
  // Whatever the split, the kernels read every weight of the token from RAM:
  // what came from the drive lands there first.
  CHECK(trunk_first.parts.mem_s[1] == Approx(cache_heavy.parts.mem_s[1]).epsilon(0.02));
  // A claim whose processor is the CPU does not put weights on the GPUs;
  // hybrid keeps the routed experts in RAM.
  const MachineProfile gm = catalog("tr-pro-7965wx-256gb-a6000");
  REQUIRE(gm.accelerators);
  Claim cl = stated_claim(5);
  cl.hardware = gm.name;
  cl.engine = "llama.cpp";
  cl.trunk_quant = "q8_0";
  cl.missing.clear();
  cl.ram_budget_bytes = 200'000'000'000ull;
  for (const SetupCase& sc : plausible_cases(cl, card, gm)) CHECK(sc.gpus);  // the family default: the profile's GPUs
  cl.processor = "cpu";
  for (const SetupCase& sc : plausible_cases(cl, card, gm)) {
    CHECK_FALSE(sc.gpus);
    CHECK(sc.on_cpu);
  }
  cl.processor = "hybrid";
  for (const SetupCase& sc : plausible_cases(cl, card, gm)) {
    CHECK(sc.gpus);
    CHECK(sc.experts_on_cpu);
  }
}

TEST_CASE("an unstated processor is the family's documented default, where the machine can host it", "[setup][claims]") {
  const ModelCard card = k3();
  Claim cl = stated_claim(5);
  cl.trunk_quant = "q8_0";
  cl.missing.clear();
  cl.ram_budget_bytes = 48'000'000'000ull;
  // WASTE computes on the CPU cores (its Metal path is off by default): on a
  // Mac it is not held to the GPU's wired limit and runs at the CPU peak.
  const MachineProfile mac = catalog("macbook-pro-m5-pro-64gb");
  cl.hardware = mac.name;
  cl.engine = "WASTE";
  for (const SetupCase& sc : plausible_cases(cl, card, mac)) {
    CHECK(sc.on_cpu);
    CHECK(sc.processor_how.find("docs/BACKENDS.md") != std::string::npos);
  }
  // A family without a documented default uses the machine's GPU.
  cl.engine = "mlx-lm";
  for (const SetupCase& sc : plausible_cases(cl, card, mac)) CHECK_FALSE(sc.on_cpu);
  // ktransformers is hybrid beside a discrete GPU; on a machine without one
  // that default cannot hold, and nothing is contradicted.
  cl.engine = "ktransformers";
  const MachineProfile gm = catalog("tr-pro-7965wx-256gb-a6000");
  cl.hardware = gm.name;
  for (const SetupCase& sc : plausible_cases(cl, card, gm)) {
    CHECK(sc.experts_on_cpu);
    CHECK(sc.contradiction.empty());
  }
  cl.hardware = mac.name;
  for (const SetupCase& sc : plausible_cases(cl, card, mac)) {
    CHECK_FALSE(sc.experts_on_cpu);
    CHECK(sc.contradiction.empty());
  }
}

TEST_CASE("reads larger than a drive curve's largest block rise to the sequential rate", "[setup][cost]") {
  MachineProfile m;
  DriveProfile d;
  d.name = "nvme";
  d.seq_read_bytes_s.value = 4.6e9;
  DriveReadPoint p;
  p.block_bytes = 131072;
  p.queue_depth = 32;
  p.pattern = "random";
  p.read_bytes_s.value = 3.91e9;
  d.read_curve = {p};
  m.drives = {d};
  CHECK(drive_set_read_bw(m, 1, 131072, 32, std::nullopt, nullptr) == Approx(3.91e9));
  const double half_way = drive_set_read_bw(m, 1, 393216, 32, std::nullopt, nullptr);  // between 128 KiB and 1 MiB
  CHECK(half_way > 3.91e9);
  CHECK(half_way < 4.6e9);
  CHECK(drive_set_read_bw(m, 1, 4u << 20, 32, std::nullopt, nullptr) == Approx(4.6e9));
  // One read in flight does not reach it.
  CHECK(drive_set_read_bw(m, 1, 4u << 20, 1, std::nullopt, nullptr) == Approx(3.91e9));
}

TEST_CASE("a figure beyond the fast end under every plausible combination is implausible", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  const ClaimJudgement j = judge_claim(stated_claim(50), &card, &m);
  CHECK(j.verdict == "implausible");
  CHECK(j.cases.size() == 3);  // the trunk over its plausible set
  CHECK(j.reason.find("every plausible combination") != std::string::npos);
}

TEST_CASE("a figure that only a 4-bit trunk allows is consistent-if, naming that value", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  const ClaimJudgement probe = judge_claim(stated_claim(0.1), &card, &m);
  REQUIRE(probe.cases.size() == 3);
  double fast_q4 = 0, fast_bf16 = 0;
  for (const CaseBand& b : probe.cases) {
    if (b.label == "trunk q4_0") fast_q4 = b.fast_tok_s;
    if (b.label == "trunk bf16") fast_bf16 = b.fast_tok_s;
  }
  REQUIRE(fast_q4 > 1.2 * fast_bf16);
  const ClaimJudgement j = judge_claim(stated_claim(fast_q4), &card, &m);
  CHECK(j.verdict == "consistent-if");
  CHECK(j.reason.find("trunk q4_0") != std::string::npos);
  CHECK(j.reason.find("consistent only if trunk q4_0") != std::string::npos);
  CHECK(j.reason.find("bf16", j.reason.find("(not ")) != std::string::npos);
}

TEST_CASE("an unstated expert quant is a range: low-bit builds up to the card's native precision", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("mac-studio-m3-ultra-512gb");
  Claim cl = stated_claim(1);
  cl.hardware = m.name;
  cl.ram_budget_bytes.reset();
  cl.quant.reset();
  cl.trunk_quant = "q4_0";
  cl.missing = {"quant", "ram_budget"};
  const auto cases = plausible_cases(cl, card, m);
  std::vector<double> bits;
  for (const SetupCase& c : cases) bits.push_back(c.expert_bits);
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  REQUIRE(bits.size() == 3);
  CHECK(bits.front() == Approx(1.5625));  // iq1_s
  CHECK(bits.back() == Approx(4.25));     // the card's mxfp4
  // A figure only a low-bit build reaches on this machine names the values.
  const ClaimJudgement probe = judge_claim(cl, &card, &m);
  double fast_iq1 = 0, fast_native = 0;
  for (const CaseBand& b : probe.cases) {
    if (b.label.find("experts iq1_s") != std::string::npos) fast_iq1 = std::max(fast_iq1, b.fast_tok_s);
    if (b.label.find("experts mxfp4") != std::string::npos) fast_native = std::max(fast_native, b.fast_tok_s);
  }
  REQUIRE(fast_iq1 > 1.2 * fast_native);
  cl.decode_tok_s = Reported{fast_iq1, fast_iq1};
  const ClaimJudgement j = judge_claim(cl, &card, &m);
  CHECK(j.verdict == "consistent-if");
  CHECK(j.reason.find("experts iq1_s") != std::string::npos);
  CHECK(j.reason.find("mxfp4", j.reason.find("(not ")) != std::string::npos);
  // A stated quant, bits or file size fixes it.
  cl.container_bytes = 594'000'000'000ull;
  for (const SetupCase& c : plausible_cases(cl, card, m)) CHECK(c.label.find("experts") == std::string::npos);
}

TEST_CASE("context: the KV the figure read, not the window the run was configured with", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  Claim cl = stated_claim(0.5);
  cl.trunk_quant = "q4_0";
  cl.context_tokens.reset();
  cl.missing = {"context_tokens"};
  // Nothing said: the plausible set.
  CHECK(plausible_cases(cl, card, m).size() == PlausibleSets{}.contexts.size());
  // A window bounds the set and is itself plausible (a full window).
  cl.context_window_tokens = 16384;
  std::vector<double> ctx;
  for (const SetupCase& c : plausible_cases(cl, card, m)) ctx.push_back(c.context);
  CHECK(ctx == std::vector<double>{0, 4096, 16384});
  // A stated prompt fixes it: the prompt plus half the generated tokens.
  cl.prompt_tokens = 4096;
  cl.gen_tokens = 1024;
  const auto cases = plausible_cases(cl, card, m);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].context == 4608);
  CHECK(cases[0].label == "as stated");
}

TEST_CASE("a figure far below the band is below-band, and a run average names first-token averaging", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  const ClaimJudgement probe = judge_claim(stated_claim(0.1), &card, &m);
  REQUIRE(probe.predicted_low_tok_s);
  Claim c = stated_claim(*probe.predicted_low_tok_s / 10);
  c.figure = "run_average";
  c.gen_tokens = 2;
  const ClaimJudgement j = judge_claim(c, &card, &m);
  CHECK(j.verdict == "below-band");
  CHECK(j.reason.find("first token") != std::string::npos);
}

TEST_CASE("speculative decoding is a structured condition: unstated, it widens the band upwards", "[setup][claims]") {
  const ModelCard card = k3();
  const MachineProfile m = catalog("macbook-pro-m5-pro-64gb");
  Claim stated = stated_claim(0.3);
  Claim unstated = stated;
  unstated.speculative.reset();
  unstated.missing.push_back("speculative");
  const ClaimJudgement a = judge_claim(stated, &card, &m), b = judge_claim(unstated, &card, &m);
  CHECK(b.cases.size() == 2 * a.cases.size());
  CHECK(*b.predicted_high_tok_s == Approx(2 * *a.predicted_high_tok_s));
  CHECK(*b.predicted_tok_s == Approx(*a.predicted_tok_s));  // the realistic value assumes no draft
}

namespace {
// Qwen3-30B-A3B in Q4_K_M under llama.cpp, experts on the CPU of an EPYC
// 9654 beside an RTX 3090 (the catalog machine): every condition stated
// but the trunk.
Claim hybrid_claim() {
  Claim c;
  c.id = "hybrid";
  c.model = "Qwen3-30B-A3B";
  c.card = "qwen3-30b-a3b";
  c.engine = "llama.cpp";
  c.machine = "EPYC 9654 + RTX 3090";
  c.hardware = "epyc-9654-768gb-rtx3090";
  c.quant = "Q4_K_M";
  c.expert_bits_per_weight = 4.5;
  c.processor = "hybrid";
  c.gpus = 1;
  c.drives = 1;
  c.context_tokens = 0;
  c.speculative = false;
  c.decode_tok_s = Reported{30, 30};
  c.missing = {"ram_budget", "trunk_quant"};
  return c;
}
ModelCard qwen30() {
  auto card = testing::shipped_store().card("qwen3-30b-a3b");
  REQUIRE(card);
  return *card;
}
}  // namespace

TEST_CASE("the experts of the --n-cpu-moe layers stay on the CPU, the rest go to the GPU", "[setup]") {
  const ModelCard card = qwen30();
  const MachineProfile m = catalog("epyc-9654-768gb-rtx3090");
  Claim all = hybrid_claim();
  Claim half = all;
  half.cpu_moe_layers = card.moe_layers() / 2;
  const SetupCase a = plausible_cases(all, card, m).front(), h = plausible_cases(half, card, m).front();
  CHECK(a.cpu_expert_share == 1.0);
  CHECK(h.cpu_expert_share == Approx(0.5));
  const CaseEstimate ea = estimate_case(card, m, a, EngineEfficiency{}), eh = estimate_case(card, m, h, EngineEfficiency{});
  // Half the experts' bytes move from host RAM to the GPU: the CPU reads less, the GPU more.
  CHECK(eh.parts.cpu_bytes_tok < 0.6 * ea.parts.cpu_bytes_tok);
  CHECK(eh.parts.mem_gpu_s[1] > ea.parts.mem_gpu_s[1]);
  CHECK(eh.parts.experts_on_cpu);
  // More layers than the card has, or a split without a hybrid processor, contradict the claim.
  Claim too_many = all;
  too_many.cpu_moe_layers = card.moe_layers() + 1;
  CHECK_THAT(plausible_cases(too_many, card, m).front().contradiction, Catch::Contains("cpu_moe_layers"));
  Claim on_cpu = half;
  on_cpu.processor = "cpu";
  CHECK_THAT(plausible_cases(on_cpu, card, m).front().contradiction, Catch::Contains("processor hybrid"));
}

TEST_CASE("a hybrid prompt pass carries the engine's copy rule: llama.cpp copies from 32 tokens on", "[setup][prefill]") {
  const ModelCard card = qwen30();
  const MachineProfile m = catalog("epyc-9654-768gb-rtx3090");
  SetupCase k = plausible_cases(hybrid_claim(), card, m).front();
  k.one_sequence = true;  // a prompt's pass
  auto pass_of = [&](int batch, const std::string& family) {
    SetupCase c = k;
    c.batch = batch;
    c.family = family;
    return estimate_case(card, m, c, EngineEfficiency{});
  };
  const CaseEstimate big = pass_of(512, "llama.cpp"), small = pass_of(16, "llama.cpp"), ik = pass_of(512, "ik_llama.cpp");
  REQUIRE(big.parts.link_s > 0);  // the RTX 3090's host link is stated
  CHECK(big.parts.copies_experts == std::optional<bool>(true));
  CHECK(small.parts.copies_experts == std::optional<bool>(false));
  CHECK_FALSE(ik.parts.copies_experts.has_value());  // its rule is not known: the faster side
  auto step_named = [](const CaseEstimate& e) {
    return std::any_of(e.steps.begin(), e.steps.end(), [](const Step& s) { return s.name == "hybrid pass: CPU-held experts"; });
  };
  CHECK(step_named(big));
  CHECK_FALSE(step_named(ik));
  // A decode never copies, and its explanation says nothing of the rule.
  SetupCase decode = k;
  decode.one_sequence = false;
  CHECK_FALSE(step_named(estimate_case(card, m, decode, EngineEfficiency{})));
}

TEST_CASE("a GGUF quant's trunk is q4_0 or q8_0, never bf16, when the source leaves it out", "[setup]") {
  const ModelCard card = qwen30();
  const MachineProfile m = catalog("epyc-9654-768gb-rtx3090");
  Claim c = hybrid_claim();
  std::set<std::string> trunks;
  for (const SetupCase& k : plausible_cases(c, card, m)) trunks.insert(k.trunk_quant);
  CHECK(trunks == std::set<std::string>{"q4_0", "q8_0"});
  // The file decides, not the engine: a streaming engine that reads the
  // same GGUF (BigMoeOnEdge) keeps its trunk there too.
  c.engine = "bmoe-cli";
  trunks.clear();
  for (const SetupCase& k : plausible_cases(c, card, m)) trunks.insert(k.trunk_quant);
  CHECK(trunks == std::set<std::string>{"q4_0", "q8_0"});
  // An engine's own format (WASTE's VQ3R experts) says nothing of the
  // trunk: the whole plausible set.
  c.engine = "waste";
  c.quant = "VQ3R: 3-bit residual VQ experts";
  trunks.clear();
  for (const SetupCase& k : plausible_cases(c, card, m)) trunks.insert(k.trunk_quant);
  CHECK(trunks.count("bf16") == 1);
}

TEST_CASE("a measured RSS within the model's own size says the run held it all", "[setup]") {
  const ModelCard card = qwen30();
  const MachineProfile m = catalog("epyc-9654-768gb-rtx3090");
  Claim c = hybrid_claim();
  c.processor = "cpu";
  c.gpus.reset();
  const double need = static_cast<double>(card.parameter_counts().total()) * 4.5 / 8;
  c.rss_bytes = static_cast<std::uint64_t>(0.95 * need);  // an engine that holds less than our 0.5 GB overhead
  const SetupCase k = plausible_cases(c, card, m).front();
  CHECK(k.memory_is_rss);
  CHECK(estimate_case(card, m, k, EngineEfficiency{}).resident);
  c.rss_bytes = static_cast<std::uint64_t>(0.5 * need);  // far below: memory ran short, it streamed
  const SetupCase s = plausible_cases(c, card, m).front();
  CHECK_FALSE(estimate_case(card, m, s, EngineEfficiency{}).resident);
}

TEST_CASE("other spellings of a family are that family and a fork keeps its name", "[setup][claims]") {
  CHECK(engine_family("MLX 0.32.0 / mlx-lm 0.31.3, tensor parallel") == "mlx-lm");
  CHECK(engine_family("mlx_lm stream_generate") == "mlx-lm");
  CHECK(engine_family("llama-bench build 2f68ce7cf") == "llama.cpp");
  CHECK(engine_family("ik_llama.cpp llama-sweep-bench") == "ik_llama.cpp");
  CHECK(engine_family("llama.cpp-derived fork") == "llama.cpp-derived");
  CHECK(engine_family("turboquant-mlx") == "turboquant-mlx");
  CHECK(family_prefill_chunk(engine_family("MLX"))->tokens == 2048);  // the facts of mlx-lm apply
}

TEST_CASE("a run average from an empty cache hits only what the run has seen, not the steady state", "[setup]") {
  // Kimi K3 (92 MoE layers, 896 experts, 16 active) with room for 17,000
  // experts: uniform routing through an LRU hits ~0.2 in the steady state
  // (uniform_lru_hit_rate's closed form).
  const ModelCard card = k3();
  const MachineProfile m = catalog("mac-studio-m3-ultra-512gb");
  SetupCase c = mxfp4_case("bf16", 16);
  c.routing = "uniform";
  c.on_cpu = true;
  c.memory_bytes = 450e9;
  c.cache_bytes = 300e9;
  const CaseEstimate steady = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(steady.fits);
  const CacheShape shape{92, 896, 16, static_cast<std::size_t>(steady.slots)};
  CHECK(steady.hit_rate == Approx(uniform_lru_hit_rate(shape)));
  CHECK(steady.hit_rate > 0.15);
  // One prompt token, then 8 decode tokens: decode token j has seen j
  // tokens, and each of its experts is one of them with probability
  // 1 − (1 − 16/896)^j; the run's mean over j = 1..8 is
  // 1 − (1/8) Σ q^j = 1 − q(1 − q^8) / (8(1 − q)) = 0.0775, q = 880/896.
  c.cold_prompt_tokens = 1;
  c.cold_gen_tokens = 9;
  const CaseEstimate cold = estimate_case(card, m, c, EngineEfficiency{});
  REQUIRE(cold.fits);
  const double q = 880.0 / 896;
  CHECK(cold.hit_rate == Approx(1 - q * (1 - std::pow(q, 8)) / (8 * (1 - q))).margin(0.01));
  CHECK(cold.storage_bytes_tok > steady.storage_bytes_tok);
  CHECK(std::any_of(cold.steps.begin(), cold.steps.end(), [](const Step& s) { return s.name == "cold cache"; }));
  // The run also reads the trunk it pins, once: over its 9 tokens, a ninth
  // of the pinned bytes per token, beside the misses of the cold cache.
  // A steady figure reads its trunk's streamed layers and its misses: the
  // routed bytes a token reads follow from it.
  REQUIRE(cold.pinned_trunk_bytes > 0);
  REQUIRE(steady.paged_bytes_tok == 0);
  const double routed_tok = (steady.storage_bytes_tok - steady.trunk_streamed_bytes_tok) / (1 - steady.hit_rate);
  CHECK(routed_tok == Approx(16.0 * 92 * 3 * 3584 * 3072 * 4.25 / 8).epsilon(0.01));  // 16 experts × 92 layers of 3 × 3584 × 3072 MXFP4 weights: 25.8 GB
  CHECK(cold.storage_bytes_tok ==
        Approx(cold.trunk_streamed_bytes_tok + (1 - cold.hit_rate) * routed_tok + cold.pinned_trunk_bytes / 9).epsilon(1e-6));
  auto pin_step = [](const CaseEstimate& x) {
    return std::any_of(x.steps.begin(), x.steps.end(), [](const Step& s) { return s.name == "cold start: pinned trunk read"; });
  };
  CHECK(pin_step(cold));
  CHECK_FALSE(pin_step(steady));
  // The priced drive time reads those bytes too, at the same rate.
  CHECK(cold.parts.io_s[1] / cold.storage_bytes_tok == Approx(steady.parts.io_s[1] / steady.storage_bytes_tok));
  // A prefill pass (which passes paid the pin is not known) and a run that
  // holds the whole model read no such load.
  SetupCase pass = c;
  pass.batch = 512;
  pass.one_sequence = true;
  CHECK_FALSE(pin_step(estimate_case(card, m, pass, EngineEfficiency{})));
  SetupCase all = c;
  all.memory_bytes = 10 * m.memory_total_bytes.value;  // resident because the budget says so
  all.cache_bytes.reset();
  const CaseEstimate held = estimate_case(card, m, all, EngineEfficiency{});
  CHECK(held.resident);
  CHECK_FALSE(pin_step(held));
  // The claim's conditions say when: a run average of a streaming engine with
  // its generated tokens stated; a steady figure, or an mmap engine's (whose
  // page cache may outlive the run), is steady.
  Claim claim = stated_claim(0.5);
  claim.figure = "run_average";
  claim.prompt_tokens = 5;
  claim.gen_tokens = 16;
  const auto cases = plausible_cases(claim, card, catalog("macbook-pro-m5-pro-64gb"));
  REQUIRE_FALSE(cases.empty());
  CHECK(cases.front().cold_prompt_tokens == 5);
  CHECK(cases.front().cold_gen_tokens == 16);
  claim.figure = "steady_decode";
  CHECK(plausible_cases(claim, card, catalog("macbook-pro-m5-pro-64gb")).front().cold_gen_tokens == 0);
  claim.figure = "run_average";
  claim.engine = "llama.cpp";
  CHECK(plausible_cases(claim, card, catalog("macbook-pro-m5-pro-64gb")).front().cold_gen_tokens == 0);
}

TEST_CASE("layers split across GPUs stream one device at a time, a tensor-parallel engine every one", "[setup]") {
  // gpt-oss-120b held by 8 A100s: llama.cpp gives each device whole layers,
  // which run in turn, so a token reads its bytes at one device's bandwidth;
  // vLLM splits every layer across the 8 and reads at 8 devices' bandwidth.
  auto card = testing::shipped_store().card("gpt-oss-120b");
  REQUIRE(card);
  const MachineProfile m = catalog("a100-80gb-x8");
  REQUIRE(m.accelerators);
  SetupCase c;
  c.expert_bits = 4.25;
  c.trunk_quant = "bf16";
  c.gpus = true;
  c.memory_bytes = 100e9;
  c.residency = Residency::kStream;
  c.family = "llama.cpp";
  const CaseEstimate split = estimate_case(*card, m, c, EngineEfficiency{});
  c.family = "vllm";
  const CaseEstimate tp = estimate_case(*card, m, c, EngineEfficiency{});
  REQUIRE(split.fits);
  REQUIRE(tp.fits);
  const double bw = m.accelerators->memory_read_bytes_s.value;
  CHECK(split.parts.mem_gpu_s[1] == Approx(split.memory_bytes_tok / bw).epsilon(0.01));
  CHECK(tp.parts.mem_gpu_s[1] == Approx(split.parts.mem_gpu_s[1] / m.accelerators->count));
  CHECK(tp.parts.tensor_parallel);
  CHECK_FALSE(split.parts.tensor_parallel);
}
