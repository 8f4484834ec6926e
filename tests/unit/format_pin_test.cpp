// format_pin_test.cpp — pins the printed forms of sizes, rates, durations and
// fixed/scientific numbers (vocab/units.h, vocab/text.h), byte for byte. The
// expected strings were produced by the to_chars/snprintf implementation these
// helpers had before they moved to {fmt}; any change here is an output change.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "vocab/text.h"
#include "vocab/units.h"

using namespace moebench;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");
struct Pin { double v; const char* want; };
struct PinD { double v; int decimals; const char* want; };
}  // namespace

TEST_CASE("pinned output: format_bytes (binary prefixes, 1024 boundaries)", "[units][format]") {
  const std::vector<Pin> pins = {
      {0x0p+0, "0 B"},
      {-0x0p+0, "-0 B"},
      {0x1p+0, "1 B"},
      {0x1p+9, "512 B"},
      {0x1.ff8p+9, "1023 B"},
      {0x1.ffb3333333333p+9, "1023 B"},
      {0x1.ffcp+9, "1024 B"},
      {0x1p+10, "1.00 KiB"},
      {0x1.8p+10, "1.50 KiB"},
      {-0x1p+11, "-2.00 KiB"},
      {0x1.f3f999999999ap+19, "999.95 KiB"},
      {0x1.fffeb851eb852p+29, "1023.99 MiB"},
      {0x1.ffffep+19, "1024.00 KiB"},
      {0x1.ffff5c28f5c29p+29, "1024.00 MiB"},
      {0x1p+33, "8.00 GiB"},
      {0x1.7cdfa98p+33, "11.90 GiB"},
      {0x1.8p+41, "3.00 TiB"},
      {0x1.4p+52, "5.00 PiB"},
      {0x1p+60, "1024.00 PiB"},
      {kInf, "inf PiB"},
      {-kInf, "-inf PiB"},
      {kNaN, "nan B"},
      {-0x1p+0, "-1 B"},
  };
  for (const Pin& p : pins) {
    INFO(p.v);
    CHECK(format_bytes(p.v) == p.want);
  }
}

// Pinned from model_card.cpp's decimal_bytes, which format_bytes_decimal replaced.
TEST_CASE("pinned output: format_bytes_decimal (the card report's decimal sizes)", "[units][format]") {
  const std::vector<Pin> pins = {
      {0x0p+0, "0 B"},
      {0x1p+0, "1 B"},
      {0x1.f38p+9, "999 B"},
      {0x1.f3cp+9, "1000 B"},
      {0x1.f4p+9, "1.00 kB"},
      {0x1.e8476p+19, "1000.00 kB"},
      {0x1.e8474p+19, "999.99 kB"},
      {0x1.7cdfa98p+33, "12.78 GB"},
      {0x1.c6bf52634p+49, "1.00 PB"},
      {0x1.bc16d674ec8p+59, "1000.00 PB"},
      {-0x1.388p+12, "-5000 B"},
      {0x1p+33, "8.59 GB"},
  };
  for (const Pin& p : pins) {
    INFO(p.v);
    CHECK(format_bytes_decimal(p.v) == p.want);
  }
}

TEST_CASE("pinned output: format_rate (decimal prefixes, 999.995 boundaries)", "[units][format]") {
  const std::vector<Pin> pins = {
      {0x0p+0, "0.00 B/s"},
      {-0x0p+0, "-0.00 B/s"},
      {0x1p+0, "1.00 B/s"},
      {0x1.f3feb851eb852p+9, "999.99 B/s"},
      {0x1.f3ff5c28f5c29p+9, "1000.00 B/s"},
      {0x1.f3ff3b645a1cbp+9, "999.99 B/s"},
      {0x1.f4p+9, "1.00 KB/s"},
      {0x1.6a657p+30, "1.52 GB/s"},
      {0x1.7cdfa98p+33, "12.78 GB/s"},
      {0x1.dcd0358p+29, "999.95 MB/s"},
      {0x1.dcd5b3cp+29, "1000.00 MB/s"},
      {0x1.c6bf52634p+49, "1000.00 TB/s"},
      {-0x1.e848p+19, "-1.00 MB/s"},
      {kInf, "inf TB/s"},
      {kNaN, "nan B/s"},
      {0x1.0624dd2f1a9fcp-8, "0.00 B/s"},
      {0x1.47ae147ae147bp-8, "0.01 B/s"},
      {0x1.eb851eb851eb8p-7, "0.01 B/s"},
  };
  for (const Pin& p : pins) {
    INFO(p.v);
    CHECK(format_rate(p.v) == p.want);
  }
}

