// json_hardening_cli_test.cpp — the CLI on hostile inputs: every JSON entry
// point (validate, run --resume, compare, report, history add, calibrate)
// exits 2 (bad input; `validate` 1: its answer is no) with a message naming the file and the position or JSON Pointer
// when a file holds 1e999, a record of the wrong shape or an out-of-range
// number; --timeout and rates beyond their limits are refused; and text
// that is not UTF-8 on the command line does not break the writers.
#include <catch2/catch.hpp>

#include <filesystem>

#include "../unit/test_support.h"
#include "process.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

std::string shipped(const std::string& rel) { return read_file(std::string(MOEBENCH_SOURCE_DIR) + "/" + rel).value(); }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

const char* kSweep = R"({"name": "h", "repetitions": 2, "warmup": 0, "seed": 5,
  "axes": {"engine": ["null"], "model": ["tiny-moe"], "ram_budget": ["1MiB", "4MiB"], "gen_tokens": [4]}})";

}  // namespace

TEST_CASE("validate names the file and position of 1e999 in every kind of config", "[integration][hardening]") {
  TempDir dir;
  const struct {
    const char* kind;
    std::string text;
  } cases[] = {
      {"models", replaced(shipped("configs/models/tiny-moe.json"), "\"layers\": ", "\"hidden\": 1e999, \"layers\": ")},
      {"hardware", replaced(shipped("configs/hardware/dgx-spark.json"), "\"value\": 20", "\"value\": -1e999")},
      {"sweeps", replaced(shipped("configs/sweeps/ci.json"), "\"repetitions\": 9", "\"repetitions\": 1e999")},
      {"claims", replaced(shipped("configs/claims/waste.json"), "\"context_tokens\": 4096", "\"context_tokens\": 1e999")},
  };
  for (const auto& c : cases) {
    INFO(c.kind);
    REQUIRE(ensure_directory(dir.file(c.kind)).ok());
    const std::string file = dir.file(std::string(c.kind) + "/x.json");
    REQUIRE(write_file_atomic(file, c.text).ok());
    Finished f = run_moebench({"validate", file}, dir.path());
    INFO(f.out << f.err);
    CHECK(f.signal == 0);
    CHECK(f.exit_code == 1);
    CHECK(f.out.rfind(file + ":", 0) == 0);
    CHECK(f.out.find("is outside the range of a double") != std::string::npos);
  }
  // A rate that overflows to infinity is refused at its JSON path.
  const std::string rate = dir.file("hardware/rate.json");
  REQUIRE(write_file_atomic(rate, replaced(shipped("configs/hardware/dgx-spark.json"), "\"value\": 20",
                                           "\"value\": 20}, \"x\": {\"value\": \"1e300GB/s\"")).ok());
  Finished f = run_moebench({"validate", rate}, dir.path(), "rate");
  CHECK(f.exit_code == 1);
}

TEST_CASE("run --resume on a journal line that is JSON but not an object exits 2 naming the line", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  const std::string out = dir.file("out");
  const Finished first = run_moebench({"run", dir.file("s.json"), "--out", out, "--quiet", "--json"}, dir.path());
  REQUIRE(first.exit_code == 0);
  // --json prints results.json itself on stdout.
  CHECK(Json::parse(first.out) == Json::parse(read_file(out + "/results.json").value()));
  const std::string journal = read_file(out + "/journal.jsonl").value();
  const std::string header = journal.substr(0, journal.find('\n') + 1);
  for (const std::string& line : {"[1]", "3", "\"x\"", "{\"type\": [\"row\"]}", "{\"type\": \"row\", \"row\": 5}"}) {
    INFO(line);
    REQUIRE(write_file_atomic(out + "/journal.jsonl", header + line + "\n" + journal.substr(header.size())).ok());
    Finished f = run_moebench({"run", dir.file("s.json"), "--out", out, "--resume", "--quiet", "--print", "none"},
                              dir.path(), "resume");
    INFO(f.err);
    CHECK(f.signal == 0);
    CHECK(f.exit_code == 2);
    CHECK(f.err.find(out + "/journal.jsonl:2") != std::string::npos);
    CHECK(f.err.find("delete this line") != std::string::npos);
  }
}

