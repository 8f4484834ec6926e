// paired_gate_test.cpp — the verdicts of the paired A/B gate on hand-made
// series: a 3 % slowdown fails it, an A/A pair with noise passes, a change
// below the minimum effect passes, too few pairs and a slowdown seen only
// in disturbed repetitions are inconclusive, an improvement is reported,
// and counters that do not depend on time are compared exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "harness/build_gate.h"
#include "reports/paired_gate.h"
#include "vocab/metrics.h"

using namespace moebench;

namespace {

// n pairs of a rate (tok/s) whose base drifts ±15 % from pair to pair; B is
// `factor` times A's rate, times a ±0.5 % jitter that alternates in sign.
PairedSeries rate_series(const std::string& point, std::size_t n, double factor) {
  PairedSeries s{point, metric::kDecodeTokS, Direction::kHigherIsBetter, {}, {}, {}};
  for (std::size_t i = 0; i < n; ++i) {
    const double base = 100.0 * (1.0 + 0.15 * std::sin(static_cast<double>(i)));
    const double jitter = 1.0 + (i % 2 == 0 ? 1.0 : -1.0) * 0.0005 * static_cast<double>(1 + i % 10);
    s.a.push_back(base);
    s.b.push_back(base * factor * jitter);
  }
  return s;
}

const PairedJudgement& of(const std::vector<PairedJudgement>& js, const std::string& point) {
  for (const PairedJudgement& j : js) {
    if (j.point_id == point) return j;
  }
  FAIL("no judgement for " << point);
  return js.front();
}

}  // namespace

TEST_CASE("a 3 % slowdown among unchanged points fails the gate", "[paired][gate]") {
  // Three series of 12 pairs: B 3 % slower (rate ×1/1.03) at p1, unchanged
  // (×1 with ±0.5 % jitter) at p2 and p3. Holm spans the three.
  const std::vector<PairedJudgement> js =
      judge_paired({rate_series("p1", 12, 1 / 1.03), rate_series("p2", 12, 1.0), rate_series("p3", 12, 1.0)});
  REQUIRE(js.size() == 3);
  const PairedJudgement& slow = of(js, "p1");
  CHECK(slow.verdict == GateVerdict::kRegressed);
  CHECK(slow.pairs == 12);
  CHECK(slow.slowdown.median == Approx(1.03).epsilon(0.01));
  CHECK(slow.slowdown.low > 1.0);
  CHECK(slow.test.w_plus == 78);  // all 12 slowdowns > 1: ranks 1..12
  CHECK(slow.p_adjusted == Approx(3 * 2.0 / 4096));  // exact 2/2^12, ×3 (the smallest of three)
  CHECK(of(js, "p2").verdict == GateVerdict::kUnchanged);
  CHECK(of(js, "p3").verdict == GateVerdict::kUnchanged);
  CHECK(gate_verdict(js) == GateVerdict::kRegressed);
}

TEST_CASE("an A/A pair with noise passes the gate", "[paired][gate]") {
  const std::vector<PairedJudgement> js = judge_paired({rate_series("p1", 12, 1.0), rate_series("p2", 16, 1.0)});
  for (const PairedJudgement& j : js) {
    INFO(j.point_id << ": " << j.why);
    CHECK(j.verdict == GateVerdict::kUnchanged);
    CHECK(j.p_adjusted > 0.05);
  }
  CHECK(gate_verdict(js) == GateVerdict::kUnchanged);
}

TEST_CASE("a consistent change below the minimum effect passes", "[paired][gate]") {
  // B 1 % slower in all 12 pairs: significant (p = 2/4096) but under the 2 % minimum.
  const std::vector<PairedJudgement> js = judge_paired({rate_series("p1", 12, 1 / 1.01)});
  CHECK(js[0].p_adjusted < 0.05);
  CHECK(js[0].verdict == GateVerdict::kUnchanged);
  CHECK(js[0].why.find("smaller than the minimum effect") != std::string::npos);
  GateOptions strict;
  strict.min_effect = 0.005;  // at a 0.5 % minimum the same series fails
  CHECK(judge_paired({rate_series("p1", 12, 1 / 1.01)}, strict)[0].verdict == GateVerdict::kRegressed);
}

