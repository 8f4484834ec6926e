// memory_limits.cpp — an active probe of how much memory this process can
// really touch, hold and lock. See memory_limits.h. The limits themselves
// (parsers, read_memory_limits(), the binding limit) are in
// engines/executor/memory_limits.cpp, shared with the engines; recognising
// unified memory is in unified_memory.cpp.
//
// probe_usable_memory() forks a child that does all the large allocation. The
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

#include "vocab/text.h"
#include "vocab/units.h"

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

namespace moebench {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr double kBaseTimeoutS = 120.0;

std::uint64_t sat_sub(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

std::string errno_text(int err) { return std::strerror(err); }

std::uint64_t page_size() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::uint64_t>(p) : 4096;
}

// ---- the probe child ------------------------------------------------------

enum class Stop : std::int32_t {
  kTarget = 1,
  kAllocFailed,
  kSwap,
  kCollapse,
  kPressure,
  kTimeBudget,
};

enum class LockStop : std::int32_t {
  kAll = 1,      // every touched byte was locked
  kRlimit,       // stopped at RLIMIT_MEMLOCK
  kFailed,       // mlock failed (lock_errno)
};

constexpr std::uint32_t kReportMagic = 0x4d454d50;  // "MEMP"

struct ChildReport {
  std::uint32_t magic = 0;
  Stop stop = Stop::kTarget;
  LockStop lock_stop = LockStop::kAll;
  std::int32_t alloc_errno = 0;
  std::int32_t oom_adj_errno = 0;  // 0 = set, -1 = not available on this OS
  std::int32_t lock_errno = 0;
  std::int32_t mincore_errno = 0;
  std::int32_t swap_watched = 0;
  std::int32_t pressure_watched = 0;
  std::uint64_t chunks = 0;
  std::uint64_t touchable = 0;
  std::uint64_t dropped = 0;  // bytes of the last chunk, released and not counted
  std::uint64_t held = 0;
  std::uint64_t lockable = 0;
  std::uint64_t swap_out_pages = 0;
  std::uint64_t mem_available_at_stop = 0;
  double median_rate = 0;
  double stop_rate = 0;
  double stop_median = 0;
};
static_assert(sizeof(ChildReport) <= 512, "one atomic pipe write");

struct ChunkRecord {
  char* addr = nullptr;
  std::uint64_t len = 0;
};

// Everything the child needs, prepared by the parent before fork().
struct ChildPlan {
  std::uint64_t target = 0;
  std::uint64_t chunk = 0;
  std::uint64_t page = 4096;
  std::uint64_t pressure_floor = 0;
  std::uint64_t memlock_budget = kU64Max;  // kU64Max = no RLIMIT_MEMLOCK
  double hold_s = 0;
  double collapse_ratio = 0;
  double max_touch_s = 0;  // 0 = no time budget
  ChunkRecord* records = nullptr;
  double* rates = nullptr;
  double* scratch = nullptr;
  std::size_t max_records = 0;
  unsigned char* residency = nullptr;  // chunk / page entries
  pid_t parent_pid = 0;
  int write_fd = -1;
};

#if defined(__linux__)
// Reads a small file into buf (NUL-terminated) with system calls only.
bool read_small_file(const char* path, char* buf, std::size_t cap) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t n = 0;
  while (n + 1 < cap) {
    const ssize_t r = ::read(fd, buf + n, cap - 1 - n);
    if (r < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return false;
    }
    if (r == 0) break;
    n += static_cast<std::size_t>(r);
  }
  ::close(fd);
  buf[n] = '\0';
  return true;
}

// The number after `key` in buf ("pswpout 12" → 12); no allocation.
bool find_number(const char* buf, const char* key, std::uint64_t* out) {
  const char* p = std::strstr(buf, key);
  if (p == nullptr) return false;
  p += std::strlen(key);
  while (*p == ' ' || *p == '\t') ++p;
  if (*p < '0' || *p > '9') return false;
  std::uint64_t v = 0;
  while (*p >= '0' && *p <= '9') v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
  *out = v;
  return true;
}
#endif  // __linux__

bool read_pswpout(std::uint64_t* out) {
#if defined(__linux__)
  char buf[32768];
  return read_small_file("/proc/vmstat", buf, sizeof buf) && find_number(buf, "\npswpout ", out);
#else
  (void)out;
  return false;
#endif
}

