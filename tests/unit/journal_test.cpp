// journal_test.cpp — durability rules of the journal: torn last lines are
// dropped, damage elsewhere is reported, a changed sweep is refused, rows of
// another journal or a second answer to one point are refused, a failed
// point is retried only when asked, and a row survives the JSON round trip
// unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
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

// The environment a journal's header records; its run id is the one the
// rows above carry, as a run's rows carry its own.
Environment journal_env(const std::string& run_id = "run") {
  Environment e = capture_environment("", "test");
  e.run_id = run_id;
  return e;
}

std::size_t count_lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("a torn last line is dropped and overwritten", "[journal]") {
  TempDir dir;
  const Environment env = journal_env();
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
  const Environment env = journal_env();
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
  const Environment env = journal_env();
  { REQUIRE(Journal::open(dir.file("j.jsonl"), info("d1"), env, Journal::Mode::kCreate).ok()); }
  auto j = Journal::open(dir.file("j.jsonl"), info("d2"), env, Journal::Mode::kResume);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message.find("different sweep") != std::string::npos);
}

TEST_CASE("appending a point twice keeps one row", "[journal]") {
  TempDir dir;
  const Environment env = journal_env();
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

TEST_CASE("rows another journal wrote are refused naming the line", "[journal]") {
  TempDir dir;
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
  }
  ResultRow foreign = row(1);
  foreign.run_id = "another-run";  // started by no header or segment line of this journal
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << journal_row_line(foreign);
    out << journal_row_line(row(2));
  }
  auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kResume);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message.find("j.jsonl:3: a row that does not belong to this journal") != std::string::npos);
  CHECK(j.error().message.find("another-run") != std::string::npos);
  CHECK_FALSE(read_journal(dir.file("j.jsonl")).ok());  // merge reads it the same way
}

TEST_CASE("a row past the sweep's points is refused", "[journal]") {
  TempDir dir;
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
  }
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << journal_row_line(row(3));  // the sweep has points 0, 1, 2
  }
  auto back = read_journal(dir.file("j.jsonl"));
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().message.find("point #4 is past the 3 points") != std::string::npos);
}

TEST_CASE("two different rows for one point are refused and the same line twice is one row", "[journal]") {
  TempDir dir;
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
  }
  const std::string one = *read_file(dir.file("j.jsonl"));
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << journal_row_line(row(0));  // a repeat of line 2
  }
  auto same = read_journal(dir.file("j.jsonl"));
  REQUIRE(same.ok());
  CHECK(same->rows.size() == 1);

  REQUIRE(write_file_atomic(dir.file("j.jsonl"), one).ok());
  ResultRow other = row(0);
  other.samples[metric::kDecodeTokS] = {9.0, 9.5};
  other.metrics[metric::kDecodeTokS] = summarize({9.0, 9.5});
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << journal_row_line(other);
  }
  auto two = read_journal(dir.file("j.jsonl"));
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().message.find("j.jsonl:3: a second, different row for point") != std::string::npos);
  CHECK(two.error().message.find("the first is line 2") != std::string::npos);
  // A "retry" may replace a failed row only, not an ok one.
  REQUIRE(write_file_atomic(dir.file("j.jsonl"), one + journal_row_line(other, true)).ok());
  CHECK_FALSE(read_journal(dir.file("j.jsonl")).ok());
}

TEST_CASE("a failed point is kept on resume and measured again with retry_failed", "[journal]") {
  TempDir dir;
  ResultRow failed = row(1);
  failed.status = RowStatus::kFailed;
  failed.reason = "No space left on device";
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
    REQUIRE(j->append(failed).ok());
  }
  {
    auto kept = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kResume);
    REQUIRE(kept.ok());
    CHECK(kept->failed_at_open() == 1);
    CHECK(kept->has(failed.point.id()));  // skipped: a failure is kept unless asked
  }
  const std::size_t lines_before = count_lines(*read_file(dir.file("j.jsonl")));
  {
    auto retry = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kResume, true);
    REQUIRE(retry.ok());
    CHECK_FALSE(retry->has(failed.point.id()));  // to be measured again
    CHECK(retry->has(row(0).point.id()));
    REQUIRE(retry->append(row(1)).ok());
    REQUIRE(retry->results().rows.size() == 2);
    CHECK(retry->results().rows[1].status == RowStatus::kOk);
    CHECK(retry->has(failed.point.id()));
  }
  const std::string text = *read_file(dir.file("j.jsonl"));
  CHECK(count_lines(text) == lines_before + 2);  // a segment line and the retry's row
  auto back = read_journal(dir.file("j.jsonl"));
  REQUIRE(back.ok());
  REQUIRE(back->rows.size() == 2);
  CHECK(back->rows[1].status == RowStatus::kOk);
}