TEST_CASE("too few pairs are inconclusive, never a pass or a failure", "[paired][gate]") {
  // 5 pairs, even all slower by 20 %: the best two-sided p is 2/32 = 0.0625 ≥ 0.05.
  const std::vector<PairedJudgement> js = judge_paired({rate_series("p1", 5, 1 / 1.2)});
  CHECK(js[0].verdict == GateVerdict::kInconclusive);
  CHECK(js[0].why.find("5 undisturbed, unequal pairs cannot reach") != std::string::npos);
  CHECK(gate_verdict(js) == GateVerdict::kInconclusive);
}

TEST_CASE("too few quiet pairs: unchanged when the disturbed ones show no slowdown either", "[paired][gate]") {
  // 8 pairs, 2 disturbed: 6 quiet cannot reach p < 0.05 (2/2^6 = 0.031 ...
  // with 2 series sharing alpha: 0.025); counted with the disturbed ones
  // there is no slowdown, so there is nothing a regression could rest on.
  PairedSeries s = rate_series("p1", 8, 1.0);
  s.disturbed = {0, 1, 0, 0, 1, 0, 0, 0};
  PairedSeries t = rate_series("p2", 8, 1.0);
  std::vector<PairedJudgement> js = judge_paired({s, t});
  CHECK(js[0].pairs == 6);
  CHECK(js[0].verdict == GateVerdict::kUnchanged);
  CHECK_THAT(js[0].why, Catch::Contains("with the 2 disturbed pairs counted") && Catch::Contains("too few to test alone"));
  // The same when the disturbed pairs carry the slowdown: inconclusive.
  s.b[1] = s.a[1] / 1.2;
  s.b[4] = s.a[4] / 1.2;
  for (std::size_t i : {0, 2, 3, 5, 6, 7}) s.b[i] = s.a[i] / (1.05 + 0.001 * static_cast<double>(i));  // untied: the exact test
  js = judge_paired({s, t});
  CHECK(js[0].verdict == GateVerdict::kInconclusive);
}

TEST_CASE("quiet run pairs that lean slower are not masked by a disturbed one", "[paired][gate]") {
  // 8 run pairs of 2 repetitions, as the gate builds them: 7 quiet ones 10 %
  // slower, too few to test alone (2/2^7 = 0.016 ≥ 0.05/4); the 8th, disturbed,
  // reads 20 % faster. Counted together nothing is significant, but the quiet
  // evidence points at a regression: inconclusive, never unchanged.
  std::vector<PairedSeries> series;
  for (int p = 0; p < 4; ++p) {
    PairedSeries s{"p" + std::to_string(p), metric::kDecodeTokS, Direction::kHigherIsBetter, {}, {}, {}};
    for (int k = 0; k < 8; ++k) {
      for (int i = 0; i < 2; ++i) {
        const double a = 100.0 + k + 0.1 * i;
        const double slow = p > 0 ? 1.0 + 0.001 * k : k == 7 ? 0.8 : 1.1 + 0.001 * k;
        s.a.push_back(a);
        s.b.push_back(a / slow);
        s.disturbed.push_back(p == 0 && k == 7 ? 1 : 0);
        s.run_pair.push_back(k);
      }
    }
    series.push_back(s);
  }
  const std::vector<PairedJudgement> js = judge_paired(series);
  CHECK(js[0].pairs == 7);
  CHECK(js[0].disturbed == 2);  // repetition pairs set aside
  CHECK(js[0].verdict == GateVerdict::kInconclusive);
  CHECK(gate_verdict(js) == GateVerdict::kInconclusive);
}

