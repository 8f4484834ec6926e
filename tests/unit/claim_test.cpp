// claim_test.cpp — the claims database: every shipped configs/claims/*.json
// loads without a diagnostic and names real model cards and catalog machines;
// the optional run-shape, container, linked-setup and concurrency fields load;
// and every bad value is reported with its JSON path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "vocab/claim.h"
#include "test_support.h"

using namespace moebench;

namespace {

// configs/hardware profile names a claim may use (the machine catalog).
const std::set<std::string> kCatalogHardware = {
    "macbook-pro-m5-pro-64gb", "macbook-pro-m5-max-128gb", "macbook-pro-m1-max-64gb",
    "mac-studio-m3-ultra-512gb", "mac-studio-m3-ultra-512gb-x4", "dgx-spark", "dgx-spark-x3",
    "dgx-spark-x16", "epyc-7763-2s-228gb", "rtx3090-optane-pmem", "a100-40gb-x4", "a100-80gb-x8",
    "b200-x4", "b300-x8", "h200-x16",
    "xeon-6248-2s-1536gb-rtx6000ada-x2", "epyc-9654-768gb-rtx3090", "epyc-9355-2s-736gb-rtxpro6000",
    "epyc-9965-1s-768gb", "tr-pro-7965wx-256gb-a6000", "ryzen-9950x-96gb-rtx3090ti",
    "epyc-7j13-2s-oracle-denseio", "ryzen-9900x-ddr5-6000", "apple-m4-max-128gb", "apple-m5-24gb",
    "workstation-124c-720gb", "gb300-x8"};

const std::set<std::string> kReferenceDocuments = {"claims-feed.txt", "article-k3-datacenter-only.txt",
                                                   "discussion-thread.txt"};

std::vector<std::string> shipped_claim_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(MOEBENCH_SOURCE_DIR) + "/configs/claims")) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A claim that loads; each case below breaks one field of it.
Json valid_claim() {
  return Json::parse(R"({
    "id": "c1", "title": "K3 on a laptop", "model": "Kimi K3", "card": "kimi-k3",
    "quant": "mxfp4", "engine": "X", "machine": "a laptop", "ram_budget": "64GB",
    "drives": 2, "context_tokens": 4096, "trunk_quant": "bf16", "speculative": false,
    "reported": {"decode_tok_s": 0.6},
    "source": {"document": "claims-feed.txt", "quote": "0.6 tok/s"}})");
}

std::string load_errors(const Json& claim) {
  Json file = {{"claims", Json::array({claim})}};
  Diagnostics d("t.json");
  auto c = load_claims(file, d);
  if (c) return "";
  return d.render();
}

}  // namespace

TEST_CASE("every shipped claims file loads without diagnostics", "[claims][config]") {
  const auto files = shipped_claim_files();
  REQUIRE(!files.empty());
  const std::vector<std::string> cards = testing::shipped_store().names("models");
  const std::set<std::string> card_set(cards.begin(), cards.end());
  std::set<std::string> ids;
  std::map<std::string, int> per_document;
  std::size_t total = 0;
  for (const std::string& path : files) {
    INFO(path);
    auto claims = load_claims_file(path);
    if (!claims) FAIL(claims.error().message);
    CHECK(!claims->empty());
    for (const Claim& c : *claims) {
      INFO(c.id);
      ++total;
      CHECK(ids.insert(c.id).second);  // ids are unique across files
      if (c.card) CHECK(card_set.count(*c.card) == 1);
      if (c.hardware) {
        CHECK(kCatalogHardware.count(*c.hardware) == 1);
        CHECK(std::filesystem::is_regular_file(std::string(MOEBENCH_SOURCE_DIR) + "/configs/hardware/" +
                                               *c.hardware + ".json"));
      }
      CHECK(kReferenceDocuments.count(c.source_document) == 1);
      ++per_document[c.source_document];
      // Every condition is given or named missing (the loader enforces it;
      // checked here on the loaded values too).
      const std::set<std::string> missing(c.missing.begin(), c.missing.end());
      CHECK((c.quant.has_value() != (missing.count("quant") == 1)));
      CHECK((c.engine.has_value() != (missing.count("engine") == 1)));
      CHECK((c.machine.has_value() != (missing.count("machine") == 1)));
      CHECK((c.ram_budget_bytes.has_value() != (missing.count("ram_budget") == 1)));
      CHECK((c.drives.has_value() != (missing.count("drives") == 1)));
      CHECK((c.context_tokens.has_value() != (missing.count("context_tokens") == 1)));
      // A figure summed over concurrent streams is never stored as decode speed.
      if (c.concurrency && *c.concurrency > 1) CHECK(!c.decode_tok_s);
    }
  }
  CHECK(total >= 15);
  CHECK(per_document["claims-feed.txt"] >= 12);
  CHECK(per_document["article-k3-datacenter-only.txt"] >= 8);
  CHECK(per_document["discussion-thread.txt"] >= 1);
}

