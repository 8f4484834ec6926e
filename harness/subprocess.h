// subprocess.h — running an external tool (fio, sysbench) without a shell:
// argv in, exit status and captured output back, killed after a timeout.
// Errors are values naming the command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/expected.h"

namespace moebench {

struct ProcessResult {
  int exit_code = -1;  // -1 when ended by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH) with the arguments; captures stdout and
// stderr (through files in `scratch_dir`, removed afterwards). An error is
// returned only when the program cannot be started.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv, double timeout_s,
                                    const std::string& scratch_dir);

// Absolute path of `program` on PATH, or nullopt.
std::optional<std::string> find_program(const std::string& program);

// "fio --output-format=json job.fio" for messages.
std::string command_line(const std::vector<std::string>& argv);

// The last `n` lines of `text`, for error messages.
std::string last_lines(const std::string& text, int n);

}  // namespace moebench
