// model_card_test.cpp — the derived numbers of the shipped model cards
// against published figures (../shared/reference/FACTS.md and public
// configs), each with its tolerance; scaling; the `card show` report against
// its golden file. Regenerate the golden file after an intended change with
//   MOEBENCH_UPDATE_GOLDEN=1 build/tests/unit_tests "[card]"
// and review the diff.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "vocab/card_report.h"
#include "vocab/file_io.h"
#include "vocab/subprocess.h"
#include "test_support.h"

using namespace moebench;

namespace {

ModelCard shipped(const std::string& name) {
  auto card = testing::shipped_store().card(name);
  if (!card) FAIL(card.error().message);
  return *card;
}

// |actual / expected - 1| <= tolerance, with both numbers in the message.
void check_within(double actual, double expected, double tolerance, const char* what) {
  INFO(what << ": derived " << actual << " vs published " << expected << " (" << std::showpos
            << 100.0 * (actual / expected - 1.0) << " %, tolerance " << std::noshowpos << 100.0 * tolerance
            << " %)");
  CHECK(std::fabs(actual / expected - 1.0) <= tolerance);
}

using testing::check_golden;

constexpr std::uint64_t k8K = 8192;
constexpr std::uint64_t k1M = 1048576;

}  // namespace

TEST_CASE("kimi-k3 reproduces the published figures", "[card]") {
  const ModelCard k3 = shipped("kimi-k3");
  REQUIRE(k3.total_layers() == 93);
  REQUIRE(k3.moe_layers() == 92);

  // Exact: 3584 x 3072 x 17/32 x 3 (FACTS.md).
  CHECK(k3.expert_bytes("mxfp4") == 17547264ull);
  CHECK(k3.expert_bytes("mxfp4") % 4096 == 0);
  // 16 x 92 x 17,547,264 B ~ 25.8 GB of routed experts per decode token.
  CHECK(k3.routed_bytes_per_token("mxfp4") == 16ull * 92 * 17547264ull);
  check_within(static_cast<double>(k3.routed_bytes_per_token("mxfp4")), 25.8e9, 0.005, "routed bytes/token");

  // Checkpoint at native quant within 1 % of the verified 1,560,936,091,448 B.
  check_within(static_cast<double>(k3.container_bytes("mxfp4")), 1560936091448.0, 0.01, "checkpoint");
  // The article's dense trunk (per-layer weights, bf16): 108.81 GB.
  check_within(static_cast<double>(k3.trunk().layers), 108.81e9, 0.01, "dense trunk");
  // kimi-k3-in-c: trunk + embed/lm_head = 113.49 GB.
  check_within(static_cast<double>(k3.trunk().total()), 113.49e9, 0.01, "trunk with embedding and lm_head");
  // "the engine moves ~135 GB per token at small budgets": trunk and experts streamed.
  check_within(static_cast<double>(k3.decode_bytes("mxfp4").all_streamed.storage), 135e9, 0.03,
               "bytes per token, all streamed");

  // Parameters: 2.78 T total; ~104 B active (we count the embedding table too).
  const ParamCounts p = k3.parameter_counts();
  check_within(static_cast<double>(p.total()), 2.78e12, 0.01, "total parameters");
  check_within(static_cast<double>(p.active()), 104e9, 0.02, "active parameters");
  CHECK(p.routed_experts == 896ull * 92 * 3 * 3584 * 3072);

  // Cache: only the 24 MLA layers grow (576 bf16 values each per token); the
  // 69 KDA layers hold a fixed fp32 state. 0.7 GB at 8K and 29.5 GB at 1M are
  // both met by fixed state + per-token KV (not by a proportional model).
  CHECK(k3.kv_bytes_per_token() == 24ull * 576 * 2);
  CHECK(k3.linear_state_bytes() == 69ull * (96 * 128 * 128 + 3 * 3 * 96 * 128) * 4);
  check_within(static_cast<double>(k3.cache_bytes(k8K)), 0.7e9, 0.10, "cache at 8K");
  check_within(static_cast<double>(k3.cache_bytes(k1M)), 29.5e9, 0.10, "cache at 1M");
  // Tighter than the issue asks: both within 1.5 %.
  check_within(static_cast<double>(k3.cache_bytes(k8K)), 0.7e9, 0.015, "cache at 8K (tight)");
  check_within(static_cast<double>(k3.cache_bytes(k1M)), 29.5e9, 0.015, "cache at 1M (tight)");
}

