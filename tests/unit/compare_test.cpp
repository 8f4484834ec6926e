// compare_test.cpp — `moebench compare` as documentation: the U test and
// the bootstrap as pure functions on known answers (scipy.stats.mannwhitneyu
// 1.10 values, and small distributions counted by hand), then the verdict
// rules on synthetic repetition samples: identical samples are never
// flagged, a 10 % slowdown over 9 repetitions is, 2 vs 2 samples never give
// a verdict, status changes count, and different machines are refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "vocab/metrics.h"
#include "reports/compare.h"
#include "reports/stats_tests.h"
#include "test_support.h"

using namespace moebench;

namespace {

// Deterministic noise in [-1, 1) (an LCG; the test owns its numbers).
struct Noise {
  std::uint64_t s;
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0;  // 2^52
  }
};

std::vector<double> noisy(double center, double rel_noise, int n, std::uint64_t seed) {
  Noise noise{seed};
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1 + rel_noise * noise.next()));
  return v;
}

const MetricRule& rule(const std::string& name) {
  for (const MetricRule& r : compared_metrics()) {
    if (r.name == name) return r;
  }
  FAIL("no rule for " << name);
  return compared_metrics().front();
}

Environment env(const std::string& host, const std::string& cpu = "Test CPU @ 3 GHz", int cpus = 2) {
  Environment e = testing::fixed_environment("run-" + host);
  e.git_commit = "abc1234";
  e.cpu_model = cpu;
  e.logical_cpus = cpus;
  e.hostname = host;
  return e;
}

Point point(std::uint64_t budget_mib) {
  Point p;
  p.engine = *parse_engine_spec("streaming");
  p.model = "tiny-moe";
  p.quant = "q4_0";
  p.ram_budget_bytes = budget_mib << 20;
  return p;
}

ResultRow row(const Point& p, const Environment& e, SampleMap samples) {
  ResultRow r;
  r.point = p;
  r.run_id = e.run_id;
  r.machine = "unprofiled:" + e.hostname;
  r.build = e.build_label();
  r.provenance = "measured";
  r.samples = std::move(samples);
  r.repetitions = r.samples.empty() ? 0 : static_cast<int>(r.samples.begin()->second.size());
  return r;
}

RunResults results(const Environment& e, std::vector<ResultRow> rows) {
  RunResults r;
  r.sweep.name = "ci";
  r.sweep.digest = "0123456789abcdef";
  r.environments.push_back(e);
  r.rows = std::move(rows);
  return r;
}

}  // namespace

// ------------------------------------------------------------ statistics

TEST_CASE("the null distribution of U is counted exactly", "[compare][stats]") {
  // n = m = 2: the 6 orderings give U = 0, 1, 2, 2, 3, 4.
  CHECK(u_null_counts(2, 2) == std::vector<double>{1, 1, 2, 1, 1});
  // Every distribution sums to C(n+m, n) and is symmetric.
  const std::vector<double> c = u_null_counts(5, 4);
  double total = 0;
  for (double v : c) total += v;
  CHECK(total == 126);
  for (std::size_t u = 0; u < c.size(); ++u) CHECK(c[u] == c[c.size() - 1 - u]);
}

TEST_CASE("average ranks share tied positions", "[compare][stats]") {
  CHECK(average_ranks({10, 20, 20, 5}) == std::vector<double>{2, 3.5, 3.5, 1});
}

TEST_CASE("U test, exact distribution: scipy's textbook example", "[compare][stats]") {
  // scipy.stats.mannwhitneyu documentation (Conover): ages of male and female
  // patients; U = 17, exact p = 0.1111 two-sided, 0.0556 'greater'.
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  const UTest two = mann_whitney_u(males, females);
  CHECK(two.exact);
  CHECK(two.u_x == 17);
  CHECK(two.u_y == 3);
  CHECK(two.p_value == Approx(0.1111111111111111).epsilon(1e-12));
  CHECK(mann_whitney_u(males, females, Alternative::kGreater).p_value == Approx(0.05555555555555555).epsilon(1e-12));
  CHECK(mann_whitney_u(males, females, Alternative::kLess).p_value == Approx(0.9682539682539684).epsilon(1e-12));
}