TEST_CASE("the shipped claims keep the figures the references give", "[claims]") {
  std::map<std::string, Claim> by_id;
  for (const std::string& path : shipped_claim_files()) {
    auto claims = load_claims_file(path);
    REQUIRE(claims.ok());
    for (Claim& c : *claims) by_id.emplace(c.id, std::move(c));
  }
  const auto get = [&](const std::string& id) -> const Claim& {
    INFO(id);
    REQUIRE(by_id.count(id) == 1);
    return by_id.at(id);
  };
  // WASTE, article: ~0.6 tok/s in 29.06 GB on the M5 Pro laptop.
  const Claim& waste = get("waste-k3-m5pro-article");
  REQUIRE(waste.decode_tok_s);
  CHECK(waste.decode_tok_s->low == Approx(0.6));
  CHECK(waste.rss_bytes == 29'060'000'000ULL);
  CHECK(waste.container_bytes == 982'000'000'000ULL);
  CHECK(waste.hardware == "macbook-pro-m5-pro-64gb");
  // kimi-k3-in-c: 32.69 s/token at 8.24 GB over 8 tokens; the checkpoint to the byte.
  const Claim& k3c = get("k3c-k3-epyc-laptop-preset-8gb");
  CHECK(k3c.s_per_token->low == Approx(32.69));
  CHECK(k3c.rss_bytes == 8'240'000'000ULL);
  CHECK(k3c.gen_tokens == 8);
  CHECK(k3c.container_bytes == 1'560'936'091'448ULL);
  CHECK(get("k3c-k3-epyc-128gb").gen_tokens == 28);
  // The drive-scaling report: one claim per drive count.
  const std::pair<const char*, double> drives[] = {
      {"feed-m5max-k3-1drive", 0.55}, {"feed-m5max-k3-2drives", 0.75},
      {"feed-m5max-k3-3drives", 0.89}, {"feed-m5max-k3-4drives", 0.96}};
  int n = 1;
  for (const auto& [id, tok_s] : drives) {
    const Claim& c = get(id);
    CHECK(c.drives == n++);
    CHECK(c.decode_tok_s->low == Approx(tok_s));
    CHECK(c.expert_bits_per_weight == Approx(4.25));
  }
  // Aggregate throughput is not single-stream decode.
  const Claim& agg = get("feed-mlx-k3-4x-m3ultra-tp-aggregate-32");
  CHECK(agg.concurrency == 32);
  CHECK(!agg.decode_tok_s);
  CHECK(agg.aggregate_tok_s->low == Approx(21.2));
  CHECK(get("feed-mlx-k3-4x-m3ultra-tp-decode").concurrency == 1);
  // VESSL: 327.5 tok/s throughput with TTFT 0.611 s (0.924 s before).
  const Claim& vessl = get("article-vessl-k3-16xh200-w4afp8-after");
  CHECK(vessl.aggregate_tok_s->low == Approx(327.5));
  CHECK(vessl.ttft_s->low == Approx(0.611));
  CHECK(get("article-vessl-k3-16xh200-w4afp8-before").ttft_s->low == Approx(0.924));
  CHECK(vessl.gpus == 16);
  // Three DGX Sparks, half-width quant.
  const Claim& sparks = get("article-llamacpp-rpc-k3-half-width-3-sparks");
  CHECK(sparks.decode_tok_s->low == Approx(2.42));
  CHECK(sparks.card == "kimi-k3-half-width");
  CHECK_FALSE(sparks.expert_bits_per_weight);  // not published: derived from the 308 GiB footprint
  CHECK(sparks.nodes == 3);
  CHECK(sparks.notes.has_value());
  // ComputingForGeeks: 0.10 tok/s on 4 x A100-40GB, 594 GB UD-IQ1_S.
  const Claim& cfg = get("article-cfg-k3-ud-iq1s-4xa100-40gb");
  CHECK(cfg.decode_tok_s->low == Approx(0.10));
  CHECK(cfg.hardware == "a100-40gb-x4");
  CHECK(cfg.container_bytes == 594'000'000'000ULL);
  // 16 DGX Sparks: one claim per context.
  CHECK(get("feed-vllm-k3-16-sparks-300k").context_tokens == 300000);
  CHECK(get("feed-vllm-k3-16-sparks-100k").context_tokens == 100000);
}

TEST_CASE("the optional claim fields load", "[claims]") {
  Json c = valid_claim();
  c["prompt_tokens"] = 512;
  c["gen_tokens"] = 64;
  c["context_window_tokens"] = 131072;
  c["container_bytes"] = "982GB";
  c["expert_bits_per_weight"] = 4.25;
  c["nodes"] = 4;
  c["gpus"] = 8;
  c["concurrency"] = 32;
  c["processor"] = "hybrid";
  c["backend"] = "vulkan-radv";
  c["cache_type_k"] = "q8_0";  // -ctk q8_0 alone: V stays unstated
  c["notes"] = "speculative decoding with a draft model";
  c["reported"] = Json::parse(R"({"aggregate_tok_s": [20, 21.2], "ttft_s": 0.6, "rss": "420.8GB"})");
  Json file = {{"claims", Json::array({c})}};
  Diagnostics d("t.json");
  auto claims = load_claims(file, d);
  INFO(d.render());
  REQUIRE(claims);
  const Claim& got = claims->at(0);
  CHECK(got.prompt_tokens == 512);
  CHECK(got.gen_tokens == 64);
  CHECK(got.context_window_tokens == 131072);
  CHECK(got.container_bytes == 982'000'000'000ULL);
  CHECK(got.expert_bits_per_weight == Approx(4.25));
  CHECK(got.nodes == 4);
  CHECK(got.gpus == 8);
  CHECK(got.concurrency == 32);
  CHECK(got.processor == std::optional<std::string>("hybrid"));
  CHECK(got.backend == std::optional<std::string>("vulkan-radv"));
  CHECK(got.cache_type_k == std::optional<std::string>("q8_0"));
  CHECK(!got.cache_type_v);
  CHECK(got.notes == "speculative decoding with a draft model");
  REQUIRE(got.aggregate_tok_s);
  CHECK(got.aggregate_tok_s->is_range());
  CHECK(got.aggregate_tok_s->high == Approx(21.2));
  CHECK(!got.decode_tok_s);
  CHECK(got.rss_bytes == 420'800'000'000ULL);

  // An expert cache of 0 is a stated condition (the engine ran without
  // one), in any unit; other sizes must be positive.
  for (const Json& zero : {Json("0MiB"), Json("0 GB"), Json(0)}) {
    Json z = valid_claim();
    z["cache_bytes"] = zero;
    Json zf = {{"claims", Json::array({z})}};
    Diagnostics dz("t.json");
    auto zc = load_claims(zf, dz);
    INFO(dz.render());
    REQUIRE(zc);
    CHECK(zc->at(0).cache_bytes == std::optional<std::uint64_t>(0));
  }

  // Absent optional fields stay absent.
  Json plain = {{"claims", Json::array({valid_claim()})}};
  Diagnostics d2("t.json");
  auto p = load_claims(plain, d2);
  REQUIRE(p);
  CHECK(!p->at(0).prompt_tokens);
  CHECK(!p->at(0).container_bytes);
  CHECK(!p->at(0).expert_bits_per_weight);
  CHECK(!p->at(0).concurrency);
  CHECK(!p->at(0).processor);
  CHECK(!p->at(0).backend);
  CHECK(!p->at(0).cache_type_k);
  CHECK(!p->at(0).cache_type_v);
  CHECK(!p->at(0).notes);
}

TEST_CASE("a bad claim value names its JSON path", "[claims][config]") {
  struct Case {
    const char* name;
    const char* patch;     // merged into the valid claim
    const char* expected;  // substring of the rendered diagnostics
  };
  const Case cases[] = {
      {"negative prompt", R"({"prompt_tokens": -1})", "t.json: /claims/0/prompt_tokens: expected an integer at least 0, got -1"},
      {"string gen", R"({"gen_tokens": "many"})", "/claims/0/gen_tokens: expected an integer, got a string (\"many\")"},
      {"fractional gen", R"({"gen_tokens": 6.5})", "/claims/0/gen_tokens: expected an integer, got a number (6.5)"},
      {"bad size", R"({"container_bytes": "982 gigs"})", "/claims/0/container_bytes: expected a size like \"8GiB\""},
      {"zero size", R"({"container_bytes": 0})", "/claims/0/container_bytes: expected a size greater than zero"},
      {"zero bits", R"({"expert_bits_per_weight": 0})",
       "/claims/0/expert_bits_per_weight: expected bits per routed-expert weight from 1 to 32"},
      {"too many bits", R"({"expert_bits_per_weight": 40})", "/claims/0/expert_bits_per_weight: expected bits"},
      {"bits as string", R"({"expert_bits_per_weight": "4.25"})",
       "/claims/0/expert_bits_per_weight: expected a number, got a string"},
      {"zero nodes", R"({"nodes": 0})", "/claims/0/nodes: expected an integer between 1 and"},
      {"negative gpus", R"({"gpus": -8})", "/claims/0/gpus: expected an integer between 1 and"},
      {"zero concurrency", R"({"concurrency": 0})", "/claims/0/concurrency: expected an integer between 1 and"},
      {"empty notes", R"({"notes": " "})", "/claims/0/notes: must not be empty"},
      {"notes not a string", R"({"notes": ["a"]})", "/claims/0/notes: expected a string, got an array"},
      {"typo key", R"({"concurency": 4})",
       "/claims/0/concurency: unknown key \"concurency\" (did you mean \"concurrency\"?)"},
      {"typo in reported", R"({"reported": {"decode_tok_s": 1, "agregate_tok_s": 3}})",
       "/claims/0/reported/agregate_tok_s: unknown key \"agregate_tok_s\" (did you mean \"aggregate_tok_s\"?)"},
      {"aggregate range backwards", R"({"reported": {"aggregate_tok_s": [30, 20]}})",
       "/claims/0/reported/aggregate_tok_s: expected 0 < low <= high"},
      {"aggregate of one stream", R"({"concurrency": 1, "reported": {"aggregate_tok_s": 3}})",
       "/claims/0/reported/aggregate_tok_s: an aggregate over concurrency 1 is a single-stream figure"},
      {"a cache emptier than its prompt", R"({"prompt_tokens": 8000, "gen_tokens": 200})",
       "/claims/0/context_tokens: context_tokens (4096) is less than prompt_tokens (8000)"},
      {"a run longer than its window without a prompt", R"({"context_window_tokens": 1000, "gen_tokens": 5000})",
       "/claims/0/gen_tokens: prompt_tokens + gen_tokens (5000) exceed context_window_tokens (1000)"},
      {"run longer than its window", R"({"context_window_tokens": 8192, "prompt_tokens": 8000, "gen_tokens": 200})",
       "/claims/0/prompt_tokens: prompt_tokens + gen_tokens (8200) exceed context_window_tokens (8192)"},
      {"cache fuller than its window", R"({"context_window_tokens": 2048})",
       "/claims/0/context_tokens: context_tokens (4096) exceed context_window_tokens (2048)"},
      {"empty window", R"({"context_window_tokens": 0})", "/claims/0/context_window_tokens"},
      {"bad id", R"({"id": "K3 laptop"})", "/claims/0/id: claim id \"K3 laptop\" must be lowercase letters"},
      {"empty title", R"({"title": ""})", "/claims/0/title: must not be empty"},
      {"empty quote", R"({"source": {"document": "claims-feed.txt", "quote": ""}})",
       "/claims/0/source/quote: must not be empty"},
      {"given and missing", R"({"missing": ["drives"]})", "/claims/0/missing: \"drives\" is given, so it is not missing"},
      {"unknown condition", R"({"missing": ["gpus"]})", "/claims/0/missing/0: unknown condition \"gpus\""},
      {"unknown processor", R"({"processor": "npu"})", "/claims/0/processor"},
      {"unknown backend", R"({"backend": "opencl"})", "/claims/0/backend"},
      {"backend not a string", R"({"backend": 3})", "/claims/0/backend"},
      {"a weight quant as a KV cache type", R"({"cache_type_v": "q4_k"})", "/claims/0/cache_type_v"},
      {"cache type not a string", R"({"cache_type_k": 8})", "/claims/0/cache_type_k"},
      {"absurd speed", R"({"reported": {"decode_tok_s": 1e308}})", "/claims/0/reported/decode_tok_s: expected a figure from 1e-6 to 1e7"},
      {"vanishing speed", R"({"reported": {"decode_tok_s": 1e-300}})", "/claims/0/reported/decode_tok_s: expected a figure from 1e-6"},
      {"two speeds disagree", R"({"reported": {"decode_tok_s": 0.63, "s_per_token": 100}})",
       "/claims/0/reported/s_per_token: decode_tok_s 0.630 and s_per_token (0.010 tok/s) disagree"},
      {"sub-bit experts", R"({"expert_bits_per_weight": 1e-300})", "/claims/0/expert_bits_per_weight: expected bits per routed-expert weight from 1 to 32"},
      {"trunk bits against its quant", R"({"trunk_quant": "bf16", "trunk_bits_per_weight": 2})",
       "/claims/0/trunk_bits_per_weight: 2.00 bits per weight disagrees with trunk_quant bf16"},
      {"a size below a byte", R"({"container_bytes": "0.0001KB"})", "/claims/0/container_bytes: expected a size of at least one byte"},
      {"a cache below a byte", R"({"cache_bytes": "0.0001KB"})", "/claims/0/cache_bytes: expected a size of at least one byte"},
      {"a negative cache", R"({"cache_bytes": -4})", "/claims/0/cache_bytes: expected a size greater than zero"},
      {"a zero cache in no unit", R"({"cache_bytes": "0 bananas"})", "/claims/0/cache_bytes"},
      {"unknown trunk quant", R"({"trunk_quant": "q9_z"})",
       "/claims/0/trunk_quant: unknown trunk quant \"q9_z\": use one of"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Json claim = valid_claim();
    claim.merge_patch(Json::parse(c.patch));
    const std::string errors = load_errors(claim);
    INFO(errors);
    CHECK(errors.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("a condition with a bad value gets one message, not a second one saying it is absent", "[claims][config]") {
  for (const char* patch : {R"({"drives": 0})", R"({"ram_budget": "lots"})", R"({"trunk_quant": "q9_z"})", R"({"speculative": "maybe"})"}) {
    INFO(patch);
    Json claim = valid_claim();
    claim.merge_patch(Json::parse(patch));
    const std::string errors = load_errors(claim);
    CHECK_FALSE(errors.empty());
    CHECK(errors.find("neither given nor listed") == std::string::npos);
  }
}

TEST_CASE("a run inside its context, or with no context figure, is accepted", "[claims]") {
  Json inside = valid_claim();
  inside["prompt_tokens"] = 4000;
  inside["gen_tokens"] = 96;
  CHECK(load_errors(inside).empty());
  Json no_context = valid_claim();
  no_context.erase("context_tokens");
  no_context["missing"] = Json::array({"context_tokens"});
  no_context["prompt_tokens"] = 100000;
  CHECK(load_errors(no_context).empty());
}