TEST_CASE("the derived numbers hang together", "[card]") {
  for (const std::string& name : testing::shipped_store().names("models")) {
    INFO(name);
    const ModelCard c = shipped(name);
    const ParamCounts p = c.parameter_counts();
    const TrunkBytes t = c.trunk();
    CHECK(p.total() == p.trunk() + p.routed_experts);
    CHECK(p.routed_experts * static_cast<std::uint64_t>(c.moe.active) ==
          p.routed_active * static_cast<std::uint64_t>(c.moe.experts));
    CHECK(c.container_bytes(c.expert_quant) == c.routed_bytes_total(c.expert_quant) + t.total());
    if (c.trunk_quant == "bf16") CHECK(t.total() == 2 * p.trunk());  // every trunk tensor is 16-bit
    const DecodeBytes d = c.decode_bytes(c.expert_quant);
    CHECK(d.all_resident.storage == 0);
    CHECK(d.experts_streamed.storage == c.routed_bytes_per_token(c.expert_quant));
    CHECK(d.all_streamed.storage == t.layers + c.routed_bytes_per_token(c.expert_quant));
    CHECK(d.all_resident.total() == d.experts_streamed.total());
    CHECK(d.all_resident.total() == d.all_streamed.total());
    CHECK(c.cache_bytes(0) == c.linear_state_bytes());
  }
}

