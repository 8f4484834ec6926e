// machine_probe.cpp — see machine_probe.h. run_probe() is the probe's steps
// in order (probe_steps.h); this file holds the host, memory and kernel
// steps, drive_probe.cpp the storage step.
#include "probes/machine_probe.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "vocab/environment.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "probes/kernel_throughput.h"
#include "probes/memory_bandwidth.h"
#include "probes/memory_limits.h"
#include "probes/powercap.h"
#include "probes/probe_steps.h"
#include "probes/read_pairs.h"
#include "engines/executor/topology.h"
#include "engines/quant/kernels.h"

namespace moebench {

namespace {

// --quick's usable-memory touch stops here (the figure is then the binding
// limit less the margin, with what was touched as the lower end): 6 s, so
// the whole quick probe fits in a minute. Memory phase measured on this VM
// (2 cores, a 1 GiB last-level cache reported, so 2.89 GiB arrays): touch
// budget + 15 s (hold, release, bandwidth arrays on huge pages, sysbench); the kernel
// table 13 s.
constexpr double kQuickTouchBudgetS = 6.0;
constexpr double kQuickMemoryS = kQuickTouchBudgetS + 15.0, kQuickKernelsS = 13.0;
constexpr double kFullMemoryS = 15.0, kFullKernelsS = 25.0;

std::vector<std::string> kernel_quants(bool quick) {
  return quick ? std::vector<std::string>{"mxfp4", "q4_k", "q4_0", "q2_k", "q8_0", "bf16"}
               : std::vector<std::string>{"bf16", "f16", "q8_0", "q4_0", "q4_k", "mxfp4", "q3_k", "q2_k"};
}

// The probe's header: name, description, host, start time.
ProbeInfo start_probe(const ProbeOptions& o, MachineProfile& m) {
  ProbeInfo info;
  info.build = o.build_label;
  info.started_at = rfc3339_now_utc();
  info.quick = o.quick;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  info.host = host;
  m.name = o.profile_name.empty() ? std::string("probed-") + host : o.profile_name;
  m.description = std::string("Measured by moebench probe") + (o.quick ? " --quick" : "") + " on " + host + " at " +
                  info.started_at;
  return info;
}

// Topology (hwloc): packages, cores, caches; the thread count when hwloc
// fails.
std::optional<Topology> probe_topology_step(MachineProfile& m, Progress& progress, ProbeNotes& notes) {
  progress.phase("topology (hwloc)", -1);
  auto topo = probe_topology();
  const Environment env = capture_environment("", "");
  m.cpu_model = env.cpu_model;
  m.os = "linux";  // the probe reads /proc and /sys: it runs on Linux
  if (!topo) {
    notes.add("topology: " + topo.error().message);
    m.cores = measured_figure(env.logical_cpus, "std::thread::hardware_concurrency (hwloc failed)");
    return std::nullopt;
  }
  TopologyInfo t;
  t.packages = topo->packages;
  t.cores = topo->cores;
  t.pus = topo->pus;
  t.numa_memory_bytes = topo->numa_memory_bytes;
  for (const CacheLevel& c : topo->caches) t.caches.push_back({c.level, c.kind, c.size_bytes, c.instances});
  t.hwloc_version = topo->hwloc_version;
  m.topology = t;
  m.cores = measured_figure(topo->cores, "hwloc " + topo->hwloc_version + ": cores (" + std::to_string(topo->pus) + " PUs)");
  return *topo;
}

// Usable memory: the limits (meminfo, cgroup, rlimits), then the active
// touch in a child; --quick bounds the touch and states the figure as a
// range. Returns the limits for the bandwidth step.
MemoryLimits probe_memory_limits(MachineProfile& m, const ProbeOptions& o, Progress& progress, ProbeNotes& notes) {
  const MemoryLimits limits = read_memory_limits();
  for (const std::string& n : limits.notes) notes.add(n);
  m.memory_total_bytes = measured_figure(static_cast<double>(limits.mem_total_bytes), "/proc/meminfo MemTotal");
  MemoryLimitsInfo info;
  info.mem_total_bytes = limits.mem_total_bytes;
  info.mem_available_bytes = limits.mem_available_bytes;
  info.swap_total_bytes = limits.swap_total_bytes;
  info.cgroup_version = limits.cgroup_version;
  info.cgroup_limit_bytes = limits.cgroup_limit_bytes;
  info.rlimit_as_bytes = limits.rlimit_as_bytes;
  info.rlimit_memlock_bytes = limits.rlimit_memlock_bytes;
  info.overcommit_mode = limits.overcommit_mode;
  info.binding_limit_bytes = limits.binding_limit_bytes();
  info.binding_limit_name = limits.binding_limit_name();
  progress.phase("usable memory: touching up to " + format_bytes(static_cast<double>(info.binding_limit_bytes)) +
                     " in a child process",
                 -1);
  UsableMemoryOptions um;
  if (o.quick) um.max_touch_s = kQuickTouchBudgetS;  // first touch can be slow (VMs): bounded in --quick
  um.max_bytes = o.max_touch_bytes;
  auto usable = probe_usable_memory(limits, um);
  if (usable) {
    info.touchable_bytes = usable->touchable_bytes;
    info.held_bytes = usable->held_bytes;
    info.lockable_bytes = usable->lockable_bytes;
    info.stop_reason = usable->stop_reason;
    info.touch_bytes_s = usable->touch_bytes_s;
    for (const std::string& n : usable->notes) notes.add("usable memory: " + n);
    if (usable->bound_by == "time budget" || usable->bound_by == "max_bytes") {
      // The touch was cut short (--quick): the limits are the better figure,
      // and the partial touch is a lower bound, both stated.
      const double binding = static_cast<double>(info.binding_limit_bytes);
      const double margin = std::max(um.margin_fraction * binding, static_cast<double>(um.min_margin_bytes));
      const double limit_estimate = std::floor(std::max(binding - margin, static_cast<double>(usable->held_bytes)));
      m.memory_usable_bytes.value = limit_estimate;
      m.memory_usable_bytes.provenance = Provenance::kEstimate;
      m.memory_usable_bytes.low = static_cast<double>(usable->held_bytes);
      m.memory_usable_bytes.high = limit_estimate;
      m.memory_usable_bytes.source =
          "binding limit " + info.binding_limit_name + " minus the safety margin; the probe touched only " +
          format_bytes(static_cast<double>(usable->held_bytes)) + " (" + usable->stop_reason + "; the lower end of the "
          "range); run the full probe without --max-touch to measure it";
    } else {
      m.memory_usable_bytes = measured_figure(
          static_cast<double>(usable->held_bytes),
          "active probe in a child (oom_score_adj 1000): touched " +
              format_bytes(static_cast<double>(usable->touchable_bytes)) + ", still resident after the hold " +
              format_bytes(static_cast<double>(usable->held_bytes)) + ", mlock-able " +
              format_bytes(static_cast<double>(usable->lockable_bytes)) + "; stopped: " + usable->stop_reason +
              "; bound by " + usable->bound_by);
    }
  } else {
    notes.add("usable memory: active probe failed: " + usable.error().message + "; MemAvailable reported instead");
    m.memory_usable_bytes.value = static_cast<double>(limits.mem_available_bytes);
    m.memory_usable_bytes.provenance = Provenance::kEstimate;
    m.memory_usable_bytes.source = "MemAvailable from /proc/meminfo (active probe failed: " + usable.error().message + ")";
    info.stop_reason = "probe failed";
  }
  m.memory_limits = info;
  return limits;
}

// Memory read bandwidth at 1 and N threads (every count in the full probe)
// over arrays of 4 × the last-level cache, sysbench beside it.
void probe_memory_rate(MachineProfile& m, const ProbeOptions& o, const MemoryLimits& limits, const Topology* topo,
                       Progress& progress, ProbeNotes& notes) {
  const std::uint64_t llc = topo != nullptr ? topo->last_level_cache_bytes() : (32ull << 20);
  std::uint64_t array = std::max<std::uint64_t>(4 * llc, 256ull << 20);
  const std::uint64_t cap = limits.mem_available_bytes / 8;
  if (array > cap) {
    notes.add("memory bandwidth arrays limited to " + format_bytes(static_cast<double>(cap)) +
              " (less than 4× the last-level cache) by available memory");
    array = cap;
  }
  MemoryBandwidthOptions bw;
  bw.array_bytes = array;
  bw.repetitions = o.quick ? 3 : 7;
  const int cores = topo != nullptr && topo->cores > 0 ? topo->cores : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (o.quick) {
    bw.thread_counts = {1};
    if (cores > 1) bw.thread_counts.push_back(cores);
  } else {
    for (int t = 1; t <= cores; ++t) bw.thread_counts.push_back(t);
  }
  auto cells = probe_memory_bandwidth(bw, progress);
  MemoryBandwidthInfo info_bw;
  info_bw.convention = kByteConvention;
  if (cells) {
    for (const BandwidthCell& c : *cells) {
      info_bw.cells.push_back(c);
      if (c.kernel == "read" && c.threads == bw.thread_counts.back()) {
        m.memory_read_bytes_s = measured_figure(
            c.median_bytes_s, "read kernel (sum of doubles), " + std::to_string(c.threads) + " pinned thread(s), arrays of " +
                                  format_bytes(static_cast<double>(c.array_bytes)) + ", median of " +
                                  std::to_string(c.repetitions) + " runs");
      }
      if (!c.pinned) notes.add("memory bandwidth threads could not be pinned to cores");
    }
  } else {
    notes.add("memory bandwidth: " + cells.error().message);
  }
  progress.phase("memory: sysbench cross-check", -1);
  auto ref = sysbench_memory_read_bytes_s(bw.thread_counts.back(), std::min<std::uint64_t>(array, 1ull << 30),
                                          o.scratch_dir);
  if (ref) {
    info_bw.reference_read_bytes_s = *ref;
    info_bw.reference = "sysbench memory --memory-oper=read, " + std::to_string(bw.thread_counts.back()) +
                        " thread(s), block " + format_bytes(static_cast<double>(std::min<std::uint64_t>(array, 1ull << 30)));
  } else {
    info_bw.reference = "none: " + ref.error().message;
  }
  if (!info_bw.cells.empty()) m.memory_bandwidth = info_bw;
}

// Package energy (Linux powercap/RAPL) over an idle second, where readable:
// a note beside the kernel phase, never the machine's wall power.
struct PackagePower {
  Expected<std::unique_ptr<PowercapMeter>> meter = PowercapMeter::open();
  std::optional<double> idle_w, busy_w;
  std::optional<double> j0;
  std::chrono::steady_clock::time_point t0;
  void measure_idle() {
    if (!meter) return;
    const auto a = (*meter)->joules();
    const auto ta = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto b = (*meter)->joules();
    if (a && b) idle_w = (*b - *a) / std::chrono::duration<double>(std::chrono::steady_clock::now() - ta).count();
  }
  void start() {
    if (meter) j0 = (*meter)->joules();
    t0 = std::chrono::steady_clock::now();
  }
  void stop() {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!meter || !j0 || s <= 0) return;
    if (const auto j1 = (*meter)->joules()) busy_w = (*j1 - *j0) / s;
  }
  void note(ProbeNotes& notes) const {
    if (!meter) {
      notes.add(meter.error().message);
    } else if (idle_w && busy_w) {
      notes.add("energy: " + (*meter)->what() + ": " + format_fixed(*idle_w, 1) + " W idle (1 s), " +
                format_fixed(*busy_w, 1) + " W averaged over the kernel phase (1 and all threads); runs carry J/token. "
                "Package power is not wall power: it is not written as the profile's power figure");
    }
  }
};

// The quantized kernels' rates at 1 and all threads (Google Benchmark), the
// package's power beside them.
void probe_kernels(MachineProfile& m, const ProbeOptions& o, Progress& progress, ProbeNotes& notes) {
  KernelThroughputOptions ko;
  ko.quants = kernel_quants(o.quick);
  ko.max_threads = m.topology && m.topology->cores > 0 ? m.topology->cores : static_cast<int>(m.cores.value);
  ko.min_time_s = o.quick ? 0.05 : 0.3;
  PackagePower energy;
  energy.measure_idle();
  energy.start();
  auto kernels = probe_kernel_throughput(ko, progress);
  energy.stop();
  energy.note(notes);
  if (!kernels) {
    notes.add("kernel throughput: " + kernels.error().message);
    return;
  }
  for (const KernelThroughput& k : *kernels) {
    KernelFigure f;
    f.quant = k.quant;
    f.shape = k.shape;
    f.threads = k.threads;
    f.batch = k.batch;
    f.weight_bytes_s = measured_figure(k.weight_bytes_s, "Google Benchmark in moebench: " + k.simd + " kernel, " +
                                                           std::string(k.shape == "matvec" ? "matvec" : "matmul batch ") +
                                                           (k.shape == "matvec" ? "" : std::to_string(k.batch)) +
                                                           " over 3584 x 3072 weights from DRAM, " +
                                                           std::to_string(k.iterations) + " iterations");
    f.gflop_s = k.gflop_s;
    m.kernels.push_back(f);
  }
}

}  // namespace

