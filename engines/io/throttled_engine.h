// throttled_engine.h — `run --io-throttle`: a decorator that caps every
// drive directory's read rate as a what-if. The inner engine runs a copy of
// the point whose per-drive throttle is min(the sweep's, the cap); the row
// keeps the sweep's point, so its id (what --resume and `moebench compare`
// match on) does not change. Every measurement says so in its notes. For an
// engine that reads no drive while it decodes (EngineCaps::
// reads_drives_decoding false) the point passes unchanged, with a note that
// the cap was not applied.
#pragma once

#include <cstdint>
#include <memory>

#include "engines/engine.h"

namespace moebench {

class IoThrottledEngine final : public Engine {
 public:
  // `reads_drives_decoding`: the inner engine's capability flag (registry.h).
  IoThrottledEngine(std::unique_ptr<Engine> inner, bool reads_drives_decoding, double cap_bytes_s);
  std::string_view name() const override { return inner_->name(); }
  void release() override { inner_->release(); }
  Expected<Measurement> run(const Point& point, RunContext& ctx) override;

  double cap_bytes_s() const { return cap_; }
  // Points run with the cap applied, and passed through unchanged.
  std::uint64_t points_throttled() const { return throttled_; }
  std::uint64_t points_passed() const { return passed_; }

 private:
  std::unique_ptr<Engine> inner_;
  bool applies_;
  double cap_;
  std::uint64_t throttled_ = 0, passed_ = 0;
};

}  // namespace moebench
