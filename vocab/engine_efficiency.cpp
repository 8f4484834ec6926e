// engine_efficiency.cpp — see engine_efficiency.h.
#include "vocab/engine_efficiency.h"

namespace moebench {

const EngineEfficiency& EfficiencyTable::for_family(const std::string& family) const {
  static const EngineEfficiency kDefault;
  const EngineEfficiency* any = nullptr;
  for (const EngineEfficiency& e : families) {
    if (e.family == family) return e;
    if (e.family == "any") any = &e;
  }
  return any ? *any : kDefault;
}

std::optional<EfficiencyTable> load_efficiency_table(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  EfficiencyTable t;
  if (const Json* fams = r.array("families", true, true)) {
    for (std::size_t i = 0; i < fams->size(); ++i) {
      ObjectReader f((*fams)[i], json_pointer_append(r.path_of("families"), i), d);
      if (!f.is_object()) continue;
      EngineEfficiency e;
      e.family = f.string("family", true).value_or("");
      auto share = [&](const char* key, double& out, bool required, bool zero_ok = false) {
        if (auto v = f.number(key, required)) {
          if (*v < 0 || (*v == 0 && !zero_ok) || *v > 1.0 + 1e-9) {
            d.add(f.path_of(key), zero_ok ? "expected a share from 0 to 1" : "expected a share above 0 and at most 1");
          } else {
            out = *v;
          }
        }
      };
      share("memory", e.memory, true);
      share("io", e.io, true);
      share("compute", e.compute, true);
      share("overlap", e.overlap, true, true);
      share("band_low", e.band_low, true);
      if (auto v = f.number("band_high", true)) {
        if (*v < 1) d.add(f.path_of("band_high"), "expected at least 1"); else e.band_high = *v;
      }
      if (auto v = f.integer("figures", true, 0, 1 << 20)) e.figures = static_cast<int>(*v);
      e.source = f.string("source", true).value_or("");
      f.finish();
      t.families.push_back(e);
    }
  }
  r.finish();
  if (!d.ok()) return std::nullopt;
  return t;
}

Json efficiency_table_json(const EfficiencyTable& t) {
  Json fams = Json::array();
  for (const EngineEfficiency& e : t.families) {
    fams.push_back({{"family", e.family}, {"memory", e.memory}, {"io", e.io}, {"compute", e.compute},
                    {"overlap", e.overlap}, {"band_low", e.band_low}, {"band_high", e.band_high},
                    {"figures", e.figures}, {"source", e.source}});
  }
  return {{"families", fams}};
}

}  // namespace moebench