TEST_CASE("U test, exact distribution: 9 vs 9 and complete separation", "[compare][stats]") {
  const std::vector<double> a = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> b = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  // b has ties (1.06, 1.29) → normal approximation.
  const UTest t = mann_whitney_u(a, b);
  CHECK_FALSE(t.exact);
  CHECK(t.u_x == 58);
  CHECK(t.p_value == Approx(0.13291945818531892).epsilon(1e-9));
  // Complete separation: p = 2 / C(10, 5) = 2/252, and 2 / C(18, 9) for 9 vs 9.
  const UTest s5 = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  CHECK(s5.exact);
  CHECK(s5.u_x == 0);
  CHECK(s5.p_value == Approx(2.0 / 252).epsilon(1e-12));
  CHECK(mann_whitney_u({0, 1, 2, 3, 4, 5, 6, 7, 8}, {10, 11, 12, 13, 14, 15, 16, 17, 18}).p_value ==
        Approx(4.113533525298231e-05).epsilon(1e-9));
  CHECK(u_min_p_value(5, 5) == Approx(2.0 / 252));
  CHECK(u_min_p_value(2, 2) == Approx(1.0 / 3));
  CHECK(u_min_p_value(2, 2, Alternative::kGreater) == Approx(1.0 / 6));
}

TEST_CASE("U test, normal approximation with tie and continuity corrections", "[compare][stats]") {
  // scipy: mannwhitneyu(x, y, method='asymptotic') → U = 7.5, p two-sided 0.006373.
  const std::vector<double> x = {1, 2, 2, 3, 3, 3, 4, 5}, y = {3, 4, 4, 5, 5, 6, 7, 7, 8};
  const UTest t = mann_whitney_u(x, y);
  CHECK(t.ties);
  CHECK_FALSE(t.exact);
  CHECK(t.u_x == 7.5);
  CHECK(t.p_value == Approx(0.006373133838085873).epsilon(1e-9));
  CHECK(mann_whitney_u(x, y, Alternative::kGreater).p_value == Approx(0.9976386658073535).epsilon(1e-9));
  CHECK(mann_whitney_u(x, y, Alternative::kLess).p_value == Approx(0.0031865669190429364).epsilon(1e-9));
}

TEST_CASE("U test, normal approximation beyond the exact limit (25 vs 22, no ties)", "[compare][stats]") {
  std::vector<double> x, y;
  for (int i = 0; i < 25; ++i) x.push_back(10 + ((i * 37) % 23) * 0.11 + i * 1e-4);
  for (int i = 0; i < 22; ++i) y.push_back(10.40005 + ((i * 29) % 31) * 0.09);
  const UTest t = mann_whitney_u(x, y);
  CHECK_FALSE(t.ties);
  CHECK_FALSE(t.exact);
  CHECK(t.u_x == 139);
  CHECK(t.p_value == Approx(0.0038662923764151065).epsilon(1e-9));
  CHECK(mann_whitney_u(x, y, Alternative::kLess).p_value == Approx(0.0019331461882075532).epsilon(1e-9));
}

TEST_CASE("U test on all-equal samples gives p = 1", "[compare][stats]") {
  const UTest t = mann_whitney_u({5, 5, 5}, {5, 5, 5, 5});
  CHECK(t.p_value == 1);
  CHECK(mann_whitney_u({}, {1, 2}).p_value == 1);
}

TEST_CASE("bootstrap interval of the median ratio contains the true ratio and is seeded", "[compare][stats]") {
  const std::vector<double> base = {9.8, 10.1, 10.0, 9.9, 10.2, 10.05, 9.95, 10.15, 9.85};
  std::vector<double> slower;
  for (double v : base) slower.push_back(1.1 * v);  // true ratio of medians: 1.1
  const RatioInterval ci = bootstrap_median_ratio(base, slower, 0.95, 2000, 7);
  CHECK(ci.low <= 1.1);
  CHECK(ci.high >= 1.1);
  CHECK(ci.low > 1.05);   // narrow: ±2 % noise
  CHECK(ci.high < 1.15);
  const RatioInterval again = bootstrap_median_ratio(base, slower, 0.95, 2000, 7);
  CHECK(again.low == ci.low);
  CHECK(again.high == ci.high);
  const RatioInterval other = bootstrap_median_ratio(base, slower, 0.95, 2000, 8);
  CHECK((other.low != ci.low || other.high != ci.high));
  const RatioInterval same = bootstrap_median_ratio(base, base);
  CHECK(same.low <= 1.0);
  CHECK(same.high >= 1.0);
  CHECK(std::isnan(bootstrap_median_ratio({}, base).low));
}

