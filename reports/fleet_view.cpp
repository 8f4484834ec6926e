// fleet_view.cpp — see fleet_view.h.
#include "reports/fleet_view.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <set>

#include <fmt/format.h>

#include "reports/html_charts.h"
#include "reports/svg_chart.h"
#include "vocab/machine_profile.h"
#include "vocab/metrics.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

std::optional<double> median_of(const ResultRow& row, const char* metric) {
  auto it = row.metrics.find(metric);
  if (it == row.metrics.end() || !std::isfinite(it->second.median)) return std::nullopt;
  return it->second.median;
}

std::string or_dash(const std::optional<double>& v, const std::function<std::string(double)>& f) {
  return v ? f(*v) : std::string("—");
}

// Three significant digits, never an exponent: 1130, 782, 5.69, 0.0241.
std::string sig3(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string money(double usd) {
  if (usd >= 100) return fmt::format("${:.0f}", usd);
  return fmt::format("${:.2f}", usd);
}

std::string price_unit(const FleetPrice& p) { return p.basis == "hourly" ? "/h per tok/s" : " per tok/s"; }

// The cell as one line of text: "12.3 tok/s · TTFT 0.41 s · 1.2 GB/token · $410 per tok/s".
std::string cell_text(const FleetCell& c, const FleetPrice* price) {
  if (c.status != "ok") return c.status + (c.reason.empty() ? "" : ": " + c.reason);
  std::string s = or_dash(c.decode_tok_s, [](double v) { return sig3(v) + " tok/s"; });
  s += " · TTFT " + or_dash(c.ttft_s, [](double v) { return sig3(v) + " s"; });
  s += " · " + or_dash(c.read_bytes_per_token, [](double v) { return format_bytes_decimal(v); }) + "/token";
  if (c.usd_per_tok_s && price != nullptr) s += " · " + money(*c.usd_per_tok_s) + price_unit(*price);
  if (c.provenance != "measured") s += " (" + c.provenance + ")";
  return s;
}

// The point's axes one by one, in the words of the HTML report's charts.
std::vector<std::string> point_parts(const Point& p) {
  std::vector<std::string> parts;
  for (const html::Dim& d : html::dims()) parts.push_back(d.text(p));
  return parts;
}

// Chart labels: "#3 " and the parts that differ between rows; `common` gets
// the parts every row shares.
std::vector<std::string> distinguishing_labels(const std::vector<FleetRow>& rows, std::vector<std::string>& common) {
  std::vector<bool> differs;
  for (const FleetRow& r : rows) {
    differs.resize(std::max(differs.size(), r.parts.size()), false);
    for (std::size_t i = 0; i < r.parts.size(); ++i) {
      if (i >= rows.front().parts.size() || r.parts[i] != rows.front().parts[i]) differs[i] = true;
    }
  }
  std::vector<std::string> labels;
  for (const FleetRow& r : rows) {
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < r.parts.size(); ++i) {
      if (differs[i]) shown.push_back(r.parts[i]);
    }
    labels.push_back("#" + std::to_string(r.point_index + 1) + (shown.empty() ? "" : " " + join(shown, " · ")));
  }
  if (!rows.empty()) {
    for (std::size_t i = 0; i < rows.front().parts.size(); ++i) {
      if (!differs[i]) common.push_back(rows.front().parts[i]);
    }
  }
  return labels;
}

}  // namespace

std::optional<FleetPrice> fleet_price_of(const MachineProfile& profile, const std::string& label) {
  if (!profile.price_usd) return std::nullopt;
  return FleetPrice{profile.price_usd->value, profile.price_basis.value_or("purchase"),
                    label + (profile.price_usd->source.empty() ? "" : ": " + profile.price_usd->source)};
}

