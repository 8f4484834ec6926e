// shard_cli_test.cpp — `moebench run --shard K/N` and `moebench merge`
// through the binary: three shards of a 24-point sweep (one taken from a
// Slurm array's environment), one killed with SIGKILL mid-run, merged (exit
// 2: incomplete, naming the shard), resumed, merged again (exit 0): every
// point exactly once, and the merged directory resumes as the whole sweep.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <thread>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"

#include "process.h"
#include "../unit/test_support.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

// 24 points of the null engine, each 2 repetitions × 4 tokens × 30 ms: a
// killed shard still has seconds of work left when the kill lands.
const char* kSweep = R"({"name": "fleet", "repetitions": 2, "warmup": 0, "seed": 7,
  "axes": {"engine": ["null:sleep_ms=30"], "model": ["tiny-moe"],
           "quant": ["mxfp4", "q8_0"], "ram_budget": ["1MiB", "2MiB", "4MiB"],
           "drives": [1, 2], "context_tokens": [0, 128], "gen_tokens": [4]}})";

std::vector<std::string> point_ids(const std::string& results_json) {
  const Json j = Json::parse(read_file(results_json).value());
  std::vector<std::string> ids;
  for (const Json& row : j["rows"]) ids.push_back(row["point_id"].get<std::string>());
  return ids;
}


}  // namespace

TEST_CASE("shards: three shards, one killed and resumed, merged: every point once", "[integration][shard]") {
  TempDir dir;
  const std::string sweep = dir.file("fleet.json");
  REQUIRE(write_file_atomic(sweep, kSweep).ok());
  const std::string shards = dir.file("shards");
  auto out_of = [&](int k) { return shards + "/" + std::to_string(k); };

  Finished one = run_moebench({"run", sweep, "--shard", "1/3", "--out", out_of(1), "--quiet", "--print", "none"},
                              dir.path(), "one");
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  CHECK(one.err.find("of shard 1/3") != std::string::npos);

  // Shard 2 from a Slurm array's environment (task 11 of an array 10-12).
  setenv("SLURM_ARRAY_TASK_ID", "11", 1);
  setenv("SLURM_ARRAY_TASK_MIN", "10", 1);
  setenv("SLURM_ARRAY_TASK_MAX", "12", 1);
  setenv("SLURM_ARRAY_TASK_COUNT", "3", 1);
  Finished two = run_moebench({"run", sweep, "--shard-from-env", "--out", out_of(2), "--quiet", "--print", "none"},
                              dir.path(), "two");
  for (const char* v : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT"}) {
    unsetenv(v);
  }
  INFO(two.err);
  REQUIRE(two.exit_code == 0);
  CHECK(two.err.find("of shard 2/3") != std::string::npos);

  // Shard 3 killed after its second point.
  const std::string journal3 = out_of(3) + "/journal.jsonl";
  Spawned three = spawn_moebench({"run", sweep, "--shard", "3/3", "--out", out_of(3), "--quiet"}, dir.path(), "three");
  REQUIRE(three.pid > 0);
  wait_until([&] { return count_lines(journal3) >= 3; }, 60);
  REQUIRE(kill(three.pid, SIGKILL) == 0);
  (void)wait_for(three);

  const std::string merged = dir.file("merged");
  Finished partial = run_moebench({"merge", out_of(1), out_of(2), out_of(3), "--out", merged}, dir.path(), "partial");
  INFO(partial.err);
  CHECK(partial.exit_code == 1);  // merged, but not every point: the answer is no
  CHECK(partial.err.find("shard 3/3") != std::string::npos);
  CHECK(partial.err.find("unfinished: rerun that shard's command with --resume") != std::string::npos);

  // Resuming shard 3 with another shard index is refused; with its own it finishes.
  Finished wrong = run_moebench({"run", sweep, "--shard", "2/3", "--out", out_of(3), "--resume", "--quiet"},
                                dir.path(), "wrong");
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("holds shard 3/3") != std::string::npos);
  Finished resumed = run_moebench({"run", sweep, "--shard", "3/3", "--out", out_of(3), "--resume", "--quiet",
                                   "--print", "none"},
                                  dir.path(), "resumed");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);

  // Merging over the partial result needs it named, or --replace.
  Finished refused = run_moebench({"merge", out_of(1), out_of(2), out_of(3), "--out", merged}, dir.path(), "refused");
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("already holds results") != std::string::npos);
  Finished full = run_moebench({"merge", out_of(1), out_of(2), out_of(3), "--out", merged, "--replace"}, dir.path(),
                               "full");
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  CHECK(full.err.find("24 of 24 points merged") != std::string::npos);

  std::multiset<std::string> ids;
  for (int k = 1; k <= 3; ++k) {
    for (const std::string& id : point_ids(out_of(k) + "/results.json")) ids.insert(id);
  }
  CHECK(ids.size() == 24);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 24);
  const std::vector<std::string> merged_ids = point_ids(merged + "/results.json");
  CHECK(merged_ids.size() == 24);
  CHECK(std::set<std::string>(merged_ids.begin(), merged_ids.end()) == std::set<std::string>(ids.begin(), ids.end()));

  // The merged directory is the whole sweep's journal: resuming runs nothing.
  Finished again = run_moebench({"run", sweep, "--out", merged, "--resume", "--quiet", "--print", "none"}, dir.path(),
                                "again");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(point_ids(merged + "/results.json").size() == 24);
  CHECK(again.err.find("24/24 points") != std::string::npos);
}

TEST_CASE("shards: bad shard options are refused before anything runs", "[integration][shard]") {
  TempDir dir;
  const std::string sweep = dir.file("fleet.json");
  REQUIRE(write_file_atomic(sweep, kSweep).ok());
  Finished bad = run_moebench({"run", sweep, "--shard", "4/3", "--out", dir.file("o")}, dir.path(), "bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("shard 4 of 3") != std::string::npos);
  Finished both = run_moebench({"run", sweep, "--shard", "1/3", "--shard-from-env"}, dir.path(), "both");
  CHECK(both.exit_code != 0);
  Finished no_env = run_moebench({"run", sweep, "--shard-from-env", "--out", dir.file("o")}, dir.path(), "noenv");
  CHECK(no_env.exit_code == 2);
  CHECK(no_env.err.find("neither SLURM_ARRAY_TASK_ID") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("o") + "/journal.jsonl"));
  Finished nothing = run_moebench({"merge", dir.file("missing"), "--out", dir.file("m")}, dir.path(), "nothing");
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("missing: no such file or directory") != std::string::npos);
}
