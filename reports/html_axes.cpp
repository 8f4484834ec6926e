// html_axes.cpp — what the HTML report's charts say about a point and a row
// (html_charts.h): the point axes a chart groups by, with their texts and
// chart values; the axes that vary in a run; row labels; number texts; and
// the figure a chart draws for a row — a metric's median and the min–max of
// its repetitions, the card's own or, for a scaled card, the full model's.
#include <algorithm>
#include <cmath>
#include <map>

#include "reports/cell_format.h"
#include "reports/html_charts.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench::html {

std::string plural(std::int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

const std::vector<Dim>& dims() {
  static const std::vector<Dim> d = {
      {"engine", [](const Point& p) { return p.engine.to_string(); }, nullptr},
      {"model", [](const Point& p) { return p.model; }, nullptr},
      {"scale", [](const Point& p) { return p.scale.to_string(); }, nullptr},
      {"quant", [](const Point& p) { return p.quant; }, nullptr},
      {"budget",
       [](const Point& p) {
         return p.ram_budget_bytes ? format_bytes(static_cast<double>(*p.ram_budget_bytes)) : std::string("unlimited");
       },
       [](const Point& p) -> std::optional<double> {
         if (!p.ram_budget_bytes) return std::nullopt;
         return static_cast<double>(*p.ram_budget_bytes) / kGiB;
       }},
      {"drives",
       [](const Point& p) {
         std::string s = plural(p.drives.count, "drive");
         if (p.drives.layout != "replicate") s += " " + p.drives.layout;
         if (p.drives.throttle_bytes_s) s += " @" + format_rate(*p.drives.throttle_bytes_s);
         return s;
       },
       [](const Point& p) -> std::optional<double> { return p.drives.count; }},
      {"context", [](const Point& p) { return "ctx " + std::to_string(p.context_tokens); },
       [](const Point& p) -> std::optional<double> { return static_cast<double>(p.context_tokens); }},
      {"prompt", [](const Point& p) { return "prompt " + std::to_string(p.prompt_tokens); },
       [](const Point& p) -> std::optional<double> { return static_cast<double>(p.prompt_tokens); }},
      {"gen", [](const Point& p) { return "gen " + std::to_string(p.gen_tokens); }, nullptr},
      {"threads", [](const Point& p) { return p.threads == 0 ? std::string("all threads") : plural(p.threads, "thread"); },
       nullptr},
      {"routing", [](const Point& p) { return "routing " + p.routing; }, nullptr},
      {"cache", [](const Point& p) { return "cache " + p.cache_policy; }, nullptr},
      {"prefetch", [](const Point& p) { return "prefetch " + p.prefetch; }, nullptr},
      {"hot_set", [](const Point& p) { return "hot set " + p.hot_set; }, nullptr},
  };
  return d;
}

const Dim& dim(const std::string& key) {
  for (const Dim& d : dims()) {
    if (d.key == key) return d;
  }
  return dims().front();  // unreachable with the keys the charts use
}

std::string axis_name(const std::string& dim_key) {
  static const std::map<std::string, std::string> names = {
      {"budget", "RAM budget"}, {"drives", "drive count"}, {"context", "context length"}, {"prompt", "prompt length"}};
  auto it = names.find(dim_key);
  return it == names.end() ? dim_key : it->second;
}

std::vector<std::string> varying(const std::vector<const ResultRow*>& rows) {
  std::vector<std::string> out;
  for (const Dim& d : dims()) {
    std::set<std::string> values;
    for (const ResultRow* r : rows) values.insert(d.text(r->point));
    if (values.size() > 1) out.push_back(d.key);
  }
  return out;
}

std::string join_texts(const Point& p, const std::vector<std::string>& keys, const std::string& sep) {
  std::vector<std::string> parts;
  for (const std::string& k : keys) parts.push_back(dim(k).text(p));
  return join(parts, sep);
}

std::string row_label(const ResultRow& r, const std::vector<std::string>& vary) {
  const std::string rest = join_texts(r.point, vary, " · ");
  return "#" + std::to_string(r.point.number()) + (rest.empty() ? "" : " " + rest);
}

std::vector<const ResultRow*> all_rows(const RunResults& r) {
  std::vector<const ResultRow*> out;
  for (const ResultRow& row : r.rows) out.push_back(&row);
  return out;
}

std::string num(double v, int sig) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  int decimals = a >= 100 ? 1 : a >= 10 ? sig - 2 : a >= 1 ? sig - 1 : sig;
  if (a != 0 && a < 0.01) return format_scientific(v, sig);
  return format_fixed(v, std::max(0, decimals));
}

std::string pct(double frac) { return format_fixed(100 * frac, 1) + " %"; }

double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<Figure> figure_of(const ResultRow& row, const std::string& metric) {
  auto it = row.metrics.find(metric);
  if (it == row.metrics.end() || !std::isfinite(it->second.median)) return std::nullopt;
  const Summary& s = it->second;
  Figure f{metric, s.median, s.median, s.median, s.n};
  if (s.n >= 2 && std::isfinite(s.min) && std::isfinite(s.max)) {
    f.min = s.min;
    f.max = s.max;
  } else {
    f.n = std::min<std::size_t>(s.n, 1);  // one figure: no range to draw
  }
  return f;
}

std::optional<Figure> full_model_figure(const ResultRow& row, const std::string& card_metric,
                                        const std::string& full_metric) {
  return figure_of(row, row.point.scale.is_identity() ? card_metric : full_metric);
}

std::string whisker_text(const std::set<std::size_t>& repetitions) {
  if (repetitions.empty()) return "";
  const std::string n = repetitions.size() == 1
                            ? std::to_string(*repetitions.begin())
                            : std::to_string(*repetitions.begin()) + "–" + std::to_string(*repetitions.rbegin());
  return "whiskers: min–max of " + n + " repetitions";
}

std::string figure_text(const Figure& f, double div, const std::string& unit) {
  std::string out = num(f.median / div) + " " + unit;
  if (f.has_range()) {
    out += " (min " + num(f.min / div) + ", max " + num(f.max / div) + " over " + plural(static_cast<std::int64_t>(f.n), "repetition") + ")";
  }
  return out;
}

}  // namespace moebench::html
