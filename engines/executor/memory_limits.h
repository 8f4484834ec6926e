// memory_limits.h (engines/executor) — every limit on how much memory this
// process may hold, and the one definition of "usable memory" that the
// engines (run_support.cpp: the streaming cache without a budget, the
// resident engine's fit) and the machine probe (probes/memory_limits.cpp,
// whose active probe is bounded by the same binding limit) share.
//
// Limits read: MemTotal, MemAvailable and swap (/proc/meminfo), this
// process's cgroup v2 or v1 memory limit and usage (its own cgroup and every
// ancestor), the overcommit mode and CommitLimit, RLIMIT_AS and
// RLIMIT_MEMLOCK. The parsers are pure functions of file text, tested
// against captured files.
//
// Usable memory = what this process holds now (RSS) + the binding limit: the
// smallest headroom any of those limits leaves for new allocations. This is
// the probe's definition, the one measured (the probe touches up to it in a
// child); it replaced the engines' older MemAvailable + RSS capped by the
// root cgroup's memory.max, which read the wrong cgroup for a process in a
// sub-cgroup, ignored the memory the cgroup already uses, and ignored
// RLIMIT_AS and strict overcommit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

// The smallest headroom for new allocations and the limit that leaves it.
struct MemoryBinding {
  std::uint64_t bytes = 0;
  std::string name = "unknown";
  bool known = false;
};

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
  MemoryBinding binding() const;
  std::uint64_t binding_limit_bytes() const;
  std::string binding_limit_name() const;
};

// Reads the live limits of this process. Files that cannot be read become
// notes, not errors.
MemoryLimits read_memory_limits();

// RSS + the binding limit (MemAvailable when no limit is known).
std::uint64_t usable_memory_bytes(const MemoryLimits& limits, std::uint64_t rss_bytes);

}  // namespace moebench
