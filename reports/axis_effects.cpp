// axis_effects.cpp — see axis_effects.h.
#include "reports/axis_effects.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "vocab/metrics.h"
#include "vocab/stats.h"
#include "vocab/text.h"

namespace moebench {
namespace {

// An axis: its value in a point (larger = more), and the point with it reset
// (the key of "everything else").
struct Axis {
  const char* name;
  std::function<double(const Point&)> value;
  std::function<void(Point&)> reset;
};

const std::vector<Axis>& axes() {
  static const std::vector<Axis> a = {
      {"budget",
       [](const Point& p) {
         return p.ram_budget_bytes ? static_cast<double>(*p.ram_budget_bytes) : std::numeric_limits<double>::infinity();
       },
       [](Point& p) { p.ram_budget_bytes.reset(); }},
      {"drives", [](const Point& p) { return static_cast<double>(p.drives.count); }, [](Point& p) { p.drives.count = 1; }},
      {"context", [](const Point& p) { return static_cast<double>(p.context_tokens); }, [](Point& p) { p.context_tokens = 0; }},
      {"threads",
       [](const Point& p) { return p.threads > 0 ? static_cast<double>(p.threads) : std::numeric_limits<double>::infinity(); },
       [](Point& p) { p.threads = 0; }},
  };
  return a;
}

std::optional<double> median_of(const ResultRow& r, const char* name) {
  auto it = r.metrics.find(name);
  if (it == r.metrics.end() || it->second.n == 0 || !std::isfinite(it->second.median)) return std::nullopt;
  return it->second.median;
}

}  // namespace

std::vector<AxisEffect> axis_effects(const RunResults& results) {
  std::vector<AxisEffect> out;
  for (const Axis& axis : axes()) {
    std::map<std::string, std::vector<const ResultRow*>> groups;  // everything but the axis → rows
    for (const ResultRow& r : results.rows) {
      const auto d = median_of(r, metric::kDecodeTokS);
      if (r.status != RowStatus::kOk || !d || !(*d > 0)) continue;
      Point key = r.point;
      axis.reset(key);
      groups[key.key_text()].push_back(&r);
    }
    std::vector<double> ratios, hits_low, hits_high;
    for (const auto& [key, rows] : groups) {
      const auto [lo, hi] = std::minmax_element(rows.begin(), rows.end(), [&](const ResultRow* a, const ResultRow* b) {
        return axis.value(a->point) < axis.value(b->point);
      });
      if (!(axis.value((*lo)->point) < axis.value((*hi)->point))) continue;
      ratios.push_back(*median_of(**hi, metric::kDecodeTokS) / *median_of(**lo, metric::kDecodeTokS));
      const auto hl = median_of(**lo, metric::kExpertHitRate), hh = median_of(**hi, metric::kExpertHitRate);
      if (hl && hh) {
        hits_low.push_back(*hl);
        hits_high.push_back(*hh);
      }
    }
    if (ratios.empty()) continue;
    AxisEffect e;
    e.axis = axis.name;
    e.groups = ratios.size();
    e.ratio_median = median(ratios);
    e.ratio_min = *std::min_element(ratios.begin(), ratios.end());
    e.ratio_max = *std::max_element(ratios.begin(), ratios.end());
    if (!hits_low.empty()) {
      e.hit_low = median(hits_low);
      e.hit_high = median(hits_high);
    }
    out.push_back(e);
  }
  return out;
}

std::vector<std::string> axis_effect_lines(const RunResults& results) {
  std::vector<std::string> lines;
  for (const AxisEffect& e : axis_effects(results)) {
    std::string s = fmt::format("{}: {} group{} of rows that differ only in it; from its smallest value to its largest, "
                                "decode ×{}",
                                e.axis, e.groups, e.groups == 1 ? "" : "s", format_fixed(e.ratio_median, 2));
    if (e.groups > 1) {
      s += fmt::format(" (median; ×{}–×{})", format_fixed(e.ratio_min, 2), format_fixed(e.ratio_max, 2));
    }
    if (e.hit_low && e.hit_high && (*e.hit_low < 1 || *e.hit_high < 1)) {
      s += fmt::format(", hit rate {} % → {} %", format_fixed(100 * *e.hit_low, 1), format_fixed(100 * *e.hit_high, 1));
    }
    lines.push_back(s);
  }
  return lines;
}

}  // namespace moebench
