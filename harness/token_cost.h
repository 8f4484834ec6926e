// token_cost.h — what a million tokens cost on a planned machine: energy,
// electricity, the hardware amortized over its stated life, and the
// break-even against an API's price (`moebench plan --kwh-price P
// --api-price IN/OUT --hours-per-day H --years Y`).
//
// Pure arithmetic on a plan row (harness/machine_plan.h) and its profile's
// power figures (vocab/machine_profile.h: PowerInfo, each with its source):
//   seconds       output: 1 ÷ the realistic decode tok/s; input: the TTFT
//                 lower bound ÷ the prompt (a lower bound on the time, so
//                 every input figure is a lower bound, marked ≥);
//   energy        load watts × seconds (J); per million tokens in kWh; the
//                 range pairs the low watts with the fast end and the high
//                 watts with the slow end;
//   electricity   kWh × the price per kWh (an hourly-priced machine's
//                 electricity is in its hourly price: not added);
//   hardware      a purchase price spread over years × 365 × hours per day
//                 of use (the machine busy all those hours), or the hourly
//                 price, × the seconds;
//   break-even    against the API's price for one million input plus one
//                 million output tokens: purchase price ÷ (API − electricity)
//                 units, and the days at the stated hours that takes;
//                 "never" when electricity alone costs more than the API,
//                 "not within the life" when it takes longer than it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/machine_plan.h"

namespace moebench {

struct CostRequest {
  double kwh_price_usd = 0;
  double api_in_usd_per_m = 0, api_out_usd_per_m = 0;  // per million tokens
  double hours_per_day = 24;
  double years = 3;
};

// "3/15" → (3, 15): dollars per million input and output tokens.
Expected<std::pair<double, double>> parse_api_price(const std::string& text);

struct TokenCost {
  std::string why;                   // not empty: no figures, and why
  double j_per_out = 0, j_per_in = 0;          // joules per token (realistic; input a lower bound)
  double kwh_out_m = 0, kwh_out_m_low = 0, kwh_out_m_high = 0;  // per million output tokens
  double kwh_in_m = 0;               // per million input tokens (lower bound)
  double elec_out_m = 0, elec_in_m = 0;        // USD per million (0 when the hourly price includes it)
  double hw_out_m = 0, hw_in_m = 0;            // USD per million, amortized
  double total_out_m = 0, total_in_m = 0;      // electricity + hardware
  double unit_machine_usd = 0;       // one million in + one million out
  double unit_api_usd = 0;
  std::string break_even;            // one cell
  bool electricity_in_price = false; // hourly-priced: electricity is in the price
};

TokenCost token_cost(const PlanRow& row, const CostRequest& q, std::int64_t prompt_tokens);

// The table (one row per plan row) and its footnote with the arithmetic.
std::string write_cost_table(const std::vector<PlanRow>& rows, const CostRequest& q, std::int64_t prompt_tokens);

// The same figures as JSON (`plan --json` with a price): the request and one
// object per plan row, in rank order; a row without figures has only
// "machine" and "why".
Json cost_json(const std::vector<PlanRow>& rows, const CostRequest& q, std::int64_t prompt_tokens);

}  // namespace moebench