TEST_CASE("every shipped card loads, fits its native quant and renders", "[card]") {
  const auto names = testing::shipped_store().names("models");
  for (const char* expected : {"kimi-k3", "deepseek-v3-671b", "qwen3-235b-a22b", "qwen3-30b-a3b",
                               "kimi-linear-48b", "tiny-moe"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  for (const std::string& name : names) {
    INFO(name);
    const ModelCard c = shipped(name);
    CHECK(quant_fits_card(c, c.expert_quant).empty());
    CHECK(c.container_bytes(c.expert_quant) > 0);
    CHECK((name == "tiny-moe" || !c.sources.empty()));
    auto report = render_card_report(c, {});
    REQUIRE(report.ok());
    CHECK(report->find("container size per quant") != std::string::npos);
  }
}

TEST_CASE("public parameter counts are matched by the card geometry", "[card]") {
  const ParamCounts ds = shipped("deepseek-v3-671b").parameter_counts();
  check_within(static_cast<double>(ds.total()), 671e9, 0.02, "deepseek-v3 total");
  check_within(static_cast<double>(ds.active()), 37e9, 0.03, "deepseek-v3 active");
  const ParamCounts q235 = shipped("qwen3-235b-a22b").parameter_counts();
  check_within(static_cast<double>(q235.total()), 235e9, 0.03, "qwen3-235b total");
  check_within(static_cast<double>(q235.active()), 22e9, 0.03, "qwen3-235b active");
  const ParamCounts q30 = shipped("qwen3-30b-a3b").parameter_counts();
  check_within(static_cast<double>(q30.total()), 30.5e9, 0.03, "qwen3-30b total");
  check_within(static_cast<double>(q30.active()), 3.3e9, 0.03, "qwen3-30b active");
  const ParamCounts kl = shipped("kimi-linear-48b").parameter_counts();
  check_within(static_cast<double>(kl.total()), 48e9, 0.03, "kimi-linear total (name rounds 49.1 B)");
}

TEST_CASE("kimi-k3-half-width: every routed expert half as wide, the rest K3", "[card]") {
  const ModelCard k3 = shipped("kimi-k3");
  const ModelCard half = shipped("kimi-k3-half-width");
  // article-k3-datacenter-only.txt: 896 experts x 92 layers = 82,432 kept; FFN 3072 -> 1536.
  CHECK(half.moe.experts == 896);
  CHECK(half.moe.active == 16);
  CHECK(half.expert_bytes("mxfp4") * 2 == k3.expert_bytes("mxfp4"));
  CHECK(half.parameter_counts().routed_experts * 2 == k3.parameter_counts().routed_experts);
  check_within(static_cast<double>(half.parameter_counts().routed_experts), 1.361e12, 0.005, "half-width routed weights");
  CHECK(half.trunk().layers == k3.trunk().layers);
}

TEST_CASE("scaling keeps bytes per expert and top-k and shrinks the rest", "[card]") {
  const ModelCard k3 = shipped("kimi-k3");
  auto scaled = apply_scale(k3, *parse_scale("layers=4,experts=112"));
  REQUIRE(scaled.ok());
  CHECK(scaled->total_layers() == 4);
  CHECK(scaled->moe_layers() >= 1);
  CHECK(scaled->moe.experts == 112);
  CHECK(scaled->moe.active == 16);
  CHECK(scaled->expert_bytes("mxfp4") == 17547264ull);
  const auto moe = static_cast<std::uint64_t>(scaled->moe_layers());
  CHECK(scaled->routed_bytes_per_token("mxfp4") == 16 * moe * 17547264ull);
  CHECK(scaled->routed_bytes_total("mxfp4") == 112 * moe * 17547264ull);
  CHECK(scaled->parameter_counts().routed_experts == 112 * moe * 3 * 3584 * 3072);
  CHECK(scaled->trunk().layers < k3.trunk().layers / 10);
  CHECK(scaled->trunk().embedding == k3.trunk().embedding);  // vocab and hidden unchanged
  CHECK(scaled->kv_bytes_per_token() <= k3.kv_bytes_per_token());

  // Experts only: every layer stays, so the trunk changes only by the router rows.
  auto narrow = apply_scale(k3, *parse_scale("experts=112"));
  REQUIRE(narrow.ok());
  CHECK(narrow->total_layers() == 93);
  CHECK(narrow->cache_bytes(k8K) == k3.cache_bytes(k8K));
  CHECK(k3.parameter_counts().router - narrow->parameter_counts().router == 92ull * (896 - 112) * 7168);

  CardReportOptions o;
  o.scale = *parse_scale("layers=4,experts=112");
  auto report = render_card_report(*scaled, o);
  REQUIRE(report.ok());
  CHECK(report->find("scale: layers=4,experts=112") != std::string::npos);
}

TEST_CASE("card show kimi-k3 matches its golden file", "[card][golden]") {
  auto report = render_card_report(shipped("kimi-k3"), {});
  REQUIRE(report.ok());
  check_golden("card_kimi_k3.txt", *report);
}

TEST_CASE("card show --json: the report's numbers, exact, under the same errors", "[card]") {
  const ModelCard k3 = shipped("kimi-k3");
  CardReportOptions o;
  o.contexts = {8192};
  auto j = card_report_json(k3, o);
  REQUIRE(j.ok());
  CHECK((*j)["name"] == "kimi-k3");
  CHECK((*j)["parameters"]["total"].get<std::uint64_t>() == k3.parameter_counts().total());
  CHECK((*j)["bytes"]["per_routed_expert"].get<std::uint64_t>() == k3.expert_bytes(k3.expert_quant));
  CHECK((*j)["kv_bytes_per_token"].get<std::uint64_t>() == k3.kv_bytes_per_token());
  REQUIRE((*j)["contexts"].size() == 1);
  CHECK((*j)["contexts"][0]["total_bytes"].get<std::uint64_t>() == k3.cache_bytes(8192));
  const DecodeBytes d = k3.decode_bytes(k3.expert_quant);
  CHECK((*j)["decode_bytes_per_token"]["experts_streamed"]["storage_bytes"].get<std::uint64_t>() == d.experts_streamed.storage);
  bool native = false;
  for (const auto& c : (*j)["containers"]) native = native || (c["quant"] == k3.expert_quant && c["native"] == true);
  CHECK(native);
  o.quant = "q4_kk";
  auto bad = card_report_json(k3, o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("did you mean \"q4_k\"") != std::string::npos);
}

TEST_CASE("card report options: quants and contexts", "[card]") {
  const ModelCard k3 = shipped("kimi-k3");
  CardReportOptions o;
  o.quant = "q4_kk";
  auto bad = render_card_report(k3, o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("did you mean \"q4_k\"") != std::string::npos);
  o.quant = "q4_k";
  o.contexts = {32768};
  auto ok = render_card_report(k3, o);
  REQUIRE(ok.ok());
  CHECK(ok->find("routed experts q4_k (native mxfp4)") != std::string::npos);
  CHECK(ok->find("32,768") != std::string::npos);

  CHECK(*parse_context_tokens("8192") == 8192);
  CHECK(*parse_context_tokens("8K") == 8192);
  CHECK(*parse_context_tokens("128k") == 131072);
  CHECK(*parse_context_tokens("1M") == 1048576);
  CHECK_FALSE(parse_context_tokens("0").ok());
  CHECK_FALSE(parse_context_tokens("8 GB").ok());
  CHECK_FALSE(parse_context_tokens("").ok());
}

TEST_CASE("card loader: the optional geometry fields", "[card]") {
  auto load = [](const std::string& linear) {
    return load_config_text<ModelCard>(
        R"({"name": "t", "geometry": "exact", "hidden_size": 256, "vocab_size": 1024,
            "layers": [{"count": 2, "attention": "linear", "ffn": "moe"}],
            "linear": )" + linear + R"(,
            "moe": {"experts": 4, "active": 2, "expert_dim": 256, "expert_intermediate": 256},
            "expert_quant": "q8_0", "trunk_quant": "bf16"})",
        "t.json", load_model_card);
  };
  auto plain = load(R"({"heads": 2, "key_head_dim": 64, "value_head_dim": 64})");
  REQUIRE(plain.ok());
  CHECK(plain->linear->conv_kernel == 0);
  CHECK_FALSE(plain->linear->decay_gate_rank.has_value());
  CHECK(plain->linear_state_bytes() == 2ull * 2 * 64 * 64 * 4);
  auto gated = load(R"({"heads": 2, "key_head_dim": 64, "value_head_dim": 64, "conv_kernel": 4,
                        "decay_gate_rank": 16, "output_gate_rank": 0})");
  REQUIRE(gated.ok());
  CHECK(gated->linear_state_bytes() == 2ull * (2 * 64 * 64 + 3 * 3 * 2 * 64) * 4);
  CHECK(gated->parameter_counts().attention_linear > plain->parameter_counts().attention_linear);
  auto bad = load(R"({"heads": 2, "key_head_dim": 64, "value_head_dim": 64, "decay_gate_rank": -1})");
  CHECK_FALSE(bad.ok());
}

