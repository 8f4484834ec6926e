// memory_limits.cpp — an active probe of how much memory this process can
// really touch, hold and lock. See memory_limits.h. The limits themselves
// (parsers, read_memory_limits(), the binding limit) are in
// engines/executor/memory_limits.cpp, shared with the engines; recognising
// unified memory is in unified_memory.cpp.
//
// probe_usable_memory() forks a child (memory_child.h) that does all the large allocation. The
// parent computes the target and prepares every buffer the child needs before
// fork(), so the child never touches the heap (safe even if the caller is
// multi-threaded); it uses only system calls, reports one fixed-size struct
// through a pipe (a single write, smaller than PIPE_BUF) and _exit()s. The
// parent waits with a timeout, kills the child if it hangs, and turns a death
// by signal (the OOM killer's SIGKILL) into an error value.
//
// Safety: the target stays a margin below the binding limit, the child sets
// oom_score_adj to 1000 (the OOM killer picks it before anything else), and
// before every chunk it re-reads MemAvailable and stops if the chunk would eat
// into half the margin (another process may be allocating at the same time).
//
// Linux is the tested platform. On other systems (macOS) /proc, cgroups,
// oom_score_adj, swap and MemAvailable are unavailable: the functions return
// what they can (sysconf for the physical memory size, getrlimit) with notes.
#include "probes/memory_limits.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "probes/memory_child.h"
#include "vocab/text.h"
#include "vocab/units.h"

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

namespace moebench {
namespace {

constexpr double kBaseTimeoutS = 120.0;

std::string errno_text(int err) { return std::strerror(err); }

std::uint64_t page_size() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::uint64_t>(p) : 4096;
}

std::string signal_text(int sig) {
  const char* name = ::strsignal(sig);
  std::string s = "signal " + std::to_string(sig);
  if (name != nullptr) s += " (" + std::string(name) + ")";
  return s;
}

// Waits for the child's report and exit. Returns an error on timeout (after
// killing the child), on death by signal, or on a missing report.
Expected<ChildReport> collect_child(pid_t pid, int read_fd, double timeout_s,
                                    const std::string& context) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  alignas(ChildReport) unsigned char raw[sizeof(ChildReport)];
  std::size_t got = 0;
  bool eof = false;
  bool reaped = false;
  bool status_known = true;
  int status = 0;
  while (!reaped) {
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return make_error("memory probe: the child process (pid " + std::to_string(pid) +
                        ") did not finish within " + format_fixed(timeout_s, 0) +
                        " s and was killed (" + context +
                        "); the host may be swapping or very slow — retry with a smaller "
                        "max_bytes (--quick)");
    }
    if (!eof) {
      struct pollfd pfd {};
      pfd.fd = read_fd;
      pfd.events = POLLIN;
      const int pr = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left_ms, 200)));
      if (pr < 0 && errno != EINTR) eof = true;
      if (pr > 0) {
        const ssize_t n = ::read(read_fd, raw + got, sizeof raw - got);
        if (n > 0) {
          got += static_cast<std::size_t>(n);
          if (got == sizeof raw) eof = true;
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          eof = true;
        }
      }
    } else {
      sleep_s(0.005);
    }
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = true;
    } else if (w < 0 && errno == ECHILD) {  // reaped by someone else (SIGCHLD ignored)
      reaped = true;
      status_known = false;
    }
  }
  // Drain what the child wrote before exiting.
  while (got < sizeof raw) {
    const ssize_t n = ::read(read_fd, raw + got, sizeof raw - got);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }

  if (status_known && WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string msg = "memory probe: the child process (pid " + std::to_string(pid) +
                      ") was killed by " + signal_text(sig) + " (" + context + ")";
    if (sig == SIGKILL) {
      msg += "; most likely the kernel OOM killer: the limits read understate the memory "
             "pressure on this host — retry with a larger margin_fraction or a smaller "
             "max_bytes, and check dmesg for \"Out of memory\"";
    }
    return make_error(msg);
  }
  if (status_known && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return make_error("memory probe: the child process exited with status " +
                      std::to_string(WEXITSTATUS(status)) + " before reporting (" + context +
                      ")");
  }
  ChildReport r;
  if (got != sizeof raw) {
    return make_error("memory probe: the child process ended without a complete report (" +
                      std::to_string(got) + " of " + std::to_string(sizeof raw) + " bytes; " +
                      context + ")");
  }
  std::memcpy(&r, raw, sizeof r);
  if (r.magic != kReportMagic) return make_error("memory probe: the child's report is corrupt");
  return r;
}

}  // namespace

// ---- the probe ----------------------------------------------------------------

