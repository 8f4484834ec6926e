// runner_test.cpp — the runner driven with the null engine and a fake clock:
// repetitions and warm-ups, failure isolation (error, exception, timeout),
// engine-declared statuses, the RSS budget check, resume and interruption.
#include <catch2/catch.hpp>

#include "vocab/environment.h"
#include "harness/journal.h"
#include "vocab/metrics.h"
#include "harness/runner.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

struct Harness {
  TempDir dir;
  FakeClock clock;
  QuietProgress progress;
  SweepContext ctx = testing::shipped_context();
  SweepSpec spec;
  std::vector<Point> points;
  Environment env = capture_environment("", "test");

  explicit Harness(const std::string& sweep_json) {
    auto s = load_sweep_text(sweep_json, "t.json", ctx);
    if (!s) FAIL(s.error().message);
    spec = *s;
    auto p = expand_sweep(spec, ctx);
    if (!p) FAIL(p.error().message);
    points = *p;
  }

  SweepInfo info() const {
    return {spec.name, spec.description, spec.digest, points.size(), spec.repetitions, spec.warmup, spec.seed};
  }

  Expected<Journal> journal(Journal::Mode mode) { return Journal::open(dir.file("journal.jsonl"), info(), env, mode); }

  Expected<RunOutcome> run(Journal& j, const std::atomic<bool>* interrupt = nullptr,
                           std::function<void(const RunResults&)> on_row = nullptr) {
    RunnerDeps deps{clock, progress, [](const std::string& n) { return testing::shipped_store().card(n); },
                    [](const EngineSpec& s) -> Expected<std::unique_ptr<Engine>> {
                      return find_engine(s.name)->make(s);
                    }};
    RunnerOptions o;
    o.timeout_s = spec.timeout_s;
    o.hard_grace_s = 3600;  // never fires in unit tests
    o.machine_label = "test-machine";
    o.build_label = env.build_label();
    o.run_id = env.run_id;
    o.interrupt = interrupt;
    o.on_row = std::move(on_row);
    return run_sweep(spec, points, j, deps, o);
  }
};

const char* kSweep = R"({"name": "r", "repetitions": 3, "warmup": 1, "timeout_s": 5,
  "axes": {"engine": ["ENGINE"], "model": ["tiny-moe"], "ram_budget": ["1MiB", "8MiB", "unlimited"],
           "context_tokens": [0, 64]}})";

std::string sweep_with(const std::string& engine) {
  std::string s = kSweep;
  s.replace(s.find("ENGINE"), 6, engine);
  return s;
}

}  // namespace

TEST_CASE("every point gets one row with medians and raw samples", "[runner]") {
  Harness h(sweep_with("null"));
  auto j = h.journal(Journal::Mode::kCreate);
  REQUIRE(j.ok());
  auto out = h.run(*j);
  REQUIRE(out.ok());
  CHECK(*out == RunOutcome::kCompleted);
  const RunResults& r = j->results();
  REQUIRE(r.rows.size() == 6);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const ResultRow& row = r.rows[i];
    CHECK(row.point.index == i);
    CHECK(row.status == RowStatus::kOk);
    CHECK(row.provenance == "synthetic");
    CHECK(row.repetitions == 3);
    CHECK(row.machine == "test-machine");
    CHECK(row.samples.at(metric::kDecodeTokS).size() == 3);
    CHECK(row.median(metric::kDecodeTokS).value() > 0);
    CHECK(row.median(metric::kItlP99S).value() >= row.median(metric::kItlP50S).value());
  }
  // Load happens once per set-up (first point), in its warm-up.
  CHECK(r.rows[0].samples.count(metric::kLoadS) == 1);
  CHECK(r.rows[1].samples.count(metric::kLoadS) == 0);
  // Smaller budget → fewer hits → more bytes read per token.
  CHECK(r.rows[0].median(metric::kReadBytesPerToken).value() >
        r.rows[2].median(metric::kReadBytesPerToken).value());
  CHECK(r.rows[4].median(metric::kExpertHitRate).value() == Approx(1.0));
}