TEST_CASE("card: a sliding window caps the KV a layer keeps and the positions it attends to", "[card]") {
  // gpt-oss-20b alternates 12 sliding (window 128) and 12 full GQA layers;
  // one layer keeps 2 × 8 KV heads × 64 × 2 B = 2,048 B per position.
  const ModelCard oss = shipped("gpt-oss-20b");
  CHECK(oss.kv_bytes_per_token() == 24ull * 2048);
  CHECK(oss.kv_bytes_at(100) == 24ull * 2048 * 100);  // inside the window every layer sees every position
  CHECK(oss.kv_bytes_at(4096) == 12ull * 2048 * 4096 + 12ull * 2048 * 128);
  CHECK(oss.cache_bytes(4096) == oss.kv_bytes_at(4096));
  // Attention: 4 × 64 heads × 64 FLOPs per attended position and layer.
  CHECK(oss.attention_flops_at(4096) == 12ull * 16384 * 4096 + 12ull * 16384 * 128);
  // A card without windows: per-position × context, as before.
  const ModelCard k3 = shipped("kimi-k3");
  CHECK(k3.kv_bytes_at(k8K) == k3.kv_bytes_per_token() * k8K);
  CHECK(k3.attention_flops_at(k8K) == k3.attention_flops_per_position() * k8K);
  // The loader: a window belongs to GQA layers and is a positive count.
  auto load = [](const std::string& group) {
    return load_config_text<ModelCard>(
        R"({"name": "t", "geometry": "exact", "hidden_size": 256, "vocab_size": 1024,
            "layers": [)" + group + R"(],
            "gqa": {"heads": 4, "kv_heads": 2, "head_dim": 64},
            "moe": {"experts": 4, "active": 2, "expert_dim": 256, "expert_intermediate": 256},
            "expert_quant": "q8_0", "trunk_quant": "bf16"})",
        "t.json", load_model_card);
  };
  auto ok = load(R"({"count": 2, "attention": "gqa", "ffn": "moe", "window": 16})");
  REQUIRE(ok.ok());
  CHECK(ok->layers[0].window == 16);
  auto zero = load(R"({"count": 2, "attention": "gqa", "ffn": "moe", "window": 0})");
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message, Catch::Contains("/layers/0/window"));
  auto linear = load(R"({"count": 2, "attention": "linear", "ffn": "moe", "window": 16})");
  REQUIRE_FALSE(linear.ok());
  CHECK_THAT(linear.error().message, Catch::Contains("sliding window applies to \"gqa\" layers only"));
}

