// shard_test.cpp — one sweep over many machines, as a tutorial:
//   1. name the shard (`--shard K/N`, or the scheduler's environment);
//   2. the partition gives every point to exactly one shard, the same way
//      on every machine, keeps a container's points together when they fit
//      and balances the predicted cost;
//   3. `merge` joins the shards' results, refuses what does not belong
//      together, and says what is missing or was measured twice;
//   4. the merged set is a journal that `run --resume` can continue.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/journal.h"
#include "harness/shard_merge.h"
#include "harness/shard_plan.h"
#include "vocab/journal_format.h"
#include "vocab/stats.h"

#include "test_support.h"

using namespace moebench;

namespace {

GetEnvFn env_of(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

std::vector<Point> ci_points(SweepSpec* spec_out = nullptr) {
  auto src = testing::shipped_store().find("sweeps", "ci");
  REQUIRE(src);
  SweepContext ctx = testing::shipped_context();
  auto spec = load_sweep_text(src->text, src->label, ctx);
  REQUIRE(spec);
  auto points = expand_sweep(*spec, ctx);
  REQUIRE(points);
  if (spec_out != nullptr) *spec_out = *spec;
  return *points;
}

Environment env_named(const std::string& run_id, const std::string& commit = "abc123") {
  Environment e = testing::fixed_environment(run_id);
  e.git_commit = commit;
  e.hostname = "host-" + run_id;
  e.started_at = "2026-12-02T10:00:00Z";
  return e;
}

ResultRow row_at(const Point& p, const Environment& env, RowStatus status = RowStatus::kOk) {
  ResultRow r;
  r.point = p;
  r.status = status;
  if (status != RowStatus::kOk) r.reason = "engine failed";
  r.provenance = "measured";
  r.run_id = env.run_id;
  r.machine = "vm";
  r.build = env.build_label();
  r.repetitions = 1;
  r.metrics["decode_tok_s"] = summarize({10.0 + static_cast<double>(p.index)});
  r.samples["decode_tok_s"] = {10.0 + static_cast<double>(p.index)};
  return r;
}

// The results a shard's run writes: its shard info and rows for the first
// `finished` of its points (all when negative).
RunResults shard_run(const SweepSpec& spec, const std::vector<Point>& points, int k, int n, const std::string& run_id,
                     int finished = -1) {
  ShardSelection sel = select_shard(spec, points, testing::shipped_store(), "", ShardSpec{k, n});
  RunResults r;
  r.sweep.name = spec.name;
  r.sweep.digest = spec.digest;
  r.sweep.points_total = points.size();
  r.sweep.repetitions = spec.repetitions;
  r.sweep.seed = spec.seed;
  r.sweep.shard = sel.info;
  r.environments = {env_named(run_id)};
  for (std::size_t i = 0; i < sel.positions.size(); ++i) {
    if (finished >= 0 && static_cast<int>(i) >= finished) break;
    r.rows.push_back(row_at(points[sel.positions[i]], r.environments.front()));
  }
  return r;
}

}  // namespace

TEST_CASE("shards: K/N names one of N shards, 1-based", "[shard]") {
  auto s = parse_shard_spec("2/8");
  REQUIRE(s);
  CHECK(s->index == 2);
  CHECK(s->count == 8);
  for (const char* bad : {"0/4", "5/4", "1/0", "a/b", "2", "2/", "/4", "1/100001", "-1/4", "1/4x"}) {
    INFO(bad);
    auto e = parse_shard_spec(bad);
    REQUIRE_FALSE(e);
    CHECK(e.error().message.find(std::string("--shard \"") + bad + "\"") != std::string::npos);
  }
}

TEST_CASE("shards: the scheduler's environment names the shard", "[shard]") {
  // Slurm: sbatch --array=4-7 gives task ids 4..7; task 5 is the second shard.
  auto slurm = shard_spec_from_env(env_of({{"SLURM_ARRAY_TASK_ID", "5"},
                                           {"SLURM_ARRAY_TASK_MIN", "4"},
                                           {"SLURM_ARRAY_TASK_MAX", "7"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  REQUIRE(slurm);
  CHECK(slurm->index == 2);
  CHECK(slurm->count == 4);
  // An array with holes (--array=0-6:2) cannot be a partition's index.
  auto holes = shard_spec_from_env(env_of({{"SLURM_ARRAY_TASK_ID", "2"},
                                           {"SLURM_ARRAY_TASK_MIN", "0"},
                                           {"SLURM_ARRAY_TASK_MAX", "6"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  REQUIRE_FALSE(holes);
  CHECK(holes.error().message.find("contiguous") != std::string::npos);
  auto no_count = shard_spec_from_env(env_of({{"SLURM_ARRAY_TASK_ID", "1"}}));
  REQUIRE_FALSE(no_count);
  CHECK(no_count.error().message.find("SLURM_ARRAY_TASK_COUNT is not set") != std::string::npos);
  // Kubernetes Indexed Job: 0-based index, the count from the manifest.
  auto k8s = shard_spec_from_env(env_of({{"JOB_COMPLETION_INDEX", "0"}, {"MOEBENCH_SHARD_COUNT", "3"}}));
  REQUIRE(k8s);
  CHECK(k8s->index == 1);
  CHECK(k8s->count == 3);
  auto k8s_no_count = shard_spec_from_env(env_of({{"JOB_COMPLETION_INDEX", "2"}}));
  REQUIRE_FALSE(k8s_no_count);
  CHECK(k8s_no_count.error().message.find("MOEBENCH_SHARD_COUNT") != std::string::npos);
  auto k8s_over = shard_spec_from_env(env_of({{"JOB_COMPLETION_INDEX", "3"}, {"MOEBENCH_SHARD_COUNT", "3"}}));
  REQUIRE_FALSE(k8s_over);
  auto none = shard_spec_from_env(env_of({}));
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("--shard K/N") != std::string::npos);
  auto junk = shard_spec_from_env(env_of({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  REQUIRE_FALSE(junk);
  CHECK(junk.error().message.find("SLURM_ARRAY_TASK_ID=\"x\"") != std::string::npos);
}

TEST_CASE("shards: every point in exactly one shard, groups kept together, cost balanced", "[shard]") {
  // 40 points in 10 groups of 4; group g's points cost g+1 s each.
  std::vector<ShardItem> items;
  for (std::size_t i = 0; i < 40; ++i) {
    items.push_back(ShardItem{i, static_cast<std::int64_t>(1000 * (i / 4 + 1)), "g" + std::to_string(i / 4)});
  }
  for (int n : {1, 2, 3, 4, 7, 40, 50}) {
    INFO("shards: " << n);
    const ShardPartition a = partition_points(items, n);
    const ShardPartition b = partition_points(items, n);
    CHECK(a.shards == b.shards);  // the same on every machine
    REQUIRE(a.shards.size() == static_cast<std::size_t>(n));
    std::multiset<std::size_t> seen;
    std::int64_t total = 0, most = 0;
    for (std::size_t k = 0; k < a.shards.size(); ++k) {
      seen.insert(a.shards[k].begin(), a.shards[k].end());
      CHECK(std::is_sorted(a.shards[k].begin(), a.shards[k].end()));
      std::int64_t cost = 0;
      for (std::size_t p : a.shards[k]) cost += items[p].cost_ms;
      CHECK(cost == a.cost_ms[k]);
      total += cost;
      most = std::max(most, cost);
    }
    CHECK(seen.size() == 40);
    CHECK(std::set<std::size_t>(seen.begin(), seen.end()).size() == 40);
    // Balance: no shard above the fair share by more than the costliest point.
    CHECK(most <= (total + n - 1) / n + 10000);
  }
  // With 4 shards every group fits a fair share (55 s each of 220 s): a
  // group's points share a shard, so its container is made once.
  const ShardPartition four = partition_points(items, 4);
  for (std::size_t g = 0; g < 10; ++g) {
    int holders = 0;
    for (const auto& s : four.shards) holders += std::count(s.begin(), s.end(), 4 * g) > 0 ? 1 : 0;
    for (const auto& s : four.shards) {
      const bool has_first = std::count(s.begin(), s.end(), 4 * g) > 0;
      for (std::size_t j = 1; j < 4; ++j) CHECK(has_first == (std::count(s.begin(), s.end(), 4 * g + j) > 0));
    }
    CHECK(holders == 1);
  }
  // One point costlier than a fair share cannot be split: the groups
  // beside it stay whole (no container is made on every shard).
  std::vector<ShardItem> lopsided = {ShardItem{0, 100000, "big"}};
  for (std::size_t i = 1; i <= 100; ++i) lopsided.push_back(ShardItem{i, 1000, "g" + std::to_string((i - 1) / 5)});
  const ShardPartition lp = partition_points(lopsided, 4);
  for (std::size_t g = 0; g < 20; ++g) {
    int holders = 0;
    for (const auto& s : lp.shards) holders += std::count(s.begin(), s.end(), 1 + 5 * g) > 0 ? 1 : 0;
    CHECK(holders == 1);
  }
  CHECK(*std::max_element(lp.cost_ms.begin(), lp.cost_ms.end()) == 100000);
  // One group costlier than a fair share is cut, so no shard stays idle.
  std::vector<ShardItem> one_group;
  for (std::size_t i = 0; i < 8; ++i) one_group.push_back(ShardItem{i, 1000, "same container"});
  const ShardPartition cut = partition_points(one_group, 4);
  for (const auto& s : cut.shards) CHECK(s.size() == 2);
}

TEST_CASE("shards: the shipped ci sweep's shards cover it once, with predicted costs", "[shard]") {
  SweepSpec spec;
  const std::vector<Point> points = ci_points(&spec);
  std::string how;
  const auto cost = estimate_point_costs_ms(spec, points, testing::shipped_store(), "", &how);
  CHECK(how.find(kShardReferenceMachine) != std::string::npos);
  CHECK(how.find("not predictable") == std::string::npos);
  // Attention over 1024 tokens of context costs a resident point more than
  // over none, everything else the same.
  int twins = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size(); ++j) {
      if (points[i].engine.name != "resident" || points[j].engine.name != "resident") continue;
      if (points[i].quant != points[j].quant || points[i].context_tokens != 0 || points[j].context_tokens != 1024) continue;
      CHECK(cost[j] > cost[i]);
      ++twins;
    }
  }
  CHECK(twins == 2);
  std::multiset<std::string> ids;
  for (int k = 1; k <= 3; ++k) {
    const ShardSelection sel = select_shard(spec, points, testing::shipped_store(), "", ShardSpec{k, 3});
    CHECK(sel.info.label() == std::to_string(k) + "/3");
    CHECK(sel.info.point_ids.size() == sel.positions.size());
    CHECK(sel.info.predicted_cost_s > 0);
    CHECK(sel.info.partition_digest.size() == 16);
    ids.insert(sel.info.point_ids.begin(), sel.info.point_ids.end());
  }
  CHECK(ids.size() == points.size());
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == points.size());
}

TEST_CASE("merge: the shards of one sweep become one results set", "[shard]") {
  SweepSpec spec;
  const std::vector<Point> points = ci_points(&spec);
  std::vector<MergeInput> inputs;
  for (int k = 3; k >= 1; --k) {  // any order
    inputs.push_back(MergeInput{"shard" + std::to_string(k), shard_run(spec, points, k, 3, "run" + std::to_string(k))});
  }
  auto m = merge_runs(inputs);
  REQUIRE(m);
  CHECK(m->complete());
  CHECK(m->merged.rows.size() == points.size());
  CHECK_FALSE(m->merged.sweep.shard);
  CHECK(m->merged.environments.size() == 3);
  for (std::size_t i = 0; i < m->merged.rows.size(); ++i) CHECK(m->merged.rows[i].point.index == i);
  CHECK(merge_summary(*m).back() == fmt::format("{} of {} points merged", points.size(), points.size()));

  SECTION("with the merge's own run segment first, the merged set is a run of its own") {
    auto own = merge_runs(inputs, env_named("merge"));
    REQUIRE(own);
    REQUIRE(own->merged.environments.size() == 4);
    CHECK(own->merged.environments.front().run_id == "merge");
    for (const ResultRow& r : own->merged.rows) CHECK(r.run_id != "merge");  // rows keep their shard's segment
  }
  SECTION("the merged journal reads back as the same set, and resumes as the whole sweep") {
    auto back = parse_journal_text(merged_journal_text(m->merged), "merged");
    REQUIRE(back);
    CHECK(back->rows.size() == points.size());
    CHECK(back->environments.size() == 3);
    CHECK_FALSE(back->sweep.shard);
    CHECK(back->sweep.digest == spec.digest);
  }
  SECTION("a shard not given and a shard stopped early are reported") {
    inputs.erase(inputs.begin());  // shard 3 absent
    inputs[0].results = shard_run(spec, points, 2, 3, "run2", 1);  // shard 2 stopped after one point
    auto part = merge_runs(inputs);
    REQUIRE(part);
    CHECK_FALSE(part->complete());
    CHECK(part->absent_shards == std::vector<int>{3});
    const std::size_t shard2 = inputs[0].results.sweep.shard->point_ids.size();
    CHECK(part->inputs[0].unfinished_ids.size() == shard2 - 1);
    CHECK(part->missing_points == points.size() - part->merged.rows.size());
    const auto lines = merge_summary(*part);
    CHECK(std::any_of(lines.begin(), lines.end(),
                      [](const std::string& l) { return l.find("shard 3/3: not given") != std::string::npos; }));
    CHECK(std::any_of(lines.begin(), lines.end(),
                      [](const std::string& l) { return l.find("unfinished: rerun that shard") != std::string::npos; }));
  }
  SECTION("a point measured twice is reported once, the ok row kept") {
    RunResults again = inputs[0].results;  // shard 3 measured again as a whole-sweep run
    again.sweep.shard.reset();
    again.environments = {env_named("rerun")};
    for (ResultRow& r : again.rows) {
      r.run_id = "rerun";
      r.status = RowStatus::kFailed;
    }
    inputs.push_back(MergeInput{"rerun", again});
    auto dup = merge_runs(inputs);
    REQUIRE(dup);
    CHECK(dup->duplicates.size() == again.rows.size());
    CHECK(dup->duplicates.front().labels == std::vector<std::string>{"shard3", "rerun"});
    for (const ResultRow& r : dup->merged.rows) CHECK(r.status == RowStatus::kOk);
    CHECK_FALSE(dup->complete());
  }
  SECTION("the same rows reached twice (an earlier merge given with its shards) are one row") {
    inputs.push_back(MergeInput{"merged", m->merged});
    auto again = merge_runs(inputs);
    REQUIRE(again);
    CHECK(again->duplicates.empty());
    CHECK(again->complete());
  }
  SECTION("shards of different sweeps, builds or partitions, or one shard twice, are refused") {
    RunResults other = inputs[1].results;
    other.sweep.digest = "0000000000000000";
    auto e1 = merge_runs({inputs[0], MergeInput{"other", other}});
    REQUIRE_FALSE(e1);
    CHECK(e1.error().message.find("different sweeps") != std::string::npos);

    RunResults rebuilt = inputs[1].results;
    rebuilt.environments = {env_named("run2", "def456")};
    auto e2 = merge_runs({inputs[0], MergeInput{"rebuilt", rebuilt}});
    REQUIRE_FALSE(e2);
    CHECK(e2.error().message.find("different builds") != std::string::npos);

    auto e3 = merge_runs({inputs[0], inputs[0]});
    REQUIRE_FALSE(e3);
    CHECK(e3.error().message.find("given twice") != std::string::npos);

    auto e4 = merge_runs({inputs[0], MergeInput{"of4", shard_run(spec, points, 1, 4, "run4")}});
    REQUIRE_FALSE(e4);
    CHECK(e4.error().message.find("one of 3 shards") != std::string::npos);

    RunResults recut = inputs[1].results;  // another machine read other configs
    recut.sweep.shard->partition_digest = "0123456789abcdef";
    auto e5 = merge_runs({inputs[0], MergeInput{"recut", recut}});
    REQUIRE_FALSE(e5);
    CHECK(e5.error().message.find("another partition of the sweep") != std::string::npos);
  }
}

TEST_CASE("shards: a journal of one shard refuses to resume as another", "[shard]") {
  SweepSpec spec;
  const std::vector<Point> points = ci_points(&spec);
  const RunResults one = shard_run(spec, points, 1, 2, "r1", 0);
  testing::TempDir dir;
  const std::string path = dir.file("journal.jsonl");
  {
    auto j = Journal::open(path, one.sweep, one.environments.front(), Journal::Mode::kCreate);
    REQUIRE(j);
  }
  SweepInfo two = one.sweep;
  two.shard = select_shard(spec, points, testing::shipped_store(), "", ShardSpec{2, 2}).info;
  auto refused = Journal::open(path, two, env_named("r2"), Journal::Mode::kResume);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("holds shard 1/2") != std::string::npos);
  CHECK(refused.error().message.find("this run is shard 2/2") != std::string::npos);
  auto same = Journal::open(path, one.sweep, env_named("r3"), Journal::Mode::kResume);
  CHECK(same);
}
