// powercap.h — package energy from Linux powercap (RAPL): the counters
// /sys/class/powercap/<zone>/energy_uj of the top-level zones
// ("intel-rapl:0", "intel-rapl:1", …; AMD's RAPL driver uses the same
// names), summed over packages, each counter's wrap at max_energy_range_uj
// handled. Package energy covers the CPU packages (cores, caches, and on
// some parts the memory controller), not DRAM, drives or the board: rows
// say so. Since 2020 the counters are readable by root only on most
// kernels (CVE-2020-8694); open() says which of "absent", "no zones" or
// "not readable" applies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vocab/energy_meter.h"
#include "vocab/expected.h"

namespace moebench {

class PowercapMeter final : public EnergyMeter {
 public:
  // `root`: the powercap class directory (tests pass a fake tree).
  static Expected<std::unique_ptr<PowercapMeter>> open(const std::string& root = "/sys/class/powercap");
  std::optional<double> joules() override;
  std::string what() const override;

 private:
  struct Zone {
    std::string energy_path, name;
    std::uint64_t range_uj = 0;  // wraps back to 0 past this
    std::uint64_t last_uj = 0;
  };
  std::vector<Zone> zones_;
  double total_j_ = 0;
};

}  // namespace moebench
