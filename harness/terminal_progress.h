// terminal_progress.h — the Progress a person watches: one status line on
// stderr redrawn in place (point i/N, what runs, ETA), notes kept above it.
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

// Terminal progress when `stream` is a terminal and not quiet; else quiet.
bool is_terminal(std::FILE* stream);

}  // namespace moebench
