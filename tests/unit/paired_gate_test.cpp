// paired_gate_test.cpp — the verdicts of the paired A/B gate on hand-made
// series: a 3 % slowdown fails it, an A/A pair with noise passes, a change
// below the minimum effect passes, too few pairs and a slowdown seen only
// in disturbed repetitions are inconclusive, an improvement is reported,
// and counters that do not depend on time are compared exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

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
