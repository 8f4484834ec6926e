// compare_builds_test.cpp — the paired A/B gate end to end on null-engine
// sweeps: two copies of one binary pass (exit 0, no change of work, every
// pair equal), a copy slowed by 5 % per token (MOEBENCH_NULL_SLOWDOWN,
// through a wrapper script) fails (exit 1), and a build that reads another
// sweep is refused (exit 2). The null engine's numbers are a formula, so the
// verdicts do not depend on how busy the machine is; the work asserted is
// the runs made and the pairs judged.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "../unit/test_support.h"
#include "process.h"
#include "vocab/file_io.h"
#include "vocab/json_reader.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

std::string write_sweep(const TempDir& dir, const std::string& name, int seed) {
  const std::string s = R"({"name": "gate-test", "repetitions": 9, "warmup": 1, "seed": )" + std::to_string(seed) +
                        R"(, "axes": {"engine": ["null"], "model": ["tiny-moe"], "quant": ["q4_0", "mxfp4"],
             "prompt_tokens": [4], "gen_tokens": [8]}})";
  REQUIRE(write_file_atomic(dir.file(name), s).ok());
  return dir.file(name);
}

// An executable shell script at `path`.
void write_script(const std::string& path, const std::string& body) {
  REQUIRE(write_file_atomic(path, "#!/bin/sh\n" + body + "\n").ok());
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

Json gate_json(const std::string& dir) {
  auto j = read_json_file(dir + "/gate.json");
  REQUIRE(j.ok());
  return *j;
}

}  // namespace

TEST_CASE("compare-builds: two copies of one build pass and a 5 % slower copy fails", "[integration][gate]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "sweep.json", 7);
  const std::string a = dir.file("moebench-a"), b = dir.file("moebench-b");
  std::filesystem::copy_file(MOEBENCH_BINARY, a);
  std::filesystem::copy_file(MOEBENCH_BINARY, b);
  // Blocks unstated: the fewest whose test can pass Holm over 4 series, 4, plus one.
  const std::vector<std::string> gate = {"--repetitions", "2", "--warmup", "0", "-q"};

  std::vector<std::string> args = {"compare-builds", a, b, sweep, "--out", dir.file("same")};
  args.insert(args.end(), gate.begin(), gate.end());
  Finished same = run_moebench(args, dir.path(), "same");
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  const Json js = gate_json(dir.file("same"));
  CHECK(js["verdict"] == "unchanged");
  CHECK(js["blocks"] == 5);
  CHECK(js["runs"] == 2 * 5 * 4);  // 2 points × 5 blocks × A B B A
  CHECK(js["work_changes"].empty());
  REQUIRE(js["series"].size() == 4);  // decode and prefill of each point
  for (const Json& s : js["series"]) {
    // 5 blocks × 2 pairs of runs, each one value of its 2 repetitions (a
    // run pair whose repetitions were all disturbed by other work drops out).
    CHECK(s["pairs"].get<int>() <= 10);
    CHECK(s["pairs"].get<int>() >= 10 - s["disturbed_pairs"].get<int>());
    CHECK(s["verdict"] == "unchanged");
  }
  CHECK_THAT(same.out, Catch::Contains("identical between the builds"));

  const std::string slow = dir.file("moebench-slow");
  write_script(slow, "MOEBENCH_NULL_SLOWDOWN=0.05 exec \"" + std::string(MOEBENCH_BINARY) + "\" \"$@\"");
  args = {"compare-builds", a, slow, sweep, "--out", dir.file("slow")};
  args.insert(args.end(), gate.begin(), gate.end());
  Finished slower = run_moebench(args, dir.path(), "slow");
  INFO(slower.out << slower.err);
  CHECK(slower.exit_code == 1);
  const Json jslow = gate_json(dir.file("slow"));
  CHECK(jslow["verdict"] == "regressed");
  std::size_t regressed = 0;
  for (const Json& s : jslow["series"]) {
    if (s["verdict"] == "regressed") {
      ++regressed;
      CHECK(s["median_slowdown"].get<double>() == Approx(1.05));
    }
  }
  CHECK(regressed == 4);
  CHECK(jslow["work_changes"].empty());  // slower, not different work
}

TEST_CASE("compare-builds refuses builds that read different sweeps", "[integration][gate]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "sweep.json", 7);
  const std::string other = write_sweep(dir, "other.json", 8);  // another seed: another sweep digest
  const std::string a = dir.file("moebench-a");
  std::filesystem::copy_file(MOEBENCH_BINARY, a);
  const std::string swapped = dir.file("moebench-other");
  // `run SWEEP ...` with its sweep replaced by the other one.
  write_script(swapped, "shift 2\nexec \"" + std::string(MOEBENCH_BINARY) + "\" run \"" + other + "\" \"$@\"");
  Finished r = run_moebench({"compare-builds", a, swapped, sweep, "--out", dir.file("g"), "--blocks", "1",
                             "--repetitions", "2", "--warmup", "0", "-q"},
                            dir.path(), "refused");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("the builds read different configs"));
  CHECK(r.out.empty());
  Finished missing = run_moebench({"compare-builds", a, dir.file("nope"), sweep, "-q"}, dir.path(), "missing");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no such file"));
  // A malformed command line is bad input too: 2, never 1 ("regressed").
  Finished malformed = run_moebench({"compare-builds", a, a, sweep, "--blocks", "0"}, dir.path(), "malformed");
  CHECK(malformed.exit_code == 2);
}
