// sweep_test.cpp — expansion order, defaults, filters and point identity.
#include <catch2/catch.hpp>

#include "engines/registry.h"
#include "vocab/config_store.h"
#include "vocab/sweep_spec.h"
#include "test_support.h"

using namespace moebench;

namespace {

SweepContext ctx() { return testing::shipped_context(); }

std::vector<Point> expand(const std::string& text) {
  auto spec = load_sweep_text(text, "t.json", ctx());
  if (!spec) FAIL(spec.error().message);
  auto pts = expand_sweep(*spec, ctx());
  if (!pts) FAIL(pts.error().message);
  return *pts;
}

}  // namespace

TEST_CASE("the product of the axes, set-up axes outermost", "[sweep]") {
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "quant": ["mxfp4", "q8_0"], "ram_budget": ["1GiB", "2GiB"], "context_tokens": [0, 100, 200]}})");
  REQUIRE(pts.size() == 12);
  // quant (a container property) changes slowest, context fastest.
  CHECK(pts[0].quant == "mxfp4");
  CHECK(pts[5].quant == "mxfp4");
  CHECK(pts[6].quant == "q8_0");
  CHECK(pts[0].context_tokens == 0);
  CHECK(pts[1].context_tokens == 100);
  CHECK(*pts[3].ram_budget_bytes == 2ull << 30);
  for (std::size_t i = 0; i < pts.size(); ++i) CHECK(pts[i].index == i);
  // Neighbours share set-up until the quant changes.
  CHECK(pts[0].setup_key() == pts[5].setup_key());
  CHECK(pts[5].setup_key() != pts[6].setup_key());
}

TEST_CASE("defaults for absent axes, native quant resolves to the card's", "[sweep]") {
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"]}})");
  REQUIRE(pts.size() == 1);
  CHECK(pts[0].quant == "mxfp4");
  CHECK_FALSE(pts[0].ram_budget_bytes.has_value());
  CHECK(pts[0].drives.count == 1);
  CHECK(pts[0].drives.layout == "replicate");
  CHECK(pts[0].gen_tokens == 16);
  CHECK(pts[0].threads == 0);
  CHECK(pts[0].routing == "uniform");
}

TEST_CASE("native and the explicit native quant are one point", "[sweep]") {
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "quant": ["native", "mxfp4"]}})");
  CHECK(pts.size() == 1);
}

TEST_CASE("include keeps only matches, exclude drops matches", "[sweep]") {
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "ram_budget": ["1GiB", "2GiB", "unlimited"], "drives": [1, {"count": 2, "layout": "stripe"}]},
      "include": [{"ram_budget": ["1GiB", "unlimited"]}],
      "exclude": [{"ram_budget": "unlimited", "drives": {"count": 2, "layout": "stripe"}}]})");
  REQUIRE(pts.size() == 3);
  CHECK(*pts[0].ram_budget_bytes == 1ull << 30);
  CHECK(pts[0].drives.count == 1);
  CHECK(pts[1].drives.count == 1);
  CHECK_FALSE(pts[1].ram_budget_bytes.has_value());
  CHECK(pts[2].drives.layout == "stripe");
  CHECK(*pts[2].ram_budget_bytes == 1ull << 30);
}

TEST_CASE("point ids are stable and round-trip through the key", "[sweep]") {
  const auto a = expand(R"({"name": "s", "axes": {"engine": ["null:sleep_ms=1"], "model": [{"card": "kimi-k3", "layers": 4, "experts": 112}],
      "drives": [{"count": 2, "throttle": "200MB/s"}], "routing": ["zipf:1.1"], "threads": [2]}})");
  const auto b = expand(R"({"name": "other", "repetitions": 9, "axes": {"engine": ["null:sleep_ms=1"], "model": [{"card": "kimi-k3", "experts": 112, "layers": 4}],
      "drives": [{"throttle": "200MB/s", "count": 2}], "routing": ["zipf:1.1"], "threads": [2]}})");
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a[0].id() == b[0].id());
  auto back = point_from_key_json(a[0].key_json());
  REQUIRE(back.ok());
  CHECK(back->id() == a[0].id());
  CHECK(back->drives.throttle_bytes_s.value() == Approx(200e6));
  CHECK(back->scale.to_string() == "layers=4,experts=112");
}

TEST_CASE("the digest changes with anything that changes the answer", "[sweep]") {
  auto d = [](const std::string& t) { return load_sweep_text(t, "t.json", ctx())->digest; };
  const std::string base = R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"]}})";
  CHECK(d(base) == d(R"({"name": "s", "axes": {"model": ["tiny-moe"], "engine": ["null"]}})"));
  CHECK(d(base) != d(R"({"name": "s", "seed": 7, "axes": {"engine": ["null"], "model": ["tiny-moe"]}})"));
  CHECK(d(base) != d(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "gen_tokens": [8]}})"));
}

TEST_CASE("scaling keeps expert geometry and the mix of layer kinds", "[sweep]") {
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card.ok());
  auto scaled = apply_scale(*card, *parse_scale("layers=4,experts=112"));
  REQUIRE(scaled.ok());
  CHECK(scaled->total_layers() == 4);
  CHECK(scaled->moe_layers() >= 1);
  CHECK(scaled->moe.experts == 112);
  CHECK(scaled->expert_bytes("mxfp4") == card->expert_bytes("mxfp4"));
  CHECK(card->expert_bytes("mxfp4") == 17547264ull);  // FACTS.md
  CHECK_FALSE(parse_scale("layers=0").ok());
  CHECK_FALSE(parse_scale("layer=4").ok());
  CHECK_FALSE(apply_scale(*card, *parse_scale("layers=500")).ok());
}