// ------------------------------------------------------------ verdicts

TEST_CASE("identical samples are never flagged", "[compare]") {
  const CompareOptions o;
  for (int n = 1; n <= 25; ++n) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const std::vector<double> v = noisy(10, 0.2, n, seed);
      for (const MetricRule& r : compared_metrics()) {
        const MetricComparison c = compare_metric(r, v, v, o);
        INFO(r.name << " n=" << n);
        CHECK(c.verdict != Verdict::kRegressed);
        CHECK(c.verdict != Verdict::kImproved);
      }
    }
  }
  // All-equal deterministic figures (bytes per token) too.
  const MetricComparison c = compare_metric(rule(metric::kReadBytesPerToken), std::vector<double>(9, 1e6),
                                            std::vector<double>(9, 1e6), o);
  CHECK(c.verdict == Verdict::kUnchanged);
}

TEST_CASE("noise of the same distribution stays below the threshold", "[compare]") {
  const CompareOptions o;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const MetricComparison c = compare_metric(rule(metric::kDecodeTokS), noisy(10, 0.02, 9, seed),
                                              noisy(10, 0.02, 9, seed + 1000), o);
    CHECK(c.verdict == Verdict::kUnchanged);
  }
}

TEST_CASE("a 10 % slowdown over 9 repetitions is flagged, in the right direction per metric", "[compare]") {
  const CompareOptions o;
  const std::vector<double> base = noisy(10, 0.02, 9, 3);
  const std::vector<double> slow = noisy(9, 0.02, 9, 4);  // decode tok/s 10 % lower
  const MetricComparison d = compare_metric(rule(metric::kDecodeTokS), base, slow, o);
  CHECK(d.verdict == Verdict::kRegressed);
  CHECK(d.test.p_value < 0.01);
  CHECK(d.rel_change == Approx(-0.1).margin(0.03));
  const double ratio = d.median_new / d.median_base;
  CHECK(d.ratio_ci.low <= ratio);
  CHECK(d.ratio_ci.high >= ratio);
  CHECK(d.ratio_ci.high < 1.0);  // the interval excludes "no change"
  // The same numbers as TTFT (lower is better) are an improvement.
  CHECK(compare_metric(rule(metric::kTtftS), base, slow, o).verdict == Verdict::kImproved);
  // And the reverse change of decode is an improvement.
  CHECK(compare_metric(rule(metric::kDecodeTokS), slow, base, o).verdict == Verdict::kImproved);
  // Below the threshold it is unchanged even when significant.
  CompareOptions strict = o;
  strict.threshold = 0.2;
  const MetricComparison below = compare_metric(rule(metric::kDecodeTokS), base, slow, strict);
  CHECK(below.verdict == Verdict::kUnchanged);
  CHECK_THAT(below.reason, Catch::Contains("below the threshold"));
}

TEST_CASE("too few samples give insufficient, never a verdict", "[compare]") {
  const CompareOptions o;  // alpha 0.01: 5 repetitions a side are the minimum
  const MetricComparison two = compare_metric(rule(metric::kDecodeTokS), {10, 10.1}, {5, 5.1}, o);
  CHECK(two.verdict == Verdict::kInsufficient);
  CHECK_THAT(two.reason, Catch::Contains("at least 5 repetitions"));
  CHECK(compare_metric(rule(metric::kDecodeTokS), {10, 10.1, 10.2, 9.9}, {5, 5.1, 5.2, 4.9}, o).verdict ==
        Verdict::kInsufficient);
  CHECK(compare_metric(rule(metric::kDecodeTokS), {10, 10.1, 10.2, 9.9, 10.05}, {5, 5.1, 5.2, 4.9, 5.05}, o).verdict ==
        Verdict::kRegressed);
  CHECK(compare_metric(rule(metric::kDecodeTokS), {}, {5, 5.1}, o).verdict == Verdict::kInsufficient);
  // A looser alpha lets 4 vs 4 conclude (2/70 = 0.029 < 0.05).
  CompareOptions loose = o;
  loose.alpha = 0.05;
  CHECK(compare_metric(rule(metric::kDecodeTokS), {10, 10.1, 10.2, 9.9}, {5, 5.1, 5.2, 4.9}, loose).verdict ==
        Verdict::kRegressed);
}

