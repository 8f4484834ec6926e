// writers_test.cpp — every writer against its golden file, on fixed rows
// that cover each status, absent metrics, text that needs quoting and an
// unlimited budget; and the results files written as one set (a full disk
// injected partway leaves the previous set). Regenerate after an intended change with
//   MOEBENCH_UPDATE_GOLDEN=1 build/tests/unit_tests "[golden]"
// and review the diff.
#include <catch2/catch.hpp>

#include <algorithm>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "vocab/columns.h"
#include "vocab/file_io.h"
#include "vocab/metrics.h"
#include "reports/cell_format.h"
#include "reports/results_files.h"
#include "reports/writers.h"

#include "test_support.h"

using namespace moebench;

namespace {

Environment fixed_env() { return testing::fixed_environment(); }

ResultRow ok_row(std::size_t index, std::uint64_t budget, std::vector<double> tok_s) {
  ResultRow r;
  r.point.index = index;
  r.point.engine.name = "null";
  r.point.model = "kimi-k3";
  r.point.scale = {4, 112};
  r.point.quant = "mxfp4";
  r.point.ram_budget_bytes = budget;
  r.point.context_tokens = 8192;
  r.point.prompt_tokens = 32;
  r.point.gen_tokens = 16;
  r.provenance = "synthetic";
  r.run_id = "20261129T120000Z-abcdef";
  r.machine = "unprofiled:testhost";
  r.build = "moebench 0.1.0 (0123456789ab, Release)";
  r.repetitions = static_cast<int>(tok_s.size());
  r.warmup = 1;
  r.wall_s = 1.25;
  auto put = [&r](const char* name, std::vector<double> v) {
    r.samples[name] = v;
    r.metrics[name] = summarize(v);
  };
  put(metric::kDecodeTokS, tok_s);
  put(metric::kTtftS, {0.5, 0.25, 0.75});
  put(metric::kPrefillTokS, {64, 64, 64});
  put(metric::kReadBytesPerToken, {17547264.0 * 3, 17547264.0 * 3, 17547264.0 * 3});
  put(metric::kExpertHitRate, {0.875, 0.875, 0.875});
  put(metric::kIoWaitFrac, {0.5, 0.25, 0.125});
  put(metric::kPeakRssBytes, {2147483648.0, 2147483648.0, 2147483648.0});
  put(metric::kLoadS, {0.5});
  Summary p99 = summarize({});
  p99.n = 45;
  p99.median = 0.0625;
  r.metrics[metric::kItlP99S] = p99;
  return r;
}

RunResults fixed_results() {
  RunResults r;
  r.sweep = {"golden", "Fixed rows for writer tests.", "00000000deadbeef", 4, 3, 1, 42};
  r.environments.push_back(fixed_env());
  r.rows.push_back(ok_row(0, 2ull << 30, {1.5, 2.0, 2.5}));
  ResultRow failed = ok_row(1, 4ull << 30, {});
  failed.metrics.clear();
  failed.samples.clear();
  failed.repetitions = 0;
  failed.status = RowStatus::kFailed;
  failed.reason = "warm-up 1/1: engine said \"no\", then gave up | badly";
  r.rows.push_back(failed);
  ResultRow infeasible = failed;
  infeasible.point.index = 2;
  infeasible.point.ram_budget_bytes = 1ull << 20;
  infeasible.status = RowStatus::kInfeasible;
  infeasible.reason = "budget 1.00 MiB is below the minimum 2.00 GiB";
  r.rows.push_back(infeasible);
  ResultRow unlimited = ok_row(3, 1, {3.0, 3.0, 3.0});
  unlimited.point.ram_budget_bytes.reset();
  unlimited.notes = {"engine read counter and /proc/self/io read_bytes differ by 7.0% (limit 5%)"};
  r.rows.push_back(unlimited);
  return r;
}

using testing::check_golden;

}  // namespace

TEST_CASE("markdown writer matches its golden file", "[golden]") {
  check_golden("results.md", write_markdown(fixed_results()));
}
namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl - at));
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}
std::size_t screen_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
}  // namespace

