// subprocess.h — running an external tool (fio, sysbench) without a shell:
// argv in, exit status and captured output back. The tool runs in its own
// process group with default signal handling, so a timeout can kill it and
// every worker it forked (fio forks per job). Errors are values naming the
// command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

struct ProcessOptions {
  double timeout_s = 60;
  // Where stdout/stderr go. Empty: temporary files in scratch_dir, removed
  // after reading. Given: kept (e.g. as evidence beside a profile).
  std::string stdout_path;
  std::string stderr_path;
  std::string scratch_dir = "/tmp";
};

struct ProcessResult {
  int exit_code = -1;  // -1 when ended by a signal
  int signal = 0;
  bool timed_out = false;  // killed (with its process group) at the timeout
  std::string out;
  std::string err;
  // From wait4's rusage (absent after a timeout): bytes the process and the
  // children it waited for read from storage (ru_inblock, which Linux counts
  // as read_bytes / 512: page-cache hits are not in it), and its peak RSS.
  std::optional<std::uint64_t> read_bytes, max_rss_bytes;
  bool ok() const { return exit_code == 0 && !timed_out; }
  // "exited with status 1", "was killed by signal 9 (Killed)", ...
  std::string describe() const;
};

// Runs argv[0] (searched on PATH unless it contains '/'). An error is
// returned only when the program cannot be started or waited for.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

// Absolute path of `program` on PATH, or nullopt.
std::optional<std::string> find_program(const std::string& program);

// "fio --output-format=json job.fio" for messages.
std::string command_line(const std::vector<std::string>& argv);

// The last `n` lines of `text`, for error messages.
std::string last_lines(const std::string& text, int n);

}  // namespace moebench