TEST_CASE("fractions need a change of a percentage point besides the relative threshold", "[compare]") {
  const CompareOptions o;
  // io_wait_frac 0.2 % → 0.4 %: +100 %, significant, but only 0.2 points.
  const MetricComparison c = compare_metric(rule(metric::kIoWaitFrac), noisy(0.002, 0.05, 9, 1),
                                            noisy(0.004, 0.05, 9, 2), o);
  CHECK(c.verdict == Verdict::kUnchanged);
  const MetricComparison big = compare_metric(rule(metric::kIoWaitFrac), noisy(0.10, 0.05, 9, 1),
                                              noisy(0.30, 0.05, 9, 2), o);
  CHECK(big.verdict == Verdict::kRegressed);
}

// ------------------------------------------------------------ whole files

TEST_CASE("comparing a results file with itself is clean", "[compare]") {
  const Environment e = env("vm");
  const RunResults r = results(e, {row(point(64), e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 1)},
                                                      {metric::kTtftS, noisy(0.5, 0.02, 9, 2)},
                                                      {metric::kReadBytesPerToken, std::vector<double>(9, 4e5)}}),
                                   row(point(96), e, {{metric::kDecodeTokS, noisy(12, 0.02, 9, 3)}})});
  auto c = compare_results(r, r, CompareOptions{}, "a.json", "a.json");
  REQUIRE(c);
  CHECK_FALSE(c->regressed());
  CHECK(c->rows.size() == 2);
  CHECK(c->rows_unchanged == 2);
  CHECK(c->metrics_unchanged == 4);
  CHECK_THAT(comparison_to_markdown(*c), Catch::Contains("NO REGRESSION"));
  const Json j = Json::parse(comparison_to_json(*c));
  CHECK(j["exit_code"] == 0);
  CHECK(j["rows"].size() == 2);
}

TEST_CASE("a slower row, a failed row and rows in one file only", "[compare]") {
  const Environment e = env("vm");
  const Point fast = point(64), fails = point(96), gone = point(128), added = point(160);
  const RunResults base = results(e, {row(fast, e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 1)}}),
                                      row(fails, e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 2)}}),
                                      row(gone, e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 3)}})});
  ResultRow failed = row(fails, e, {});
  failed.status = RowStatus::kFailed;
  failed.reason = "repetition 1/9: expert io: read failed (EIO)";
  const RunResults now = results(e, {row(fast, e, {{metric::kDecodeTokS, noisy(9, 0.02, 9, 4)}}), failed,
                                     row(added, e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 5)}})});
  auto c = compare_results(base, now, CompareOptions{}, "base.json", "new.json");
  REQUIRE(c);
  CHECK(c->regressed());
  CHECK(c->rows_regressed == 2);
  CHECK(c->metrics_regressed == 1);
  CHECK(c->status_regressed == 1);
  REQUIRE(c->rows.size() == 2);
  CHECK(c->rows[0].metrics.at(0).verdict == Verdict::kRegressed);
  CHECK(c->rows[1].verdict == Verdict::kRegressed);
  CHECK_THAT(c->rows[1].status_change, Catch::Contains("ok → failed: repetition 1/9"));
  // The summary line says what changed, not only how many.
  CHECK_THAT(status_changes_phrase(*c), Catch::Contains("ok → failed (first: ") &&
                                            Catch::Contains("read failed (EIO)"));
  CHECK(c->only_in_base.size() == 1);
  CHECK(c->only_in_new.size() == 1);
  const std::string md = comparison_to_markdown(*c);
  CHECK_THAT(md, Catch::Contains("**REGRESSED**"));
  CHECK_THAT(md, Catch::Contains("## Only in base"));
  CHECK(Json::parse(comparison_to_json(*c))["exit_code"] == 1);
  // The reverse direction: failed → ok is an improvement, the speed-up too.
  auto back = compare_results(now, base, CompareOptions{}, "new.json", "base.json");
  REQUIRE(back);
  CHECK_FALSE(back->regressed());
  CHECK(back->rows_improved == 2);
}