TEST_CASE("a slowdown only in disturbed repetitions is inconclusive", "[paired][gate]") {
  // 22 pairs: the 10 quiet ones unchanged, the 12 disturbed ones 15 % slower.
  PairedSeries s = rate_series("p1", 22, 1.0);
  s.disturbed.assign(22, 0);
  for (std::size_t i = 10; i < 22; ++i) {
    s.b[i] = s.a[i] / 1.15;
    s.disturbed[i] = 1;
  }
  const std::vector<PairedJudgement> js = judge_paired({s});
  CHECK(js[0].pairs == 10);
  CHECK(js[0].disturbed == 12);
  CHECK(js[0].verdict == GateVerdict::kInconclusive);
  CHECK(js[0].why.find("only with the 12 disturbed pairs counted") != std::string::npos);
  // The same series with nothing marked is a regression.
  s.disturbed.clear();
  CHECK(judge_paired({s})[0].verdict == GateVerdict::kRegressed);
}

TEST_CASE("an improvement is reported and a time metric runs the other way", "[paired][gate]") {
  PairedSeries ttft = rate_series("p1", 12, 1.05);  // B's values 5 % larger
  ttft.metric = metric::kTtftS;
  ttft.direction = Direction::kLowerIsBetter;  // a larger time is a slowdown
  PairedSeries rate = rate_series("p2", 12, 1.05);  // a larger rate is a speed-up
  const std::vector<PairedJudgement> js = judge_paired({ttft, rate});
  CHECK(of(js, "p1").verdict == GateVerdict::kRegressed);
  CHECK(of(js, "p2").verdict == GateVerdict::kImproved);
  CHECK(of(js, "p2").slowdown.high < 1.0);
  CHECK(gate_verdict({of(js, "p2")}) == GateVerdict::kImproved);
}

TEST_CASE("pairs with a NaN or zero are dropped and counted", "[paired][gate]") {
  PairedSeries s = rate_series("p1", 14, 1 / 1.03);
  s.a[3] = std::nan("");
  s.b[7] = 0;
  const std::vector<PairedJudgement> js = judge_paired({s});
  CHECK(js[0].pairs == 12);
  CHECK(js[0].dropped == 2);
  CHECK(js[0].verdict == GateVerdict::kRegressed);
}

TEST_CASE("counters that do not depend on time are compared exactly", "[paired][gate]") {
  const std::vector<WorkChange> none =
      work_changes({{"p1", metric::kReadBytesPerToken, {4096, 8192, 4096}, {8192, 4096, 4096}},
                    {"p2", metric::kExpertHitRate, {std::nan(""), 0.5}, {0.5, std::nan("")}}});
  CHECK(none.empty());  // the same samples in another order; NaN in both is no change
  const std::vector<WorkChange> one =
      work_changes({{"p1", metric::kReadBytesPerToken, {4096, 4096, 4096, 4096}, {4096, 4096, 4096, 4097}}});
  REQUIRE(one.size() == 1);
  CHECK(one[0].point_id == "p1");
  CHECK(one[0].what.find("1 of 4 samples differ") != std::string::npos);
  CHECK(work_changes({{"p1", metric::kExpertHitRate, {0.5, 0.5}, {0.5}}}).size() == 1);  // a sample missing
}

TEST_CASE("pairs that are all exactly equal pass, too few of them are inconclusive", "[paired][gate]") {
  // A deterministic metric (the same build twice): every ratio is 1, the
  // signed-rank test has nothing to rank, and 12 equal pairs are evidence enough.
  PairedSeries same{"p1", metric::kDecodeTokS, Direction::kHigherIsBetter, {}, {}, {}};
  for (int i = 0; i < 12; ++i) {
    same.a.push_back(100.0 + i);
    same.b.push_back(100.0 + i);
  }
  const std::vector<PairedJudgement> js = judge_paired({same});
  CHECK(js[0].test.n == 0);
  CHECK(js[0].test.zeros == 12);
  CHECK(js[0].verdict == GateVerdict::kUnchanged);
  CHECK(js[0].why == "every one of the 12 pairs is equal");
  same.a.resize(4);
  same.b.resize(4);
  CHECK(judge_paired({same})[0].verdict == GateVerdict::kInconclusive);
}

