// limits_test.cpp — values too large for their field: sizes and rates that
// overflow to infinity, timeouts that would not fit the clock, and the
// saturating conversion of seconds to deadlines that the runner's watchdog
// and the subprocess runner use.
#include <catch2/catch.hpp>

#include <chrono>

#include "vocab/deadline.h"
#include "vocab/environment.h"
#include "harness/journal.h"
#include "harness/runner.h"
#include "vocab/subprocess.h"
#include "vocab/sweep_spec.h"
#include "vocab/units.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

TEST_CASE("a size or rate that overflows to infinity is refused with its limit", "[units][limits]") {
  auto rate = parse_rate_bytes_s("1e300GB/s");
  REQUIRE_FALSE(rate.ok());
  CHECK(rate.error().message.find("rate \"1e300GB/s\" is beyond any machine (limit 1 EB/s") != std::string::npos);
  auto size = parse_size_bytes("1e300GB");
  REQUIRE_FALSE(size.ok());
  CHECK(size.error().message.find("too large (limit 16 EiB)") != std::string::npos);
  for (const char* text : {"1e999GB/s", "-1e999B/s", "1e999"}) {
    INFO(text);
    auto r = parse_rate_bytes_s(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("outside the range of a double") != std::string::npos);
  }
  auto s = parse_size_bytes("1e999GiB");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("outside the range of a double") != std::string::npos);
  for (const char* text : {"inf", "nan", "infGB/s", "-inf", "2e18B/s", "2000000TB/s"}) {
    INFO(text);
    CHECK_FALSE(parse_rate_bytes_s(text).ok());
  }
  CHECK(parse_rate_bytes_s("1e18B/s").ok());  // the limit itself is a rate
  CHECK(parse_size_bytes("16TiB").ok());
  CHECK_FALSE(parse_size_bytes("20000000TiB").ok());  // 2.2e19 bytes: no uint64 holds it
}

TEST_CASE("a sweep timeout beyond 30 days is refused at /timeout_s", "[sweep][limits]") {
  const SweepContext ctx = testing::shipped_context();
  const std::string base = R"({"name": "t", "axes": {"engine": ["null"], "model": ["tiny-moe"]}, "timeout_s": T})";
  for (const char* t : {"1e10", "2592001", "1e300"}) {
    INFO(t);
    std::string text = base;
    text.replace(text.find('T', text.find("timeout_s")), 1, t);
    auto s = load_sweep_text(text, "t.json", ctx);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("t.json: /timeout_s: a timeout of ") != std::string::npos);
    CHECK(s.error().message.find("30 days (2592000 s)") != std::string::npos);
  }
  std::string ok = base;
  ok.replace(ok.find('T', ok.find("timeout_s")), 1, "2592000");
  CHECK(load_sweep_text(ok, "t.json", ctx).ok());
}

TEST_CASE("sweep token counts and thread counts are bounded", "[sweep][limits]") {
  const SweepContext ctx = testing::shipped_context();
  auto s = load_sweep_text(R"({"name": "t", "axes": {"engine": ["null"], "model": ["tiny-moe"],
      "context_tokens": [4611686018427387903], "threads": [2147483648], "gen_tokens": [18446744073709551615]}})",
                           "t.json", ctx);
  REQUIRE_FALSE(s.ok());
  const std::string& m = s.error().message;
  INFO(m);
  CHECK(m.find("t.json: /axes/context_tokens/0: expected an integer between 0 and 1073741824") != std::string::npos);
  CHECK(m.find("t.json: /axes/threads/0: expected an integer between 1 and 65536") != std::string::npos);
  CHECK(m.find("t.json: /axes/gen_tokens/0: integer 18446744073709551615 is too large") != std::string::npos);
}

TEST_CASE("huge durations saturate instead of wrapping into the past", "[deadline][limits]") {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point now = Clock::now();
  CHECK(steady_deadline_after(1e10, now) > now + std::chrono::hours(24 * 365));
  CHECK(steady_deadline_after(1e300, now) > now + std::chrono::hours(24 * 365));
  CHECK(steady_deadline_after(std::numeric_limits<double>::infinity(), now) > now);
  CHECK(steady_deadline_after(-5, now) == now);
  CHECK(steady_deadline_after(std::nan(""), now) == now);
  CHECK(steady_deadline_after(1.5, now) == now + std::chrono::milliseconds(1500));
  CHECK(steady_deadline_after(1e10, Clock::time_point::max() - std::chrono::seconds(1)) == Clock::time_point::max());
  CHECK(saturating_duration(1e10) == std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kDeadlineCapS)));
}

TEST_CASE("a subprocess with a huge timeout runs to completion instead of timing out at once", "[subprocess][limits]") {
  ProcessOptions o;
  o.timeout_s = 1e10;
  auto r = run_process({"sh", "-c", "sleep 0.05; echo done"}, o);
  REQUIRE(r.ok());
  CHECK_FALSE(r->timed_out);
  CHECK(r->exit_code == 0);
  CHECK(r->out == "done\n");
}

TEST_CASE("a run with a huge timeout and grace completes every point", "[runner][limits]") {
  TempDir dir;
  FakeClock clock;
  QuietProgress progress;
  const SweepContext ctx = testing::shipped_context();
  auto spec = load_sweep_text(R"({"name": "big-timeout", "repetitions": 1, "warmup": 0,
      "axes": {"engine": ["null"], "model": ["tiny-moe"], "ram_budget": ["1MiB", "8MiB"]}})", "t.json", ctx);
  REQUIRE(spec.ok());
  auto points = expand_sweep(*spec, ctx);
  REQUIRE(points.ok());
  const Environment env = capture_environment("", "test");
  auto journal = Journal::open(dir.file("journal.jsonl"),
                               {spec->name, "", spec->digest, points->size(), 1, 0, spec->seed}, env,
                               Journal::Mode::kCreate);
  REQUIRE(journal.ok());
  RunnerDeps deps{clock, progress, [](const std::string& n) { return testing::shipped_store().card(n); },
                  [](const EngineSpec& s) -> Expected<std::unique_ptr<Engine>> { return find_engine(s.name)->make(s); }};
  RunnerOptions o;
  o.timeout_s = 1e10;     // was: the watchdog's deadline wrapped into the past and the
  o.hard_grace_s = 1e10;  // process exited 124 before the first point
  o.run_id = env.run_id;
  auto out = run_sweep(*spec, *points, *journal, deps, o);
  REQUIRE(out.ok());
  CHECK(*out == RunOutcome::kCompleted);
  REQUIRE(journal->results().rows.size() == 2);
  for (const ResultRow& r : journal->results().rows) CHECK(r.status == RowStatus::kOk);
}