double estimated_probe_seconds(const ProbeOptions& o) {
  const double per_drive = storage_seconds_per_drive(o);
  const double drives = static_cast<double>(o.drive_dirs.size());
  const double aggregate = o.drive_dirs.size() > 1 ? per_drive / 2 : 0;
  return (o.quick ? kQuickMemoryS + kQuickKernelsS : kFullMemoryS + kFullKernelsS) + drives * per_drive + aggregate;
}

Expected<std::string> run_kernel_table(bool quick, Progress& progress) {
  const Environment env = capture_environment("", "");
  KernelThroughputOptions ko;
  ko.quants = kernel_quants(quick);
  ko.max_threads = std::max(1, env.logical_cpus);
  ko.min_time_s = quick ? 0.05 : 0.3;
  ko.include_integer_dot = true;
  auto rows = probe_kernel_throughput(ko, progress);
  if (!rows) return rows.error();
  return kernel_table_markdown(*rows, env.cpu_model + " · SIMD " + simd_description(), env.emulation);
}

Status probe_allowed() {
  if (const std::string emu = capture_environment("", "").emulation; !emu.empty()) {
    return make_error("this run is emulated (" + emu + "): a profile would describe the emulator as the machine, "
                      "so none is written; run moebench natively to probe a machine, or `moebench probe "
                      "--kernels-only` for a kernel table labelled as emulated");
  }
  return Status::success();
}

