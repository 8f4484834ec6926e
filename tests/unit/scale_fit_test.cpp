// scale_fit_test.cpp — configs/fits/scale.json: bench-engines' checks of the
// full-model arithmetic, and the bands the full-model columns take from them.
#include <catch2/catch.hpp>

#include <fstream>

#include "test_support.h"
#include "vocab/scale_fit.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

ScaleCheck check(std::vector<double> decode, std::vector<double> ttft, std::vector<double> streaming) {
  ScaleCheck c;
  c.taken_at = "2026-12-06T05:00:00Z";
  c.host = "vm";
  c.cpu = "AMD EPYC, moebench kernels avx512-vnni";
  c.cards = "kimi-k3 layers=2,experts=64 -> layers=6,experts=32";
  c.resident_decode = std::move(decode);
  c.resident_ttft = std::move(ttft);
  c.streaming_decode = std::move(streaming);
  return c;
}

}  // namespace

TEST_CASE("a full-model band is the largest error line 6 measured, its 90th percentile from 10 checks on", "[scale-fit]") {
  ScaleFit fit;
  fit.checks.push_back(check({1.02, 1.08}, {1.5}, {1.1}));
  fit.checks.push_back(check({1.04}, {1.2, 2.0}, {1.2, 1.15}));
  auto decode = scale_band(fit, FullModelKind::kResidentDecode);
  REQUIRE(decode);
  CHECK(decode->factor == Approx(1.08));  // 3 ratios: the largest
  CHECK(decode->ratios == 3);
  CHECK(scale_band(fit, FullModelKind::kResidentTtft)->factor == Approx(2.0));
  // A streaming prefill has no check of its own: the larger of the two it is made of.
  auto st = scale_band(fit, FullModelKind::kStreamingTtft);
  REQUIRE(st);
  CHECK(st->factor == Approx(2.0));
  CHECK(st->ratios == 6);
  // Ten ratios and more: the 90th percentile, so one outlier run does not set it.
  ScaleFit many;
  std::vector<double> r;
  for (int i = 0; i < 9; ++i) r.push_back(1.01 + 0.01 * i);
  r.push_back(3.0);
  many.checks.push_back(check(r, {}, {}));
  auto b = scale_band(many, FullModelKind::kResidentDecode);
  REQUIRE(b);
  CHECK(b->factor < 1.3);
  CHECK(b->factor > 1.09);
  CHECK_FALSE(scale_band(many, FullModelKind::kStreamingDecode));  // no streaming check: no band
  CHECK_FALSE(scale_band(many, FullModelKind::kStreamingTtft));
}

TEST_CASE("a scale fit round-trips, and a bad ratio names its JSON path", "[scale-fit]") {
  ScaleFit fit;
  fit.checks.push_back(check({1.02}, {1.5}, {1.1, 1.2}));
  const std::string once = scale_fit_json(fit).dump(2);
  auto back = load_config_text<ScaleFit>(once, "scale.json", load_scale_fit);
  if (!back) FAIL(back.error().message);
  CHECK(scale_fit_json(*back).dump(2) == once);
  CHECK(back->checks.at(0).streaming_decode.size() == 2);

  Json bad = scale_fit_json(fit);
  bad["checks"][0]["resident_ttft"][0] = 0.8;  // a ratio max(p/m, m/p) is never below 1
  auto e = load_config_text<ScaleFit>(bad.dump(), "scale.json", load_scale_fit);
  REQUIRE_FALSE(e);
  CHECK_THAT(e.error().message, Catch::Contains("scale.json: /checks/0/resident_ttft/0") && Catch::Contains("1 or more"));
  Json missing = scale_fit_json(fit);
  missing["checks"][0].erase("host");
  auto m = load_config_text<ScaleFit>(missing.dump(), "scale.json", load_scale_fit);
  REQUIRE_FALSE(m);
  CHECK_THAT(m.error().message, Catch::Contains("/checks/0/host"));
}

TEST_CASE("bench-engines appends its check, and a bad file is named and left as it was", "[scale-fit]") {
  TempDir dir;
  const std::string path = dir.file("scale.json");
  REQUIRE(append_scale_check(path, check({1.01}, {1.1}, {1.2})));
  REQUIRE(append_scale_check(path, check({1.03}, {1.4}, {1.05})));
  auto fit = load_config_file<ScaleFit>(path, load_scale_fit);
  if (!fit) FAIL(fit.error().message);
  REQUIRE(fit->checks.size() == 2);
  CHECK(scale_band(*fit, FullModelKind::kResidentTtft)->factor == Approx(1.4));

  const std::string broken = dir.file("broken.json");
  {
    std::ofstream o(broken);
    o << R"({"checks": [{"taken_at": "x"}]})";
  }
  Status st = append_scale_check(broken, check({1.01}, {1.1}, {1.2}));
  REQUIRE_FALSE(st);
  CHECK_THAT(st.error().message, Catch::Contains("broken.json") && Catch::Contains("not appended"));
  std::ifstream in(broken);
  const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == R"({"checks": [{"taken_at": "x"}]})");
}
