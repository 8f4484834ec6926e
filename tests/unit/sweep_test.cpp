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
