// terminal_progress.h — the Progress a person watches: on a terminal, one
// status line on stderr redrawn in place (point i/N, what runs, ETA), notes
// kept above it; in a log (stderr a file or a pipe: CI, nohup), a plain line
// at most every kLogEveryS seconds, each failed point and each note;
// StderrProgress picks one of them, or none for --quiet.
#pragma once

#include <cstdio>
#include <string>

#include "vocab/clock.h"
#include "vocab/progress.h"

namespace moebench {

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

// Lines for a log: no control characters, no redraws.
class LogProgress final : public Progress {
 public:
  static constexpr double kLogEveryS = 10;
  LogProgress(std::FILE* out, Clock& clock) : out_(out), clock_(clock), start_s_(clock.now_s()), last_line_s_(start_s_) {}
  void sweep_started(std::size_t total, std::size_t already_done) override;
  void point_started(std::size_t ordinal, const std::string& label) override;
  void phase(const std::string& what, double fraction) override;
  void point_finished(RowStatus status, double wall_s) override;
  void note(const std::string& message) override;
  void sweep_finished() override {}

 private:
  void line(const std::string& what);
  std::FILE* out_;
  Clock& clock_;
  double start_s_, last_line_s_;
  std::size_t total_ = 0, done_ = 0, done_here_ = 0, ordinal_ = 0;
  double spent_here_s_ = 0;
  std::string label_;
};

bool is_terminal(std::FILE* stream);
// The terminal's width in characters (120 when `stream` is not a terminal
// or does not say; at least 60).
std::size_t terminal_columns(std::FILE* stream);

// The progress of a command on stderr: the redrawn line on a terminal, log
// lines otherwise, nothing when quiet.
class StderrProgress {
 public:
  StderrProgress(Clock& clock, bool quiet);
  Progress& get() { return *chosen_; }

 private:
  TerminalProgress terminal_;
  LogProgress log_;
  QuietProgress quiet_;
  Progress* chosen_;
};

}  // namespace moebench
