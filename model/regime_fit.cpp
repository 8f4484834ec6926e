// regime_fit.cpp — see regime_fit.h.
#include "model/regime_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "vocab/stats.h"

namespace moebench {

namespace {

bool governs(const RegimeParam& p, const std::string& regime) {
  const std::string list = p.regimes;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string one = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (one == regime) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

std::vector<double> grid_of(const RegimeParam& p, int n) {
  std::vector<double> g;
  for (int i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / (n - 1);
    // Clamped: the arithmetic of the last step can land an ulp past the end.
    g.push_back(std::clamp(p.log_scale ? p.low * std::pow(p.high / p.low, t) : p.low + (p.high - p.low) * t, p.low,
                           p.high));
  }
  return g;
}

// Whether two parameter sets hold the same values, pooled and per group.
bool same_values(const RegimeParams& a, const RegimeParams& b) {
  if (a.family != b.family || a.p.size() != b.p.size()) return false;
  for (std::size_t i = 0; i < a.p.size(); ++i) {
    if (a.p[i].value != b.p[i].value) return false;
  }
  return true;
}

bool at_end(const RegimeParam& p, double v) {
  auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-300; };
  return near(v, p.low) || near(v, p.high);
}

// The grid point inside the range that strictly lowers the weighted
// |log error| of figures `mine`, starting from `start` (set through `place`).
template <class Place>
double best_on_grid(const RegimeParam& param, double start, const std::vector<const RegimeFigure*>& figures,
                    const std::vector<std::size_t>& mine, const std::vector<double>& weight, Place place) {
  auto cost_at = [&](double v) {
    const RegimeParams trial = place(v);
    double cost = 0;
    for (std::size_t i : mine) {
      const double pred = figure_tok_s(*figures[i], trial);
      cost += weight[i] * (pred > 0 ? std::fabs(std::log(pred / figures[i]->measured_tok_s)) : 50.0);
    }
    return cost;
  };
  // Start from the current value and move only on a strict improvement:
  // a flat cost (the figures do not see the parameter) leaves it where it
  // is instead of dropping it on the range's floor.
  double best = start, best_cost = cost_at(best);
  for (double v : grid_of(param, 33)) {
    const double cost = cost_at(v);
    if (cost < best_cost * (1 - 1e-9) - 1e-12) {
      best_cost = cost;
      best = v;
    }
  }
  return best;
}

// The kinds a figure's cases compute on: its realistic cases', else any case's.
Kinds figure_kinds(const RegimeFigure& f) {
  Kinds k = kinds_of(f.realistic);
  if (k.gpu.empty() || k.cpu.empty()) {
    const Kinds any = kinds_of(f.all);
    if (k.gpu.empty()) k.gpu = any.gpu;
    if (k.cpu.empty()) k.cpu = any.cpu;
  }
  return k;
}

// Whether a figure's engine splits every layer across GPUs (its realistic
// cases say so alike).
bool tensor_parallel(const RegimeFigure& f) {
  return std::any_of(f.realistic.begin(), f.realistic.end(), [](const CaseParts& c) { return c.tensor_parallel; });
}

// How general a group key is: a kind ("@simd512") 0, an engine family 1, a
// family on a kind ("llama.cpp@apple") 2. Groups are fitted from the most
// general on, each from the value its figures would otherwise see.
int key_rank(const std::string& key) {
  const std::size_t at = key.find('@');
  return at == 0 ? 0 : at == std::string::npos ? 1 : 2;
}

// Each group of one rank (group_keys: an engine family, a processor kind, a
// family on a kind) with enough figures of the parameter's regimes
// (kMinFamilyFigures from two sources, or kMinFamilySources figures from as
// many sources) gets its own value; the others keep the wider one.
void fit_groups(const RegimeParam& param, const std::vector<const RegimeFigure*>& figures, const std::vector<std::size_t>& mine,
                const std::vector<double>& weight, int rank, RegimeFit& fit) {
  std::map<std::string, std::vector<std::size_t>> by_group;
  for (std::size_t i : mine) {
    for (const std::string& key : group_keys(param, figures[i]->family, figure_kinds(*figures[i]))) {
      if (key_rank(key) != rank) continue;
      if (figures[i]->family == "any" && rank > 0) continue;  // an unnamed engine is what the wider value answers for
      by_group[key].push_back(i);
    }
  }
  auto& own = fit.params.family[param.name];
  for (const auto& [group, idx] : by_group) {
    std::set<std::string> sources;
    for (std::size_t i : idx) sources.insert(figures[i]->source);
    const bool many = static_cast<int>(idx.size()) >= kMinFamilyFigures && sources.size() >= 2;
    const bool wide = static_cast<int>(sources.size()) >= kMinFamilySources;
    if (!many && !wide) continue;
    const RegimeFigure& first = *figures[idx.front()];
    const double start = fit.params.for_family(first.family, figure_kinds(first)).get(param.name);
    const double v = best_on_grid(param, start, figures, idx, weight, [&](double x) {
      RegimeParams t = fit.params;
      t.family[param.name][group] = std::clamp(x, param.low, param.high);
      return t;
    });
    own[group] = v;
    FittedParam fp{param.name, group, v, param.low, param.high, static_cast<int>(idx.size()), false, at_end(param, v),
                   param.ends_attainable};
    fit.fitted.push_back(fp);
  }
}

void fit_families(const RegimeParam& param, const std::vector<const RegimeFigure*>& figures,
                  const std::vector<std::size_t>& mine, const std::vector<double>& weight, RegimeFit& fit) {
  fit.params.family[param.name].clear();
  for (int rank = 0; rank <= 2; ++rank) fit_groups(param, figures, mine, weight, rank, fit);
}

// The parameters a figure is priced with: `all` itself (no copy: this runs
// inside every fit trial) unless the figure's family or GPU kind has values
// of its own, which are resolved into `own`.
const RegimeParams& params_of(const RegimeFigure& f, const RegimeParams& all, RegimeParams& own) {
  if (!all.has_family_values(f.family, figure_kinds(f))) return all;
  own = all.for_family(f.family, figure_kinds(f));
  return own;
}

}  // namespace

double RegimeFit::spread_of(const std::string& regime) const {
  auto it = spread.find(regime);
  return it != spread.end() ? it->second : pooled_spread;
}

double figure_tok_s(const RegimeFigure& f, const RegimeParams& all) {
  RegimeParams own;
  const RegimeParams& q = params_of(f, all, own);
  std::vector<double> rates;
  for (const CaseParts& c : f.realistic) {
    const double t = regime_token_s(c, q, 1);
    if (t > 0) rates.push_back(1 / t);
  }
  return rates.empty() ? 0.0 : f.streams * median(rates) / std::max(1.0, f.run_average);
}

FigureTerms figure_terms(const RegimeFigure& f, const RegimeParams& all) {
  RegimeParams own;
  const RegimeParams& q = params_of(f, all, own);
  std::vector<std::pair<double, const CaseParts*>> timed;
  for (const CaseParts& c : f.realistic) {
    const double t = regime_token_s(c, q, 1);
    if (t > 0) timed.emplace_back(t, &c);
  }
  if (timed.empty()) return {};
  std::sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const CaseParts* mid = timed[timed.size() / 2].second;
  return {mid, regime_terms(*mid, q, 1)};
}

std::string figure_regime(const RegimeFigure& f, const RegimeParams& all) {
  RegimeParams own;
  const RegimeParams& q = params_of(f, all, own);
  std::map<std::string, int> count;
  for (const CaseParts& c : f.realistic) ++count[case_regime(c, q)];
  std::string best;
  int n = -1;
  for (const std::string& r : regime_names()) {  // ties go to the earlier regime
    auto it = count.find(r);
    if (it != count.end() && it->second > n) {
      best = r;
      n = it->second;
    }
  }
  return best;
}

RegimeFit fit_regimes(const std::vector<const RegimeFigure*>& figures, const RegimeParams& prior) {
  RegimeFit fit;
  fit.params = prior;
  fit.figures = static_cast<int>(figures.size());
  // Each source weighs 1 / sqrt(its figures).
  std::map<std::string, int> per_source;
  for (const RegimeFigure* f : figures) ++per_source[f->source];
  std::vector<double> weight;
  for (const RegimeFigure* f : figures) weight.push_back(1 / std::sqrt(static_cast<double>(per_source[f->source])));
  std::vector<std::string> regime(figures.size());
  // Classify-then-fit for kClassifyRounds rounds; then, the regimes held,
  // rounds until one moves no value (a fixed point: each value the best
  // for its regimes' figures given all the others), at most kMaxRounds.
  // Re-classifying every round never settles: values and regimes cycle.
  for (int round = 0; round < kMaxRounds; ++round) {
    const RegimeParams before = fit.params;
    if (round < kClassifyRounds) {
      for (std::size_t i = 0; i < figures.size(); ++i) regime[i] = figure_regime(*figures[i], fit.params);
    }
    fit.fitted.clear();
    for (const RegimeParam& param : prior.p) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < figures.size(); ++i) {
        if (!governs(param, regime[i])) continue;
        if (param.skips_tensor_parallel && tensor_parallel(*figures[i])) continue;
        mine.push_back(i);
      }
      FittedParam fp{param.name, "", param.value, param.low, param.high, static_cast<int>(mine.size()), false, false,
                     param.ends_attainable};
      if (static_cast<int>(mine.size()) < kMinRegimeFigures) {
        fit.params.set(param.name, param.value);
        fit.params.family.erase(param.name);  // no group keeps a value an earlier round gave it
        fp.prior = true;
        fit.fitted.push_back(fp);
        continue;
      }
      const double best = best_on_grid(param, fit.params.get(param.name), figures, mine, weight, [&](double v) {
        // The pooled value is what a family without its own sees: fitted
        // on every figure as if none had one.
        RegimeParams trial = fit.params;
        trial.family.erase(param.name);
        trial.set(param.name, v);
        return trial;
      });
      fit.params.set(param.name, best);
      fp.value = best;
      fp.at_edge = at_end(param, best);
      fit.fitted.push_back(fp);
      if (param.per_family) fit_families(param, figures, mine, weight, fit);
    }
    fit.rounds = round + 1;
    fit.settled = round >= kClassifyRounds && same_values(before, fit.params);
    if (fit.settled) break;
  }
  // Spread per regime: how far the measured figures fall outside the range
  // of their plausible cases (0 inside it). A figure whose conditions are
  // all stated has one case, and its distance is its |log residual| (a
  // run average spans from its start-up-included to its steady rate); one
  // with unstated conditions is judged against the case nearest to it, so
  // the width the unstated conditions already give is not counted twice.
  std::vector<RegimeDistance> distances;
  for (const RegimeFigure* f : figures) {
    RegimeDistance d = regime_distance(*f, fit.params);
    if (d.distance >= 0) distances.push_back(std::move(d));
  }
  set_spreads(fit, distances);
  return fit;
}

