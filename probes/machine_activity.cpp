// machine_activity.cpp — see machine_activity.h.
#include "probes/machine_activity.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <fmt/format.h>

#include "vocab/file_io.h"

namespace moebench {

std::optional<CpuTicks> parse_proc_stat_cpu(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  if (line.substr(0, 4) != "cpu ") return std::nullopt;
  std::uint64_t v[8] = {};
  const char* p = line.data() + 4;
  const char* end = line.data() + line.size();
  for (std::uint64_t& x : v) {
    while (p < end && *p == ' ') ++p;
    auto [next, ec] = std::from_chars(p, end, x);
    if (ec != std::errc() || next == p) return std::nullopt;
    p = next;
  }
  return CpuTicks{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

std::optional<ActivitySnapshot> take_activity_snapshot() {
  auto stat = read_file("/proc/stat");
  if (!stat) return std::nullopt;
  auto cpu = parse_proc_stat_cpu(*stat);
  if (!cpu) return std::nullopt;
  ActivitySnapshot s;
  s.cpu = *cpu;
  const long hz = ::sysconf(_SC_CLK_TCK);
  s.ticks_per_s = hz > 0 ? static_cast<double>(hz) : 100.0;
  // This process's CPU time, and its reaped children's (llama-bench runs as
  // a child of the llama.cpp engine: its work is the run's, not other work).
  auto cpu_s = [](const rusage& ru) {
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  };
  rusage ru{}, children{};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    s.self_cpu_s = cpu_s(ru);
    s.invol_ctx_switches = static_cast<double>(ru.ru_nivcsw);
  }
  if (::getrusage(RUSAGE_CHILDREN, &children) == 0) s.self_cpu_s += cpu_s(children);
  if (auto load = read_file("/proc/loadavg")) std::sscanf(load->c_str(), "%lf", &s.load_avg_1m);
  return s;
}

Disturbance disturbance_between(const ActivitySnapshot& a, const ActivitySnapshot& b) {
  Disturbance d;
  auto delta = [](std::uint64_t x, std::uint64_t y) { return y > x ? static_cast<double>(y - x) : 0.0; };
  const double hz = b.ticks_per_s > 0 ? b.ticks_per_s : 100.0;
  const double total_s = delta(a.cpu.total(), b.cpu.total()) / hz;  // CPU-seconds of the whole machine
  const double busy_s = delta(a.cpu.busy(), b.cpu.busy()) / hz;
  const double self_s = std::max(0.0, b.self_cpu_s - a.self_cpu_s);
  d.other_cpu_s = std::max(0.0, busy_s - self_s);
  d.other_cpu_frac = total_s > 0 ? d.other_cpu_s / total_s : 0;
  d.steal_frac = total_s > 0 ? delta(a.cpu.steal, b.cpu.steal) / hz / total_s : 0;
  d.load_avg_1m = b.load_avg_1m;
  d.invol_ctx_switches = std::max(0.0, b.invol_ctx_switches - a.invol_ctx_switches);
  if (d.other_cpu_frac > kOtherCpuShare && d.other_cpu_s > kOtherCpuFloorS) {
    d.disturbed = true;
    d.why = fmt::format("other work used {:.0f} % of the CPU time ({:.2f} CPU-s)", 100 * d.other_cpu_frac,
                        d.other_cpu_s);
  } else if (d.steal_frac > kStealShare) {
    d.disturbed = true;
    d.why = fmt::format("the hypervisor stole {:.0f} % of the CPU time", 100 * d.steal_frac);
  }
  return d;
}

}  // namespace moebench
