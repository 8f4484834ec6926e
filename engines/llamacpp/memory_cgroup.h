// memory_cgroup.h — a RAM budget for a child process, enforced by the
// kernel: a new cgroup beside this process's own memory cgroup with its
// limit set (cgroup v2 memory.max, or v1 memory.limit_in_bytes on hybrid
// hosts), which the child joins before it execs. Page cache is charged too,
// so an mmap'd model larger than the budget is re-read from storage, as on
// a machine with that much RAM. Where no memory cgroup is writable, create()
// says why and the caller runs without a limit and says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

class MemoryCgroup {
 public:
  // A fresh cgroup limited to `max_bytes`; `tag` goes into its name.
  static Expected<MemoryCgroup> create(std::uint64_t max_bytes, const std::string& tag);
  MemoryCgroup() = default;
  ~MemoryCgroup();
  MemoryCgroup(MemoryCgroup&& o) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&& o) noexcept;
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& version() const { return version_; }  // "v2" or "v1"
  // argv wrapped so the process joins this cgroup, then execs argv.
  std::vector<std::string> wrap(const std::vector<std::string>& argv) const;
  // The peak memory charged to it (v2 memory.peak, v1 max_usage_in_bytes).
  std::optional<std::uint64_t> peak_bytes() const;
  // How many times the limit was hit (v2 memory.events max, v1 failcnt).
  std::optional<std::uint64_t> limit_hits() const;
  // Processes the kernel's OOM killer killed in it (v2 memory.events
  // oom_kill, v1 memory.oom_control oom_kill).
  std::optional<std::uint64_t> oom_kills() const;

 private:
  std::string dir_, version_;
};

// The directory of this process's own memory cgroup (v2 unified hierarchy
// with the memory controller, else the v1 memory hierarchy), or an error
// saying why there is none.
Expected<std::pair<std::string, std::string>> own_memory_cgroup();

}  // namespace moebench