Expected<MachineProfile> run_probe(const ProbeOptions& o, Progress& progress) {
  if (Status st = probe_allowed(); !st) return st.error();
  const auto t0 = std::chrono::steady_clock::now();
  MachineProfile m;
  m.probe = start_probe(o, m);
  ProbeNotes notes{m.probe->notes, progress};
  PhaseClock clock;
  const std::optional<Topology> topo = probe_topology_step(m, progress, notes);
  const Topology* host = topo ? &*topo : nullptr;
  clock.lap("topology");
  const MemoryLimits limits = probe_memory_limits(m, o, progress, notes);
  probe_memory_rate(m, o, limits, host, progress, notes);
  if (const std::string um = unified_memory_note(read_unified_memory_signals(m.cpu_model)); !um.empty()) {
    notes.add(um);
    m.memory_usable_bytes.source += "; " + um;
  }
  clock.lap("memory");
  probe_storage(m, o, host, progress, notes, clock);
  probe_kernels(m, o, progress, notes);
  clock.lap("kernels");
  m.probe->notes.push_back("phase durations: " + join(clock.laps(), ", "));
  m.probe->duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

std::string format_rate_spread(double median, const std::optional<RepeatSpread>& spread) {
  if (!spread) return format_rate(median);
  // The range in the median's unit: "1.31 GB/s (1.10–1.45, n=3)".
  static constexpr const char* kUnits[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  int unit = 0;
  double scale = 1;
  while (std::fabs(median / scale) >= 1000.0 && unit < 4) {
    scale *= 1000.0;
    ++unit;
  }
  return format_fixed(median / scale, 2) + " " + kUnits[unit] + " (" + format_fixed(spread->min / scale, 2) + "–" +
         format_fixed(spread->max / scale, 2) + ", n=" + std::to_string(spread->n) + ")";
}

double point_relative_range(const DriveReadPoint& p) {
  auto rr = [](const std::optional<RepeatSpread>& r) {
    return r && r->n >= 2 && r->median > 0 ? (r->max - r->min) / r->median : 0.0;
  };
  return std::max(rr(p.read_spread), p.fio ? rr(p.fio->read_spread) : 0.0);
}

std::string curve_point_row(const DriveReadPoint& p) {
  // ASCII, so fmt's width (code points) is the byte width the column had.
  std::string row = fmt::format("{:<26}", fmt::format("{} {} QD{}", p.pattern == "random" ? "random" : "sequential",
                                                        format_bytes(static_cast<double>(p.block_bytes)), p.queue_depth));
  row += " | " + format_rate_spread(p.read_bytes_s.value, p.read_spread);
  if (p.fio && p.fio->read_bytes_s > 0) {
    row += " | fio " + format_rate_spread(p.fio->read_bytes_s, p.fio->read_spread);
    // The winner of a search names its engine (the cell gives size and depth).
    if (!p.fio->search.empty()) {
      const std::string& j = p.fio->job;
      row += " [" + (j.rfind("io_uring fixedbufs", 0) == 0 ? std::string("io_uring fixedbufs") : j.substr(0, j.find(' '))) + "]";
    }
    if (p.fio->pair_ratio) {
      const RepeatSpread& r = *p.fio->pair_ratio;
      row += " | ratio " + format_fixed(r.median, 2) + " (" + format_fixed(r.min, 2) + "–" + format_fixed(r.max, 2) + ")";
    } else {
      row += " | ratio " + format_fixed(p.read_bytes_s.value / p.fio->read_bytes_s, 3);
    }
  }
  if (p.lat_p50_us) row += " | p50 " + format_fixed(*p.lat_p50_us, 0) + " us";
  if (point_relative_range(p) > kNoisyRelativeRange) row += " | noisy";
  return row;
}

std::string profile_summary(const MachineProfile& m) {
  std::string s = "Machine profile \"" + m.name + "\"\n";
  s += "  CPU        " + m.cpu_model + ", " + format_fixed(m.cores.value, 0) + " cores";
  if (m.topology) s += ", " + std::to_string(m.topology->pus) + " PUs, " +
                       std::to_string(m.topology->numa_memory_bytes.size()) + " NUMA node(s)";
  s += "\n";
  if (m.topology) {
    s += "  caches    ";
    for (const CacheInfo& c : m.topology->caches) {
      s += " L" + std::to_string(c.level) + (c.kind == "instruction" ? "i" : c.kind == "data" ? "d" : "") + " " +
           format_bytes(static_cast<double>(c.size_bytes)) + "×" + std::to_string(c.instances);
    }
    s += "\n";
  }
  s += "  memory     total " + format_bytes(m.memory_total_bytes.value) + ", usable " +
       format_bytes(m.memory_usable_bytes.value) + " (" + to_string(m.memory_usable_bytes.provenance) + ")\n";
  if (m.memory_limits) {
    const MemoryLimitsInfo& l = *m.memory_limits;
    s += "             binding limit " + l.binding_limit_name + " " + format_bytes(static_cast<double>(l.binding_limit_bytes)) +
         "; touched " + format_bytes(static_cast<double>(l.touchable_bytes)) + ", held " +
         format_bytes(static_cast<double>(l.held_bytes)) + ", lockable " + format_bytes(static_cast<double>(l.lockable_bytes)) +
         " (" + l.stop_reason + ")\n";
  }
  if (m.memory_bandwidth) {
    s += "  memory bw  (" + m.memory_bandwidth->convention + ")\n";
    for (const BandwidthFigure& f : m.memory_bandwidth->cells) {
      s += fmt::format("             {:<5} {} thread(s): median {}, best {}\n", f.kernel, f.threads,
                       format_rate(f.median_bytes_s), format_rate(f.best_bytes_s));
    }
    s += "             cross-check: " + m.memory_bandwidth->reference;
    if (m.memory_bandwidth->reference_read_bytes_s) s += " → " + format_rate(*m.memory_bandwidth->reference_read_bytes_s);
    s += "\n";
  }
  auto curve_lines = [&s](const std::vector<DriveReadPoint>& curve) {
    for (const DriveReadPoint& p : curve) s += "             " + curve_point_row(p) + "\n";
  };
  for (const DriveProfile& d : m.drives) {
    s += "  " + d.name + "     " + d.path.value_or("") ;
    if (d.device) {
      s += " on " + (d.device->disk.empty() ? "?" : d.device->disk) + " (" +
           (d.device->filesystem.empty() ? std::string("unknown filesystem") : d.device->filesystem) +
           (d.device->model.empty() ? "" : ", " + d.device->model) +
           (d.device->pci_link.empty() ? "" : ", PCIe " + d.device->pci_link) +
           (d.device->o_direct ? ", O_DIRECT" : ", BUFFERED: O_DIRECT refused") + ")";
    }
    s += "\n             sequential " + format_rate(d.seq_read_bytes_s.value) + "\n";
    if (d.repeatability) {
      const DriveRepeatability& r = *d.repeatability;
      s += "             " + std::string(r.noisy ? "NOISY" : "repeatable") + ": " + std::to_string(r.pairs) +
           " pair(s) per cell, order alternating; repeats of " + r.worst_cell + " disagree by " +
           format_fixed(100 * r.worst_relative_range, 0) + " % ((max − min) / median; noisy above " +
           format_fixed(100 * r.threshold, 0) + " %)\n";
    }
    curve_lines(d.read_curve);
  }
  for (const DriveSetProfile& set : m.drive_sets) {
    s += "  all drives (" + join(set.drives, ", ") + ") at once\n";
    curve_lines(set.read_curve);
  }
  if (!m.kernels.empty()) {
    s += "  kernels    (weight bytes/s and GFLOP/s, 3584 x 3072 from DRAM)\n";
    for (const KernelFigure& k : m.kernels) {
      std::string line = fmt::format("             {:<6} ", k.quant) +
                         (k.shape == "matvec" ? "matvec      " : "matmul b" + std::to_string(k.batch) + "  ") +
                         std::to_string(k.threads) + " thread(s)  " + format_rate(k.weight_bytes_s.value);
      if (k.gflop_s) line += "  " + format_fixed(*k.gflop_s, 1) + " GFLOP/s";
      s += line + "\n";
    }
  }
  if (m.probe) {
    s += "  probe      " + format_duration_s(m.probe->duration_s) + (m.probe->quick ? " (--quick)" : "") + ", " +
         m.probe->fio + "\n";
    for (const std::string& n : m.probe->notes) s += "  note       " + n + "\n";
  }
  return s;
}

}  // namespace moebench