TEST_CASE("a few unequal pairs among many equal ones are inconclusive", "[paired][gate]") {
  // 8 pairs exactly equal, 4 differ by 20 %: only the 4 are ranked, and 4
  // can never reach p < 0.05 (2/16): not a pass, not a failure.
  PairedSeries s = rate_series("p1", 12, 1.0);
  for (std::size_t i = 0; i < 12; ++i) s.b[i] = i < 8 ? s.a[i] : s.a[i] / 1.2;
  const std::vector<PairedJudgement> js = judge_paired({s});
  CHECK(js[0].test.n == 4);
  CHECK(js[0].test.zeros == 8);
  CHECK(js[0].verdict == GateVerdict::kInconclusive);
}

namespace {

// A deterministic standard normal (Box–Muller over mt19937, whose output
// the standard fixes, so every platform draws the same numbers).
struct Normal {
  std::mt19937 gen{20261205};
  double operator()() {
    const double u1 = (static_cast<double>(gen()) + 0.5) / 4294967296.0;
    const double u2 = (static_cast<double>(gen()) + 0.5) / 4294967296.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// One A/A series as the gate measures it: `run_pairs` pairs of runs, each
// run `reps` repetitions. Every run carries an offset of its own (the
// process's memory placement, clocks, page cache: σ 3 %), its repetitions a
// small jitter (σ 0.3 %); B is A's build, `factor` times its rate.
PairedSeries clustered(const std::string& point, Normal& z, int run_pairs, int reps, double factor, bool name_run_pairs) {
  PairedSeries s{point, metric::kDecodeTokS, Direction::kHigherIsBetter, {}, {}, {}};
  for (int k = 0; k < run_pairs; ++k) {
    const double run_a = 0.03 * z(), run_b = 0.03 * z();
    for (int i = 0; i < reps; ++i) {
      s.a.push_back(100 * std::exp(run_a + 0.003 * z()));
      s.b.push_back(100 * factor * std::exp(run_b + 0.003 * z()));
      if (name_run_pairs) s.run_pair.push_back(k);
    }
  }
  return s;
}

// Of `trials` gates of 4 series each, how many fail (any series regressed).
int false_alarms(int trials, int run_pairs, int reps, double factor, bool name_run_pairs) {
  Normal z;
  int flagged = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<PairedSeries> series;
    for (int p = 0; p < 4; ++p) series.push_back(clustered("p" + std::to_string(p), z, run_pairs, reps, factor, name_run_pairs));
    flagged += gate_verdict(judge_paired(series)) == GateVerdict::kRegressed;
  }
  return flagged;
}

}  // namespace

TEST_CASE("repetitions of one run are not independent: a run pair is one value of the test", "[paired][gate]") {
  // 200 A/A gates, 8 run pairs of 4 repetitions per series. Judged as 32
  // independent pairs, the runs' own offsets look like a change of build and
  // the gate fails far more often than its 5 % family-wise alpha; judged on
  // the 8 run pairs it stays within it (binomial: 10 expected at most,
  // 17 is its 99.9th percentile).
  const int as_pairs = false_alarms(200, 8, 4, 1.0, false);
  const int as_runs = false_alarms(200, 8, 4, 1.0, true);
  INFO("pairs as independent: " << as_pairs << " of 200; run pairs: " << as_runs << " of 200");
  CHECK(as_runs <= 17);
  CHECK(as_pairs > 3 * std::max(as_runs, 5));
  // And a 6 % slowdown (twice the runs' σ) is still caught on run pairs.
  CHECK(false_alarms(100, 8, 4, 1 / 1.06, true) >= 50);
}

TEST_CASE("the gate's blocks: the fewest whose exact test can pass Holm's first step", "[paired][gate]") {
  // 2 run pairs a block; 2 / 2^n < alpha / series.
  CHECK(gate_blocks_needed(4, 0.05) == 4);    // 2/2^8 = 0.0078 < 0.0125; 2/2^6 = 0.031 is not
  CHECK(gate_blocks_needed(32, 0.05) == 6);   // 2/2^12 = 0.00049 < 0.0016; 2/2^10 = 0.002 is not
  CHECK(gate_blocks_needed(1, 0.05) == 3);    // 2/2^6 = 0.031 < 0.05; 2/2^4 = 0.125 is not
  CHECK(gate_default_blocks(4, 0.05) == 5);   // one block of slack: one run pair may disagree
}