namespace {

// What the child touches up to: the binding limit less the safety margin
// (or max_bytes below it), whole pages.
struct ProbeTarget {
  MemoryBinding binding;
  std::uint64_t margin = 0, target = 0;
  std::string bound_name;
};

Expected<ProbeTarget> probe_target(const MemoryLimits& limits, const UsableMemoryOptions& options, std::uint64_t page) {
  ProbeTarget t;
  // Computed right before fork(): the child's VmSize equals ours.
  t.binding = limits.binding();
  const MemoryBinding& binding = t.binding;
  if (!binding.known) {
    return make_error("memory probe: no memory limit is known (MemTotal unreadable and no "
                      "cgroup or rlimit); cannot choose a safe target");
  }
  const std::uint64_t margin = t.margin =
      std::max(static_cast<std::uint64_t>(options.margin_fraction * static_cast<double>(binding.bytes)),
               options.min_margin_bytes);
  if (binding.bytes <= margin) {
    return make_error("memory probe: the binding limit (" + binding.name + ", " +
                      format_bytes(static_cast<double>(binding.bytes)) +
                      ") is not above the safety margin (" +
                      format_bytes(static_cast<double>(margin)) +
                      "); free some memory or lower min_margin_bytes / margin_fraction");
  }
  std::uint64_t& target = t.target;
  std::string& bound_name = t.bound_name;
  target = binding.bytes - margin;
  bound_name = binding.name;
  if (options.max_bytes && *options.max_bytes < target) {
    target = *options.max_bytes;
    bound_name = "max_bytes";
  }
  target = target / page * page;
  if (target == 0) return make_error("memory probe: max_bytes is smaller than one page");
  return t;
}

// Why the touch stopped, and what bound it, from the child's report.
void read_stop(const ChildReport& r, const std::string& bound_name, double max_touch_s, UsableMemoryResult& res) {
  const std::string dropped =
      r.dropped ? "; the last chunk (" + format_bytes(static_cast<double>(r.dropped)) +
                      ") was released and is not counted"
                : "";
  switch (r.stop) {
    case Stop::kTarget:
      res.stop_reason = "target reached";
      res.bound_by = bound_name;
      break;
    case Stop::kAllocFailed:
      res.stop_reason = "allocation failed (mmap: " + errno_text(r.alloc_errno) + ")";
      res.bound_by = "allocation failure";
      break;
    case Stop::kSwap:
      res.stop_reason = "swap activity";
      res.bound_by = "swap activity";
      res.notes.push_back("pswpout rose by " + std::to_string(r.swap_out_pages) +
                          " pages while touching" + dropped);
      break;
    case Stop::kCollapse:
      res.stop_reason = "touch-rate collapse";
      res.bound_by = "touch-rate collapse";
      res.notes.push_back("a chunk touched at " + format_rate(r.stop_rate) + " against a median of " +
                          format_rate(r.stop_median) + dropped);
      break;
    case Stop::kTimeBudget:
      res.stop_reason = "time budget of " + format_fixed(max_touch_s, 0) +
                        " s reached: a lower bound (run the full probe for the real figure)";
      res.bound_by = "time budget";
      break;
    case Stop::kPressure:
      res.stop_reason = "memory pressure";
      res.bound_by = "memory pressure";
      res.notes.push_back("MemAvailable fell to " +
                          format_bytes(static_cast<double>(r.mem_available_at_stop)) +
                          ", too close to the safety margin for another chunk");
      break;
  }
}

// The report's side facts: the OOM score, what was watched, residency after
// the hold, how far mlock went.
void read_report_notes(const ChildReport& r, std::uint64_t memlock_budget, UsableMemoryResult& res) {
  if (r.oom_adj_errno == -1) {
    res.notes.push_back("oom_score_adj: not available on this OS");
  } else if (r.oom_adj_errno != 0) {
    res.notes.push_back("could not set the probe's oom_score_adj to 1000: " +
                        errno_text(r.oom_adj_errno) +
                        " (the OOM killer may not pick the probe first)");
  }
#if defined(__linux__)
  if (!r.swap_watched) res.notes.push_back("/proc/vmstat pswpout unreadable: swap activity not watched");
  if (!r.pressure_watched) res.notes.push_back("/proc/meminfo unreadable: MemAvailable not watched");
#else
  res.notes.push_back("swap activity and MemAvailable: not available on this OS, not watched");
#endif
  if (r.mincore_errno != 0) {
    res.notes.push_back("mincore failed (" + errno_text(r.mincore_errno) +
                        "): held_bytes counts only the chunks it could check");
  } else if (r.held < r.touchable) {
    res.notes.push_back(format_bytes(static_cast<double>(r.touchable - r.held)) +
                        " of the touched memory was no longer resident after the hold");
  }
  switch (r.lock_stop) {
    case LockStop::kAll:
      res.notes.push_back("mlock: all touched memory could be locked");
      break;
    case LockStop::kRlimit:
      res.notes.push_back("mlock stopped at RLIMIT_MEMLOCK (" +
                          format_bytes(static_cast<double>(memlock_budget)) +
                          "); raise it (ulimit -l, limits.conf) to lock more");
      break;
    case LockStop::kFailed:
      res.notes.push_back("mlock failed after " + format_bytes(static_cast<double>(r.lockable)) +
                          ": " + errno_text(r.lock_errno));
      break;
  }
}

}  // namespace