RegimeDistance regime_distance(const RegimeFigure& f, const RegimeParams& params) {
  const CaseRange r = case_range(f, params);
  if (!(r.tok_s > 0)) return {"", -1};
  const double m = f.measured_tok_s;
  return {figure_regime(f, params), std::max({0.0, std::log(r.low / m), std::log(m / r.high)})};
}

void set_spreads(RegimeFit& fit, const std::vector<RegimeDistance>& distances) {
  std::map<std::string, std::vector<double>> resid;
  std::vector<double> all;
  for (const RegimeDistance& d : distances) {
    resid[d.regime].push_back(d.distance);
    all.push_back(d.distance);
  }
  fit.spread.clear();
  fit.pooled_spread = all.empty() ? 0.5 : quantile(all, kSpreadQuantile);
  for (const auto& [name, rs] : resid) {
    fit.spread[name] = static_cast<int>(rs.size()) >= kMinSpreadFigures ? quantile(rs, kSpreadQuantile) : fit.pooled_spread;
  }
}

CaseRange case_range(const RegimeFigure& f, const RegimeParams& all) {
  CaseRange r;
  r.tok_s = figure_tok_s(f, all);
  double lo = r.tok_s, hi = r.tok_s;
  const RegimeParams q = all.for_family(f.family, figure_kinds(f));
  for (const CaseParts& c : f.all) {
    const double t = regime_token_s(c, q, 1);
    if (!(t > 0)) continue;
    lo = std::min(lo, f.streams / t / std::max(1.0, f.run_average));
    // A run average's fast end: start-up may cost it nothing.
    hi = std::max(hi, f.streams / t);
  }
  r.low = lo;
  r.high = hi;
  return r;
}

FigureBand figure_band(const RegimeFigure& f, const RegimeFit& fit) {
  FigureBand b;
  const CaseRange r = case_range(f, fit.params);
  b.tok_s = r.tok_s;
  b.regime = figure_regime(f, fit.params);
  const double s = fit.spread_of(b.regime);
  b.low_tok_s = r.low * std::exp(-s);
  b.high_tok_s = r.high * std::exp(s);
  return b;
}

}  // namespace moebench
