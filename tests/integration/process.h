// process.h — running the moebench binary from tests: spawn with arguments,
// capture stdout/stderr to files, wait or signal. POSIX only.
#pragma once

#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "vocab/file_io.h"

extern char** environ;

namespace moebench::testing {

struct Spawned {
  pid_t pid = -1;
  std::string out_path, err_path;
};

inline Spawned spawn_moebench(const std::vector<std::string>& args, const std::string& scratch_dir,
                              const std::string& tag) {
  Spawned s;
  s.out_path = scratch_dir + "/" + tag + ".out";
  s.err_path = scratch_dir + "/" + tag + ".err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, s.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, s.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> full = {MOEBENCH_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&s.pid, MOEBENCH_BINARY, &fa, nullptr, argv.data(), environ) != 0) s.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return s;
}

struct Finished {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

inline Finished wait_for(const Spawned& s) {
  Finished f;
  int status = 0;
  waitpid(s.pid, &status, 0);
  if (WIFEXITED(status)) f.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  f.out = read_file(s.out_path).value();
  f.err = read_file(s.err_path).value();
  return f;
}

inline Finished run_moebench(const std::vector<std::string>& args, const std::string& scratch_dir,
                             const std::string& tag = "cmd") {
  return wait_for(spawn_moebench(args, scratch_dir, tag));
}

// Polls `cond` every 5 ms until it holds or `timeout_s` passes.
inline void wait_until(const std::function<bool()>& cond, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!cond() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// Lines in a file (0 if missing).
inline std::size_t count_lines(const std::string& path) {
  auto text = read_file(path);
  if (!text) return 0;
  std::size_t n = 0;
  for (char c : *text) n += c == '\n' ? 1 : 0;
  return n;
}

}  // namespace moebench::testing
