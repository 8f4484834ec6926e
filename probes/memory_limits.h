// memory_limits.h — every limit on how much memory this process may hold,
// and an active probe of how much it really can.
//
// Limits read: MemTotal, MemAvailable and swap (/proc/meminfo), this
// process's cgroup v2 or v1 memory limit and usage, the overcommit mode and
// CommitLimit, RLIMIT_AS and RLIMIT_MEMLOCK. The parsers are pure functions
// of file text, tested against captured files.
//
// The active probe runs in a forked child with oom_score_adj 1000 (so the
// kernel's OOM killer picks it first, never the parent): it allocates and
// touches memory in chunks up to min(limits) minus a safety margin, and stops
// on allocation failure, swap activity, a collapse of the touch rate, or the
// target. It then holds what it touched briefly and re-checks residency
// (mincore), and tries mlock for the lockable figure. It must never push
// the host into the OOM killer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

// /proc/meminfo → field name → bytes ("MemTotal" → 25257168896). Fields in
// kB are converted to bytes; unit-less fields (HugePages_Total) are kept as is.
std::map<std::string, std::uint64_t> parse_meminfo(const std::string& text);

// cgroup v2 "memory.max"-style value: "max" → nullopt (no limit), a number → bytes.
Expected<std::optional<std::uint64_t>> parse_cgroup_limit(const std::string& text);

// /proc/self/cgroup → the cgroup path of this process for v2 ("0::/path")
// or for the v1 memory controller ("N:memory:/path"), whichever is present.
struct CgroupMembership {
  std::string version;  // "v2", "v1" or "none"
  std::string path;     // "/user.slice/…"
};
CgroupMembership parse_proc_self_cgroup(const std::string& text);

struct MemoryLimits {
  std::uint64_t mem_total_bytes = 0;
  std::uint64_t mem_available_bytes = 0;
  std::uint64_t swap_total_bytes = 0;
  std::uint64_t swap_free_bytes = 0;
  std::string cgroup_version = "none";
  std::string cgroup_path;
  std::optional<std::uint64_t> cgroup_limit_bytes;   // nullopt = no limit
  std::optional<std::uint64_t> cgroup_usage_bytes;
  int overcommit_mode = -1;                          // /proc/sys/vm/overcommit_memory
  std::optional<std::uint64_t> commit_limit_bytes;   // CommitLimit
  std::optional<std::uint64_t> committed_as_bytes;   // Committed_AS
  std::optional<std::uint64_t> rlimit_as_bytes;      // nullopt = unlimited
  std::optional<std::uint64_t> rlimit_memlock_bytes; // nullopt = unlimited
  std::vector<std::string> notes;  // what could not be read, and why

  // The smallest limit that applies to new allocations, and its name
  // ("MemAvailable", "cgroup memory.max", "RLIMIT_AS", ...).
  std::uint64_t binding_limit_bytes() const;
  std::string binding_limit_name() const;
};

// Reads the live limits of this process. Files that cannot be read become
// notes, not errors.
MemoryLimits read_memory_limits();

struct UsableMemoryOptions {
  std::uint64_t chunk_bytes = 64ull << 20;
  double margin_fraction = 0.05;          // stay this far below the binding limit
  std::uint64_t min_margin_bytes = 256ull << 20;
  double hold_s = 1.0;                    // hold, then re-check residency
  double collapse_ratio = 0.02;           // stop if chunks touch 50× slower than the median (sustained)
  std::optional<std::uint64_t> max_bytes; // cap (tests)
  double max_touch_s = 0;                  // time budget for touching (--quick); 0 = none
};

struct UsableMemoryResult {
  std::uint64_t target_bytes = 0;      // what the probe aimed for
  std::uint64_t touchable_bytes = 0;   // allocated and touched
  std::uint64_t held_bytes = 0;        // still resident after the hold
  std::uint64_t lockable_bytes = 0;    // mlock succeeded for this much
  std::string bound_by;                // the limit (or event) that stopped it
  std::string stop_reason;             // "target reached", "allocation failed", "swap activity", ...
  double touch_bytes_s = 0;            // median touch rate
  std::vector<std::string> notes;
};

// Runs the active probe in a child process (see the file comment).
Expected<UsableMemoryResult> probe_usable_memory(const MemoryLimits& limits,
                                                 const UsableMemoryOptions& options);

}  // namespace moebench