TEST_CASE("results of different machines are refused unless --cross-machine, naming the fields", "[compare]") {
  const Environment a = env("vm-a", "Intel Xeon Gold"), b = env("vm-b", "AMD EPYC 7763", 4);
  const Point p = point(64);
  const RunResults base = results(a, {row(p, a, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 1)}})});
  const RunResults now = results(b, {row(p, b, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 1)}})});
  auto refused = compare_results(base, now, CompareOptions{}, "base.json", "new.json");
  REQUIRE_FALSE(refused);
  const std::string& msg = refused.error().message;
  CHECK_THAT(msg, Catch::Contains("different machines"));
  CHECK_THAT(msg, Catch::Contains("cpu_model: \"Intel Xeon Gold\" (base) vs \"AMD EPYC 7763\" (new)"));
  CHECK_THAT(msg, Catch::Contains("hostname"));
  CHECK_THAT(msg, Catch::Contains("logical_cpus"));
  CHECK_THAT(msg, Catch::Contains("--cross-machine"));
  CompareOptions cross;
  cross.cross_machine = true;
  auto allowed = compare_results(base, now, cross, "base.json", "new.json");
  REQUIRE(allowed);
  CHECK(allowed->machine_differences.size() == 4);  // machine label, hostname, cpu, cpus
  CHECK_THAT(comparison_to_markdown(*allowed), Catch::Contains("Different machines"));
}

TEST_CASE("files without a common point are an error, not a pass", "[compare]") {
  const Environment e = env("vm");
  const RunResults base = results(e, {row(point(64), e, {{metric::kDecodeTokS, {1, 2, 3}}})});
  const RunResults now = results(e, {row(point(65), e, {{metric::kDecodeTokS, {1, 2, 3}}})});
  auto c = compare_results(base, now, CompareOptions{}, "base.json", "new.json");
  REQUIRE_FALSE(c);
  CHECK_THAT(c.error().message, Catch::Contains("no point of new.json"));
}

TEST_CASE("the row label names the axes that are not at their defaults", "[compare]") {
  Point p = point(64);
  p.routing = "zipf:1.1";
  p.gen_tokens = 32;
  const std::string l = row_label(p);
  CHECK_THAT(l, Catch::Contains("streaming tiny-moe"));
  CHECK_THAT(l, Catch::Contains("routing=zipf:1.1"));
  CHECK_THAT(l, Catch::Contains("gen=32"));
  CHECK_THAT(l, !Catch::Contains("prefetch="));
}

TEST_CASE("a metric the new file lacks is missing, not unchanged", "[compare]") {
  const Environment e = env("vm");
  const RunResults base = results(e, {row(point(64), e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 1)},
                                                         {metric::kTtftS, noisy(0.5, 0.02, 9, 2)}})});
  const RunResults now = results(e, {row(point(64), e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 3)}})});
  auto c = compare_results(base, now, CompareOptions{}, "base.json", "new.json");
  REQUIRE(c);
  CHECK_FALSE(c->regressed());
  CHECK(c->incomplete());
  CHECK(c->metrics_missing == 1);
  REQUIRE(c->missing.size() == 1);
  CHECK_THAT(c->missing[0], Catch::EndsWith(": ttft_s"));
  CHECK_THAT(comparison_to_markdown(*c), Catch::Contains("**INCOMPLETE**"));
  const Json j = Json::parse(comparison_to_json(*c));
  CHECK(j["exit_code"] == 1);
  CHECK(j["summary"]["metrics"]["missing_in_new"] == 1);
  // The other way round a metric only the new file has is no loss.
  auto back = compare_results(now, base, CompareOptions{}, "new.json", "base.json");
  REQUIRE(back);
  CHECK_FALSE(back->incomplete());
}

