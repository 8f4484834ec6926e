// memory_child.h — the child process of the usable-memory probe
// (memory_limits.cpp forks it): the plan the parent prepares before fork(),
// the fixed-size report it writes back through a pipe, and the child's
// entry. Internal to probes/.
//
// The child touches chunk after chunk until the target or a stop (memory
// pressure, swapping, a sustained slowdown, a failed allocation, a time
// budget), holds them, counts what is still resident, locks what it can,
// writes its report and _exit()s. It never touches the heap: every buffer is
// in the plan, so it is safe even when the parent is multi-threaded.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace moebench {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

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

// Runs the child and never returns (exit status 0: report written; 3: the
// pipe broke; 4: the parent was already gone).
[[noreturn]] void child_main(const ChildPlan& plan);

// Sleeps s seconds, resuming after signals (system calls only).
void sleep_s(double s);

}  // namespace moebench
