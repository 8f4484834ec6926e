// hot_set_test.cpp — learned expert residency (the hot_set axis): the
// spec's forms, which experts a calibration picks and how many, that a held
// expert is a hit from the first token on, that the two replays agree with
// it, and the sweep axis with its errors.
#include <catch2/catch.hpp>

#include <fstream>

#include "engines/cache/hot_set.h"
#include "model/hit_rate.h"
#include "test_support.h"
#include "vocab/hot_set_spec.h"
#include "vocab/sweep_spec.h"

using namespace moebench;

namespace {

// One MoE layer of 8 experts, k = 2: expert 5 in every token, expert 1 in
// three of four, the second expert of the others cycling over 2, 3, 4.
std::string write_trace(const testing::TempDir& dir, int tokens) {
  const std::string path = dir.file("hot.trace");
  std::ofstream out(path);
  out << "moebench-trace v1 layers=1 experts=8 k=2\n";
  for (int t = 0; t < tokens; ++t) out << 5 << "," << (t % 4 == 3 ? 2 + t % 3 : 1) << "\n";
  return path;
}

}  // namespace

TEST_CASE("hot_set forms: off, learned:N[,SHARE], trace:FILE[,SHARE]", "[hot_set]") {
  CHECK(parse_hot_set("off")->off());
  auto l = parse_hot_set("learned:256");
  REQUIRE(l);
  CHECK(l->kind == HotSetSpec::Kind::kLearned);
  CHECK(l->tokens == 256);
  CHECK(l->share == kDefaultHotShare);
  CHECK(parse_hot_set("learned:64,0.25")->share == 0.25);
  auto t = parse_hot_set("trace:runs/a,b.trace,1");
  REQUIRE(t);
  CHECK(t->path == "runs/a,b.trace");  // a comma inside the name, the share after it
  CHECK(t->share == 1);
  CHECK(parse_hot_set("trace:runs/a,b.trace")->path == "runs/a,b.trace");
  CHECK_THAT(parse_hot_set("learned:0").error().message, Catch::Contains("1 or more"));
  CHECK_THAT(parse_hot_set("learned:64,1.5").error().message, Catch::Contains("outside (0, 1]"));
  CHECK_THAT(parse_hot_set("learned:64,x").error().message, Catch::Contains("not a share"));
  CHECK_THAT(parse_hot_set("trace:").error().message, Catch::Contains("needs a routing trace file"));
  CHECK_THAT(parse_hot_set("pinned").error().message, Catch::Contains("\"off\", \"learned:N[,SHARE]\""));
}

TEST_CASE("a trace's hot set: the most needed experts, at most share × slots and slots − k", "[hot_set]") {
  testing::TempDir dir;
  const std::string trace = write_trace(dir, 8);
  const RoutingShape shape{1, 8, 2};
  // Counts over the 8 tokens: 5 ×8, 1 ×6, 2 ×1 (t = 3, 3 % 3 = 0 → 2), 3 ×1 (t = 7 → 2 + 1).
  auto all = learn_hot_set(*parse_hot_set("trace:" + trace + ",1"), "uniform", shape, 0, 0, 6);
  REQUIRE(all);
  CHECK(all->calibration_tokens == 8);  // every token of the file once, no wrap
  CHECK(all->calibration_needs == 16);
  REQUIRE(all->experts.size() == 4);   // min(6, 6 − 2) = 4, and only 4 experts were needed
  CHECK(all->experts[0] == std::make_pair(0, 5));
  CHECK(all->experts[1] == std::make_pair(0, 1));
  CHECK(all->experts[2] == std::make_pair(0, 2));  // a tie: the lower id first
  CHECK(all->experts[3] == std::make_pair(0, 3));
  CHECK(all->held_needs == 16);
  auto half = learn_hot_set(*parse_hot_set("trace:" + trace), "uniform", shape, 0, 0, 6);
  REQUIRE(half);
  CHECK(half->experts.size() == 3);  // ⌊0.5 × 6⌋
  CHECK(hot_set_capacity(6, 2, 1.0) == 4);
  CHECK(hot_set_capacity(2, 2, 1.0) == 0);  // no slot to spare for a set
}

