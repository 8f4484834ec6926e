// powercap_test.cpp — the RAPL reader on a fake powercap tree with the
// kernel's file layout: package zones summed, sub-zones skipped, a counter
// wrap at max_energy_range_uj counted once, and each reason it cannot read
// stated. The engines' J/token columns come from this reader, so a wrong
// wrap would be a silently wrong number.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "probes/powercap.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text << "\n";
}

}  // namespace

TEST_CASE("powercap: package counters are summed, wraps counted once, sub-zones skipped", "[energy]") {
  TempDir dir;
  const std::string root = dir.file("powercap");
  put(root + "/intel-rapl:0/name", "package-0");
  put(root + "/intel-rapl:0/energy_uj", "1000000");
  put(root + "/intel-rapl:0/max_energy_range_uj", "10000000");
  put(root + "/intel-rapl:1/name", "package-1");
  put(root + "/intel-rapl:1/energy_uj", "500000");
  put(root + "/intel-rapl:1/max_energy_range_uj", "10000000");
  put(root + "/intel-rapl:0:0/name", "core");  // a sub-zone: inside package-0, not added again
  put(root + "/intel-rapl:0:0/energy_uj", "999999999");
  auto meter = PowercapMeter::open(root);
  REQUIRE(meter);
  CHECK((*meter)->what().find("package-0, package-1") != std::string::npos);
  REQUIRE((*meter)->joules());
  CHECK(*(*meter)->joules() == Approx(0));
  put(root + "/intel-rapl:0/energy_uj", "3000000");  // +2 J
  put(root + "/intel-rapl:1/energy_uj", "1500000");  // +1 J
  CHECK(*(*meter)->joules() == Approx(3));
  put(root + "/intel-rapl:0/energy_uj", "500000");   // wrapped: 10 − 3 + 0.5 = +7.5 J
  CHECK(*(*meter)->joules() == Approx(10.5));
}

TEST_CASE("powercap: each reason it cannot measure is stated", "[energy]") {
  TempDir dir;
  auto absent = PowercapMeter::open(dir.file("none"));
  REQUIRE_FALSE(absent);
  CHECK(absent.error().message.find("does not exist") != std::string::npos);
  std::filesystem::create_directories(dir.file("empty/some-other-zone"));
  auto empty = PowercapMeter::open(dir.file("empty"));
  REQUIRE_FALSE(empty);
  CHECK(empty.error().message.find("no RAPL package zone") != std::string::npos);
  std::filesystem::create_directories(dir.file("unreadable/intel-rapl:0"));  // no energy_uj file
  auto unreadable = PowercapMeter::open(dir.file("unreadable"));
  REQUIRE_FALSE(unreadable);
  CHECK(unreadable.error().message.find("not readable") != std::string::npos);
}
