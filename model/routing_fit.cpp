// routing_fit.cpp — see routing_fit.h.
#include "model/routing_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/hit_rate.h"
#include "engines/routing/routing.h"
#include "vocab/json_reader.h"
#include "vocab/text.h"

namespace moebench {

std::string default_real_routing() {
  // Fitted by fit_locality_routing on tests/data/published/hit_rates.json
  // (FitOptions defaults); "fit reproduces the default" re-runs it.
  return "locality:0.15,1";
}

bool in_fit_half(const std::string& id) { return fnv1a64(id) % 2 == 0; }

bool fittable(const PublishedHitRate& p) {
  return (p.policy == "lru" || p.policy == "lru-per-layer" || p.policy == "lfu") && p.prefetch == "none";
}

Expected<std::vector<PublishedHitRate>> load_published_hit_rates(const std::string& path) {
  auto doc = read_json_file(path);
  if (!doc) return doc.error();
  Diagnostics d(path);
  std::vector<PublishedHitRate> out;
  if (!doc->is_object() || !doc->contains("hit_rates") || !(*doc)["hit_rates"].is_array()) {
    d.add("", "expected an object with an array \"hit_rates\"");
    return d.to_error();
  }
  std::set<std::string> ids;
  const Json& list = (*doc)["hit_rates"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& j = list[i];
    const std::string at = "/hit_rates/" + std::to_string(i);
    if (!j.is_object()) {
      d.add(at, "expected an object");
      continue;
    }
    auto str = [&](const char* name, bool required) -> std::string {
      if (!j.contains(name)) {
        if (required) d.add(at, std::string("missing \"") + name + "\"");
        return "";
      }
      if (!j[name].is_string()) {
        d.add(at + "/" + name, "expected a string");
        return "";
      }
      return j[name].get<std::string>();
    };
    auto num = [&](const char* name, bool required, double min_value) -> double {
      if (!j.contains(name)) {
        if (required) d.add(at, std::string("missing \"") + name + "\"");
        return 0;
      }
      if (!j[name].is_number()) {
        d.add(at + "/" + name, "expected a number");
        return 0;
      }
      const double v = j[name].get<double>();
      if (v < min_value) d.add(at + "/" + name, "expected at least " + std::to_string(min_value));
      return v;
    };
    PublishedHitRate p;
    p.id = str("id", true);
    p.model = str("model", true);
    p.card = str("card", false);
    p.layers = static_cast<int>(num("layers", true, 1));
    p.experts = static_cast<int>(num("experts", true, 1));
    p.k = static_cast<int>(num("k", true, 1));
    p.cache_experts = static_cast<std::uint64_t>(num("cache_experts", true, 1));
    p.policy = str("policy", true);
    p.hit_rate = num("hit_rate", true, 0);
    if (p.hit_rate > 1) d.add(at + "/hit_rate", "expected a share in [0, 1]");
    if (j.contains("prefetch")) p.prefetch = str("prefetch", false);
    p.prompt_tokens = static_cast<std::int64_t>(num("prompt_tokens", false, 1));
    p.gen_tokens = static_cast<std::int64_t>(num("gen_tokens", false, 2));
    p.chunk = static_cast<std::int64_t>(num("chunk", false, 1));
    p.quote = str("quote", true);
    if (!j.contains("source") || !j["source"].is_object()) {
      d.add(at, "missing \"source\": {\"repository\", \"path\"}, {\"page\"} or {\"document\"}");
    } else {
      const Json& s = j["source"];
      if (s.contains("repository") && s.contains("path")) {
        p.source = s["repository"].get<std::string>() + ":" + s["path"].get<std::string>();
      } else if (s.contains("page")) {
        p.source = s["page"].get<std::string>();
      } else if (s.contains("document")) {
        p.source = s["document"].get<std::string>();
      } else {
        d.add(at + "/source", "expected {\"repository\", \"path\"}, {\"page\"} or {\"document\"}");
      }
    }
    if (!p.id.empty() && !ids.insert(p.id).second) d.add(at + "/id", "duplicate id \"" + p.id + "\"");
    if (p.k > p.experts) d.add(at + "/k", "k exceeds the expert count");
    out.push_back(std::move(p));
  }
  if (!d.ok()) return d.to_error();
  return out;
}

Expected<double> predict_published_hit_rate(const PublishedHitRate& p, const std::string& routing,
                                            const FitOptions& options) {
  const CacheShape shape{p.layers, p.experts, p.k, static_cast<std::size_t>(p.cache_experts)};
  const CachePartition partition = p.policy == "lru-per-layer" ? CachePartition::kPerLayer : CachePartition::kShared;
  const CachePolicy policy = p.policy == "lfu" ? CachePolicy::kLfu : CachePolicy::kLru;
  if (p.prompt_tokens > 0 && p.gen_tokens > 1) {
    ReplayPlan plan;
    plan.routing = routing;
    plan.policy = policy;
    plan.seed = options.seed;
    plan.prompt_tokens = p.prompt_tokens;
    plan.gen_tokens = p.gen_tokens;
    plan.chunk = static_cast<std::size_t>(p.chunk > 0 ? p.chunk : 1);
    auto r = fast_replay(shape, plan, partition);
    if (!r) return r.error();
    return r->decode.needs() ? static_cast<double>(r->decode.hits) / static_cast<double>(r->decode.needs()) : 0.0;
  }
  EstimateBudget budget;
  budget.measured_needs = options.measured_needs;
  auto h = estimate_hits(shape, routing, "off", policy, options.seed, "", budget, partition);
  if (!h) return h.error();
  return h->hit_rate;
}

namespace {

struct Errors {
  double fit = 0, holdout = 0;
  std::vector<FitResidual> residuals;
};

Expected<Errors> evaluate(const std::vector<const PublishedHitRate*>& points, const std::string& routing,
                          const FitOptions& options, bool fit_half_only) {
  Errors e;
  std::size_t nf = 0, nh = 0;
  for (const PublishedHitRate* p : points) {
    const bool fit = in_fit_half(p->id);
    if (fit_half_only && !fit) continue;
    auto h = predict_published_hit_rate(*p, routing, options);
    if (!h) return make_error("figure " + p->id + ": " + h.error().message);
    const double err = *h - p->hit_rate;
    (fit ? e.fit : e.holdout) += err * err;
    (fit ? nf : nh) += 1;
    e.residuals.push_back({p->id, fit, p->hit_rate, *h});
  }
  e.fit = nf ? std::sqrt(e.fit / static_cast<double>(nf)) : 0;
  e.holdout = nh ? std::sqrt(e.holdout / static_cast<double>(nh)) : 0;
  return e;
}

}  // namespace

Expected<RoutingFit> fit_locality_routing(const std::vector<PublishedHitRate>& points, const FitOptions& options) {
  RoutingFit out;
  std::vector<const PublishedHitRate*> usable;
  for (const PublishedHitRate& p : points) {
    if (!fittable(p)) {
      ++out.skipped;
      continue;
    }
    usable.push_back(&p);
    (in_fit_half(p.id) ? out.fit_points : out.holdout_points) += 1;
  }
  if (out.fit_points == 0) return make_error("routing fit: no figure falls in the fit half");
  const int np = static_cast<int>(std::lround(options.reuse_max / options.reuse_step));
  const int ns = static_cast<int>(std::lround(options.exponent_max / options.exponent_step));
  // Memoised by grid index: the fine pass revisits coarse points.
  std::map<std::pair<int, int>, double> cost;
  auto spec_at = [&](int ip, int is) {
    return canonical_locality_routing(std::round(ip * options.reuse_step * 1e6) / 1e6,
                                      std::round(is * options.exponent_step * 1e6) / 1e6);
  };
  auto cost_at = [&](int ip, int is) -> Expected<double> {
    const auto key = std::make_pair(ip, is);
    if (auto it = cost.find(key); it != cost.end()) return it->second;
    auto e = evaluate(usable, spec_at(ip, is), options, true);
    if (!e) return e.error();
    ++out.grid_evaluations;
    cost[key] = e->fit;
    return e->fit;
  };
  int best_p = 0, best_s = 0;
  double best = 1e300;
  auto consider = [&](int ip, int is) -> Status {
    if (ip < 0 || ip > np || is < 0 || is > ns) return Status::success();
    auto c = cost_at(ip, is);
    if (!c) return c.error();
    // Ties go to the smaller parameters (the grid is walked upwards).
    if (*c < best - 1e-12) {
      best = *c;
      best_p = ip;
      best_s = is;
    }
    return Status::success();
  };
  for (int ip = 0; ip <= np; ip += 2) {
    for (int is = 0; is <= ns; is += 2) {
      if (Status st = consider(ip, is); !st) return st.error();
    }
  }
  const int cp = best_p, cs = best_s;
  for (int ip = cp - 1; ip <= cp + 1; ++ip) {
    for (int is = cs - 1; is <= cs + 1; ++is) {
      if (Status st = consider(ip, is); !st) return st.error();
    }
  }
  out.routing = spec_at(best_p, best_s);
  out.reuse = std::round(best_p * options.reuse_step * 1e6) / 1e6;
  out.exponent = std::round(best_s * options.exponent_step * 1e6) / 1e6;
  auto all = evaluate(usable, out.routing, options, false);
  if (!all) return all.error();
  out.fit_rmse = all->fit;
  out.holdout_rmse = all->holdout;
  out.residuals = std::move(all->residuals);
  auto uni = evaluate(usable, "uniform", options, false);
  if (!uni) return uni.error();
  out.uniform_fit_rmse = uni->fit;
  out.uniform_holdout_rmse = uni->holdout;
  return out;
}

}  // namespace moebench