TEST_CASE("the same sweep and seed give identical rows", "[runner]") {
  Harness a(sweep_with("null")), b(sweep_with("null"));
  auto ja = a.journal(Journal::Mode::kCreate);
  auto jb = b.journal(Journal::Mode::kCreate);
  REQUIRE((a.run(*ja).ok() && b.run(*jb).ok()));
  for (std::size_t i = 0; i < ja->results().rows.size(); ++i) {
    CHECK(ja->results().rows[i].samples == jb->results().rows[i].samples);
  }
}

TEST_CASE("failures are isolated: error, exception, timeout", "[runner]") {
  Harness h(sweep_with("null:fail_at=1,throw_at=2,hang_at=3"));
  auto j = h.journal(Journal::Mode::kCreate);
  REQUIRE(h.run(*j).ok());
  const auto& rows = j->results().rows;
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].status == RowStatus::kOk);
  CHECK(rows[1].status == RowStatus::kFailed);
  CHECK(rows[1].reason.find("warm-up 1/1: null engine: injected failure at point 1") != std::string::npos);
  CHECK(rows[2].status == RowStatus::kFailed);
  CHECK(rows[2].reason.find("engine threw an exception") != std::string::npos);
  CHECK(rows[3].status == RowStatus::kFailed);
  CHECK(rows[3].reason.find("timed out after 5.0 s") != std::string::npos);
  CHECK(rows[4].status == RowStatus::kOk);
  CHECK(rows[5].status == RowStatus::kOk);
}

TEST_CASE("engine-declared infeasible points and over-budget RSS", "[runner]") {
  Harness h(sweep_with("null:infeasible_below=4MiB,over_budget=1"));
  auto j = h.journal(Journal::Mode::kCreate);
  REQUIRE(h.run(*j).ok());
  const auto& rows = j->results().rows;
  CHECK(rows[0].status == RowStatus::kInfeasible);
  CHECK(rows[0].reason.find("below the minimum 4.00 MiB") != std::string::npos);
  // The minimum is a field of the row, not only words in its reason, and it
  // survives the journal and results.json.
  CHECK(rows[0].min_budget_bytes == std::optional<std::uint64_t>(4ull << 20));
  CHECK_FALSE(rows[4].min_budget_bytes.has_value());
  auto back = row_from_json(row_to_json(rows[0]));
  REQUIRE(back.ok());
  CHECK(back->min_budget_bytes == rows[0].min_budget_bytes);
  auto reread = read_journal(j->path());
  REQUIRE(reread.ok());
  CHECK(reread->rows[0].min_budget_bytes == std::optional<std::uint64_t>(4ull << 20));
  CHECK(rows[2].status == RowStatus::kInvalid);
  CHECK(rows[2].reason.find("exceeds the RAM budget 8.00 MiB by 50.0%") != std::string::npos);
  CHECK(rows[4].status == RowStatus::kOk);  // unlimited budget: nothing to exceed
}

TEST_CASE("resume skips finished points and runs the rest once", "[runner]") {
  Harness h(sweep_with("null"));
  std::atomic<bool> stop{false};
  {
    auto j = h.journal(Journal::Mode::kCreate);
    REQUIRE(j.ok());
    // Interrupt after the second row lands.
    auto out = h.run(*j, &stop, [&](const RunResults& r) { if (r.rows.size() == 2) stop = true; });
    REQUIRE(out.ok());
    CHECK(*out == RunOutcome::kInterrupted);
    CHECK(j->results().rows.size() == 2);
  }
  SECTION("create mode refuses to overwrite") {
    auto again = h.journal(Journal::Mode::kCreate);
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().message.find("pass --resume") != std::string::npos);
  }
  SECTION("resume completes it") {
    stop = false;
    auto j = h.journal(Journal::Mode::kResume);
    REQUIRE(j.ok());
    CHECK(j->rows_loaded_at_open() == 2);
    REQUIRE(h.run(*j).ok());
    auto back = read_journal(h.dir.file("journal.jsonl"));
    REQUIRE(back.ok());
    REQUIRE(back->rows.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) CHECK(back->rows[i].point.index == i);
    CHECK(back->environments.size() == 2);  // the first run and the resumed one
  }
  SECTION("fresh discards it") {
    auto j = h.journal(Journal::Mode::kFresh);
    REQUIRE(j.ok());
    CHECK(j->results().rows.empty());
  }
}
