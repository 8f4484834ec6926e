// machine_profile_test.cpp — the profile writer and loader are inverses:
// a profile written by `moebench probe` on this machine (committed as
// tests/data/profiles/probed-vm-quick.json) is reproduced byte for byte by
// load → write, and hand-written catalog entries survive load → write → load.
#include <catch2/catch.hpp>

#include "harness/file_io.h"
#include "harness/machine_profile.h"

using namespace moebench;

TEST_CASE("a probed profile round-trips byte for byte", "[profile]") {
  const std::string path = std::string(MOEBENCH_TEST_DATA) + "/profiles/probed-vm-quick.json";
  auto text = read_file(path);
  REQUIRE(text.ok());
  auto profile = load_machine_profile_file(path);
  if (!profile) FAIL(profile.error().message);
  CHECK(machine_profile_to_json(*profile).dump(2) + "\n" == *text);
  // The measured sections are all there.
  CHECK(profile->probe.has_value());
  CHECK(profile->topology.has_value());
  CHECK(profile->memory_bandwidth.has_value());
  CHECK(profile->memory_limits.has_value());
  REQUIRE(!profile->drives.empty());
  REQUIRE(profile->drives[0].device.has_value());
  bool any_fio = false;
  for (const DriveReadPoint& p : profile->drives[0].read_curve) any_fio = any_fio || p.fio.has_value();
  CHECK(any_fio);
  CHECK(profile->memory_read_bytes_s.provenance == Provenance::kMeasured);
  REQUIRE(!profile->kernels.empty());  // kernel throughput, from Google Benchmark
  for (const KernelFigure& k : profile->kernels) {
    CHECK(k.weight_bytes_s.value > 0);
    CHECK(k.gflop_s.value_or(0) > 0);
  }
}

TEST_CASE("catalog profiles survive load → write → load", "[profile]") {
  const std::string path = std::string(MOEBENCH_SOURCE_DIR) + "/configs/hardware/macbook-pro-m5-pro-64gb.json";
  auto first = load_machine_profile_file(path);
  if (!first) FAIL(first.error().message);
  const std::string once = machine_profile_to_json(*first).dump(2);
  auto second = load_config_text<MachineProfile>(once, "rewritten", load_machine_profile);
  if (!second) FAIL(second.error().message);
  CHECK(machine_profile_to_json(*second).dump(2) == once);
  CHECK(second->memory_usable_bytes.low.value() == first->memory_usable_bytes.low.value());
  CHECK(second->drives.size() == 2);
}

TEST_CASE("a drive set must name listed drives", "[profile]") {
  const std::string text = R"({"name": "x",
    "cores": {"value": 2, "provenance": "measured", "source": "hwloc"},
    "memory_total": {"value": 1000000, "provenance": "measured", "source": "meminfo"},
    "memory_usable": {"value": 900000, "provenance": "measured", "source": "probe"},
    "memory_read_bw": {"value": 1e9, "provenance": "measured", "source": "probe"},
    "drives": [{"name": "drive0", "seq_read_bw": {"value": "1GB/s", "provenance": "measured", "source": "probe"}}],
    "drive_sets": [{"drives": ["drive0", "drive7"], "read_curve": []}]})";
  auto p = load_config_text<MachineProfile>(text, "p.json", load_machine_profile);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message.find("p.json: /drive_sets/0/drives: drive \"drive7\" is not listed in /drives") !=
        std::string::npos);
}
