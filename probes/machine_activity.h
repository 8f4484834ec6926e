// machine_activity.h — what other work did to a measured repetition: the
// machine's CPU time from /proc/stat (busy, iowait, steal), this process's
// own CPU time and involuntary context switches (getrusage), the 1-minute
// load average, read before and after the repetition. The judgement is a
// pure function of the two snapshots, so it is tested on hand-made ones.
//
// A repetition is disturbed when, over its span,
// - other work used more than kOtherCpuShare of the machine's CPU time (the
//   machine's busy time, interrupts excluded, minus this process's own) and
//   more than kOtherCpuFloorS seconds of it: above the counters' 10 ms
//   resolution and above the kernel's own work for this process's reads
//   (I/O completions in kernel threads count as another's CPU time in
//   /proc/stat: up to ~0.1 CPU-s in a 0.4 s streaming repetition on the
//   2-core VM, which marked a quarter of them disturbed at a 0.05 s floor),
//   while a neighbour that matters uses whole cores; or
// - the hypervisor stole more than kStealShare of it.
// iowait and the load average are recorded, not judged: the streaming
// engine's own reads wait on the disk, and the load average is a minute's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace moebench {

inline constexpr double kOtherCpuShare = 0.10;
inline constexpr double kOtherCpuFloorS = 0.15;
inline constexpr double kStealShare = 0.05;

// The machine-wide "cpu" line of /proc/stat, in clock ticks.
struct CpuTicks {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  std::uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  std::uint64_t busy() const { return user + nice + system; }  // interrupts and steal apart
};
std::optional<CpuTicks> parse_proc_stat_cpu(std::string_view proc_stat);

struct ActivitySnapshot {
  CpuTicks cpu;
  double ticks_per_s = 100;   // sysconf(_SC_CLK_TCK)
  double self_cpu_s = 0;      // this process and its reaped children: user + system
  double invol_ctx_switches = 0;
  double load_avg_1m = 0;
};
// nullopt where /proc/stat cannot be read (then nothing is recorded).
std::optional<ActivitySnapshot> take_activity_snapshot();

struct Disturbance {
  double other_cpu_frac = 0, steal_frac = 0, load_avg_1m = 0, invol_ctx_switches = 0;
  double other_cpu_s = 0;
  bool disturbed = false;
  std::string why;  // "other work used 34 % of the CPU time", or ""
};
Disturbance disturbance_between(const ActivitySnapshot& before, const ActivitySnapshot& after);

}  // namespace moebench
