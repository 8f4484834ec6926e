// journal_trust_test.cpp — a results directory keeps what it measured, and
// only that: rows another sweep wrote into a journal are refused by resume
// and merge (nothing is rewritten), results without their journal are not
// overwritten by a plain run, and a point that failed from an environmental
// fault is measured again only when --retry-failed asks, its new row then
// replacing the failed one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../unit/test_support.h"
#include "process.h"
#include "vocab/file_io.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

// A two-point null sweep whose points fail while `fault` exists.
std::string faulty_sweep(const TempDir& dir, const std::string& fault) {
  const std::string path = dir.file("faulty.json");
  std::ofstream(path) << R"({"name": "faulty", "description": "two null points that fail while a file exists",
    "repetitions": 2, "warmup": 0, "seed": 1, "timeout_s": 60,
    "axes": {"engine": ["null:fail_while=)" << fault << R"("],
             "model": [{"card": "kimi-k3", "layers": 4, "experts": 112}], "quant": ["mxfp4"],
             "ram_budget": ["2GiB", "4GiB"], "drives": [1], "context_tokens": [0],
             "prompt_tokens": [32], "gen_tokens": [8]}})";
  return path;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("rows of another sweep in a journal are refused by resume and merge", "[integration]") {
  TempDir dir;
  const std::string quick = std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json";
  const std::string a = dir.file("a"), b = dir.file("b");
  REQUIRE(run_moebench({"run", quick, "--out", a, "--quiet"}, dir.path(), "a").exit_code == 0);
  REQUIRE(run_moebench({"run", faulty_sweep(dir, dir.file("no-fault")), "--out", b, "--quiet"}, dir.path(), "b")
              .exit_code == 0);
  // b's rows appended to a's journal, as a careless `cat b/journal.jsonl >> a/journal.jsonl` would.
  const std::string b_text = *read_file(b + "/journal.jsonl");
  const std::string b_rows = b_text.substr(b_text.find("{\"row\""));
  const std::string results_before = *read_file(a + "/results.json");
  {
    std::ofstream out(a + "/journal.jsonl", std::ios::app);
    out << b_rows;
  }
  Finished resume = run_moebench({"run", quick, "--out", a, "--resume", "--quiet"}, dir.path(), "resume");
  INFO(resume.err);
  CHECK(resume.exit_code == 2);
  CHECK(resume.err.find("does not belong to this journal") != std::string::npos);
  CHECK(*read_file(a + "/results.json") == results_before);  // nothing rewritten
  Finished merge = run_moebench({"merge", a, "--out", dir.file("m")}, dir.path(), "merge");
  INFO(merge.err);
  CHECK(merge.exit_code != 0);
  CHECK(merge.err.find("does not belong to this journal") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("m") + "/results.json"));
}

TEST_CASE("a plain run does not overwrite results whose journal is gone", "[integration]") {
  TempDir dir;
  const std::string quick = std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json";
  const std::string out = dir.file("r");
  REQUIRE(run_moebench({"run", quick, "--out", out, "--quiet"}, dir.path(), "first").exit_code == 0);
  std::filesystem::remove(out + "/journal.jsonl");
  const std::string kept = *read_file(out + "/results.json");
  Finished again = run_moebench({"run", quick, "--out", out, "--quiet"}, dir.path(), "again");
  INFO(again.err);
  CHECK(again.exit_code == 2);
  CHECK(again.err.find("holds results") != std::string::npos);
  CHECK(again.err.find("--fresh") != std::string::npos);
  CHECK(*read_file(out + "/results.json") == kept);
  Finished resume = run_moebench({"run", quick, "--out", out, "--resume", "--quiet"}, dir.path(), "resume");
  INFO(resume.err);
  CHECK(resume.exit_code == 2);  // a resume with nothing to resume from keeps them too
  CHECK(resume.err.find("holds results") != std::string::npos);
  CHECK(*read_file(out + "/results.json") == kept);
  CHECK_FALSE(std::filesystem::exists(out + "/journal.jsonl"));
}

TEST_CASE("failed points stay failed on resume and retry-failed measures them again", "[integration]") {
  TempDir dir;
  const std::string fault = dir.file("disk-full");
  std::ofstream(fault) << "the fault";
  const std::string sweep = faulty_sweep(dir, fault), out = dir.file("r");
  REQUIRE(run_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path(), "faulted").exit_code == 0);
  CHECK(count_of(*read_file(out + "/results.jsonl"), "\"status\":\"failed\"") == 2);

  std::filesystem::remove(fault);  // the fault is cleared
  Finished kept = run_moebench({"run", sweep, "--out", out, "--resume"}, dir.path(), "kept");
  INFO(kept.err);
  CHECK(kept.exit_code == 0);
  CHECK(kept.err.find("2 points journaled as failed kept as failed; --retry-failed measures them again") !=
        std::string::npos);
  CHECK(count_of(*read_file(out + "/results.jsonl"), "\"status\":\"failed\"") == 2);

  Finished alone = run_moebench({"run", sweep, "--out", out, "--retry-failed"}, dir.path(), "alone");
  CHECK(alone.exit_code != 0);  // it needs --resume
  CHECK(alone.err.find("--resume") != std::string::npos);

  const std::size_t lines_before = count_lines(out + "/journal.jsonl");
  Finished retry = run_moebench({"run", sweep, "--out", out, "--resume", "--retry-failed"}, dir.path(), "retry");
  INFO(retry.err);
  CHECK(retry.exit_code == 0);
  const std::string results = *read_file(out + "/results.jsonl");  // one row per line
  CHECK(count_of(results, "\"status\":\"failed\"") == 0);
  CHECK(count_of(results, "\"status\":\"ok\"") == 2);
  CHECK(count_lines(out + "/journal.jsonl") == lines_before + 3);  // a segment and two retried rows
  Finished again = run_moebench({"run", sweep, "--out", out, "--resume", "--quiet"}, dir.path(), "again");
  CHECK(again.exit_code == 0);  // the retried journal reads back
  CHECK(count_lines(out + "/journal.jsonl") == lines_before + 4);  // a segment only: nothing left to run
}