Expected<FleetView> build_fleet_view(const std::vector<RunResults>& runs,
                                     const std::map<std::string, FleetPrice>& prices) {
  if (runs.empty()) return make_error("no results to compare across machines");
  FleetView v;
  v.sweep_name = runs.front().sweep.name;
  v.sweep_digest = runs.front().sweep.digest;
  std::map<std::string, std::set<std::string>> runs_of_machine;
  std::map<std::size_t, FleetRow> rows;
  for (const RunResults& r : runs) {
    if (r.sweep.digest != v.sweep_digest) {
      return make_error(fmt::format("results of sweep \"{}\" (digest {}) beside \"{}\" (digest {}): a fleet view "
                                    "sets one sweep's points side by side; run the same sweep on every machine",
                                    r.sweep.name, r.sweep.digest, v.sweep_name, v.sweep_digest));
    }
    for (const ResultRow& row : r.rows) {
      const Environment* env = r.environment_of(row);
      FleetCell c;
      c.status = to_string(row.status);
      c.reason = row.reason;
      c.provenance = row.provenance;
      c.decode_tok_s = median_of(row, metric::kDecodeTokS);
      c.ttft_s = median_of(row, metric::kTtftS);
      c.read_bytes_per_token = median_of(row, metric::kReadBytesPerToken);
      c.prefill_tok_s = median_of(row, metric::kPrefillTokS);
      c.run_id = row.run_id;
      c.started_at = env != nullptr ? env->started_at : "";
      if (auto p = prices.find(row.machine); p != prices.end() && c.decode_tok_s && *c.decode_tok_s > 0) {
        c.usd_per_tok_s = p->second.usd / *c.decode_tok_s;
      }
      if (runs_of_machine[row.machine].insert(row.run_id).second) {
        v.sources[row.machine].push_back("run " + row.run_id +
                                         (env != nullptr ? " on host " + env->hostname + ", started " + env->started_at
                                                         : std::string()));
      }
      FleetRow& fr = rows[row.point.index];
      fr.point_index = row.point.index;
      fr.point_id = row.point.id();
      fr.label = row.point.label();
      fr.parts = point_parts(row.point);
      auto [it, fresh] = fr.cells.emplace(row.machine, c);
      if (!fresh && std::tie(c.started_at, c.run_id) > std::tie(it->second.started_at, it->second.run_id)) it->second = c;
    }
  }
  for (const auto& [machine, ids] : runs_of_machine) {
    v.machines.push_back(machine);
    if (ids.size() > 1) {
      v.notes.push_back(fmt::format("{}: {} runs; each point shows its latest", machine, ids.size()));
    }
    if (auto p = prices.find(machine); p != prices.end()) {
      v.prices[machine] = p->second;
    } else {
      v.notes.push_back(machine + ": no price in its profile; no price per tok/s");
    }
  }
  for (auto& [index, row] : rows) v.rows.push_back(std::move(row));
  return v;
}

std::string write_fleet_markdown(const FleetView& v) {
  std::string out = fmt::format("# Fleet: sweep {} (digest {}) on {} machines\n\n", v.sweep_name, v.sweep_digest,
                                v.machines.size());
  out += "Each cell: decode tok/s (median, steady decode) · TTFT · bytes read per decode token";
  out += v.prices.empty() ? "" : " · price per decode tok/s (the profile's price ÷ the measured rate)";
  out += ".\n\n| # | point |";
  for (const std::string& m : v.machines) out += " " + m + " |";
  out += "\n|---:|---|";
  for (std::size_t i = 0; i < v.machines.size(); ++i) out += "---|";
  out += "\n";
  for (const FleetRow& r : v.rows) {
    out += fmt::format("| {} | {} |", r.point_index + 1, r.label);
    for (const std::string& m : v.machines) {
      auto it = r.cells.find(m);
      auto price = v.prices.find(m);
      out += " " + (it == r.cells.end() ? std::string("not run")
                                         : cell_text(it->second, price == v.prices.end() ? nullptr : &price->second)) +
             " |";
    }
    out += "\n";
  }
  out += "\nMeasured by:\n";
  for (const auto& [m, runs] : v.sources) out += "- " + m + ": " + join(runs, "; ") + "\n";
  if (!v.prices.empty()) {
    out += "\nPrices:\n";
    for (const auto& [m, p] : v.prices) {
      out += fmt::format("- {}: {} ({}; {})\n", m, money(p.usd) + (p.basis == "hourly" ? "/h" : ""), p.basis, p.source);
    }
  }
  if (!v.notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& n : v.notes) out += "- " + n + "\n";
  }
  return out;
}

