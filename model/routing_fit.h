// routing_fit.h — the locality:P,S routing model fitted to published
// expert-cache hit rates (tests/data/published/hit_rates.json).
//
// Each published figure is a hit rate measured at one cache size on one
// model. predict_published_hit_rate replays the figure's own conditions
// through the engine's cache policy (fast_replay / estimate_hits,
// model/hit_rate.h): the model's geometry, the cache size, one
// shared LRU or an LRU per layer, and the run's length when the source
// states it (else steady state). fit_locality_routing picks (P, S) on a grid
// minimising the squared error over the FIT half of the figures — a figure
// is in it when FNV-1a(id) is even — and reports the error on both halves.
//
// default_real_routing() is the fitted spec, a constant so that predicting
// needs no fit at run time; the unit tests re-run the fit from the data file
// and check that it lands on this constant (within the grid step), so the
// constant is the data's, not a choice. Uniform routing stays the
// pessimistic bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

struct PublishedHitRate {
  std::string id, model, card;
  int layers = 0, experts = 0, k = 0;
  std::uint64_t cache_experts = 0;  // slots over all layers
  std::string policy;               // lru | lru-per-layer | lfu
  double hit_rate = 0;
  std::string prefetch = "none";
  std::int64_t prompt_tokens = 0, gen_tokens = 0, chunk = 0;  // 0: steady state
  std::string source;               // "repository:path", or the page or document
  std::string quote;
};

// Reads the {"hit_rates": [...]} file (comments allowed); every figure must
// have id, model, layers, experts, k, cache_experts, policy, hit_rate,
// source and quote, and ids must be unique.
Expected<std::vector<PublishedHitRate>> load_published_hit_rates(const std::string& path);

// FNV-1a(id) even: the figure is fitted; odd: held out.
bool in_fit_half(const std::string& id);

// Whether the fit can replay this figure's policy and prefetch.
bool fittable(const PublishedHitRate& p);

struct FitOptions {
  std::uint64_t seed = 1;               // routing seed of every replay
  std::uint64_t measured_needs = 20000; // steady-state window per figure
  // The grid: P from 0 to reuse_max, S from 0 to exponent_max, searched
  // coarse (2 steps) then fine (1 step) around the coarse best.
  double reuse_step = 0.05, reuse_max = 0.9;
  double exponent_step = 0.1, exponent_max = 1.6;
};

// The routing model's hit rate under the figure's conditions.
Expected<double> predict_published_hit_rate(const PublishedHitRate& p, const std::string& routing,
                                            const FitOptions& options = {});

struct FitResidual {
  std::string id;
  bool fit_half = false;
  double measured = 0, predicted = 0;
};

struct RoutingFit {
  double reuse = 0, exponent = 0;
  std::string routing;               // canonical locality:P,S
  double fit_rmse = 0, holdout_rmse = 0;
  double uniform_fit_rmse = 0, uniform_holdout_rmse = 0;  // the pessimistic bound, for comparison
  std::size_t fit_points = 0, holdout_points = 0, skipped = 0;
  int grid_evaluations = 0;
  std::vector<FitResidual> residuals;  // at the fitted parameters, every fittable figure
};

// Pure: the figures in, the fit out (no file, no clock).
Expected<RoutingFit> fit_locality_routing(const std::vector<PublishedHitRate>& points, const FitOptions& options = {});

// The fitted routing for predicting real models (see the file comment).
std::string default_real_routing();

}  // namespace moebench
