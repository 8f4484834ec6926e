// token_cost.cpp — energy and cost per million tokens (token_cost.h states
// the arithmetic).
#include "harness/token_cost.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "vocab/text.h"

namespace moebench {
namespace {

constexpr double kJPerKwh = 3.6e6;
constexpr double kMillion = 1e6;

std::string usd(double v) {
  if (v >= 100) return "$" + format_fixed(v, 0);
  if (v >= 1) return "$" + format_fixed(v, 2);
  return "$" + format_fixed(v, 3);
}

std::string kwh(double v) { return v >= 10 ? format_fixed(v, 1) : v >= 0.1 ? format_fixed(v, 2) : format_fixed(v, 3); }

std::string days_text(double days) {
  if (days < 2) return format_fixed(days * 24, 1) + " h";
  if (days < 730) return format_fixed(days, 0) + " days";
  return format_fixed(days / 365, 1) + " years";
}

}  // namespace

Expected<std::pair<double, double>> parse_api_price(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [](std::string_view s, double& out) {
    s = trim(s);
    if (!s.empty() && s.front() == '$') s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out) && out >= 0;
  };
  double in = 0, out = 0;
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), in) ||
      !number(std::string_view(text).substr(slash + 1), out)) {
    return make_error("expected IN/OUT in dollars per million tokens, e.g. 3/15, got \"" + text + "\"");
  }
  if (in + out <= 0) return make_error("an API price of \"" + text + "\" costs nothing: give IN/OUT above zero");
  return std::pair<double, double>{in, out};
}

TokenCost token_cost(const PlanRow& r, const CostRequest& q, std::int64_t prompt_tokens) {
  TokenCost c;
  c.unit_api_usd = q.api_in_usd_per_m + q.api_out_usd_per_m;
  if (!r.e.fits || !(r.e.tok_s_real > 0)) {
    c.why = "no decode figure";
    return c;
  }
  if (!r.power) {
    c.why = "no power figure in the profile";
    return c;
  }
  const double w = r.power->load_w.value;
  const double w_lo = r.power->load_w.low.value_or(w), w_hi = r.power->load_w.high.value_or(w);
  const double s_out = 1 / r.e.tok_s_real;
  const double s_in = prompt_tokens > 0 && r.e.ttft_low_s > 0 ? r.e.ttft_low_s / static_cast<double>(prompt_tokens) : 0;
  c.j_per_out = w * s_out;
  c.j_per_in = w * s_in;
  c.kwh_out_m = c.j_per_out * kMillion / kJPerKwh;
  c.kwh_out_m_low = r.e.tok_s_high > 0 ? w_lo / r.e.tok_s_high * kMillion / kJPerKwh : c.kwh_out_m;
  c.kwh_out_m_high = r.e.tok_s_low > 0 ? w_hi / r.e.tok_s_low * kMillion / kJPerKwh : c.kwh_out_m;
  c.kwh_in_m = c.j_per_in * kMillion / kJPerKwh;
  c.electricity_in_price = r.hourly;
  if (!r.hourly) {
    c.elec_out_m = c.kwh_out_m * q.kwh_price_usd;
    c.elec_in_m = c.kwh_in_m * q.kwh_price_usd;
  }
  // The hardware's price per second of use.
  double hw_per_s = 0;
  if (r.price > 0) {
    hw_per_s = r.hourly ? r.price / 3600 : r.price / (q.years * 365 * q.hours_per_day * 3600);
  }
  c.hw_out_m = hw_per_s * s_out * kMillion;
  c.hw_in_m = hw_per_s * s_in * kMillion;
  c.total_out_m = c.elec_out_m + c.hw_out_m;
  c.total_in_m = c.elec_in_m + c.hw_in_m;
  c.unit_machine_usd = c.total_out_m + c.total_in_m;
  const double unit_s = (s_out + s_in) * kMillion;  // machine time for one million in + one million out
  if (r.price <= 0) {
    c.break_even = "no price in the profile";
  } else if (r.hourly) {
    const double ratio = c.unit_machine_usd / c.unit_api_usd;
    c.break_even = ratio <= 1 ? "rent is " + format_fixed(ratio, 2) + "× the API" : "rent costs " + format_fixed(ratio, 1) + "× the API";
  } else {
    const double margin = c.unit_api_usd - (c.elec_out_m + c.elec_in_m);
    if (margin <= 0) {
      c.break_even = "never: electricity alone costs more than the API";
    } else {
      const double units = r.price / margin;
      const double days = units * unit_s / (q.hours_per_day * 3600);
      c.break_even = format_fixed(units, units < 10 ? 1 : 0) + " M in + M out, " + days_text(days) + " at " +
                     format_fixed(q.hours_per_day, 0) + " h/day" +
                     (days > q.years * 365 ? " (not within " + format_fixed(q.years, 0) + " years)" : "");
    }
  }
  return c;
}

