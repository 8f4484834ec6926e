// energy_meter.h — the one energy-counter interface, beside the clock: the
// engines read it at the edges of their prefill and decode windows, so a
// row carries joules per prompt token and per decode token where the
// machine exposes a counter. The Linux implementation reads powercap
// (RAPL) package counters (probes/powercap.h); tests inject FakeEnergyMeter.
// Where no counter is readable there is no meter, and the rows say why in a
// note — never an estimate in a measured column.
#pragma once

#include <optional>
#include <string>

namespace moebench {

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  // Joules since an arbitrary origin, monotonic (counter wraps handled);
  // nullopt when a read fails.
  virtual std::optional<double> joules() = 0;
  // What is counted, e.g. "RAPL package energy, 2 packages (powercap)".
  virtual std::string what() const = 0;
};

// Energy moves only when told to.
class FakeEnergyMeter final : public EnergyMeter {
 public:
  std::optional<double> joules() override { return j_; }
  std::string what() const override { return "fake energy meter"; }
  void add(double j) { j_ += j; }

 private:
  double j_ = 0;
};

}  // namespace moebench
