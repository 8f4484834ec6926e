// deadline.h — turning a duration in seconds (a double from a sweep, the
// command line or an engine) into a steady_clock deadline without overflow.
//
// steady_clock counts int64 nanoseconds: 1e10 s does not fit (9.2e9 s is the
// most), and converting it wraps to a deadline in the past — an immediate
// timeout. The conversion here saturates instead: a duration that is not
// positive (or NaN) is "now", and anything beyond kDeadlineCapS (~31.7
// years, far past every timeout moebench accepts) waits kDeadlineCapS.
#pragma once

#include <algorithm>
#include <chrono>

namespace moebench {

inline constexpr double kDeadlineCapS = 1e9;

// The duration as clock ticks, saturated to [0, kDeadlineCapS].
inline std::chrono::steady_clock::duration saturating_duration(double seconds) {
  using Ticks = std::chrono::steady_clock::duration;
  if (!(seconds > 0)) return Ticks::zero();  // also NaN
  seconds = std::min(seconds, kDeadlineCapS);
  return std::chrono::duration_cast<Ticks>(std::chrono::duration<double>(seconds));
}

// now + seconds, saturated as above; never earlier than `now`.
inline std::chrono::steady_clock::time_point steady_deadline_after(
    double seconds, std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
  using TimePoint = std::chrono::steady_clock::time_point;
  const auto d = saturating_duration(seconds);
  if (TimePoint::max() - now < d) return TimePoint::max();
  return now + d;
}

}  // namespace moebench