std::string write_cost_table(const std::vector<PlanRow>& rows, const CostRequest& q, std::int64_t prompt_tokens) {
  std::string out = fmt::format(
      "\nCost per million tokens: electricity at ${}/kWh, hardware over {} years at {} h/day, against an API at ${} in "
      "/ ${} out per million\n\n",
      format_fixed(q.kwh_price_usd, 2), format_fixed(q.years, 0), format_fixed(q.hours_per_day, 0),
      format_fixed(q.api_in_usd_per_m, 2), format_fixed(q.api_out_usd_per_m, 2));
  out += "| machine | decode tok/s | load W | J per output token | kWh per 1M out (range) | kWh per 1M in | electricity per "
         "1M out / in | hardware per 1M out / in | total per 1M out / in | 1M in + 1M out: here / API | break-even |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const PlanRow& r : rows) {
    const TokenCost c = token_cost(r, q, prompt_tokens);
    if (!c.why.empty()) {
      out += fmt::format("| {} | {} | – | – | – | – | – | – | – | – | {} |\n", r.name,
                         r.e.fits ? format_fixed(r.e.tok_s_real, 3) : "–", c.why);
      continue;
    }
    const std::string elec = c.electricity_in_price ? "in the hourly price" : usd(c.elec_out_m) + " / ≥" + usd(c.elec_in_m);
    const bool priced = r.price > 0;
    const std::string hw = priced ? usd(c.hw_out_m) + " / ≥" + usd(c.hw_in_m) : "– (no price)";
    const std::string total = usd(c.total_out_m) + " / ≥" + usd(c.total_in_m) + (priced ? "" : " (electricity only)");
    out += fmt::format("| {} | {} | {} | {} | {} ({}–{}) | ≥{} | {} | {} | {} | {} / {} | {} |\n", r.name,
                       format_fixed(r.e.tok_s_real, 3), format_fixed(r.power->load_w.value, 0), format_fixed(c.j_per_out, 0),
                       kwh(c.kwh_out_m), kwh(c.kwh_out_m_low), kwh(c.kwh_out_m_high), kwh(c.kwh_in_m), elec, hw, total,
                       usd(c.unit_machine_usd), usd(c.unit_api_usd), c.break_even);
  }
  out += fmt::format(
      "\nEnergy = the profile's load watts (whole setup at the wall, each figure with its source in configs/hardware) × "
      "the seconds a token takes: output at the realistic decode rate, input at the TTFT lower bound for a {}-token "
      "prompt (so input figures are lower bounds, ≥). The kWh range pairs low watts with the fast end and high watts "
      "with the slow end. Hardware: a purchase price spread over {} years × 365 days × {} h of use (busy all those "
      "hours), or the hourly price; rented machines' electricity is in their price. Break-even: the purchase price ÷ "
      "(the API's price of 1M in + 1M out − the electricity for them), in such units, and how long the machine takes "
      "to produce them at {} h/day.\n",
      prompt_tokens, format_fixed(q.years, 0), format_fixed(q.hours_per_day, 0), format_fixed(q.hours_per_day, 0));
  return out;
}

Json cost_json(const std::vector<PlanRow>& rows, const CostRequest& q, std::int64_t prompt_tokens) {
  Json per = Json::array();
  for (const PlanRow& r : rows) {
    const TokenCost c = token_cost(r, q, prompt_tokens);
    if (!c.why.empty()) {
      per.push_back({{"machine", r.name}, {"why", c.why}});
      continue;
    }
    per.push_back({{"machine", r.name},
                   {"joules_per_output_token", c.j_per_out},
                   {"joules_per_input_token_at_least", c.j_per_in},
                   {"kwh_per_million_output", {{"realistic", c.kwh_out_m}, {"low", c.kwh_out_m_low}, {"high", c.kwh_out_m_high}}},
                   {"kwh_per_million_input_at_least", c.kwh_in_m},
                   {"electricity_in_price", c.electricity_in_price},
                   {"usd_per_million_output", {{"electricity", c.elec_out_m}, {"hardware", c.hw_out_m}, {"total", c.total_out_m}}},
                   {"usd_per_million_input_at_least", {{"electricity", c.elec_in_m}, {"hardware", c.hw_in_m}, {"total", c.total_in_m}}},
                   {"unit_usd", {{"machine", c.unit_machine_usd}, {"api", c.unit_api_usd}}},
                   {"break_even", c.break_even}});
  }
  return {{"request", {{"kwh_price_usd", q.kwh_price_usd}, {"api_usd_per_million_in", q.api_in_usd_per_m},
                       {"api_usd_per_million_out", q.api_out_usd_per_m}, {"hours_per_day", q.hours_per_day},
                       {"years", q.years}, {"prompt_tokens", prompt_tokens}}},
          {"unit", "one million input plus one million output tokens"},
          {"machines", per}};
}

}  // namespace moebench
