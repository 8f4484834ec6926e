// step_detect.h — finding steps (lasting level changes) in a metric's series
// across commits, as pure functions. `moebench history show` runs this on the
// series of each point; it knows nothing about databases or commits.
//
// The method (binary segmentation with a two-sample test; stated so that a
// reported step can be checked by hand):
//
//  1. The series is a sequence of entries in commit/time order. Entry i has a
//     median m_i and its observations: the raw repetition samples when stored,
//     else n_i pseudo-observations centred on m_i with standard deviation
//     1.4826 · MAD_i (the MAD of a normal sample scaled to σ).
//  2. A *window* is a run of consecutive entries. Its observations are pooled:
//     N = Σ n_i, mean = Σ n_i c_i / N, variance = (Σ (n_i−1) v_i +
//     Σ n_i (c_i − mean)²) / (N − 1) — within-entry noise and entry-to-entry
//     (commit-to-commit) variation both count as noise. Its *level* is the
//     median of its entries' medians.
//  3. A candidate change between window A (before) and window B (after) is a
//     step when BOTH hold:
//       - statistically clear: Student's two-sample t-test with pooled
//         variance on the windows' observations, t = (mean_B − mean_A) /
//         sqrt(s_p² (1/N_A + 1/N_B)), df = N_A + N_B − 2, gives a two-sided
//         p < alpha (default 0.05), and t has the sign of the level change.
//         The variance is pooled because the repetitions of one point on one
//         machine share one noise level whatever the commit; Welch's test
//         would drop that assumption but its degrees of freedom collapse
//         (about 1.6 for 4 samples against 2) when the newest level is a single
//         run of two or three repetitions — exactly the regression CI must see.
//         Windows that are both constant never step when equal and always do
//         when not (p = 0); one observation on each side is untestable;
//       - large: |level_B − level_A| / |level_A| >= threshold (default 5 %).
//  4. Binary segmentation: in a segment, every split leaving at least
//     `min_segment` entries on each side is a candidate; among the candidates
//     that pass (3), the one with the largest least-squares gain on the
//     medians, n_A·n_B/(n_A+n_B) · (mean_A − mean_B)², is taken, and both
//     sides are searched again. (Taking the best *passing* split, not just the
//     best split, finds an up-and-down pair that plain binary segmentation
//     misses when the two halves have equal means.)
//  5. Pruning: each change point is re-tested between its final neighbouring
//     segments (previous change point → it → next change point); one that no
//     longer passes is dropped, until all pass. Reported figures come from
//     these final segments.
//
// Deliberately left out: multiple-testing correction (the threshold is the
// guard against commit-to-commit noise passing a test tuned on within-run
// noise), trends without a step (a slow drift shows as steps only once it
// accumulates past the threshold), and any notion of which direction is
// better (the caller knows the metric).
#pragma once

#include <cstddef>
#include <vector>

namespace moebench {

struct SeriesEntry {
  double median = 0;
  double mad = 0;              // NaN when unknown
  std::size_t n = 1;           // repetitions behind the median
  std::vector<double> samples; // raw repetition samples; empty when not stored
};

struct StepOptions {
  double threshold = 0.05;     // minimum relative change of level
  double alpha = 0.05;         // significance level of the two-sample test
  std::size_t min_segment = 1; // entries on each side of a change, at least
};

struct LevelStep {
  std::size_t index = 0;          // first entry of the new level
  std::size_t before_begin = 0;   // the segments compared: [before_begin, index)
  std::size_t after_end = 0;      //                        [index, after_end)
  double before = 0, after = 0;   // levels (median of the entries' medians)
  double rel_change = 0;          // (after − before) / |before|; ±inf from 0
  double p_value = 1;
  double t = 0;
  double df = 0;
};

// Pooled observations of a window (see step 2).
struct WindowStats {
  double n = 0;
  double mean = 0;
  double var = 0;  // 0 when n < 2
};
WindowStats window_stats(const std::vector<SeriesEntry>& s, std::size_t begin, std::size_t end);

struct TTest {
  double t = 0;
  double df = 0;
  double p = 1;        // two-sided
  bool testable = false;  // false: too few observations for any test
};
// Student's two-sample t-test with pooled variance, B minus A (step 3).
TTest two_sample_t(const WindowStats& a, const WindowStats& b);

// Two-sided p-value of Student's t distribution with `df` (> 0, may be
// fractional) degrees of freedom: P(|T| >= |t|).
double student_t_two_sided_p(double t, double df);
// Regularized incomplete beta function I_x(a, b).
double incomplete_beta(double x, double a, double b);

// Level of a window: median of the entries' medians.
double window_level(const std::vector<SeriesEntry>& s, std::size_t begin, std::size_t end);

// Tests the change from [a_begin, split) to [split, b_end) (step 3);
// returns the step if it passes both criteria.
bool test_change(const std::vector<SeriesEntry>& s, std::size_t a_begin, std::size_t split, std::size_t b_end,
                 const StepOptions& opt, LevelStep* out);

// The steps of the series, ordered by index (steps 4 and 5).
std::vector<LevelStep> detect_steps(const std::vector<SeriesEntry>& series, const StepOptions& opt = {});

}  // namespace moebench