TEST_CASE("a plain run refuses an existing journal that holds no sweep", "[journal]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("j.jsonl"), "").ok());
  auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
  REQUIRE_FALSE(j.ok());
  CHECK(j.error().message.find("holds no sweep") != std::string::npos);
  CHECK(j.error().message.find("--fresh") != std::string::npos);
  CHECK(Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kFresh).ok());
}

TEST_CASE("a row with more samples than runs is refused before any statistic sees it", "[journal]") {
  TempDir dir;
  {
    auto j = Journal::open(dir.file("j.jsonl"), info(), journal_env(), Journal::Mode::kCreate);
    REQUIRE(j->append(row(0)).ok());
  }
  ResultRow big = row(1);  // 2 repetitions, no warm-up recorded
  big.samples[metric::kDecodeTokS] = std::vector<double>(100000, 2.0);
  {
    std::ofstream out(dir.file("j.jsonl"), std::ios::app);
    out << journal_row_line(big);
  }
  auto back = read_journal(dir.file("j.jsonl"));
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().message.find("/row/samples/decode_tok_s: 100000 samples, but the row ran 2 repetitions") !=
        std::string::npos);
}

TEST_CASE("a journal of thousands of lines is decoded on two threads and read as in order", "[journal]") {
  // Past 512 lines the row lines are decoded in chunks on two threads before
  // the in-order pass: the rows, their order, a retry replacing a failed row
  // and the line a problem names must be those of a one-line-at-a-time read.
  constexpr std::size_t kPoints = 3000;
  const SweepInfo big{"s", "", "d1", kPoints, 2, 1, 42};
  std::string text = journal_header_line(big, journal_env());
  for (std::size_t i = kPoints; i-- > 0;) {  // written backwards: the read sorts by point
    ResultRow r = row(i);
    if (i == 1700) r.status = RowStatus::kFailed;
    text += journal_row_line(r);
  }
  ResultRow retried = row(1700);
  retried.samples[metric::kDecodeTokS] = {7.0, 8.0};
  retried.metrics[metric::kDecodeTokS] = summarize({7.0, 8.0});
  text += journal_row_line(retried, true);

  auto back = parse_journal_text(text, "big.jsonl");
  REQUIRE(back.ok());
  REQUIRE(back->rows.size() == kPoints);
  for (std::size_t i = 0; i < kPoints; ++i) REQUIRE(back->rows[i].point.index == i);
  CHECK(back->rows[1700].status == RowStatus::kOk);
  CHECK(back->rows[1700].samples.at(metric::kDecodeTokS) == std::vector<double>{7.0, 8.0});
  CHECK(back->rows[2999].samples.at(metric::kDecodeTokS) == std::vector<double>{1.5, 2.5});

  // Line 2,501 (point 500) damaged, line 2,801 (point 200) from another run:
  // the first problem in line order is the one named.
  std::vector<std::size_t> starts = {0};
  for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; ++at) starts.push_back(at + 1);
  std::string damaged = text;
  ResultRow foreign = row(200);
  foreign.run_id = "another-run";
  const std::string foreign_line = journal_row_line(foreign);
  damaged.replace(starts[2800], starts[2801] - starts[2800], foreign_line);
  damaged.replace(starts[2500], 10, "garbage...");
  auto bad = parse_journal_text(damaged, "big.jsonl");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("big.jsonl:2501: damaged journal line") != std::string::npos);
  damaged.replace(starts[2500], 10, text.substr(starts[2500], 10));
  auto foreign_only = parse_journal_text(damaged, "big.jsonl");
  REQUIRE_FALSE(foreign_only.ok());
  CHECK(foreign_only.error().message.find("big.jsonl:2801: a row that does not belong") != std::string::npos);
}
