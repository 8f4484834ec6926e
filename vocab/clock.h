// clock.h — the one clock interface. Production code uses SteadyClock
// (std::chrono::steady_clock, monotonic); tests inject FakeClock so that
// timeouts, ETAs and engine timelines are deterministic.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

namespace moebench {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_s() const = 0;          // seconds since an arbitrary epoch
  virtual void sleep_for_s(double s) = 0;
};

class SteadyClock final : public Clock {
 public:
  double now_s() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void sleep_for_s(double s) override {
    if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
  }
};

// Time moves only when told to (sleep_for_s advances it instantly).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(double start_s = 1000.0) : t_(start_s) {}
  double now_s() const override { return t_.load(); }
  void sleep_for_s(double s) override { advance(s); }
  void advance(double s) {
    double cur = t_.load();
    while (!t_.compare_exchange_weak(cur, cur + (s > 0 ? s : 0))) {
    }
  }

 private:
  std::atomic<double> t_;
};

}  // namespace moebench
