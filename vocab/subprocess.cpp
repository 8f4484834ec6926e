// subprocess.cpp — see subprocess.h. posix_spawnp, output redirected to
// files (no pipes to drain, so a chatty tool cannot dead-lock us), polling
// waitpid until the deadline.
#include "vocab/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "vocab/deadline.h"
#include "vocab/file_io.h"
#include "vocab/text.h"

extern char** environ;

namespace moebench {

namespace {

// Quoted so the printed command can be pasted into a shell.
std::string shell_quote_for_display(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`") == std::string::npos) return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  for (const std::string& a : argv) quoted.push_back(shell_quote_for_display(a));
  return join(quoted, " ");
}

std::string last_lines(const std::string& text, int n) {
  std::size_t pos = text.size();
  while (pos > 0 && (text[pos - 1] == '\n')) --pos;
  std::size_t start = pos;
  for (int lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == n) break;
  }
  return text.substr(start, pos - start);
}

std::optional<std::string> find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? std::optional<std::string>(program) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  for (const std::string& dir : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

std::string ProcessResult::describe() const {
  if (timed_out) return "was killed at its timeout";
  if (signal != 0) {
    const char* name = strsignal(signal);
    return "was killed by signal " + std::to_string(signal) + (name != nullptr ? " (" + std::string(name) + ")" : "");
  }
  return "exited with status " + std::to_string(exit_code);
}

Expected<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) return make_error("run_process: empty command");
  static std::atomic<unsigned> counter{0};
  const std::string base = options.scratch_dir + "/proc-" + std::to_string(getpid()) + "-" +
                           std::to_string(counter.fetch_add(1));
  const bool temp_out = options.stdout_path.empty();
  const bool temp_err = options.stderr_path.empty();
  const std::string out_path = temp_out ? base + ".out" : options.stdout_path;
  const std::string err_path = temp_err ? base + ".err" : options.stderr_path;

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // Own process group (so a timeout kills the whole tree), empty signal
  // mask and default dispositions (our SIGINT handler must not leak in).
  sigset_t empty_mask, defaults;
  sigemptyset(&empty_mask);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &empty_mask);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                     POSIX_SPAWN_SETSIGDEF));
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, cargv[0], &fa, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  auto cleanup = [&] {
    if (temp_out) unlink(out_path.c_str());
    if (temp_err) unlink(err_path.c_str());
  };
  if (rc != 0) {
    cleanup();
    return make_error("cannot start \"" + command_line(argv) + "\": " + std::strerror(rc) +
                      " (is it installed and executable? can " + out_path + " be written?)");
  }
  ProcessResult r;
  using Clock = std::chrono::steady_clock;
  const auto deadline = steady_deadline_after(options.timeout_s);  // saturating: a huge timeout is not 0
  int status = 0;
  struct rusage usage {};
  auto poll = std::chrono::milliseconds(1);
  while (true) {
    const pid_t w = wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) {
      r.read_bytes = static_cast<std::uint64_t>(usage.ru_inblock) * 512;
      r.max_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
      break;
    }
    if (w < 0 && errno != EINTR) {
      const std::string why = std::strerror(errno);
      cleanup();
      return make_error("waiting for \"" + command_line(argv) + "\" failed: " + why +
                        " (is SIGCHLD ignored in this process?)");
    }
    if (Clock::now() >= deadline) {
      kill(-pid, SIGKILL);  // the whole group: a tool's forked workers too
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(poll);
    poll = std::min(poll * 2, std::chrono::milliseconds(50));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_file(out_path).value_or("");
  r.err = read_file(err_path).value_or("");
  cleanup();
  return r;
}

}  // namespace moebench
