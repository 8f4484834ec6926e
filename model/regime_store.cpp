// regime_store.cpp — see regime_store.h.
#include "model/regime_store.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "model/engine_families.h"
#include "vocab/machine_profile.h"
#include "vocab/text.h"

namespace moebench {

namespace {

const RegimeParam* find_param(const RegimeParams& q, const std::string& name) {
  for (const RegimeParam& p : q.p) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

bool known_regime(const std::string& name) {
  const auto& names = regime_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A value of `p` read at `path`, refused outside its range.
std::optional<double> in_range(const Json& v, const RegimeParam& p, const std::string& path, Diagnostics& d) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    d.add(path, "expected a number");
    return std::nullopt;
  }
  const double x = v.get<double>();
  if (x < p.low * (1 - 1e-9) || x > p.high * (1 + 1e-9)) {
    d.add(path, fmt::format("expected {} inside its physical range {:g} .. {:g}, got {:g}: refit with `moebench validate-model "
                            "--regimes source --write-fit FILE`",
                            p.name, p.low, p.high, x));
    return std::nullopt;
  }
  return x;
}

}  // namespace

std::optional<RegimeFit> load_regime_fit(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  RegimeFit fit;
  fit.params = RegimeParams::defaults();
  r.string("fitted_by", false);
  if (auto n = r.integer("figures", true, 0, 1 << 24)) fit.figures = static_cast<int>(*n);
  std::set<std::string> seen;
  if (const Json* params = r.array("parameters", true, true)) {
    for (std::size_t i = 0; i < params->size(); ++i) {
      ObjectReader e((*params)[i], json_pointer_append(r.path_of("parameters"), i), d);
      if (!e.is_object()) continue;
      const std::string name = e.string("name", true).value_or("");
      const RegimeParam* p = find_param(fit.params, name);
      if (p && !seen.insert(name).second) {
        d.add(e.path_of("name"), "\"" + name + "\" appears twice: one entry per parameter");
        e.finish();
        continue;
      }
      if (!p) {
        if (!name.empty()) d.add(e.path_of("name"), "unknown regime parameter \"" + name + "\"");
        e.finish();
        continue;
      }
      const RegimeParam param = *p;
      if (auto v = e.number("value", true)) {
        if (auto x = in_range(Json(*v), param, e.path_of("value"), d)) fit.params.set(name, *x);
      }
      if (const Json* fam = e.object("family", false)) {
        if (!param.per_family && !fam->empty()) d.add(e.path_of("family"), std::string(param.name) + " is not fitted per engine family");
        for (auto it = fam->begin(); it != fam->end(); ++it) {
          const std::string where = json_pointer_append(e.path_of("family"), it.key());
          // A per-kind parameter's groups: "@kind" or "family@kind".
          const std::size_t at = it.key().find('@');
          const std::string fam_name = at == std::string::npos ? it.key() : it.key().substr(0, at);
          // A per-CPU-kind parameter also keeps a family's own value.
          const bool kinded = param.per_kind || (param.per_cpu_kind && at != std::string::npos);
          if (kinded) {
            const std::vector<std::string>& kinds = param.per_kind ? gpu_kinds() : cpu_kinds();
            const std::string kind = at == std::string::npos ? "" : it.key().substr(at + 1);
            if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
              d.add(where, std::string(param.name) + " is fitted per " + (param.per_kind ? "GPU" : "CPU") +
                               " kind: expected \"@kind\" or \"family@kind\" with a kind of " + join(kinds, ", "));
              continue;
            }
          } else if (at != std::string::npos) {
            d.add(where, std::string(param.name) + " is not fitted per processor kind: expected an engine family");
            continue;
          }
          if (!(kinded && fam_name.empty()) && engine_family(fam_name) != fam_name) {
            d.add(where, "\"" + fam_name + "\" is not an engine family as moebench names them (\"" + engine_family(fam_name) +
                             "\": the first word of the engine, lowercased)");
            continue;
          }
          if (auto x = in_range(it.value(), param, where, d)) {
            fit.params.family[name][it.key()] = *x;
          }
        }
      }
      e.finish();
    }
    // A fit written before a parameter existed would answer with its prior
    // beside values fitted without it: refused, with what to do.
    for (const RegimeParam& x : fit.params.p) {
      if (!seen.count(x.name)) {
        d.add(r.path_of("parameters"), fmt::format("no entry for \"{}\": the fit predates it; refit with `moebench "
                                                   "validate-model --regimes source --write-fit FILE`",
                                                   x.name));
      }
    }
  }
  auto spread = [&](const Json& v, const std::string& path) -> std::optional<double> {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      d.add(path, "expected a finite |log residual| of 0 or more");
      return std::nullopt;
    }
    return v.get<double>();
  };
  if (const Json* s = r.object("spread", true)) {
    for (auto it = s->begin(); it != s->end(); ++it) {
      const std::string path = json_pointer_append(r.path_of("spread"), it.key());
      if (!known_regime(it.key())) {
        d.add(path, "unknown regime \"" + it.key() + "\"");
        continue;
      }
      if (auto x = spread(it.value(), path)) fit.spread[it.key()] = *x;
    }
  }
  if (auto v = r.number("pooled_spread", true)) {
    if (auto x = spread(Json(*v), r.path_of("pooled_spread"))) fit.pooled_spread = *x;
  }
  r.finish();
  if (!d.ok()) return std::nullopt;
  return fit;
}

Json regime_fit_json(const RegimeFit& fit, const std::string& fitted_by) {
  Json params = Json::array();
  for (const RegimeParam& p : fit.params.p) {
    Json e{{"name", p.name}, {"value", p.value}};
    auto it = fit.params.family.find(p.name);
    if (it != fit.params.family.end() && !it->second.empty()) {
      Json fam = Json::object();
      for (const auto& [family, v] : it->second) fam[family] = v;
      e["family"] = fam;
    }
    params.push_back(e);
  }
  Json spread = Json::object();
  for (const auto& [regime, s] : fit.spread) spread[regime] = s;
  return {{"fitted_by", fitted_by}, {"figures", fit.figures}, {"parameters", params}, {"spread", spread},
          {"pooled_spread", fit.pooled_spread}};
}

Expected<std::string> check_regime_fit(const Json& j, const std::string& label) {
  Diagnostics d(label);
  auto fit = load_regime_fit(j, d);
  if (!fit) return d.to_error();
  std::size_t own = 0;
  for (const auto& [name, fams] : fit->params.family) own += fams.size();
  return "regime fit: " + std::to_string(fit->params.p.size()) + " parameters inside their ranges (" + std::to_string(own) +
         " per-family values), spreads of " + std::to_string(fit->spread.size()) + " regimes, fitted on " +
         std::to_string(fit->figures) + " figures";
}

}  // namespace moebench
