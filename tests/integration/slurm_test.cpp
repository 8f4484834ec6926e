// slurm_test.cpp — a sweep sharded over a real Slurm (slurm_cluster.h:
// slurmctld, slurmd and munged from Debian's packages, started and stopped
// here) through the shipped scripts, tools/fleet/slurm-sweep.sh and its two
// batch scripts:
//   1. a 4-shard job array of a tiny-card sweep (the resident engine on
//      tiny-moe, real weights) and its dependent merge job: every point in
//      the merged results exactly once;
//   2. a slower sweep with shard 3 cancelled mid-run (scancel): the merge
//      job reports it unfinished; `slurm-sweep.sh --rerun 3` resumes that
//      shard alone and merges again: every point once, shard 3's journal
//      continued (a second run segment), nothing run twice.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"

#include "process.h"
#include "slurm_cluster.h"
#include "../unit/test_support.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

struct Submitted {
  std::string shards, merge;
};

Submitted submit(const std::vector<std::string>& args, const std::string& scratch) {
  std::vector<std::string> argv = {std::string(MOEBENCH_SOURCE_DIR) + "/tools/fleet/slurm-sweep.sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout_s = 60;
  o.scratch_dir = scratch;
  auto r = run_process(argv, o);
  REQUIRE(r);
  INFO(r->out << r->err);
  REQUIRE(r->ok());
  std::smatch m;
  const std::regex ids(R"(shards: job ([0-9]+).*merge: job ([0-9]+))");
  REQUIRE(std::regex_search(r->out, m, ids));
  return Submitted{m[1], m[2]};
}

std::vector<std::string> point_ids(const std::string& results_json) {
  auto text = read_file(results_json);
  REQUIRE(text);
  const Json j = Json::parse(*text);
  std::vector<std::string> ids;
  for (const Json& row : j["rows"]) ids.push_back(row["point_id"].get<std::string>());
  return ids;
}

std::string file_text(const std::string& path) {
  auto t = read_file(path);
  return t ? *t : std::string();
}

// Every job log of a sweep (OUT/logs), for failure messages.
std::string job_logs(const std::string& out) {
  std::string all;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(out + "/logs", ec)) {
    all += "--- " + e.path().filename().string() + "\n" + last_lines(file_text(e.path().string()), 10);
  }
  return all;
}

}  // namespace

TEST_CASE("Slurm: a 4-shard job array merged, a shard cancelled mid-run and rerun", "[integration][slurm]") {
  if (!server_available(SlurmCluster::installed(), "Slurm (Debian packages slurm-wlm and munge)")) return;
  if (const std::string why = SlurmCluster::missing_facility(); !why.empty()) {
    WARN("SKIPPED: " << why << "; this test did not run");
    return;
  }
  TempDir dir;
  SlurmCluster slurm(dir.path());
  setenv("MOEBENCH", MOEBENCH_BINARY, 1);

  SECTION("four shards of a tiny-card sweep and the merge job") {
    const std::string sweep = dir.file("tiny.json");
    // One drive directory for every shard: shards needing the same
    // container take turns making it (a lock file), then reuse it.
    REQUIRE(write_file_atomic(sweep, R"({"name": "tiny-fleet", "repetitions": 1, "warmup": 0, "seed": 3,
      "drive_dirs": [")" + dir.file("drives") + R"("],
      "axes": {"engine": ["resident"], "model": ["tiny-moe"], "quant": ["mxfp4", "q4_0"],
               "context_tokens": [0, 64], "prompt_tokens": [8, 16], "gen_tokens": [4]}})").ok());
    const std::string out = dir.file("tiny-out");
    const Submitted job = submit({sweep, "4", out}, dir.path());
    INFO(slurm.logs());
    REQUIRE(slurm.wait_idle(job.shards + "," + job.merge, 300));
    const std::string merge_log = file_text(out + "/logs/merge." + job.merge + ".log");
    INFO(job_logs(out));
    CHECK(merge_log.find("8 of 8 points merged") != std::string::npos);
    for (int k = 1; k <= 4; ++k) {
      CHECK(std::filesystem::exists(out + "/shards/" + std::to_string(k) + "-of-4/journal.jsonl"));
    }
    const std::vector<std::string> ids = point_ids(out + "/results.json");
    CHECK(ids.size() == 8);
    CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 8);
  }

  SECTION("a shard cancelled mid-run, reported by the merge, rerun with --resume") {
    const std::string sweep = dir.file("slow.json");
    REQUIRE(write_file_atomic(sweep, R"({"name": "slow-fleet", "repetitions": 2, "warmup": 0, "seed": 7,
      "axes": {"engine": ["null:sleep_ms=400"], "model": ["tiny-moe"], "quant": ["mxfp4", "q8_0"],
               "ram_budget": ["1MiB", "2MiB"], "drives": [1, 2], "context_tokens": [0, 128],
               "gen_tokens": [4]}})").ok());
    const std::string out = dir.file("slow-out");
    const Submitted job = submit({sweep, "4", out}, dir.path());
    const std::string journal3 = out + "/shards/3-of-4/journal.jsonl";
    INFO(slurm.logs());
    // Header + one row: shard 3 is mid-run. Cancel it (SIGTERM to moebench).
    // 400 ms per token leaves its other points about 12 s, so that a busy
    // machine's scancel still lands before the shard ends (150 ms did not).
    wait_until([&] { return count_lines(journal3) >= 2; }, 240);
    REQUIRE(count_lines(journal3) >= 2);
    ProcessOptions o;
    auto cancel = run_process({"scancel", job.shards + "_3"}, o);  // array task K is shard K
    REQUIRE(cancel);
    REQUIRE(cancel->ok());
    REQUIRE(slurm.wait_idle(job.shards + "," + job.merge, 300));
    const std::string partial = file_text(out + "/logs/merge." + job.merge + ".log");
    INFO(job_logs(out));
    CHECK(partial.find("shard 3/4") != std::string::npos);
    CHECK(partial.find("unfinished") != std::string::npos);
    CHECK(point_ids(out + "/results.json").size() < 16);

    const Submitted rerun = submit({"--rerun", "3", sweep, "4", out}, dir.path());
    REQUIRE(slurm.wait_idle(rerun.shards + "," + rerun.merge, 300));
    const std::string full = file_text(out + "/logs/merge." + rerun.merge + ".log");
    INFO(job_logs(out));
    CHECK(full.find("16 of 16 points merged") != std::string::npos);
    const std::vector<std::string> ids = point_ids(out + "/results.json");
    CHECK(ids.size() == 16);
    CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 16);
    // Shard 3 continued its own journal: a second segment, each point once.
    const std::string j3 = file_text(journal3);
    CHECK(j3.find("\"type\":\"segment\"") != std::string::npos);
    const std::vector<std::string> shard3 = point_ids(out + "/shards/3-of-4/results.json");
    CHECK(std::set<std::string>(shard3.begin(), shard3.end()).size() == shard3.size());
  }
  unsetenv("MOEBENCH");
}