TEST_CASE("trunk_quant: native resolves to the card's, and leaves the point key (and id) as before", "[sweep]") {
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "trunk_quant": ["native", "bf16", "q8_0"]}})");
  REQUIRE(pts.size() == 2);  // native and bf16 (tiny-moe's own) are one point
  CHECK(pts[0].trunk_quant == "bf16");
  CHECK(pts[0].trunk_quant_is_card);
  CHECK_FALSE(pts[0].key_json().contains("trunk_quant"));
  CHECK(pts[1].trunk_quant == "q8_0");
  CHECK_FALSE(pts[1].trunk_quant_is_card);
  CHECK(pts[1].key_json().at("trunk_quant") == "q8_0");
  CHECK(pts[0].id() != pts[1].id());
  CHECK(pts[0].setup_key() != pts[1].setup_key());  // two trunk quants never share a container
  CHECK_THAT(pts[1].label(), Catch::Contains("trunk=q8_0"));
  auto back = point_from_key_json(pts[1].key_json());
  REQUIRE(back.ok());
  CHECK(back->trunk_quant == "q8_0");
  CHECK(back->id() == pts[1].id());
  // The sweep without the axis gives the same point as "native".
  const auto plain = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"]}})");
  CHECK(plain[0].id() == pts[0].id());
}

TEST_CASE("trunk_quant: a key written before the axis existed keeps its id", "[sweep]") {
  // tests/golden/results.json's first row, as the journal stored it.
  const Json old = Json::parse(R"({"cache_policy": "lru", "context_tokens": 8192,
      "drives": {"count": 1, "layout": "replicate", "throttle_bytes_s": null}, "engine": "null", "gen_tokens": 16,
      "model": "kimi-k3", "prefetch": "off", "prompt_tokens": 32, "quant": "mxfp4", "ram_budget_bytes": 2147483648,
      "routing": "uniform", "scale": "layers=4,experts=112", "threads": "all"})");
  auto p = point_from_key_json(old);
  REQUIRE(p.ok());
  CHECK(p->id() == "21d1ab8e52fd951f");
  CHECK(p->trunk_quant_is_card);
  // The same point expanded from a sweep today, trunk quant resolved to the card's.
  const auto pts = expand(R"({"name": "s", "axes": {"engine": ["null"], "model": [{"card": "kimi-k3", "layers": 4, "experts": 112}],
      "quant": ["mxfp4"], "trunk_quant": ["native"], "ram_budget": ["2GiB"], "context_tokens": [8192], "prompt_tokens": [32]}})");
  REQUIRE(pts.size() == 1);
  CHECK(pts[0].trunk_quant == "bf16");
  CHECK(pts[0].id() == "21d1ab8e52fd951f");
}

TEST_CASE("trunk_quant: the default axis leaves an old sweep's digest unchanged, and a real value changes it", "[sweep]") {
  auto d = [](const std::string& t) { return load_sweep_text(t, "t.json", ctx())->digest; };
  const std::string base = R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"]}})";
  CHECK(d(base) == d(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "trunk_quant": ["native"]}})"));
  CHECK(d(base) != d(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "trunk_quant": ["q8_0"]}})"));
}

TEST_CASE("trunk_quant: a quant that cannot store the trunk's rows is refused with the file and JSON path", "[sweep]") {
  // tiny-moe's trunk rows are 64 (MLA kv_b), 256, 512 ... long: 32-weight
  // blocks divide them, q4_k's 256-weight blocks do not.
  auto ok = load_sweep_text(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "trunk_quant": ["q8_0", "mxfp4", "q4_0"]}})",
                            "t.json", ctx());
  CHECK(ok.ok());
  auto bad = load_sweep_text(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "trunk_quant": ["bf16", "q4_k"]}})",
                             "t.json", ctx());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("t.json: /axes/trunk_quant/1: q4_k stores weights in blocks of 256") &&
                                      Catch::Contains("row length 64 of trunk tensor blk.3.attn_kv_b.weight"));
  auto unknown = load_sweep_text(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"], "trunk_quant": ["q5_x"]}})",
                                 "t.json", ctx());
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("/axes/trunk_quant/0"));
  ModelCard c = *testing::shipped_store().card("tiny-moe");
  CHECK(trunk_quant_fits_card(c, "bf16").empty());
  CHECK_THAT(trunk_quant_fits_card(c, "nope"), Catch::Contains("unknown quant"));
}

TEST_CASE("a sweep name is one plain path component", "[sweep]") {
  // The name is the default results directory: results/<name>.
  for (const std::string& bad : std::vector<std::string>{"..", ".", "a/b", "", std::string("nul\0byte", 8), "sp ace"}) {
    Json j = {{"name", bad}, {"axes", {{"engine", {"null"}}, {"model", {"tiny-moe"}}}}};
    auto spec = load_sweep_text(j.dump(), "t.json", ctx());
    INFO(bad);
    REQUIRE_FALSE(spec.ok());
    CHECK_THAT(spec.error().message, Catch::Contains("t.json: /name:"));
    CHECK(spec.error().message.find('\0') == std::string::npos);  // shown as \x00, never sent raw
  }
  Json ok = {{"name", "ci-2.v1_x+y"}, {"axes", {{"engine", {"null"}}, {"model", {"tiny-moe"}}}}};
  CHECK(load_sweep_text(ok.dump(), "t.json", ctx()).ok());
}

TEST_CASE("an error never carries a raw control byte", "[sweep]") {
  using namespace std::string_literals;
  const Error e = make_error("bad \"a\0b\x1b[2J\" here\nnext line\twith tab"s);
  CHECK(e.message == "bad \"a\\x00b\\x1b[2J\" here\nnext line\twith tab");
}
