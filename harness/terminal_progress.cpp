// terminal_progress.cpp — see terminal_progress.h.
#include "harness/terminal_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "vocab/units.h"

namespace moebench {

bool is_terminal(std::FILE* stream) { return isatty(fileno(stream)) != 0; }

std::size_t terminal_columns(std::FILE* stream) {
  winsize ws{};
  if (!is_terminal(stream) || ioctl(fileno(stream), TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return 120;
  return std::max<std::size_t>(60, ws.ws_col);
}

namespace {

// The time left, from the points finished in this process ("?" before one).
std::string eta_text(double spent_s, std::size_t done_here, std::size_t done, std::size_t total, double in_point_s) {
  if (done_here == 0) return "?";
  const double per_point = spent_s / static_cast<double>(done_here);
  const double remaining = per_point * static_cast<double>(total - std::min(done, total)) - std::min(in_point_s, per_point);
  return format_duration_s(std::max(0.0, remaining));
}

}  // namespace

StderrProgress::StderrProgress(Clock& clock, bool quiet)
    : terminal_(stderr, clock), log_(stderr, clock), chosen_(&quiet_) {
  if (!quiet) chosen_ = is_terminal(stderr) ? static_cast<Progress*>(&terminal_) : static_cast<Progress*>(&log_);
}

void LogProgress::sweep_started(std::size_t total, std::size_t already_done) {
  total_ = total;
  done_ = already_done;
  start_s_ = last_line_s_ = clock_.now_s();
  fmt::print(out_, "progress: {} point{}{}\n", total, total == 1 ? "" : "s", already_done ? fmt::format(", {} already finished", already_done) : "");
  std::fflush(out_);
}

void LogProgress::point_started(std::size_t ordinal, const std::string& label) {
  ordinal_ = ordinal;
  label_ = label;
}

void LogProgress::phase(const std::string& what, double fraction) {
  if (clock_.now_s() - last_line_s_ < kLogEveryS) return;
  line(what + (fraction >= 0 ? " " + std::to_string(static_cast<int>(fraction * 100)) + "%" : std::string()));
}

void LogProgress::point_finished(RowStatus status, double wall_s) {
  ++done_;
  ++done_here_;
  spent_here_s_ += wall_s;
  if (status != RowStatus::kOk || clock_.now_s() - last_line_s_ >= kLogEveryS || done_ == total_) {
    line(std::string(to_string(status)) + " in " + format_duration_s(wall_s));
  }
}

void LogProgress::note(const std::string& message) {
  fmt::print(out_, "{}\n", message);
  std::fflush(out_);
}

void LogProgress::line(const std::string& what) {
  last_line_s_ = clock_.now_s();
  // A command without points (a probe) reports its phases alone.
  const std::string where = total_ > 0 ? fmt::format("[{}/{}] {} — ", ordinal_, total_, label_) : std::string();
  const std::string eta = total_ > 0 ? ", ETA " + eta_text(spent_here_s_, done_here_, done_, total_, 0) : std::string();
  const std::string text =
      fmt::format("progress: {}{}; {} elapsed{}", where, what, format_duration_s(last_line_s_ - start_s_), eta);
  fmt::print(out_, "{}\n", text);
  std::fflush(out_);
}

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
  const std::string eta = eta_text(spent_here_s_, done_here_, done_, total_, clock_.now_s() - point_start_s_);
  std::string line = fmt::format("[{}/{}] {}", ordinal_, total_, label_);
  if (!phase_.empty()) line += " — " + phase_;
  line += "  ETA " + eta;
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
}

}  // namespace moebench