TEST_CASE("the bootstrap of three samples a side enumerates their resamples", "[compare][stats]") {
  // y = 2x: every resample median of x is in {1, 2, 3}, of y in {2, 4, 6}.
  // P(median 1) = P(median 3) = 7/27 and P(median 2) = 13/27, so the ratio
  // 2/3 (x 3, y 2) has weight 49/729 = 6.7 %, more than the 2.5 % tail: the
  // exact 95 % interval is [2/3, 6], whatever the seed.
  const RatioInterval r = bootstrap_median_ratio({1, 2, 3}, {2, 4, 6}, 0.95, 2000, 7);
  CHECK(r.low == Approx(2.0 / 3));
  CHECK(r.high == Approx(6.0));
  const RatioInterval other_seed = bootstrap_median_ratio({1, 2, 3}, {2, 4, 6}, 0.95, 2000, 8);
  CHECK(other_seed.low == r.low);  // no draws: no seed dependence
  CHECK(other_seed.high == r.high);
  // x = y = {1, 2, 3} at 80 % (tails of 10 %): the ratio's distribution
  // function is 6.7 % at 1/3, 19.2 % at 1/2, ..., 80.8 % at 3/2, 93.3 % at 2,
  // so the first ratios reaching 10 % and 90 % are 1/2 and 2.
  const RatioInterval narrow = bootstrap_median_ratio({1, 2, 3}, {1, 2, 3}, 0.80, 2000, 7);
  CHECK(narrow.low == Approx(0.5));
  CHECK(narrow.high == Approx(2.0));
  // One value a side: one resample each, the ratio exactly.
  const RatioInterval one = bootstrap_median_ratio({4}, {5}, 0.95, 2000, 7);
  CHECK(one.low == Approx(1.25));
  CHECK(one.high == Approx(1.25));
}

TEST_CASE("a regression that rests on disturbed repetitions is inconclusive", "[compare]") {
  // Base: 9 quiet repetitions at about 10 tok/s. New: 7 of 9 repetitions
  // disturbed by other work at about 7 tok/s, the 2 quiet ones at 10. All
  // counted, decode regressed 30 %; the quiet ones alone (9 against 2) can
  // never reach p < 0.01, so the verdict is inconclusive, exit 3.
  const Environment e = env("vm");
  const Point p = point(64);
  std::vector<double> now_rates = noisy(7, 0.02, 7, 11);
  now_rates.push_back(10.05);
  now_rates.push_back(9.95);
  const std::vector<double> marks = {1, 1, 1, 1, 1, 1, 1, 0, 0};
  const RunResults base = results(e, {row(p, e, {{metric::kDecodeTokS, noisy(10, 0.02, 9, 12)}})});
  const RunResults now =
      results(e, {row(p, e, {{metric::kDecodeTokS, now_rates}, {metric::kDisturbed, marks}})});
  auto c = compare_results(base, now, CompareOptions{}, "base.json", "new.json");
  REQUIRE(c);
  CHECK_FALSE(c->regressed());
  CHECK(c->inconclusive());
  CHECK(c->rows_inconclusive == 1);
  CHECK(c->disturbed_repetitions == 7);
  REQUIRE(c->rows.size() == 1);
  const MetricComparison& m = c->rows[0].metrics.at(0);
  CHECK(m.verdict == Verdict::kInconclusive);
  CHECK_THAT(m.reason, Catch::Contains("regressed only with the 7 repetitions disturbed by other work counted"));
  const std::string md = comparison_to_markdown(*c);
  CHECK_THAT(md, Catch::Contains("**INCONCLUSIVE**"));
  CHECK_THAT(md, Catch::Contains("7 repetitions disturbed by other work"));
  CHECK(Json::parse(comparison_to_json(*c))["exit_code"] == 3);

  // The same new rates without marks: a regression.
  const RunResults unmarked = results(e, {row(p, e, {{metric::kDecodeTokS, now_rates}})});
  auto r = compare_results(base, unmarked, CompareOptions{}, "base.json", "new.json");
  REQUIRE(r);
  CHECK(r->regressed());
  // Marked, but the quiet repetitions regress too (9 quiet at 7 tok/s, 0 disturbed marks set): a regression.
  const RunResults quiet_slow = results(
      e, {row(p, e, {{metric::kDecodeTokS, noisy(7, 0.02, 9, 13)}, {metric::kDisturbed, std::vector<double>(9, 0.0)}})});
  auto q = compare_results(base, quiet_slow, CompareOptions{}, "base.json", "new.json");
  REQUIRE(q);
  CHECK(q->regressed());
}