TEST_CASE("moebench card show: output and exit codes", "[card][cli]") {
  const std::string binary = MOEBENCH_BINARY;
  if (!std::filesystem::exists(binary)) {
    WARN("no moebench binary at " << binary << "; build the moebench target to run this test");
    return;
  }
  const std::string configs = std::string(MOEBENCH_SOURCE_DIR) + "/configs";
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {binary, "--configs", configs, "card", "show"});
    // A cross build runs its moebench through the emulator (qemu-user).
    const std::string emulator = MOEBENCH_EMULATOR;
    std::vector<std::string> words;
    for (std::size_t at = 0; at < emulator.size();) {
      const std::size_t end = std::min(emulator.find(' ', at), emulator.size());
      if (end > at) words.push_back(emulator.substr(at, end - at));
      at = end + 1;
    }
    args.insert(args.begin(), words.begin(), words.end());
    auto r = run_process(args, ProcessOptions{});
    REQUIRE(r.ok());
    return *r;
  };
  const ProcessResult ok = run({"kimi-k3"});
  CHECK(ok.exit_code == 0);
  auto golden = read_file(std::string(MOEBENCH_GOLDEN_DIR) + "/card_kimi_k3.txt");
  REQUIRE(golden.ok());
  CHECK(ok.out == *golden);

  const ProcessResult unknown = run({"kimi-k33"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("did you mean \"kimi-k3\"") != std::string::npos);
  const ProcessResult bad_scale = run({"kimi-k3", "--scale", "layers=0"});
  CHECK(bad_scale.exit_code == 2);
  CHECK(bad_scale.err.find("--scale") != std::string::npos);
  const ProcessResult bad_quant = run({"kimi-k3", "--quant", "mxfp5"});
  CHECK(bad_quant.exit_code == 2);
  CHECK(bad_quant.err.find("unknown quant") != std::string::npos);
  const ProcessResult bad_context = run({"kimi-k3", "--context", "lots"});
  CHECK(bad_context.exit_code == 2);
  const ProcessResult scaled = run({"kimi-k3", "--scale", "layers=4,experts=112", "--context", "8K,1M"});
  CHECK(scaled.exit_code == 0);
  CHECK(scaled.out.find("scale: layers=4,experts=112") != std::string::npos);
}

TEST_CASE("a store decodes a card text once and sees an edited card", "[card]") {
  // The store reads the card's file on every call; a text it has decoded is
  // not decoded again, and copies of the store share what was decoded.
  testing::TempDir dir;
  std::filesystem::create_directories(dir.file("models"));
  const std::string text = *read_file(std::string(MOEBENCH_SOURCE_DIR) + "/configs/models/tiny-moe.json");
  REQUIRE(write_file_atomic(dir.file("models/tiny-moe.json"), text).ok());
  const ConfigStore store({dir.path()});
  const ConfigStore copy = store;
  auto first = store.card("tiny-moe");
  auto again = copy.card("tiny-moe");
  REQUIRE(first.ok());
  REQUIRE(again.ok());
  CHECK(again->hidden_size == first->hidden_size);
  CHECK(again->moe.experts == first->moe.experts);
  CHECK(store.cards_decoded() == 1);

  // Edited: the new text is decoded (and checked) again.
  std::string edited = text;
  const std::size_t at = edited.find("\"name\"");
  REQUIRE(at != std::string::npos);
  edited.replace(edited.find('"', edited.find(':', at)) + 1, std::string("tiny-moe").size(), "tiny-mox");
  REQUIRE(write_file_atomic(dir.file("models/tiny-moe.json"), edited).ok());
  auto renamed = store.card("tiny-moe");
  REQUIRE_FALSE(renamed.ok());
  CHECK(renamed.error().message.find("card is named \"tiny-mox\"") != std::string::npos);
  CHECK(store.cards_decoded() == 2);
  REQUIRE(write_file_atomic(dir.file("models/tiny-moe.json"), "{").ok());
  CHECK_FALSE(store.card("tiny-moe").ok());
  CHECK_FALSE(store.card("tiny-moe").ok());  // a text that fails is decoded each time (and not kept)
  CHECK(copy.cards_decoded() == 4);
}
