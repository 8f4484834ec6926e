// history_test.cpp — `moebench history`'s parts: step detection as pure
// functions on known series (flat, one step, noise below the threshold,
// noise hiding a change, two steps, up and down), the t distribution against
// closed forms, and the SQLite history database in a temporary directory
// (schema round trip, idempotent and atomic add, a newer schema refused,
// filters, and steps found through the database).
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "vocab/stats.h"
#include "reports/history_db.h"
#include "reports/history_writer.h"
#include "vocab/json_reader.h"
#include "reports/step_detect.h"

#include "test_support.h"

using namespace moebench;

namespace {

// A run of `reps` samples around `level` with a fixed relative wobble
// (±`rel` alternating and scaled by position, deterministic).
SeriesEntry entry_with_samples(double level, double rel, int reps = 3, int salt = 0) {
  SeriesEntry e;
  for (int i = 0; i < reps; ++i) {
    const double w = ((i + salt) % 3 - 1) * rel;  // −rel, 0, +rel pattern
    e.samples.push_back(level * (1 + w));
  }
  e.median = median(e.samples);
  e.mad = mad(e.samples);
  e.n = e.samples.size();
  return e;
}

std::vector<SeriesEntry> series_of(const std::vector<double>& levels, double rel, int reps = 3) {
  std::vector<SeriesEntry> s;
  for (std::size_t i = 0; i < levels.size(); ++i) s.push_back(entry_with_samples(levels[i], rel, reps, static_cast<int>(i)));
  return s;
}

std::vector<std::size_t> step_indices(const std::vector<LevelStep>& steps) {
  std::vector<std::size_t> out;
  for (const LevelStep& s : steps) out.push_back(s.index);
  return out;
}

}  // namespace

TEST_CASE("student t tail matches closed forms", "[history]") {
  // df = 1 is the Cauchy distribution: P(|T| >= t) = 1 − 2·atan(t)/π.
  for (double t : {0.5, 1.0, 3.0, 12.706}) {
    CHECK(student_t_two_sided_p(t, 1) == Approx(1 - 2 * std::atan(t) / std::numbers::pi).epsilon(1e-9));
  }
  // df = 2: P(|T| >= t) = 1 − t / sqrt(t² + 2).
  for (double t : {0.3, 2.0, 4.303}) {
    CHECK(student_t_two_sided_p(t, 2) == Approx(1 - t / std::sqrt(t * t + 2)).epsilon(1e-9));
  }
  CHECK(student_t_two_sided_p(2.228, 10) == Approx(0.05).epsilon(1e-3));   // table value
  CHECK(student_t_two_sided_p(1.959964, 1e7) == Approx(0.05).epsilon(1e-4));  // normal limit
  CHECK(student_t_two_sided_p(0, 5) == Approx(1));
  CHECK(student_t_two_sided_p(INFINITY, 3) == 0);
  CHECK(incomplete_beta(0.3, 2, 3) == Approx(0.3483).epsilon(1e-4));  // 1 − (1−x)^3·(1+3x)
}

TEST_CASE("the two-sample t-test pools the variance", "[history]") {
  // {1, 2, 3} against {4, 5, 6}: s_p² = 1, t = 3 / sqrt(2/3) = 3.674, df 4, p = 0.0213.
  std::vector<SeriesEntry> s(2);
  s[0].samples = {1, 2, 3};
  s[1].samples = {4, 5, 6};
  const TTest t = two_sample_t(window_stats(s, 0, 1), window_stats(s, 1, 2));
  CHECK(t.testable);
  CHECK(t.t == Approx(3.674235).epsilon(1e-6));
  CHECK(t.df == 4);
  CHECK(t.p == Approx(0.02131).epsilon(1e-3));
  // One observation on each side: nothing to estimate the noise from.
  SeriesEntry one;
  one.median = 1;
  CHECK_FALSE(two_sample_t(window_stats({one}, 0, 1), window_stats({one}, 0, 1)).testable);
}

TEST_CASE("window statistics pool samples, or medians with their MAD", "[history]") {
  std::vector<SeriesEntry> s(2);
  s[0].samples = {1, 2, 3};
  s[1].samples = {4, 5, 6};
  s[0].median = 2;
  s[1].median = 5;
  WindowStats w = window_stats(s, 0, 2);
  CHECK(w.n == 6);
  CHECK(w.mean == Approx(3.5));
  CHECK(w.var == Approx(3.5));  // sample variance of 1..6
  // Without samples: n pseudo-observations at the median, σ = 1.4826 · MAD.
  SeriesEntry m;
  m.median = 10;
  m.mad = 1;
  m.n = 4;
  w = window_stats({m}, 0, 1);
  CHECK(w.n == 4);
  CHECK(w.mean == 10);
  CHECK(w.var == Approx(1.4826 * 1.4826));
  // A median without a usable MAD is one observation.
  m.mad = std::nan("");
  CHECK(window_stats({m}, 0, 1).n == 1);
}