std::string write_fleet_html(const FleetView& v, const std::string& title) {
  using svg::escape;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) +
                    "</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
                    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px;"
                    "vertical-align:top}th{background:#f3f3f3}td.num{text-align:right}.bad{color:#a00}"
                    ".note{color:#555;font-size:13px}</style></head><body>\n";
  out += "<h1>" + escape(title) + "</h1>\n";
  out += "<p>Sweep <b>" + escape(v.sweep_name) + "</b> (digest " + escape(v.sweep_digest) + ") on " +
         std::to_string(v.machines.size()) +
         " machines. Decode tok/s is the median steady decode rate; TTFT the median time to first token; "
         "bytes per token what the engine read from storage per decode token.</p>\n";
  // The chart: decode tok/s, one row per point, one bar per machine.
  svg::BarChart chart;
  chart.id = "fleet-decode";
  std::vector<std::string> common;
  chart.categories = distinguishing_labels(v.rows, common);
  chart.title = "Decode tok/s per point and machine";
  chart.value_axis.label = "decode tok/s";
  chart.value_axis.include_zero = true;
  chart.value_label = [](double x) { return sig3(x); };
  for (const std::string& m : v.machines) {
    svg::BarSeries s;
    s.name = m;
    for (const FleetRow& r : v.rows) {
      auto it = r.cells.find(m);
      s.values.push_back(it != r.cells.end() && it->second.status == "ok" ? it->second.decode_tok_s : std::nullopt);
    }
    chart.series.push_back(std::move(s));
  }
  chart.empty_message = "no decode rate measured";
  if (!common.empty()) {
    out += "<p class=\"note\">Every point of the chart: " + escape(join(common, " · ")) +
           "; its labels give what differs between them.</p>\n";
  }
  out += svg::render_bar_chart(chart) + "\n";
  out += "<table><tr><th>#</th><th>point</th>";
  for (const std::string& m : v.machines) {
    out += "<th>" + escape(m) + "</th>";
  }
  out += "</tr>\n";
  for (const FleetRow& r : v.rows) {
    out += "<tr><td class=\"num\">" + std::to_string(r.point_index + 1) + "</td><td>" + escape(r.label) +
           "<br><span class=\"note\">" + escape(r.point_id) + "</span></td>";
    for (const std::string& m : v.machines) {
      auto it = r.cells.find(m);
      auto price = v.prices.find(m);
      if (it == r.cells.end()) {
        out += "<td class=\"note\">not run</td>";
        continue;
      }
      const std::string text = cell_text(it->second, price == v.prices.end() ? nullptr : &price->second);
      out += std::string("<td") + (it->second.status == "ok" ? "" : " class=\"bad\"") + ">";
      std::string html;
      for (std::size_t start = 0;;) {  // one figure per line
        const std::size_t sep = text.find(" · ", start);
        html += escape(text.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
        if (sep == std::string::npos) break;
        html += "<br>";
        start = sep + std::string(" · ").size();
      }
      out += html + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  out += "<ul class=\"note\">";
  for (const auto& [m, runs] : v.sources) out += "<li>" + escape(m) + ": " + escape(join(runs, "; ")) + "</li>";
  out += "</ul>\n";
  if (!v.prices.empty() || !v.notes.empty()) {
    out += "<ul class=\"note\">";
    for (const auto& [m, p] : v.prices) {
      out += "<li>" + escape(m) + ": price " + escape(money(p.usd) + (p.basis == "hourly" ? "/h" : "")) + " (" +
             escape(p.basis) + "; " + escape(p.source) + ")</li>";
    }
    for (const std::string& n : v.notes) out += "<li>" + escape(n) + "</li>";
    out += "</ul>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace moebench