Expected<UsableMemoryResult> probe_usable_memory(const MemoryLimits& limits,
                                                 const UsableMemoryOptions& options) {
  if (!(options.margin_fraction >= 0 && options.margin_fraction < 1)) {
    return make_error("memory probe: margin_fraction must be in [0, 1), got " +
                      format_fixed(options.margin_fraction, 3));
  }
  if (!(options.collapse_ratio >= 0 && options.collapse_ratio < 1)) {
    return make_error("memory probe: collapse_ratio must be in [0, 1), got " +
                      format_fixed(options.collapse_ratio, 3));
  }
  if (!(options.hold_s >= 0 && options.hold_s <= 3600)) {
    return make_error("memory probe: hold_s must be between 0 and 3600 s, got " +
                      format_fixed(options.hold_s, 3));
  }
  const std::uint64_t page = page_size();
  const std::uint64_t chunk = options.chunk_bytes / page * page;
  if (chunk == 0) {
    return make_error("memory probe: chunk_bytes (" + std::to_string(options.chunk_bytes) +
                      ") must be at least one page (" + std::to_string(page) + " bytes)");
  }

  // Computed right before fork(): the child's VmSize equals ours.
  auto goal = probe_target(limits, options, page);
  if (!goal) return goal.error();
  const std::uint64_t target = goal->target, margin = goal->margin;
  const MemoryBinding& binding = goal->binding;
  const std::string& bound_name = goal->bound_name;
  const std::uint64_t max_records = target / chunk + 2;
  if (max_records > (1u << 22)) {
    return make_error("memory probe: chunk_bytes (" + format_bytes(static_cast<double>(chunk)) +
                      ") is too small for a target of " +
                      format_bytes(static_cast<double>(target)) + "; use a larger chunk");
  }

  std::vector<ChunkRecord> records(max_records);
  std::vector<double> rates(max_records, 0.0);
  std::vector<double> scratch(max_records, 0.0);
  std::vector<unsigned char> residency(chunk / page + 1, 0);

  int fds[2];
  if (::pipe(fds) != 0) {
    return make_error("memory probe: pipe() failed: " + errno_text(errno) +
                      " (too many open files?)");
  }
  ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);

  ChildPlan plan;
  plan.target = target;
  plan.chunk = chunk;
  plan.page = page;
  plan.pressure_floor = margin / 2;
  plan.memlock_budget = limits.rlimit_memlock_bytes.value_or(kU64Max);
  plan.hold_s = options.hold_s;
  plan.collapse_ratio = options.collapse_ratio;
  plan.max_touch_s = options.max_touch_s;
  plan.records = records.data();
  plan.rates = rates.data();
  plan.scratch = scratch.data();
  plan.max_records = max_records;
  plan.residency = residency.data();
  plan.parent_pid = ::getpid();
  plan.write_fd = fds[1];

  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return make_error("memory probe: fork() failed: " + errno_text(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(plan);
  }
  ::close(fds[1]);
  const std::string context = "target " + format_bytes(static_cast<double>(target)) + ", bound by " +
                              bound_name;
  auto collected = collect_child(pid, fds[0], kBaseTimeoutS + options.hold_s, context);
  ::close(fds[0]);
  if (!collected) return collected.error();
  const ChildReport& r = *collected;

  UsableMemoryResult res;
  res.target_bytes = target;
  res.touchable_bytes = r.touchable;
  res.held_bytes = r.held;
  res.lockable_bytes = r.lockable;
  res.touch_bytes_s = r.median_rate;
  res.notes.push_back("binding limit: " + binding.name + " " +
                      format_bytes(static_cast<double>(binding.bytes)) + ", safety margin " +
                      format_bytes(static_cast<double>(margin)) + ", target " +
                      format_bytes(static_cast<double>(target)) +
                      (bound_name == "max_bytes" ? " (capped by max_bytes)" : ""));
  read_stop(r, bound_name, plan.max_touch_s, res);
  read_report_notes(r, plan.memlock_budget, res);
  return res;
}

}  // namespace moebench