TEST_CASE("a flat series has no step", "[history]") {
  auto s = series_of({7.1, 7.08, 7.12, 7.09, 7.11, 7.1, 7.07, 7.13}, 0.02);
  CHECK(detect_steps(s).empty());
}

TEST_CASE("a clear single step is found at the right run", "[history]") {
  auto s = series_of({7.1, 7.08, 7.12, 7.09, 6.2, 6.22, 6.18, 6.21}, 0.01);
  auto steps = detect_steps(s);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].index == 4);
  CHECK(steps[0].before == Approx(7.095));
  CHECK(steps[0].after == Approx(6.205));
  CHECK(steps[0].rel_change == Approx(6.205 / 7.095 - 1));
  CHECK(steps[0].p_value < 0.001);
  CHECK(steps[0].before_begin == 0);
  CHECK(steps[0].after_end == 8);
}

TEST_CASE("a step at the newest run is found with one run after it", "[history]") {
  auto s = series_of({7.1, 7.08, 7.12, 6.03}, 0.02, 2);
  auto steps = detect_steps(s);
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].index == 3);
  CHECK(steps[0].rel_change < -0.1);
  // With --min-segment 2 a single run cannot be a level of its own.
  StepOptions opt;
  opt.min_segment = 2;
  CHECK(detect_steps(s, opt).empty());
}

TEST_CASE("a clear change below the threshold is no step", "[history]") {
  // −3 %, with 0.1 % noise: statistically unmistakable, but smaller than 5 %.
  auto s = series_of({10, 10, 10, 10, 9.7, 9.7, 9.7, 9.7}, 0.001);
  CHECK(detect_steps(s).empty());
  StepOptions opt;
  opt.threshold = 0.02;
  CHECK(step_indices(detect_steps(s, opt)) == std::vector<std::size_t>{4});
}

TEST_CASE("a large change inside large noise is no step", "[history]") {
  // The level moves 13 % but each run's two repetitions spread ±20 %.
  std::vector<SeriesEntry> s;
  s.push_back(entry_with_samples(5.0, 0.2, 2, 0));
  s.push_back(entry_with_samples(5.0, 0.2, 2, 2));
  s.push_back(entry_with_samples(4.6, 0.2, 2, 0));
  CHECK(detect_steps(s).empty());
}

TEST_CASE("two steps are both found", "[history]") {
  auto s = series_of({10, 10.05, 9.95, 10, 9, 9.02, 8.98, 9, 8, 8.01, 7.99, 8}, 0.01);
  auto steps = detect_steps(s);
  CHECK(step_indices(steps) == std::vector<std::size_t>{4, 8});
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].after_end == 8);     // compared with the segment up to the next step
  CHECK(steps[1].before_begin == 4);
}

TEST_CASE("a regression and its recovery are both found", "[history]") {
  // Equal means on both halves: plain binary segmentation sees no split here.
  auto s = series_of({10, 10, 12, 12, 10, 10}, 0.005);
  CHECK(step_indices(detect_steps(s)) == std::vector<std::size_t>{2, 4});
}

TEST_CASE("medians without samples still give steps, and constants behave", "[history]") {
  std::vector<SeriesEntry> s;
  for (double v : {100.0, 101.0, 99.0, 100.0, 80.0, 81.0, 79.0, 80.0}) {
    SeriesEntry e;
    e.median = v;
    e.mad = std::nan("");
    s.push_back(e);
  }
  CHECK(step_indices(detect_steps(s)) == std::vector<std::size_t>{4});
  // Identical constants never step; a constant that changes always does.
  std::vector<SeriesEntry> c(6);
  for (auto& e : c) {
    e.median = 512;
    e.mad = 0;
    e.n = 2;
    e.samples = {512, 512};
  }
  CHECK(detect_steps(c).empty());
  for (std::size_t i = 3; i < 6; ++i) {
    c[i].median = 1024;
    c[i].samples = {1024, 1024};
  }
  CHECK(step_indices(detect_steps(c)) == std::vector<std::size_t>{3});
  CHECK(detect_steps({}).empty());
  CHECK(detect_steps(std::vector<SeriesEntry>(1, c[0])).empty());
}