TEST_CASE("pinned output: format_duration_s (ms, s, m, h, negative and non-finite are ?)", "[units][format]") {
  const std::vector<Pin> pins = {
      {0x0p+0, "0 ms"},
      {-0x0p+0, "-0 ms"},
      {-0x1p+0, "?"},
      {0x1.a36e2eb1c432dp-12, "0 ms"},
      {0x1.0624dd2f1a9fcp-11, "0 ms"},
      {0x1.89374bc6a7efap-10, "2 ms"},
      {0x1.b333333333333p-1, "850 ms"},
      {0x1.ffb15b573eab3p-1, "999 ms"},
      {0x1.ffcb923a29c78p-1, "1000 ms"},
      {0x1p+0, "1.0 s"},
      {0x1.ap+1, "3.2 s"},
      {0x1.9eb851eb851ecp+1, "3.2 s"},
      {0x1.df851eb851eb8p+5, "59.9 s"},
      {0x1.dfae147ae147bp+5, "60.0 s"},
      {0x1.ep+5, "1m00s"},
      {0x1.04p+6, "1m05s"},
      {0x1.06p+6, "1m06s"},
      {0x1.c1ecccccccccdp+11, "59m59s"},
      {0x1.c1fp+11, "1h00m00s"},
      {0x1.c2p+11, "1h00m00s"},
      {0x1.c9ap+11, "1h01m01s"},
      {0x1.51828p+17, "48h00m05s"},
      {kInf, "?"},
      {kNaN, "?"},
  };
  for (const Pin& p : pins) {
    INFO(p.v);
    CHECK(format_duration_s(p.v) == p.want);
  }
}

