// progress.h — progress reporting for sweeps: the interface the runner,
// engines and probes report through (none of them prints). QuietProgress
// says nothing, for pipes, CI logs, --quiet and tests; the terminal one is
// harness/terminal_progress.h.
#pragma once

#include <string>

#include "vocab/clock.h"
#include "vocab/measurement.h"

namespace moebench {

class Progress {
 public:
  virtual ~Progress() = default;
  virtual void sweep_started(std::size_t total, std::size_t already_done) = 0;
  virtual void point_started(std::size_t ordinal, const std::string& label) = 0;
  // Engine-side phase within a point ("loading", "rep 2/3"); fraction in [0,1] or < 0.
  virtual void phase(const std::string& what, double fraction) = 0;
  virtual void point_finished(RowStatus status, double wall_s) = 0;
  virtual void note(const std::string& message) = 0;  // a line worth keeping
  virtual void sweep_finished() = 0;
};

class QuietProgress final : public Progress {
 public:
  void sweep_started(std::size_t, std::size_t) override {}
  void point_started(std::size_t, const std::string&) override {}
  void phase(const std::string&, double) override {}
  void point_finished(RowStatus, double) override {}
  void note(const std::string&) override {}
  void sweep_finished() override {}
};

}  // namespace moebench
