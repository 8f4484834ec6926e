// regime_fit.h — fitting the regime parameters (regimes.h) to measured
// figures, and the band a figure's answer carries.
//
//   figure     a published measurement with the parts of every plausible
//              case of its unstated conditions (setup_model.h); its
//              realistic value is streams × the median over its realistic
//              cases of 1 ÷ regime_token_s, ÷ its run-average factor;
//   regime     the regime its realistic cases bind most often;
//   fit        coordinate descent: in each of the first kClassifyRounds
//              rounds classify every figure under the current parameters
//              (later rounds hold those regimes, until a round moves no
//              value: a fixed point), then for each parameter in turn move
//              to the grid point inside its physical range that strictly
//              lowers (from the current value; a flat cost moves nothing) the
//              weighted sum of |log(predicted ÷ measured)| over the figures
//              of the regimes it governs (each figure weighs 1 ÷ √(its
//              source's figures): a source of n figures weighs √n, so one
//              long table cannot outvote ten threads); a
//              parameter with fewer than kMinRegimeFigures such figures keeps
//              its prior, and says so; a per-family parameter (RegimeParam)
//              is then fitted again, in the same range, on each engine
//              family's own figures where it has kMinFamilyFigures from two
//              sources or more, or from kMinFamilySources sources
//              (other families keep the pooled value);
//   spread     per regime, the 80th percentile of how far (in log) the
//              measured figures fall outside the range of their plausible
//              cases under the fit (0 inside; for a figure with every
//              condition stated and a steady figure, its |log residual|),
//              the pooled one below
//              kMinSpreadFigures: the model's own error once the unstated
//              conditions are allowed for, not counted on top of them;
//   band       from the slowest to the fastest plausible case, widened by
//              the regime's spread each way: low = min × e^−s, high =
//              max × e^+s. Its ratio high ÷ low is printed with every answer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/regimes.h"

namespace moebench {

inline constexpr int kMinRegimeFigures = 3;
// Rounds of a fit that re-assign each figure's regime before fitting, and
// the most rounds in all (the rest hold the regimes until no value moves).
inline constexpr int kClassifyRounds = 3;
inline constexpr int kMaxRounds = 20;
inline constexpr int kMinSpreadFigures = 5;
// A family gets its own value of a per-family parameter with at least this
// many figures of the parameter's regimes, from at least two sources; or
// with figures from kMinFamilySources sources, however few (a few figures
// from several sources stand on more than many from one).
inline constexpr int kMinFamilyFigures = 6;
inline constexpr int kMinFamilySources = 3;
// The share of fitted figures a band's widening covers.
inline constexpr double kSpreadQuantile = 0.8;

struct RegimeFigure {
  std::string id, source, family;
  std::string kind = "decode";  // "decode" | "prefill" (measured_tok_s is then prompt tok/s)
  double measured_tok_s = 0;
  double streams = 1, run_average = 1;
  std::vector<CaseParts> realistic;  // the cases the realistic value is the median over
  std::vector<CaseParts> all;        // every plausible case: the spread of the unstated conditions
};

double figure_tok_s(const RegimeFigure& f, const RegimeParams& q);
std::string figure_regime(const RegimeFigure& f, const RegimeParams& q);

struct FittedParam {
  std::string name;
  std::string family;     // "" the pooled value; else that engine family's own
  double value = 0, low = 0, high = 0;
  int figures = 0;        // figures of its regimes it was fitted on
  bool prior = false;     // too few figures: the prior kept
  bool at_edge = false;   // the best grid point is an end of the range
  bool ends_attainable = false;  // ... and that end is a physical state (RegimeParam)
};

struct RegimeFit {
  RegimeParams params;
  std::vector<FittedParam> fitted;
  std::map<std::string, double> spread;  // regime → 80th percentile of the log distance outside the plausible cases
  double pooled_spread = 0.5;
  int figures = 0;
  int rounds = 0;         // rounds the fit ran
  bool settled = false;   // the last round moved no value
  // A regime's spread, else the pooled one (a regime the fit never saw).
  double spread_of(const std::string& regime) const;
};

RegimeFit fit_regimes(const std::vector<const RegimeFigure*>& figures, const RegimeParams& prior = RegimeParams::defaults());

// How far a measured figure falls outside its plausible cases (in log, 0
// inside), and the regime it was judged in.
struct RegimeDistance {
  std::string regime;
  double distance = 0;
};
// The band spreads from such distances: per regime the kSpreadQuantile of
// its distances (kMinSpreadFigures or more), else the pooled quantile.
// fit_regimes sets them from its own figures (in-sample); validation sets
// them from figures each left out of their own fit (held-out), which is the
// width a figure nobody fitted to needs.
void set_spreads(RegimeFit& fit, const std::vector<RegimeDistance>& distances);
// The distance of one figure under a fit's parameters.
RegimeDistance regime_distance(const RegimeFigure& f, const RegimeParams& params);

// The slowest, realistic and fastest of a figure's plausible cases under
// `params` (no widening).
struct CaseRange {
  double low = 0, tok_s = 0, high = 0;
};
CaseRange case_range(const RegimeFigure& f, const RegimeParams& params);

struct FigureBand {
  double low_tok_s = 0, tok_s = 0, high_tok_s = 0;
  std::string regime;
  double ratio() const { return low_tok_s > 0 ? high_tok_s / low_tok_s : 0; }
};
FigureBand figure_band(const RegimeFigure& f, const RegimeFit& fit);

// The realistic case a figure's value is the median of, with its parts
// priced under `params` as the figure's family sees them (null when no
// realistic case has a time): what `validate-model --json` reports per row.
struct FigureTerms {
  const CaseParts* parts = nullptr;
  RegimeTerms terms;
};
FigureTerms figure_terms(const RegimeFigure& f, const RegimeParams& params);

}  // namespace moebench