// ---- the database ----

namespace {

Environment env_of(const std::string& run_id, const std::string& commit, const std::string& started_at) {
  Environment e = testing::fixed_environment(run_id);
  e.git_commit = commit;
  e.started_at = started_at;
  e.machine_profile = "vm (vm.json)";
  return e;
}

ResultRow row_of(std::size_t index, const std::string& engine, const std::string& quant, std::uint64_t budget,
                 const std::vector<double>& tok_s, const Environment& env) {
  ResultRow r;
  r.point.index = index;
  r.point.engine.name = engine;
  r.point.model = "kimi-k3";
  r.point.scale = {2, 64};
  r.point.quant = quant;
  r.point.ram_budget_bytes = budget;
  r.provenance = "measured";
  r.run_id = env.run_id;
  r.machine = "vm";
  r.build = env.build_label();
  r.repetitions = static_cast<int>(tok_s.size());
  if (tok_s.empty()) {
    r.status = RowStatus::kInfeasible;
    r.reason = "needs 8.53 GiB, budget 7.25 GiB";
    return r;
  }
  r.metrics["decode_tok_s"] = summarize(tok_s);
  r.samples["decode_tok_s"] = tok_s;
  std::vector<double> ttft;
  for (double x : tok_s) ttft.push_back(1 / x);
  r.metrics["ttft_s"] = summarize(ttft);
  r.samples["ttft_s"] = ttft;
  return r;
}

// Run k of a small sweep: three points; the streaming mxfp4 point's decode
// rate is multiplied by `factor`.
RunResults run_of(int k, double factor) {
  const std::string id = "2026120" + std::to_string(k) + "T100000Z-00000" + std::to_string(k);
  const Environment env = env_of(id, "c0mm1t" + std::to_string(k) + "aaaaa", "2026-12-0" + std::to_string(k) + "T10:00:00Z");
  RunResults r;
  r.sweep.name = "quick";
  r.sweep.digest = "c0667d7fedc9e6ca";
  r.sweep.points_total = 3;
  r.sweep.repetitions = 2;
  r.environments = {env};
  const double wobble = 1 + 0.004 * ((k % 3) - 1);
  r.rows.push_back(row_of(0, "resident", "mxfp4", 7ull << 30, {}, env));
  r.rows.push_back(row_of(1, "resident", "mxfp4", 10ull << 30, {7.28 * wobble, 6.92 * wobble}, env));
  r.rows.push_back(row_of(2, "streaming", "mxfp4", 8ull << 30, {6.00 * factor * wobble, 6.21 * factor * wobble}, env));
  return r;
}

std::int64_t count_rows(const std::string& db) {
  auto h = HistoryDb::open(db, HistoryDb::Mode::kReadOnly);
  REQUIRE(h.ok());
  auto c = h->counts();
  REQUIRE(c.ok());
  return c->rows;
}

}  // namespace

TEST_CASE("history database: round trip of a run", "[history]") {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  const RunResults run = run_of(1, 1.0);
  {
    auto db = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
    REQUIRE(db.ok());
    CHECK(db->schema_version() == kHistorySchemaVersion);
    auto added = db->add(run, "/data/run1/results.json");
    REQUIRE(added.ok());
    CHECK(added->outcome == HistoryAddOutcome::kAdded);
    CHECK(added->rows == 3);
    CHECK(added->metrics == 4);
    CHECK(added->samples == 8);
  }
  auto db = HistoryDb::open(path, HistoryDb::Mode::kReadOnly);
  REQUIRE(db.ok());
  auto runs = db->runs();
  REQUIRE(runs.ok());
  REQUIRE(runs->size() == 1);
  const HistoryRun& r = runs->front();
  CHECK(r.run_id == run.environments[0].run_id);
  CHECK(r.git_commit == "c0mm1t1aaaaa");
  CHECK(r.build_label == run.environments[0].build_label());
  CHECK(r.sweep_name == "quick");
  CHECK(r.sweep_digest == "c0667d7fedc9e6ca");
  CHECK(r.machine == "vm");
  CHECK(r.host == "testhost");
  CHECK(r.started_at == "2026-12-01T10:00:00Z");
  CHECK(r.file_path == "/data/run1/results.json");
  CHECK(r.rows == 3);
  auto names = db->metric_names();
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"decode_tok_s", "ttft_s"});

  auto entries = db->query(HistoryFilter{});
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 3);
  for (const HistoryEntry& e : *entries) {
    const ResultRow* src = nullptr;
    for (const ResultRow& row : run.rows) {
      if (row.point.id() == e.point_id) src = &row;
    }
    REQUIRE(src != nullptr);
    CHECK(e.point_key_json == src->point.key_json().dump());
    CHECK(e.engine_spec == src->point.engine.to_string());
    CHECK(e.quant == src->point.quant);
    CHECK(e.scale == "layers=2,experts=64");
    CHECK(e.ram_budget_bytes == src->point.ram_budget_bytes);
    CHECK(e.status == to_string(src->status));
    CHECK(e.git_commit == "c0mm1t1aaaaa");
    CHECK(e.machine == "vm");
    CHECK(e.provenance == "measured");
    if (src->status == RowStatus::kOk) {
      const Summary& s = src->metrics.at("decode_tok_s");
      REQUIRE(e.median.has_value());
      CHECK(*e.median == s.median);
      CHECK(*e.mad == s.mad);
      CHECK(e.n == s.n);
      CHECK(e.samples == src->samples.at("decode_tok_s"));
    } else {
      CHECK_FALSE(e.median.has_value());
      CHECK(e.reason == src->reason);
      CHECK(e.samples.empty());
    }
  }
}