TEST_CASE("learned:N calibrates on the tokens after the run's own", "[hot_set]") {
  const RoutingShape shape{2, 16, 2};
  auto gen = make_routing("zipf:1.2", shape, 9);
  REQUIRE(gen);
  std::vector<int> ids;
  std::vector<int> count(32, 0);
  for (int t = 0; t < 10; ++t) (*gen)->next_token(ids);  // the run: 10 tokens
  for (int t = 0; t < 50; ++t) {
    (*gen)->next_token(ids);
    for (int j = 0; j < 4; ++j) ++count[static_cast<std::size_t>((j / 2) * 16 + ids[static_cast<std::size_t>(j)])];
  }
  auto set = learn_hot_set(*parse_hot_set("learned:50"), "zipf:1.2", shape, 9, 10, 12);
  REQUIRE(set);
  CHECK(set->calibration_tokens == 50);
  CHECK_FALSE(set->overlaps_run);
  REQUIRE(set->experts.size() == 6);
  std::uint64_t held = 0;
  for (std::size_t i = 0; i < set->experts.size(); ++i) {
    const auto [l, e] = set->experts[i];
    const int c = count[static_cast<std::size_t>(l * 16 + e)];
    held += static_cast<std::uint64_t>(c);
    if (i > 0) CHECK(c <= count[static_cast<std::size_t>(set->experts[i - 1].first * 16 + set->experts[i - 1].second)]);
  }
  CHECK(set->held_needs == held);
}

TEST_CASE("a held expert is a hit from the first token, in both replays alike", "[hot_set][analytic]") {
  testing::TempDir dir;
  const std::string trace = write_trace(dir, 200);
  const CacheShape shape{1, 8, 2, 4};
  ReplayPlan plan;
  plan.routing = "trace:" + trace;
  plan.prompt_tokens = 1;
  plan.gen_tokens = 41;
  auto plain = simulate_cache(shape, plan);
  plan.hot_set = "learned:100,0.5";  // holds 5 and 1 (2 of 4 slots)
  auto held = simulate_cache(shape, plan);
  auto fast = fast_replay(shape, plan);
  REQUIRE(plain);
  REQUIRE(held);
  REQUIRE(fast);
  CHECK(held->decode.needs() == 80);
  // 5 every token and 1 in three of four: every one of their needs hits,
  // the prefill's too (they were there before the first token).
  CHECK(held->prefill.hits == 2);
  CHECK(held->decode.hits == 40 + 30);  // 2, 3, 4 cycle through the 2 free slots: LRU misses them all
  CHECK(plain->decode.hits == 70);  // with 4 slots LRU keeps them too; the engine test has a cycle it loses
  CHECK(plain->prefill.hits == 0);  // ... but it starts cold
  CHECK(held->prefill.reads == 0);  // the load's reads are not the run's
  CHECK(fast->decode.hits == held->decode.hits);
  CHECK(fast->decode.misses == held->decode.misses);
  CHECK(fast->prefill.hits == held->prefill.hits);
  CHECK(held->decode.optimal_hits >= held->decode.hits);  // MIN with every slot still bounds it
}

TEST_CASE("the hot_set axis: in the key only when set, validated with its path", "[hot_set][sweep]") {
  const SweepContext ctx = testing::shipped_context();
  auto spec = load_sweep_text(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "hot_set": ["off", "learned:64"]}})", "t.json", ctx);
  REQUIRE(spec);
  auto pts = expand_sweep(*spec, ctx);
  REQUIRE(pts);
  REQUIRE(pts->size() == 2);
  CHECK_FALSE((*pts)[0].key_json().contains("hot_set"));  // ids of earlier runs stay
  CHECK((*pts)[1].key_json().at("hot_set") == "learned:64");
  CHECK((*pts)[0].id() != (*pts)[1].id());
  CHECK((*pts)[0].setup_key() == (*pts)[1].setup_key());  // one container, one load
  auto back = point_from_key_json((*pts)[1].key_json());
  REQUIRE(back);
  CHECK(back->hot_set == "learned:64");
  CHECK(back->id() == (*pts)[1].id());
  auto bad = load_sweep_text(R"({"name": "s", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "hot_set": ["learned:64", "trace:nowhere.trace"]}})", "t.json", ctx);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("t.json: /axes/hot_set/1: hot_set trace file") &&
                                      Catch::Contains("nowhere.trace does not exist"));
}
