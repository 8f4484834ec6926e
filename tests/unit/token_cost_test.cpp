// token_cost_test.cpp — the cost table's arithmetic on a plan row whose
// figures are round numbers, so every cell is known by hand: 100 W, 2 tok/s
// decode, a 1000-token prompt in at least 10 s, a $3,600 machine used 10 h a
// day for 1 year, electricity at $0.30/kWh, an API at $3 in / $15 out.
#include <catch2/catch.hpp>

#include "harness/token_cost.h"
#include "vocab/text.h"

using namespace moebench;

namespace {

PlanRow row(double price, bool hourly) {
  PlanRow r;
  r.name = "test";
  r.e.fits = true;
  r.e.tok_s_real = 2;
  r.e.tok_s_low = 1;
  r.e.tok_s_high = 4;
  r.e.ttft_low_s = 10;
  r.price = price;
  r.hourly = hourly;
  Figure load{100, Provenance::kEstimate, "test", 80.0, 120.0};
  Figure idle{10, Provenance::kEstimate, "test", std::nullopt, std::nullopt};
  r.power = PowerInfo{load, idle};
  return r;
}

}  // namespace

TEST_CASE("token cost: energy, electricity, amortized hardware and break-even by hand", "[cost]") {
  const CostRequest q{0.30, 3, 15, 10, 1};
  const TokenCost c = token_cost(row(3600, false), q, 1000);
  REQUIRE(c.why.empty());
  // Output: 0.5 s per token × 100 W = 50 J; a million of them 5e7 J = 13.889 kWh.
  CHECK(c.j_per_out == Approx(50));
  CHECK(c.kwh_out_m == Approx(5e7 / 3.6e6));
  // The range: 80 W at the fast end (4 tok/s), 120 W at the slow end (1 tok/s).
  CHECK(c.kwh_out_m_low == Approx(80.0 / 4 * 1e6 / 3.6e6));
  CHECK(c.kwh_out_m_high == Approx(120.0 / 1 * 1e6 / 3.6e6));
  // Input: 10 s ÷ 1000 tokens = 10 ms per token, 1 J; a million 0.2778 kWh.
  CHECK(c.j_per_in == Approx(1));
  CHECK(c.kwh_in_m == Approx(1e6 / 3.6e6));
  CHECK(c.elec_out_m == Approx(5e7 / 3.6e6 * 0.30));
  // Hardware: $3600 over 365 × 10 h = 13,140,000 s of use; a million output
  // tokens take 500,000 s.
  const double per_s = 3600.0 / (365 * 10 * 3600.0);
  CHECK(c.hw_out_m == Approx(per_s * 5e5));
  CHECK(c.hw_in_m == Approx(per_s * 1e4));
  CHECK(c.total_out_m == Approx(c.elec_out_m + c.hw_out_m));
  CHECK(c.unit_api_usd == Approx(18));
  // Break-even: $3600 ÷ ($18 − electricity of 1M in + 1M out).
  const double margin = 18 - (c.elec_out_m + c.elec_in_m);
  CHECK(c.break_even.rfind(format_fixed(3600 / margin, 0) + " M in + M out", 0) == 0);
}

TEST_CASE("token cost: a rented machine's electricity is in its price, and missing figures say so", "[cost]") {
  const CostRequest q{0.30, 3, 15, 24, 3};
  const TokenCost rented = token_cost(row(36, true), q, 1000);  // $36 an hour = $0.01 a second
  CHECK(rented.electricity_in_price);
  CHECK(rented.elec_out_m == 0);
  CHECK(rented.hw_out_m == Approx(0.01 * 5e5));
  CHECK(rented.break_even.find("× the API") != std::string::npos);
  PlanRow no_power = row(3600, false);
  no_power.power.reset();
  CHECK(token_cost(no_power, q, 1000).why == "no power figure in the profile");
  PlanRow no_fit = row(3600, false);
  no_fit.e.fits = false;
  CHECK(token_cost(no_fit, q, 1000).why == "no decode figure");
  // Electricity dearer than the API: never.
  const CostRequest pricey{100, 0.01, 0.01, 24, 3};
  CHECK(token_cost(row(3600, false), pricey, 1000).break_even.rfind("never", 0) == 0);
}

TEST_CASE("token cost: --api-price is IN/OUT in dollars per million tokens", "[cost]") {
  auto p = parse_api_price("3/15");
  REQUIRE(p);
  CHECK(p->first == 3);
  CHECK(p->second == 15);
  CHECK(parse_api_price("$0.5/$2.5"));
  CHECK_FALSE(parse_api_price("3"));
  CHECK_FALSE(parse_api_price("3/x"));
  CHECK_FALSE(parse_api_price("-1/5"));
  CHECK_FALSE(parse_api_price("0/0"));
}
