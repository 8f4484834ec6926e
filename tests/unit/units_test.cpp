// units_test.cpp — sizes and rates as configs spell them.
#include <catch2/catch.hpp>

#include "vocab/units.h"

using namespace moebench;

TEST_CASE("sizes: binary and decimal prefixes, plain bytes", "[units]") {
  CHECK(*parse_size_bytes("8GiB") == 8ull << 30);
  CHECK(*parse_size_bytes("12.78GB") == 12780000000ull);
  CHECK(*parse_size_bytes("4096") == 4096);
  CHECK(*parse_size_bytes("4096B") == 4096);
  CHECK(*parse_size_bytes(" 512 MiB ") == 512ull << 20);
  CHECK(*parse_size_bytes("1.5KiB") == 1536);
  CHECK(*parse_size_bytes("17547264") == 17547264);
  CHECK(*parse_size_bytes("2TB") == 2000000000000ull);
}

TEST_CASE("sizes: bad spellings are errors that show an accepted form", "[units]") {
  for (const char* bad : {"8 gigs", "", "GiB", "-4GiB", "0", "0GiB", "1.5", "8gib", "1e30TiB", "nan"}) {
    INFO(bad);
    auto r = parse_size_bytes(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(!r.error().message.empty());
  }
  CHECK(parse_size_bytes("8 gigs").error().message.find("\"8GiB\"") != std::string::npos);
  CHECK(parse_size_bytes("-4GiB").error().message.find("greater than zero") != std::string::npos);
}

TEST_CASE("rates", "[units]") {
  CHECK(*parse_rate_bytes_s("12.78GB/s") == Approx(12.78e9));
  CHECK(*parse_rate_bytes_s("200MB/s") == Approx(200e6));
  CHECK(*parse_rate_bytes_s("1GiB/s") == Approx(1073741824.0));
  CHECK(*parse_rate_bytes_s("1500000") == Approx(1.5e6));
  CHECK_FALSE(parse_rate_bytes_s("12.78GB").ok());  // a size is not a rate
  CHECK_FALSE(parse_rate_bytes_s("fast").ok());
  CHECK_FALSE(parse_rate_bytes_s("0MB/s").ok());
}

TEST_CASE("printing", "[units]") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(8.0 * (1ull << 30)) == "8.00 GiB");
  CHECK(format_rate(1.52e9) == "1.52 GB/s");
  CHECK(format_duration_s(0.85) == "850 ms");
  CHECK(format_duration_s(3.25) == "3.2 s");
  CHECK(format_duration_s(65) == "1m05s");
  CHECK(format_duration_s(3725) == "1h02m05s");
}
