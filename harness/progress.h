// progress.h — progress reporting for sweeps. The runner and engines report
// through this interface (engines never print). TerminalProgress redraws one
// status line on stderr (point i/N, what runs, ETA); QuietProgress says
// nothing, for pipes, CI logs and --quiet.
#pragma once

#include <cstdio>
#include <string>

#include "harness/clock.h"
#include "harness/measurement.h"

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

class TerminalProgress final : public Progress {
 public:
  TerminalProgress(std::FILE* out, Clock& clock) : out_(out), clock_(clock) {}
  void sweep_started(std::size_t total, std::size_t already_done) override;
  void point_started(std::size_t ordinal, const std::string& label) override;
  void phase(const std::string& what, double fraction) override;
  void point_finished(RowStatus status, double wall_s) override;
  void note(const std::string& message) override;
  void sweep_finished() override;

 private:
  void redraw();
  std::FILE* out_;
  Clock& clock_;
  std::size_t total_ = 0, done_ = 0, done_here_ = 0, ordinal_ = 0;
  double spent_here_s_ = 0;
  double point_start_s_ = 0;
  double last_draw_s_ = -1;
  std::string label_, phase_;
};

// Terminal progress when `stream` is a terminal and not quiet; else quiet.
bool is_terminal(std::FILE* stream);

}  // namespace moebench
