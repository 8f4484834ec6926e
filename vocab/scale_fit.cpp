// scale_fit.cpp — see scale_fit.h.
#include "vocab/scale_fit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "vocab/config_store.h"
#include "vocab/file_io.h"
#include "vocab/stats.h"

namespace moebench {

namespace {

// Each kind's list of ratios and its key in the file.
struct RatioList {
  const char* key;
  std::vector<double> ScaleCheck::*list;
};
constexpr RatioList kLists[] = {{"resident_decode", &ScaleCheck::resident_decode},
                                {"resident_ttft", &ScaleCheck::resident_ttft},
                                {"streaming_decode", &ScaleCheck::streaming_decode}};

std::optional<ScaleBand> band_of(const ScaleFit& fit, int i) {
  std::vector<double> all;
  for (const ScaleCheck& c : fit.checks) all.insert(all.end(), (c.*kLists[i].list).begin(), (c.*kLists[i].list).end());
  if (all.empty()) return std::nullopt;
  const double f = all.size() >= 10 ? quantile(all, 0.9) : *std::max_element(all.begin(), all.end());
  return ScaleBand{f, static_cast<int>(all.size())};
}

}  // namespace

std::optional<ScaleBand> scale_band(const ScaleFit& fit, FullModelKind kind) {
  switch (kind) {
    case FullModelKind::kResidentDecode: return band_of(fit, 0);
    case FullModelKind::kResidentTtft: return band_of(fit, 1);
    case FullModelKind::kStreamingDecode: return band_of(fit, 2);
    case FullModelKind::kStreamingTtft: {
      const auto a = band_of(fit, 1), b = band_of(fit, 2);
      if (!a || !b) return std::nullopt;  // a streaming prefill is both: neither alone bounds it
      return ScaleBand{std::max(a->factor, b->factor), a->ratios + b->ratios};
    }
  }
  return std::nullopt;
}

std::optional<ScaleFit> load_scale_fit(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  ScaleFit fit;
  if (const Json* checks = r.array("checks", true, false)) {
    for (std::size_t i = 0; i < checks->size(); ++i) {
      ObjectReader c((*checks)[i], json_pointer_append(r.path_of("checks"), i), d);
      if (!c.is_object()) continue;
      ScaleCheck s;
      s.taken_at = c.string("taken_at", true).value_or("");
      s.host = c.string("host", true).value_or("");
      s.cpu = c.string("cpu", true).value_or("");
      s.cards = c.string("cards", true).value_or("");
      for (const RatioList& l : kLists) {
        const Json* v = c.array(l.key, true, false);
        if (!v) continue;
        for (std::size_t n = 0; n < v->size(); ++n) {
          const Json& x = (*v)[n];
          const std::string path = json_pointer_append(c.path_of(l.key), n);
          if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 1) {
            d.add(path, "expected max(predicted ÷ measured, measured ÷ predicted): a finite number of 1 or more");
            continue;
          }
          (s.*l.list).push_back(x.get<double>());
        }
      }
      c.finish();
      fit.checks.push_back(std::move(s));
    }
  }
  r.finish();
  if (!d.ok()) return std::nullopt;
  return fit;
}

Expected<std::optional<ScaleFit>> stored_scale_fit(const ConfigStore& store) {
  return load_optional_config<ScaleFit>(store, "fits", "scale", load_scale_fit);
}

Json scale_fit_json(const ScaleFit& fit) {
  Json checks = Json::array();
  for (const ScaleCheck& c : fit.checks) {
    Json one = {{"taken_at", c.taken_at}, {"host", c.host}, {"cpu", c.cpu}, {"cards", c.cards}};
    for (const RatioList& l : kLists) one[l.key] = c.*l.list;
    checks.push_back(one);
  }
  return Json{{"checks", checks}};
}

Status append_scale_check(const std::string& path, const ScaleCheck& check) {
  ScaleFit fit;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto old = load_config_file<ScaleFit>(path, load_scale_fit);
    if (!old) return make_error(old.error().message + " (not appended to; fix or move it)");
    fit = std::move(*old);
  }
  fit.checks.push_back(check);
  return write_file_atomic(path, scale_fit_json(fit).dump(2) + "\n");
}

}  // namespace moebench