TEST_CASE("terminal table: the answer first, the columns that answer the sweep, within the width", "[writers]") {
  RunResults r = fixed_results();
  const std::string text = write_terminal_table(r, 120);
  INFO(text);
  const std::vector<std::string> lines = lines_of(text);
  REQUIRE(lines.size() >= 7);
  CHECK(lines[0] == "golden: 4 of 4 points (1 failed, 1 infeasible, 2 ok) · decode 2.000–3.000 tok/s · 1 with a decode "
                    "spread over 10 % (!)");
  // No axis differs between these rows, so none is shown; full-model is empty in every row.
  CHECK(lines[2].rfind(" #  engine", 0) == 0);
  CHECK(lines[2].find("model") == std::string::npos);
  CHECK(lines[2].find("full-model") == std::string::npos);
  CHECK(lines[2].find("hit rate") != std::string::npos);
  CHECK(lines[3].rfind("1!", 0) == 0);  // the 25 % spread is marked
  CHECK(lines[6].rfind(" 4", 0) == 0);  // points numbered from 1
  for (std::size_t i = 2; i <= 6; ++i) CHECK(screen_width(lines[i]) <= 120);
  // What the table shows: budget alone differs between the two ok rows.
  CHECK(text.find("budget: 1 group of rows that differ only in it; from its smallest value to its largest, decode ×1.50") !=
        std::string::npos);

  // An axis that differs is shown, so rows that differ never look alike.
  r.rows[3].point.routing = "sticky:0.8";
  CHECK(lines_of(write_terminal_table(r, 120))[2].find("routing") != std::string::npos);

  // Narrower: columns go in a fixed order, and the footer names them.
  const std::string narrow = write_terminal_table(r, 60);
  INFO(narrow);
  const std::vector<std::string> nl = lines_of(narrow);
  REQUIRE(nl.size() >= 7);
  for (std::size_t i = 2; i <= 6; ++i) CHECK(screen_width(nl[i]) <= 60);  // the header and the four rows
  CHECK(narrow.find("Not shown at 60 columns: ±%, prefill tok/s, read/token") != std::string::npos);
  CHECK(lines_of(narrow)[2].find("decode tok/s") != std::string::npos);
  // The budget differs between rows: an axis that differs is never dropped.
  CHECK(nl[2].find("budget") != std::string::npos);
  CHECK(narrow.find("Not shown at 60 columns: ±%, prefill tok/s, read/token, budget") == std::string::npos);
}

TEST_CASE("csv writer matches its golden file", "[golden]") {
  check_golden("results.csv", write_csv(fixed_results()));
}
TEST_CASE("json writer matches its golden file", "[golden]") {
  check_golden("results.json", write_json(fixed_results()));
}
TEST_CASE("jsonl writer matches its golden file", "[golden]") {
  check_golden("results.jsonl", write_jsonl(fixed_results()));
}
TEST_CASE("schema printer matches its golden file", "[golden]") {
  check_golden("schema.md", write_schema("md"));
  check_golden("schema.csv", write_schema("csv"));
}

TEST_CASE("every column has a unique name, a description, and units where numeric", "[columns]") {
  std::set<std::string> names;
  for (const Column& c : result_columns()) {
    INFO(c.name);
    CHECK(names.insert(c.name).second);
    CHECK(!c.description.empty());
    if (c.type != ColumnType::kString) CHECK(!c.unit.empty());
    if (c.markdown) CHECK(!c.md_header.empty());
  }
  for (const char* required : {"decode_tok_s", "ttft_s", "prefill_tok_s", "read_bytes_per_token",
                               "mem_bytes_per_token", "expert_hit_rate", "io_wait_frac", "peak_rss_bytes",
                               "load_s", "itl_p50_s", "itl_p99_s", "status", "reason", "engine", "model",
                               "quant", "ram_budget_bytes", "drives", "context_tokens", "routing"}) {
    CHECK(names.count(required) == 1);
  }
}

