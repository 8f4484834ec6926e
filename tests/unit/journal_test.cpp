// journal_test.cpp — durability rules of the journal: torn last lines are
// dropped, damage elsewhere is reported, a changed sweep is refused, and a
// row survives the JSON round trip unchanged.
#include <catch2/catch.hpp>

#include <fstream>

#include "harness/journal.h"
#include "vocab/metrics.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

SweepInfo info(const std::string& digest = "d1") { return {"s", "", digest, 3, 2, 1, 42}; }

ResultRow row(std::size_t index) {
  ResultRow r;
  r.point.engine.name = "null";
  r.point.model = "tiny-moe";
  r.point.quant = "mxfp4";
  r.point.context_tokens = static_cast<std::int64_t>(index) * 100;
  r.point.index = index;
  r.provenance = "synthetic";
  r.run_id = "run";
  r.repetitions = 2;
  r.samples[metric::kDecodeTokS] = {1.5, 2.5};
  r.metrics[metric::kDecodeTokS] = summarize({1.5, 2.5});
  return r;
}

}  // namespace

TEST_CASE("a torn last line is dropped and overwritten", "[journal]") {
  TempDir dir;
  const Environment env = capture_environment("", "test");
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), env, Journal::Mode::kCreate);
    REQUIRE(j.ok());
    REQUIRE(j->append(row(0)).ok());
    REQUIRE(j->append(row(1)).ok());
  }
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << R"({"type":"row","row":{"point_id":"abc)";  // kill -9 mid-write
  }
  auto j = Journal::open(dir.file("j.jsonl"), info(), env, Journal::Mode::kResume);
  REQUIRE(j.ok());
  CHECK(j->results().rows.size() == 2);
  REQUIRE(j->append(row(2)).ok());
  auto back = read_journal(dir.file("j.jsonl"));
  REQUIRE(back.ok());
  CHECK(back->rows.size() == 3);
}

TEST_CASE("damage before the last line is an error naming the line", "[journal]") {
  TempDir dir;
  const Environment env = capture_environment("", "test");
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), env, Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
  }
  std::string text = *read_file(dir.file("j.jsonl"));
  text.insert(text.find('\n') + 1, "garbage\n");
  REQUIRE(write_file_atomic(dir.file("j.jsonl"), text).ok());
  auto j = Journal::open(dir.file("j.jsonl"), info(), env, Journal::Mode::kResume);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message.find("j.jsonl:2: damaged journal line") != std::string::npos);
}

TEST_CASE("a journal belongs to one sweep digest", "[journal]") {
  TempDir dir;
  const Environment env = capture_environment("", "test");
  { REQUIRE(Journal::open(dir.file("j.jsonl"), info("d1"), env, Journal::Mode::kCreate).ok()); }
  auto j = Journal::open(dir.file("j.jsonl"), info("d2"), env, Journal::Mode::kResume);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message.find("different sweep") != std::string::npos);
}

TEST_CASE("appending a point twice keeps one row", "[journal]") {
  TempDir dir;
  const Environment env = capture_environment("", "test");
  auto j = Journal::open(dir.file("j.jsonl"), info(), env, Journal::Mode::kCreate);
  REQUIRE(j->append(row(1)).ok());
  REQUIRE(j->append(row(1)).ok());
  REQUIRE(j->append(row(0)).ok());
  REQUIRE(j->results().rows.size() == 2);
  CHECK(j->results().rows[0].point.index == 0);  // kept in sweep order
}

TEST_CASE("rows round-trip through JSON", "[journal]") {
  ResultRow r = row(1);
  r.status = RowStatus::kInvalid;
  r.reason = "peak RSS over budget";
  r.notes = {"a note"};
  r.point.ram_budget_bytes = 1ull << 30;
  r.point.drives = {2, "stripe", 2e8};
  auto back = row_from_json(row_to_json(r));
  REQUIRE(back.ok());
  CHECK(row_to_json(*back) == row_to_json(r));
  Json tampered = row_to_json(r);
  tampered["point"]["quant"] = "q8_0";
  CHECK_FALSE(row_from_json(tampered).ok());  // id no longer matches its key
}