TEST_CASE("history database: adding is idempotent, and a changed run needs --replace", "[history]") {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  auto db = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
  REQUIRE(db.ok());
  REQUIRE(db->add(run_of(1, 1.0), "/a/results.json").ok());
  auto again = db->add(run_of(1, 1.0), "/copied/elsewhere/results.json");
  REQUIRE(again.ok());
  CHECK(again->outcome == HistoryAddOutcome::kAlreadyPresent);
  CHECK(again->existing_file == "/a/results.json");
  auto counts = db->counts();
  REQUIRE(counts.ok());
  CHECK(counts->runs == 1);
  CHECK(counts->rows == 3);

  RunResults changed = run_of(1, 1.0);
  changed.rows.pop_back();  // the same run, other rows
  auto refused = db->add(changed, "/a/results.json");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("--replace"));
  CHECK_THAT(refused.error().message, Catch::Contains(path));
  HistoryAddOptions replace;
  replace.replace = true;
  auto replaced = db->add(changed, "/a/results.json", replace);
  REQUIRE(replaced.ok());
  CHECK(replaced->outcome == HistoryAddOutcome::kReplaced);
  counts = db->counts();
  REQUIRE(counts.ok());
  CHECK(counts->runs == 1);
  CHECK(counts->rows == 2);
  CHECK(counts->metrics == 2);  // the old run's metrics and samples went with it
  CHECK(counts->samples == 4);
}

TEST_CASE("history database: a failed add leaves the file unchanged", "[history]") {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  {
    auto db = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
    REQUIRE(db.ok());
    REQUIRE(db->add(run_of(1, 1.0), "/a/results.json").ok());
    RunResults broken = run_of(2, 1.0);
    broken.rows.push_back(broken.rows[1]);  // the same point twice: fails on the 4th row
    auto r = db->add(broken, "/b/results.json");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("nothing was added"));
    auto runs = db->runs();
    REQUIRE(runs.ok());
    CHECK(runs->size() == 1);  // no half-added run 2
    // No environment: refused before anything is written.
    RunResults no_env = run_of(3, 1.0);
    no_env.environments.clear();
    CHECK_FALSE(db->add(no_env, "/c/results.json").ok());
  }
  CHECK(count_rows(path) == 3);
}