TEST_CASE("pinned output: format_fixed (exact rounding, signed zero, non-finite)", "[units][format]") {
  const std::vector<PinD> pins = {
      {0x0p+0, 0, "0"},
      {0x0p+0, 1, "0.0"},
      {0x0p+0, 2, "0.00"},
      {0x0p+0, 3, "0.000"},
      {-0x0p+0, 0, "-0"},
      {-0x0p+0, 1, "-0.0"},
      {-0x0p+0, 2, "-0.00"},
      {-0x0p+0, 3, "-0.000"},
      {0x1.3c083126e978dp+0, 0, "1"},
      {0x1.3c083126e978dp+0, 1, "1.2"},
      {0x1.3c083126e978dp+0, 2, "1.23"},
      {0x1.3c083126e978dp+0, 3, "1.234"},
      {0x1.3c28f5c28f5c3p+0, 0, "1"},
      {0x1.3c28f5c28f5c3p+0, 1, "1.2"},
      {0x1.3c28f5c28f5c3p+0, 2, "1.24"},
      {0x1.3c28f5c28f5c3p+0, 3, "1.235"},
      {0x1.4p+1, 0, "2"},
      {0x1.4p+1, 1, "2.5"},
      {0x1.4p+1, 2, "2.50"},
      {0x1.4p+1, 3, "2.500"},
      {0x1.cp+1, 0, "4"},
      {0x1.cp+1, 1, "3.5"},
      {0x1.cp+1, 2, "3.50"},
      {0x1.cp+1, 3, "3.500"},
      {-0x1.0624dd2f1a9fcp-10, 0, "-0"},
      {-0x1.0624dd2f1a9fcp-10, 1, "-0.0"},
      {-0x1.0624dd2f1a9fcp-10, 2, "-0.00"},
      {-0x1.0624dd2f1a9fcp-10, 3, "-0.001"},
      {0x1.f3f999999999ap+9, 0, "1000"},
      {0x1.f3f999999999ap+9, 1, "1000.0"},
      {0x1.f3f999999999ap+9, 2, "999.95"},
      {0x1.f3f999999999ap+9, 3, "999.950"},
      {0x1.b1ae4d6e2ef5p+69, 0, "1000000000000000000000"},
      {0x1.b1ae4d6e2ef5p+69, 1, "1000000000000000000000.0"},
      {0x1.b1ae4d6e2ef5p+69, 2, "1000000000000000000000.00"},
      {0x1.b1ae4d6e2ef5p+69, 3, "1000000000000000000000.000"},
      {0x1.d6f34548p+26, 0, "123456789"},
      {0x1.d6f34548p+26, 1, "123456789.1"},
      {0x1.d6f34548p+26, 2, "123456789.12"},
      {0x1.d6f34548p+26, 3, "123456789.125"},
      {kInf, 0, "inf"},
      {kInf, 1, "inf"},
      {kInf, 2, "inf"},
      {kInf, 3, "inf"},
      {-kInf, 0, "-inf"},
      {-kInf, 1, "-inf"},
      {-kInf, 2, "-inf"},
      {-kInf, 3, "-inf"},
      {kNaN, 0, "nan"},
      {kNaN, 1, "nan"},
      {kNaN, 2, "nan"},
      {kNaN, 3, "nan"},
      {-kNaN, 0, "-nan"},
      {-kNaN, 1, "-nan"},
      {-kNaN, 2, "-nan"},
      {-kNaN, 3, "-nan"},
  };
  for (const PinD& p : pins) {
    INFO(p.v << " " << p.decimals);
    CHECK(format_fixed(p.v, p.decimals) == p.want);
  }
}

TEST_CASE("pinned output: format_scientific", "[units][format]") {
  const std::vector<PinD> pins = {
      {0x0p+0, 0, "0e+00"},
      {0x0p+0, 2, "0.00e+00"},
      {0x0p+0, 3, "0.000e+00"},
      {0x1.81c8p+13, 0, "1e+04"},
      {0x1.81c8p+13, 2, "1.23e+04"},
      {0x1.81c8p+13, 3, "1.234e+04"},
      {0x1.421f5f40d8376p-23, 0, "1e-07"},
      {0x1.421f5f40d8376p-23, 2, "1.50e-07"},
      {0x1.421f5f40d8376p-23, 3, "1.500e-07"},
      {-0x1.ddd4baa009303p+997, 0, "-3e+300"},
      {-0x1.ddd4baa009303p+997, 2, "-2.50e+300"},
      {-0x1.ddd4baa009303p+997, 3, "-2.500e+300"},
      {kInf, 0, "inf"},
      {kInf, 2, "inf"},
      {kInf, 3, "inf"},
      {kNaN, 0, "nan"},
      {kNaN, 2, "nan"},
      {kNaN, 3, "nan"},
      {0x1.3ffbe76c8b439p+3, 0, "1e+01"},
      {0x1.3ffbe76c8b439p+3, 2, "1.00e+01"},
      {0x1.3ffbe76c8b439p+3, 3, "9.999e+00"},
  };
  for (const PinD& p : pins) {
    INFO(p.v << " " << p.decimals);
    CHECK(format_scientific(p.v, p.decimals) == p.want);
  }
}

TEST_CASE("pinned output: hex64", "[units][format]") {
  CHECK(hex64(0) == "0000000000000000");
  CHECK(hex64(0xdeadbeefcafef00dull) == "deadbeefcafef00d");
}