TEST_CASE("csv rows have as many fields as the header, quoting included", "[columns]") {
  const std::string csv = write_csv(fixed_results());
  // A quoted field with a comma must not add a field: count outside quotes.
  std::size_t line_start = 0;
  std::vector<std::size_t> counts;
  while (line_start < csv.size()) {
    const std::size_t end = csv.find('\n', line_start);
    std::size_t fields = 1;
    bool quoted = false;
    for (std::size_t i = line_start; i < end; ++i) {
      if (csv[i] == '"') quoted = !quoted;
      if (csv[i] == ',' && !quoted) ++fields;
    }
    counts.push_back(fields);
    line_start = end + 1;
  }
  REQUIRE(counts.size() == 5);
  for (std::size_t c : counts) CHECK(c == result_columns().size());
}

TEST_CASE("exact numbers are shortest round-trip", "[columns]") {
  CHECK(exact_number(0.1) == "0.1");
  CHECK(exact_number(17547264) == "17547264");
  CHECK(exact_number(1.0 / 3.0) == "0.3333333333333333");
}

namespace {

// A pwrite that fails with ENOSPC from its `fail_at`-th call on (1-based).
AtomicFileOptions disk_full_from(int fail_at) {
  auto calls = std::make_shared<int>(0);
  AtomicFileOptions o;
  o.pwrite_fn = [calls, fail_at](int fd, const void* data, std::size_t n, off_t off) -> ssize_t {
    if (++*calls >= fail_at) {
      errno = ENOSPC;
      return -1;
    }
    return ::pwrite(fd, data, n, off);
  };
  return o;
}

}  // namespace

TEST_CASE("results files are replaced as one set or not at all", "[writers]") {
  moebench::testing::TempDir dir;
  const std::vector<std::string> formats = {"md", "csv", "json", "jsonl"};
  RunResults before = fixed_results();
  REQUIRE(write_results_files(before, dir.path(), formats, "rerun").ok());
  const std::vector<std::string> paths = results_file_paths(dir.path(), formats);
  REQUIRE(paths.size() == 4);
  std::vector<std::string> old;
  for (const std::string& p : paths) old.push_back(read_file(p).value());
  CHECK(old[2] == write_json(before));

  RunResults after = before;
  after.rows.pop_back();  // a different set: every file changes
  // The disk fills while results.json (the third) is written.
  Status st = write_results_files(after, dir.path(), formats, "run the same command with --resume",
                                  disk_full_from(3));
  REQUIRE_FALSE(st.ok());
  INFO(st.error().message);
  CHECK(st.error().message.find(dir.file("results.json") + ": writing") != std::string::npos);
  CHECK(st.error().message.find("no file of the set was replaced") != std::string::npos);
  CHECK(st.error().message.find("journal.jsonl holds every finished point: run the same command with --resume "
                                "to regenerate them") != std::string::npos);
  for (std::size_t i = 0; i < paths.size(); ++i) CHECK(read_file(paths[i]).value() == old[i]);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 4);  // every temporary removed

  REQUIRE(write_results_files(after, dir.path(), formats, "rerun").ok());
  CHECK(read_file(paths[0]).value() == write_markdown(after));
  CHECK(read_file(paths[3]).value() == write_jsonl(after));
}

TEST_CASE("a results path that is a symlink is refused before anything runs", "[writers]") {
  moebench::testing::TempDir dir;
  const std::string target = dir.file("precious.json");
  REQUIRE(write_file_atomic(target, "{}").ok());
  REQUIRE(::symlink(target.c_str(), dir.file("results.json").c_str()) == 0);
  Status st = check_results_paths(dir.path(), {"md", "json"});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find(dir.file("results.json") + " is a symlink; give a regular file path") !=
        std::string::npos);
  CHECK(check_results_paths(dir.path(), {"md", "csv"}).ok());  // results.json not asked for
  CHECK_FALSE(write_results_files(fixed_results(), dir.path(), {"md", "json"}, "rerun").ok());
  CHECK(read_file(target).value() == "{}");
  CHECK_FALSE(std::filesystem::exists(dir.file("results.md")));  // the set is all or nothing
}