TEST_CASE("history database: a newer schema, a foreign file and a missing file are refused", "[history]") {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  REQUIRE(HistoryDb::open(path, HistoryDb::Mode::kReadWrite).ok());
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
    REQUIRE(sqlite3_exec(raw, "INSERT INTO schema_version VALUES (99, '2030-01-01T00:00:00Z', 'moebench 9')", nullptr,
                         nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  auto newer = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
  REQUIRE_FALSE(newer.ok());
  CHECK_THAT(newer.error().message, Catch::Contains("schema version 99 is newer"));
  CHECK_THAT(newer.error().message, Catch::Contains(path));

  const std::string other = dir.file("other.sqlite");
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(other.c_str(), &raw) == SQLITE_OK);
    REQUIRE(sqlite3_exec(raw, "CREATE TABLE t (x)", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  auto foreign = HistoryDb::open(other, HistoryDb::Mode::kReadWrite);
  REQUIRE_FALSE(foreign.ok());
  CHECK_THAT(foreign.error().message, Catch::Contains("not a moebench history database"));

  const std::string text = dir.file("notes.txt");
  std::ofstream(text) << "this is not a database, just some text that is long enough to have a header\n";
  auto garbage = HistoryDb::open(text, HistoryDb::Mode::kReadOnly);
  REQUIRE_FALSE(garbage.ok());
  CHECK_THAT(garbage.error().message, Catch::Contains(text));

  auto missing = HistoryDb::open(dir.file("nope.sqlite"), HistoryDb::Mode::kReadOnly);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("history add"));
  CHECK_FALSE(std::filesystem::exists(dir.file("nope.sqlite")));  // show never creates a file
}

TEST_CASE("history database: filters and steps through the database", "[history]") {
  testing::TempDir dir;
  const std::string path = dir.file("h.sqlite");
  auto db = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
  REQUIRE(db.ok());
  // Added out of order: series follow the runs' start times, not the order of adding.
  for (int k : {3, 1, 4, 2, 5}) REQUIRE(db->add(run_of(k, k >= 4 ? 0.85 : 1.0), "/r" + std::to_string(k)).ok());

  HistoryFilter f;
  f.engine = "streaming";
  auto streaming = db->query(f);
  REQUIRE(streaming.ok());
  CHECK(streaming->size() == 5);
  for (const HistoryEntry& e : *streaming) CHECK(e.engine_spec == "streaming");
  f = HistoryFilter{};
  f.quant = "q4_k";
  CHECK(db->query(f)->empty());
  f = HistoryFilter{};
  f.machine = "other";
  CHECK(db->query(f)->empty());
  const std::string id = run_of(1, 1).rows[1].point.id();
  f = HistoryFilter{};
  f.point = id.substr(0, 6);
  auto one = db->query(f);
  REQUIRE(one.ok());
  REQUIRE(one->size() == 5);
  CHECK(one->front().point_id == id);

  auto all = db->query(HistoryFilter{});
  REQUIRE(all.ok());
  CHECK(all->size() == 15);
  const auto series = build_series(*all, 0, StepOptions{});
  REQUIRE(series.size() == 3);
  int with_steps = 0;
  for (const HistorySeries& s : series) {
    REQUIRE(s.entries.size() == 5);
    for (std::size_t i = 0; i < 5; ++i) CHECK(s.entries[i].git_commit == "c0mm1t" + std::to_string(i + 1) + "aaaaa");
    if (s.entries[0].status != "ok") {
      CHECK(s.values.empty());  // the infeasible point has no values
      CHECK(s.steps.empty());
      continue;
    }
    CHECK(s.values.size() == 5);
    if (s.steps.empty()) continue;
    ++with_steps;
    REQUIRE(s.steps.size() == 1);
    CHECK(s.entries[0].engine_spec == "streaming");
    CHECK(s.steps[0].entry == 3);                       // first run at the new level: commit 4
    CHECK(s.steps[0].prev_entry == 2);
    CHECK(s.entries[s.steps[0].entry].git_commit == "c0mm1t4aaaaa");
    CHECK(s.steps[0].stats.rel_change == Approx(-0.15).margin(0.01));
  }
  CHECK(with_steps == 1);

  // --last 3: the last three runs (commits 3, 4, 5) still show the step at commit 4.
  const auto last3 = build_series(*all, 3, StepOptions{});
  for (const HistorySeries& s : last3) {
    CHECK(s.entries.size() == 3);
    if (!s.steps.empty()) CHECK(s.entries[s.steps[0].entry].git_commit == "c0mm1t4aaaaa");
  }
  // Another metric of the same rows: TTFT rises where decode falls.
  f = HistoryFilter{};
  f.metric = "ttft_s";
  f.engine = "streaming";
  auto ttft = db->query(f);
  REQUIRE(ttft.ok());
  const auto ts = build_series(*ttft, 0, StepOptions{});
  REQUIRE(ts.size() == 1);
  REQUIRE(ts[0].steps.size() == 1);
  CHECK(ts[0].steps[0].stats.rel_change > 0.1);
}

TEST_CASE("history shows the disturbed repetitions and calls a slowdown that needs them inconclusive", "[history]") {
  testing::TempDir dir;
  // Five runs of the small sweep; the streaming point's slowdown and its
  // marks are set per case. Run 1 predates the marks (it recorded none).
  auto fill = [&](const std::string& name, double slow4, double slow5, std::vector<double> marks4,
                  std::vector<double> marks5) {
    const std::string path = dir.file(name);
    auto db = HistoryDb::open(path, HistoryDb::Mode::kReadWrite);
    REQUIRE(db.ok());
    for (int k = 1; k <= 5; ++k) {
      RunResults r = run_of(k, k == 4 ? slow4 : k == 5 ? slow5 : 1.0);
      for (ResultRow& row : r.rows) {
        if (k == 1 || row.status != RowStatus::kOk) continue;
        row.samples["disturbed"] = row.point.index != 2 ? std::vector<double>{0, 0} : k == 4 ? marks4 : k == 5 ? marks5 : std::vector<double>{0, 0};
      }
      REQUIRE(db->add(r, "/r" + std::to_string(k)).ok());
    }
    HistoryFilter f;
    f.engine = "streaming";
    auto entries = db->query(f);
    REQUIRE(entries.ok());
    REQUIRE(entries->size() == 5);
    HistoryView view;
    view.db = path;
    view.metric = "decode_tok_s";
    view.runs = 5;
    view.series = build_series(*entries, 0, StepOptions{});
    REQUIRE(view.series.size() == 1);
    return view;
  };

  SECTION("a slowdown that holds without the disturbed repetition stays a regression, and the marks show") {
    // Commits 4 and 5 are 15 % slower; one of commit 4's two repetitions shared the machine.
    const HistoryView view = fill("a.sqlite", 0.85, 0.85, {1, 0}, {0, 0});
    const auto& e = view.series[0].entries;
    CHECK_FALSE(e[0].disturbed.has_value());  // no marks recorded
    CHECK(e[1].disturbed == std::optional<std::size_t>(0));
    CHECK(e[3].disturbed == std::optional<std::size_t>(1));
    CHECK(e[3].marks.size() == 2);
    REQUIRE(view.series[0].steps.size() == 1);
    CHECK_FALSE(view.series[0].steps[0].disturbed);
    const std::string text = write_history(view, HistoryFormat::kText);
    CHECK(text.find("1 of 2 repetitions disturbed") != std::string::npos);
    CHECK(text.find("(1 regression(s))") != std::string::npos);
    const std::string md = write_history(view, HistoryFormat::kMarkdown);
    CHECK(md.find("| disturbed |") != std::string::npos);
    CHECK(md.find("| 1 of 2 |") != std::string::npos);
    const Json js = Json::parse(write_history(view, HistoryFormat::kJson));
    CHECK(js["series"][0]["entries"][3]["disturbed_repetitions"] == 1);
    CHECK(js["series"][0]["entries"][0]["disturbed_repetitions"].is_null());
    CHECK(js["series"][0]["steps"][0]["verdict"] == "regression");
  }
  SECTION("a slowdown only on a run whose repetitions were all disturbed is inconclusive") {
    const HistoryView view = fill("b.sqlite", 1.0, 0.85, {0, 0}, {1, 1});
    REQUIRE(view.series[0].steps.size() == 1);
    CHECK(view.series[0].steps[0].entry == 4);
    CHECK(view.series[0].steps[0].disturbed);
    const std::string text = write_history(view, HistoryFormat::kText);
    CHECK(text.find("2 of 2 repetitions disturbed") != std::string::npos);
    CHECK(text.find("inconclusive (a disturbed run)") != std::string::npos);
    CHECK(text.find("(0 regression(s), 1 slowdown(s) inconclusive") != std::string::npos);
    const Json js = Json::parse(write_history(view, HistoryFormat::kJson));
    CHECK(js["series"][0]["steps"][0]["verdict"] == "inconclusive (a disturbed run)");
    CHECK(js["series"][0]["steps"][0]["disturbed"] == true);
  }
}

TEST_CASE("a FIFO, a directory or a device given as the database is refused without opening it", "[history]") {
  moebench::testing::TempDir dir;
  const std::string fifo = dir.file("db.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);  // SQLite would block opening it, with no writer
  for (const std::string& path : {fifo, dir.path(), std::string("/dev/null")}) {
    for (auto mode : {HistoryDb::Mode::kReadOnly, HistoryDb::Mode::kReadWrite}) {
      auto db = HistoryDb::open(path, mode);
      INFO(path);
      REQUIRE_FALSE(db.ok());
      CHECK(db.error().message.find("not a history database file") != std::string::npos);
    }
  }
}