bool read_mem_available(std::uint64_t* out) {
#if defined(__linux__)
  char buf[16384];
  std::uint64_t kb = 0;
  if (!read_small_file("/proc/meminfo", buf, sizeof buf) || !find_number(buf, "MemAvailable:", &kb)) {
    return false;
  }
  *out = kb * 1024;
  return true;
#else
  (void)out;
  return false;
#endif
}

// Median of v[0..n) using scratch; no allocation.
double median_of(const double* v, std::size_t n, double* scratch) {
  if (n == 0) return 0;
  std::copy(v, v + n, scratch);
  std::sort(scratch, scratch + n);
  return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void sleep_s(double s) {
  if (!(s > 0)) return;
  struct timespec ts {};
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// mlock as much of [addr, addr+len) as possible, halving the piece size after a
// failure; returns the bytes locked.
std::uint64_t lock_what_fits(char* addr, std::uint64_t len, std::uint64_t page) {
  std::uint64_t locked = 0;
  std::uint64_t piece = (len / 2) / page * page;
  while (piece >= page && locked < len) {
    piece = std::min(piece, len - locked);
    if (::mlock(addr + locked, piece) == 0) {
      locked += piece;
    } else {
      piece = (piece / 2) / page * page;
    }
  }
  return locked;
}

[[noreturn]] void child_main(const ChildPlan& plan) {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ChildReport r;
  r.magic = kReportMagic;
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
  if (::getppid() != plan.parent_pid) ::_exit(4);
  {
    const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      r.oom_adj_errno = errno;
    } else {
      if (::write(fd, "1000", 4) != 4) r.oom_adj_errno = errno != 0 ? errno : EIO;
      ::close(fd);
    }
  }
#else
  r.oom_adj_errno = -1;
#endif

  std::uint64_t swap0 = 0;
  r.swap_watched = read_pswpout(&swap0) ? 1 : 0;
  std::uint64_t avail_probe = 0;
  r.pressure_watched = read_mem_available(&avail_probe) ? 1 : 0;

  std::uint64_t touched = 0;
  std::size_t n = 0;
  Stop stop = Stop::kTarget;
  // A collapse is a sustained slowdown (thrashing, reclaim), not one slow
  // chunk: with huge pages a chunk that needs compaction can be 10x slower.
  constexpr int kSlowChunksForCollapse = 3;
  int slow_streak = 0;
  const auto touch_start = std::chrono::steady_clock::now();
  while (touched < plan.target && n < plan.max_records) {
    if (plan.max_touch_s > 0 && seconds_since(touch_start) > plan.max_touch_s) {
      stop = Stop::kTimeBudget;
      break;
    }
    std::uint64_t len = std::min(plan.chunk, plan.target - touched);
    len = len / plan.page * plan.page;
    if (len == 0) break;
    if (r.pressure_watched) {
      std::uint64_t avail = 0;
      if (read_mem_available(&avail) && avail < len + plan.pressure_floor) {
        stop = Stop::kPressure;
        r.mem_available_at_stop = avail;
        break;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      stop = Stop::kAllocFailed;
      r.alloc_errno = errno;
      break;
    }
#if defined(MADV_HUGEPAGE)
    // Transparent huge pages where the kernel offers them: an engine's
    // expert cache would use them too, and 2 MiB faults make the probe
    // minutes faster on large machines.
    ::madvise(p, len, MADV_HUGEPAGE);
#endif
    volatile char* bytes = static_cast<volatile char*>(p);
    for (std::uint64_t off = 0; off < len; off += plan.page) bytes[off] = 1;
    const double secs = std::max(seconds_since(t0), 1e-9);
    const double rate = static_cast<double>(len) / secs;

    std::uint64_t swap_now = 0;
    if (r.swap_watched && read_pswpout(&swap_now) && swap_now > swap0) {
      stop = Stop::kSwap;
      r.swap_out_pages = swap_now - swap0;
      ::munmap(p, len);
      r.dropped = len;
      break;
    }
    if (n >= 4) {
      const double median = median_of(plan.rates, n, plan.scratch);
      slow_streak = rate < plan.collapse_ratio * median ? slow_streak + 1 : 0;
      if (slow_streak >= kSlowChunksForCollapse) {
        stop = Stop::kCollapse;
        r.stop_rate = rate;
        r.stop_median = median;
        ::munmap(p, len);
        r.dropped = len;
        break;
      }
    }
    plan.records[n].addr = static_cast<char*>(p);
    plan.records[n].len = len;
    plan.rates[n] = rate;
    ++n;
    touched += len;
  }
  r.stop = stop;
  r.chunks = n;
  r.touchable = touched;
  r.median_rate = median_of(plan.rates, n, plan.scratch);

  // Hold, then count what is still resident.
  sleep_s(plan.hold_s);
  for (std::size_t i = 0; i < n; ++i) {
    const ChunkRecord& c = plan.records[i];
#if defined(__APPLE__)
    char* vec = reinterpret_cast<char*>(plan.residency);
#else
    unsigned char* vec = plan.residency;
#endif
    if (::mincore(c.addr, c.len, vec) != 0) {
      r.mincore_errno = errno;
      continue;
    }
    const std::uint64_t pages = c.len / plan.page;
    std::uint64_t resident = 0;
    for (std::uint64_t j = 0; j < pages; ++j) resident += plan.residency[j] & 1u;
    r.held += resident * plan.page;
  }

  // Lock chunk by chunk until mlock fails or RLIMIT_MEMLOCK is reached.
  std::uint64_t locked = 0;
  LockStop lock_stop = LockStop::kAll;
  for (std::size_t i = 0; i < n; ++i) {
    const ChunkRecord& c = plan.records[i];
    std::uint64_t want = c.len;
    if (plan.memlock_budget != kU64Max) {
      const std::uint64_t room = sat_sub(plan.memlock_budget, locked) / plan.page * plan.page;
      if (room == 0) {
        lock_stop = LockStop::kRlimit;
        break;
      }
      want = std::min(want, room);
    }
    if (::mlock(c.addr, want) == 0) {
      locked += want;
      if (want < c.len) {
        lock_stop = LockStop::kRlimit;
        break;
      }
      continue;
    }
    r.lock_errno = errno;
    lock_stop = LockStop::kFailed;
    locked += lock_what_fits(c.addr, want, plan.page);
    break;
  }
  for (std::size_t i = 0; i < n; ++i) ::munlock(plan.records[i].addr, plan.records[i].len);
  r.lockable = locked;
  r.lock_stop = lock_stop;

  const char* out = reinterpret_cast<const char*>(&r);
  std::size_t done = 0;
  while (done < sizeof r) {
    const ssize_t w = ::write(plan.write_fd, out + done, sizeof r - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      ::_exit(3);
    }
    done += static_cast<std::size_t>(w);
  }
  ::_exit(0);
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
  const MemoryBinding binding = limits.binding();
  if (!binding.known) {
    return make_error("memory probe: no memory limit is known (MemTotal unreadable and no "
                      "cgroup or rlimit); cannot choose a safe target");
  }
  const std::uint64_t margin =
      std::max(static_cast<std::uint64_t>(options.margin_fraction * static_cast<double>(binding.bytes)),
               options.min_margin_bytes);
  if (binding.bytes <= margin) {
    return make_error("memory probe: the binding limit (" + binding.name + ", " +
                      format_bytes(static_cast<double>(binding.bytes)) +
                      ") is not above the safety margin (" +
                      format_bytes(static_cast<double>(margin)) +
                      "); free some memory or lower min_margin_bytes / margin_fraction");
  }
  std::uint64_t target = binding.bytes - margin;
  std::string bound_name = binding.name;
  if (options.max_bytes && *options.max_bytes < target) {
    target = *options.max_bytes;
    bound_name = "max_bytes";
  }
  target = target / page * page;
  if (target == 0) return make_error("memory probe: max_bytes is smaller than one page");
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
      res.stop_reason = "time budget of " + format_fixed(plan.max_touch_s, 0) +
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
                          format_bytes(static_cast<double>(plan.memlock_budget)) +
                          "); raise it (ulimit -l, limits.conf) to lock more");
      break;
    case LockStop::kFailed:
      res.notes.push_back("mlock failed after " + format_bytes(static_cast<double>(r.lockable)) +
                          ": " + errno_text(r.lock_errno));
      break;
  }
  return res;
}

}  // namespace moebench
