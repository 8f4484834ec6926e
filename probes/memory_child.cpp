// memory_child.cpp — see memory_child.h: the usable-memory probe's child,
// system calls only.
#include "probes/memory_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace moebench {
namespace {

std::uint64_t sat_sub(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

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

}  // namespace

void sleep_s(double s) {
  if (!(s > 0)) return;
  struct timespec ts {};
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

namespace {

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

// The child's first steps: default signals, death with its parent, first
// in line for the OOM killer.
void child_setup(const ChildPlan& plan, ChildReport& r) {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
  if (::getppid() != plan.parent_pid) ::_exit(4);
  const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    r.oom_adj_errno = errno;
  } else {
    if (::write(fd, "1000", 4) != 4) r.oom_adj_errno = errno != 0 ? errno : EIO;
    ::close(fd);
  }
#else
  (void)plan;
  r.oom_adj_errno = -1;
#endif
}

// Touches chunk after chunk until the target, a time budget, memory
// pressure, a failed allocation, swapping or a sustained slowdown stops it:
// the chunks it keeps (in plan.records) and why it stopped (in r).
std::size_t touch_chunks(const ChildPlan& plan, ChildReport& r) {
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
  return n;
}

// After the hold: the bytes of the n chunks still resident (mincore).
void count_resident(const ChildPlan& plan, std::size_t n, ChildReport& r) {
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
}

// Locks chunk by chunk until mlock fails or RLIMIT_MEMLOCK is reached, then
// unlocks them all: what could be locked, and what stopped it.
void lock_chunks(const ChildPlan& plan, std::size_t n, ChildReport& r) {
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
}

}  // namespace

// The child: touch, hold, count, lock, then write its fixed-size report to
// the parent's pipe. Nothing here allocates on the heap (it runs after
// fork): every buffer is in the plan.
[[noreturn]] void child_main(const ChildPlan& plan) {
  ChildReport r;
  r.magic = kReportMagic;
  child_setup(plan, r);
  const std::size_t n = touch_chunks(plan, r);
  sleep_s(plan.hold_s);
  count_resident(plan, n, r);
  lock_chunks(plan, n, r);
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

}  // namespace moebench
