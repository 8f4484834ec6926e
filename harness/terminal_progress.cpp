// terminal_progress.cpp — see terminal_progress.h.
#include "harness/terminal_progress.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "vocab/units.h"

namespace moebench {

bool is_terminal(std::FILE* stream) { return isatty(fileno(stream)) != 0; }

void TerminalProgress::sweep_started(std::size_t total, std::size_t already_done) {
  total_ = total;
  done_ = already_done;
  if (already_done > 0) {
    fmt::print(out_, "resuming: {} of {} points already finished\n", already_done, total);
  }
}

void TerminalProgress::point_started(std::size_t ordinal, const std::string& label) {
  ordinal_ = ordinal;
  label_ = label;
  phase_.clear();
  point_start_s_ = clock_.now_s();
  last_draw_s_ = -1;
  redraw();
}

void TerminalProgress::phase(const std::string& what, double fraction) {
  phase_ = what;
  if (fraction >= 0) phase_ += " " + std::to_string(static_cast<int>(fraction * 100)) + "%";
  // At most ~10 redraws a second.
  if (clock_.now_s() - last_draw_s_ >= 0.1) redraw();
}

void TerminalProgress::point_finished(RowStatus status, double wall_s) {
  ++done_;
  ++done_here_;
  spent_here_s_ += wall_s;
  if (status != RowStatus::kOk) {
    fmt::print(out_, "\r\033[K[{}/{}] {}: {}\n", ordinal_, total_, label_, to_string(status));
  }
}

void TerminalProgress::note(const std::string& message) {
  fmt::print(out_, "\r\033[K{}\n", message);
  redraw();
}

void TerminalProgress::sweep_finished() {
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
}

void TerminalProgress::redraw() {
  last_draw_s_ = clock_.now_s();
  std::string eta = "?";
  if (done_here_ > 0) {
    const double per_point = spent_here_s_ / static_cast<double>(done_here_);
    const double elapsed = clock_.now_s() - point_start_s_;
    const double remaining = per_point * static_cast<double>(total_ - done_) - std::min(elapsed, per_point);
    eta = format_duration_s(std::max(0.0, remaining));
  }
  std::string line = fmt::format("[{}/{}] {}", ordinal_, total_, label_);
  if (!phase_.empty()) line += " — " + phase_;
  line += "  ETA " + eta;
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
}

}  // namespace moebench
