// throttled_engine.cpp — see throttled_engine.h.
#include "engines/io/throttled_engine.h"

#include <algorithm>
#include <string>

#include "vocab/units.h"

namespace moebench {

IoThrottledEngine::IoThrottledEngine(std::unique_ptr<Engine> inner, bool reads_drives_decoding, double cap_bytes_s)
    : inner_(std::move(inner)), applies_(reads_drives_decoding), cap_(cap_bytes_s) {}

Expected<Measurement> IoThrottledEngine::run(const Point& point, RunContext& ctx) {
  if (!applies_) {
    ++passed_;
    auto m = inner_->run(point, ctx);
    if (m) {
      m->notes.push_back("--io-throttle " + format_rate(cap_) + " not applied: the " + point.engine.name +
                         " engine reads no drive while it decodes");
    }
    return m;
  }
  ++throttled_;
  Point throttled = point;
  const auto& own = point.drives.throttle_bytes_s;
  throttled.drives.throttle_bytes_s = own ? std::min(*own, cap_) : cap_;
  auto m = inner_->run(throttled, ctx);
  if (m) {
    m->notes.push_back("io throttled to " + format_rate(*throttled.drives.throttle_bytes_s) +
                       " per drive by --io-throttle (sweep: " + (own ? format_rate(*own) : std::string("none")) +
                       "; point id unchanged)");
  }
  return m;
}

}  // namespace moebench
