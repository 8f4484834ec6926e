// stats_test.cpp — summary statistics against answers worked out by hand
// (and matching R's quantile(type = 7) and mad(constant = 1)).
#include <catch2/catch.hpp>

#include <cmath>

#include "vocab/stats.h"

using namespace moebench;

TEST_CASE("median of odd and even counts", "[stats]") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({7}) == 7);
  CHECK(std::isnan(median({})));
}

TEST_CASE("quantile uses linear interpolation (type 7)", "[stats]") {
  const std::vector<double> xs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // h = (n-1)p = 0.9 → 1 + 0.9 * (2 - 1)
  CHECK(quantile(xs, 0.10) == Approx(1.9));
  CHECK(quantile(xs, 0.90) == Approx(9.1));
  CHECK(quantile(xs, 0.0) == 1);
  CHECK(quantile(xs, 1.0) == 10);
  CHECK(quantile({5, 1}, 0.25) == Approx(2.0));
}

TEST_CASE("mean, sample stddev and MAD", "[stats]") {
  const std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9};
  CHECK(mean(xs) == 5);
  // Sum of squared deviations 32, n-1 = 7.
  CHECK(stddev(xs) == Approx(std::sqrt(32.0 / 7.0)));
  // Median 4.5; |deviations| 2.5 .5 .5 .5 .5 .5 2.5 4.5 → median 0.5.
  CHECK(mad(xs) == Approx(0.5));
  CHECK(stddev({3}) == 0);
}

TEST_CASE("summarize fills every field and the relative spread", "[stats]") {
  const Summary s = summarize({10, 12, 11, 13, 9});
  CHECK(s.n == 5);
  CHECK(s.median == 11);
  CHECK(s.min == 9);
  CHECK(s.max == 13);
  CHECK(s.mean == 11);
  CHECK(s.stddev == Approx(std::sqrt(10.0 / 4.0)));
  CHECK(s.p10 == Approx(9.4));
  CHECK(s.p90 == Approx(12.6));
  CHECK(s.mad == 1);
  CHECK(s.rel_mad_pct() == Approx(100.0 / 11.0));
}

TEST_CASE("empty input gives NaN statistics, serialized as null", "[stats]") {
  const Summary s = summarize({});
  CHECK(s.n == 0);
  CHECK(std::isnan(s.median));
  const Json j = summary_to_json(s);
  CHECK(j["median"].is_null());
  CHECK(j["n"] == 0);
}

TEST_CASE("relative range is (max - min) / |median|", "[stats]") {
  CHECK(relative_range({1.0, 1.5, 2.0}) == Approx(1.0 / 1.5));  // (2 - 1) / 1.5
  CHECK(relative_range({0.3e9, 0.7e9, 1.5e9}) == Approx(1.2 / 0.7));
  CHECK(relative_range({4}) == 0);
  CHECK(std::isnan(relative_range({})));
  CHECK(std::isnan(relative_range({-1, 0, 1})));  // zero median: no relative figure
}

TEST_CASE("ratios pair the elements and skip missing or zero denominators", "[stats]") {
  const double nan = std::nan("");
  CHECK(ratios({2, 3, 4}, {1, 2, 8}) == std::vector<double>{2, 1.5, 0.5});
  CHECK(ratios({2, nan, 4, 5}, {1, 2, 0, nan}) == std::vector<double>{2});
  CHECK(ratios({1, 2, 3}, {1}) == std::vector<double>{1});  // the shorter length bounds them
  CHECK(ratios({}, {}).empty());
}