TEST_CASE("compare and report and history add and calibrate refuse hostile results files with the JSON path", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  const std::string base = dir.file("base");
  REQUIRE(run_moebench({"run", dir.file("s.json"), "--out", base, "--quiet", "--print", "none"}, dir.path()).exit_code == 0);
  const std::string good = read_file(base + "/results.json").value();
  const struct {
    std::string from, to, expect;
  } cases[] = {
      {"\"wall_s\": ", "\"wall_s\": 1e999, \"x\": ", "is outside the range of a double"},
      {"\"repetitions\": 2,\n      \"run_id\"", "\"repetitions\": 1e300,\n      \"run_id\"", "/rows/0/repetitions"},
      {"\"gen_tokens\": 4", "\"gen_tokens\": 1e300", "/rows/0/point/gen_tokens"},
      {"\"ram_budget_bytes\": 1048576", "\"ram_budget_bytes\": 123456789012345678901234567890",
       "/rows/0/point/ram_budget_bytes"},
      {"\"environments\": [", "\"environments\": [[1], ", "/environments/0: expected an object"},
  };
  for (const auto& c : cases) {
    INFO(c.to);
    const std::string file = dir.file("bad.json");
    REQUIRE(write_file_atomic(file, replaced(good, c.from, c.to)).ok());
    const std::vector<std::vector<std::string>> commands = {
        {"compare", base, file},
        {"report", file, "--html", dir.file("r.html")},
        {"history", "add", file, "--db", dir.file("h.sqlite")},
        {"calibrate", file, "--machine", "macbook-pro-m5-pro-64gb", "--dry-run"}};
    for (const auto& cmd : commands) {
      INFO(cmd[0]);
      Finished f = run_moebench(cmd, dir.path(), cmd[0]);
      INFO(f.err);
      CHECK(f.signal == 0);
      CHECK(f.exit_code == 2);
      CHECK(f.err.find(file) != std::string::npos);
      CHECK(f.err.find(c.expect) != std::string::npos);
    }
  }
}

TEST_CASE("run --timeout beyond 30 days is refused with the limit", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  for (const char* t : {"1e10", "2592001", "1e300"}) {
    INFO(t);
    Finished f = run_moebench({"run", dir.file("s.json"), "--out", dir.file("o"), "--quiet", "--timeout", t}, dir.path());
    INFO(f.err);
    CHECK(f.exit_code == 2);
    CHECK(f.err.find("--timeout") != std::string::npos);
    CHECK(f.err.find("30 days (2592000 s)") != std::string::npos);
  }
  Finished ok = run_moebench({"run", dir.file("s.json"), "--out", dir.file("o"), "--quiet", "--print", "none",
                              "--timeout", "2592000"}, dir.path(), "ok");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("run --hard-grace beyond 30 days is refused with the limit", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  for (const char* g : {"1e10", "1e300"}) {
    INFO(g);
    Finished f = run_moebench({"run", dir.file("s.json"), "--out", dir.file("o"), "--quiet", "--hard-grace", g},
                              dir.path());
    INFO(f.err);
    CHECK(f.exit_code == 2);
    CHECK(f.err.find("--hard-grace") != std::string::npos);
    CHECK(f.err.find("a hard grace of") != std::string::npos);
    CHECK(f.err.find("30 days (2592000 s)") != std::string::npos);
  }
}

TEST_CASE("a sweep timeout_s beyond 30 days is refused by run and validate", "[integration][hardening]") {
  TempDir dir;
  std::string sweep = kSweep;
  sweep.replace(sweep.find("\"seed\""), 0, "\"timeout_s\": 1e10, ");
  REQUIRE(write_file_atomic(dir.file("s.json"), sweep).ok());
  Finished v = run_moebench({"validate", "--kind", "sweep", dir.file("s.json")}, dir.path(), "validate");
  CHECK(v.exit_code == 1);
  CHECK(v.out.find("/timeout_s: a timeout of 1.000e+10 s is longer than the longest allowed, 30 days") != std::string::npos);
  Finished r = run_moebench({"run", dir.file("s.json"), "--out", dir.file("o"), "--quiet"}, dir.path(), "run");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/timeout_s") != std::string::npos);
}

TEST_CASE("run --io-throttle 1e300GB/s is refused instead of read as infinity", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  Finished f = run_moebench({"run", dir.file("s.json"), "--out", dir.file("o"), "--quiet", "--io-throttle", "1e300GB/s"},
                            dir.path());
  INFO(f.err);
  CHECK(f.exit_code == 2);
  CHECK(f.err.find("beyond any machine") != std::string::npos);
}

TEST_CASE("an --out path that is not UTF-8 still writes a readable journal and results.json", "[integration][hardening]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("s.json"), kSweep).ok());
  const std::string out = dir.file("out-\xff\xfe");
  Finished f = run_moebench({"run", dir.file("s.json"), "--out", out, "--quiet", "--print", "none"}, dir.path());
  INFO(f.err);
  CHECK(f.signal == 0);
  REQUIRE(f.exit_code == 0);
  Finished c = run_moebench({"compare", out, out}, dir.path(), "compare");
  INFO(c.err);
  CHECK(c.exit_code == 0);
  Finished j = run_moebench({"compare", out, out, "--format", "json"}, dir.path(), "compare-json");
  CHECK(j.exit_code == 0);
  CHECK(j.out.find("out-\xEF\xBF\xBD\xEF\xBF\xBD") != std::string::npos);
  Finished r = run_moebench({"run", dir.file("s.json"), "--out", out, "--quiet", "--print", "none", "--resume"},
                            dir.path(), "resume");
  CHECK(r.exit_code == 0);
}
