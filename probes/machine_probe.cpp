// machine_probe.cpp — see machine_probe.h.
#include "probes/machine_probe.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "vocab/environment.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "probes/block_device.h"
#include "probes/fio_adapter.h"
#include "probes/fio_search.h"
#include "probes/kernel_throughput.h"
#include "probes/memory_bandwidth.h"
#include "probes/memory_limits.h"
#include "probes/powercap.h"
#include "probes/read_pairs.h"
#include "probes/test_file.h"
#include "engines/executor/topology.h"
#include "engines/quant/kernels.h"

namespace moebench {
namespace {

constexpr std::uint64_t kK3RecordBytes = 17547264;  // 3 × 3584 × 3072 MXFP4 (FACTS.md)

// Storage time budget. Each cell runs N interleaved built-in/fio pairs
// (probes/read_pairs.h) of `run_seconds` per run. --quick, per drive:
// 5 cells × 3 pairs × 2 runs × 0.4 s = 12 s of reading — about the 10 s of
// one 1-s pair per cell before — plus fio's start-up and teardown, about
// 0.45 s per fio run here (15 runs instead of 5). Measured on this 2-core VM:
// the drive phase took 22 s (11.8 s with one pair per cell), the whole quick
// probe 51 s (38 s). Full: 5 pairs of 1-s runs, about 12 s per cell.
double run_seconds(bool quick) { return quick ? 0.4 : 1.0; }
// The full probe's yardstick is fio's best job; the quick one runs one job
// unless asked (--fio-search).
bool searches_fio(const ProbeOptions& o) { return o.use_fio && o.fio_search.value_or(!o.quick); }
int pairs_per_cell(const ProbeOptions& o) { return o.pairs > 0 ? o.pairs : o.quick ? kQuickPairs : kFullPairs; }
constexpr double kFioStartupS = 0.45;  // per fio run (start-up and teardown), for the estimate
// The full probe's fio search (probes/fio_search.h): four engines per cell,
// runs of this length before the pairs.
constexpr double kSearchRunS = 0.5;
constexpr int kSearchJobs = 4;
// --quick's usable-memory touch stops here (the figure is then the binding
// limit less the margin, with what was touched as the lower end): 6 s, so
// the whole quick probe fits in a minute. Memory phase measured on this VM
// (2 cores, a 1 GiB last-level cache reported, so 2.89 GiB arrays): touch
// budget + 15 s (hold, release, bandwidth arrays on huge pages, sysbench); the kernel
// table 13 s.
constexpr double kQuickTouchBudgetS = 6.0;
constexpr double kQuickMemoryS = kQuickTouchBudgetS + 15.0, kQuickKernelsS = 13.0;
constexpr double kFullMemoryS = 15.0, kFullKernelsS = 25.0;

std::string cell_label(const ReadCellSpec& c) {
  return std::string(c.random ? "random " : "sequential ") + format_bytes(static_cast<double>(c.block_bytes)) +
         " QD" + std::to_string(c.queue_depth);
}

Figure measured(double value, std::string source) {
  Figure f;
  f.value = value;
  f.provenance = Provenance::kMeasured;
  f.source = std::move(source);
  return f;
}

RepeatSpread spread_of(const std::vector<double>& samples, const Summary& s) {
  RepeatSpread r;
  r.n = static_cast<int>(s.n);
  r.median = s.median;
  r.min = s.min;
  r.max = s.max;
  r.samples = samples;
  return r;
}

// The point of one cell from its repeats: the built-in median as the
// figure, the run nearest the median for IOPS, latencies and path.
DriveReadPoint to_point(const std::vector<ReadCellResult>& runs, const std::vector<FioResult>& fio_runs,
                        const PairedCellStats& st, int pairs, double run_s, const std::string& fio_job,
                        const std::string& fio_search) {
  const ReadCellResult& r = runs[index_nearest_median(st.builtin)];
  DriveReadPoint p;
  p.block_bytes = r.spec.block_bytes;
  p.queue_depth = r.spec.queue_depth;
  p.pattern = r.spec.random ? "random" : "sequential";
  const std::string runs_text = st.builtin.size() == 1 ? "one run" : "median of " + std::to_string(st.builtin.size()) + " runs";
  p.read_bytes_s = measured(
      st.builtin_summary.median,
      std::string("moebench built-in ") + to_string(r.path) + (r.direct ? " O_DIRECT" : " buffered (O_DIRECT refused)") +
          ", " + runs_text + " of " + format_fixed(run_s, 1) + " s (" + std::to_string(pairs) +
          (fio_runs.empty() ? " repeats" : " pairs with fio, order alternating") +
          "); the run nearest the median read " + format_bytes(static_cast<double>(r.bytes)) + " in " +
          format_fixed(r.seconds, 2) + " s");
  p.read_spread = spread_of(st.builtin, st.builtin_summary);
  p.iops = r.iops;
  p.lat_p50_us = r.lat_p50_us;
  p.lat_p99_us = r.lat_p99_us;
  p.io_path = to_string(r.path);
  if (!fio_runs.empty()) {
    const FioResult& f = fio_runs[index_nearest_median(st.fio)];
    FioFigures ff;
    ff.read_bytes_s = st.fio_summary.median;
    ff.iops = f.iops;
    ff.clat_p50_us = f.clat_p50_ns / 1e3;
    ff.clat_p99_us = f.clat_p99_ns / 1e3;
    ff.read_spread = spread_of(st.fio, st.fio_summary);
    if (!st.ratio.empty()) ff.pair_ratio = spread_of(st.ratio, st.ratio_summary);
    ff.job = fio_job;
    ff.search = fio_search;
    p.fio = ff;
  }
  return p;
}

struct Notes {
  std::vector<std::string>& list;
  Progress& progress;
  void add(const std::string& s) {
    if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
    progress.note("note: " + s);
  }
};

struct CellRequest {
  std::vector<ReadTarget> targets;
  ReadCellSpec spec;
  int pairs = 1;
  double run_s = 1;
  std::uint64_t seed = 0;
  const std::optional<std::string>* fio_path = nullptr;  // null or empty: built-in only
  bool search_fio = false;  // the fio side is the best job of a search (probes/fio_search.h), not one job
  bool direct = true;
  std::string scratch_dir;
  std::string label;  // "drive0 random 1 MiB QD16", for notes
  std::string owner;  // "drive0", for the read engine's notes
};

struct CellOutcome {
  DriveReadPoint point;
  double relative_range = 0;
};

// The fio job of a cell with `ioengine` (psync: as many jobs as the depth).
FioCell fio_cell_of(const CellRequest& q, const std::string& ioengine) {
  FioCell fc;
  fc.file_path = q.targets.front().path;
  fc.file_bytes = q.targets.front().size_bytes;
  fc.block_bytes = q.spec.block_bytes;
  fc.queue_depth = q.spec.queue_depth;
  fc.random = q.spec.random;
  fc.runtime_s = q.run_s;
  fc.ioengine = ioengine;
  fc.fixed_buffers = ioengine == "io_uring";  // the built-in path's method: registered buffers
  fc.direct = q.direct;
  if (ioengine == "psync") {
    fc.jobs = std::max(1, q.spec.queue_depth);  // psync has no queue: parallel jobs are its depth
    fc.queue_depth = 1;
  }
  return fc;
}

// One cell as interleaved pairs; nullopt (with a note) when no built-in run
// succeeded.
std::optional<CellOutcome> measure_cell(const CellRequest& q, Notes& notes) {
  std::vector<ReadCellResult> runs;
  std::vector<FioResult> fio_runs;
  IoPath seen = IoPath::kAuto;
  PairRunFn builtin = [&](int pair) -> Expected<double> {
    auto r = measure_reads(q.targets, q.spec, q.run_s, IoPath::kAuto, q.seed + 1000ull * static_cast<std::uint64_t>(pair));
    if (!r) return r.error();
    seen = r->path;
    runs.push_back(std::move(*r));
    return runs.back().read_bytes_s;
  };
  PairRunFn fio;
  std::string fio_job, fio_search;
  std::optional<FioCell> searched;
  if (q.fio_path != nullptr && q.fio_path->has_value() && q.search_fio) {
    // The yardstick: fio's best way to read this cell (its block size; any
    // engine and depth), chosen by short runs before the pairs.
    FioCell base = fio_cell_of(q, "io_uring");
    base.runtime_s = std::min(kSearchRunS, q.run_s);
    auto s = search_fio(base, FioSearchOptions{}, [&](const FioCell& c) { return run_fio(**q.fio_path, c, q.scratch_dir); });
    if (s) {
      searched = s->best;
      searched->runtime_s = q.run_s;
      fio_search = s->summary();
    } else {
      notes.add(q.label + ": the fio search failed: " + s.error().message);
    }
  }
  if (q.fio_path != nullptr && q.fio_path->has_value()) {
    fio = [&](int) -> Expected<double> {
      FioCell fc = searched ? *searched : fio_cell_of(q, seen == IoPath::kPreadThreads ? "psync" : "io_uring");
      fio_job = fio_job_label(fc);
      auto f = run_fio(**q.fio_path, fc, q.scratch_dir);
      if (!f) return f.error();
      fio_runs.push_back(*f);
      return f->read_bytes_s;
    };
  }
  const PairRun run = run_interleaved_pairs(q.pairs, builtin, fio);
  for (PairSide side : {PairSide::kBuiltin, PairSide::kFio}) {
    int failed = 0;
    std::string first;
    for (const PairError& e : run.errors) {
      if (e.side != side) continue;
      if (failed++ == 0) first = e.message;
    }
    if (failed == 0) continue;
    notes.add(q.label + ": " + (side == PairSide::kFio ? "fio failed" : "built-in reads failed") + " in " +
              std::to_string(failed) + " of " + std::to_string(run.pairs.size()) + " runs: " + first);
  }
  if (runs.empty()) return std::nullopt;
  for (const ReadCellResult& r : runs) {
    for (const std::string& n : r.notes) notes.add(q.owner + ": " + n);
  }
  const PairedCellStats st = summarize_pairs(run.pairs);
  return CellOutcome{to_point(runs, fio_runs, st, static_cast<int>(run.pairs.size()), q.run_s, fio_job, fio_search),
                     st.relative_range};
}

void probe_memory(MachineProfile& m, const ProbeOptions& o, const Topology* topo, Progress& progress, Notes& notes) {
  const MemoryLimits limits = read_memory_limits();
  for (const std::string& n : limits.notes) notes.add(n);
  m.memory_total_bytes = measured(static_cast<double>(limits.mem_total_bytes), "/proc/meminfo MemTotal");
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
    m.memory_usable_bytes =
        measured(static_cast<double>(usable->held_bytes),
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

  // Bandwidth: arrays of 4 × the last-level cache, within what memory allows.
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
        m.memory_read_bytes_s = measured(c.median_bytes_s, "read kernel (sum of doubles), " + std::to_string(c.threads) +
                                                               " pinned thread(s), arrays of " +
                                                               format_bytes(static_cast<double>(c.array_bytes)) +
                                                               ", median of " + std::to_string(c.repetitions) + " runs");
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

}  // namespace

std::vector<ReadCellSpec> probe_cells(bool quick, const std::vector<std::uint64_t>& record_bytes) {
  if (quick) {
    return {{4096, 32, true}, {1 << 20, 1, true}, {1 << 20, 16, true}, {1 << 20, 16, false}, {kK3RecordBytes, 4, true}};
  }
  std::set<std::uint64_t> blocks = {4096, 128 << 10, 1 << 20, kK3RecordBytes};
  for (std::uint64_t r : record_bytes) blocks.insert((r + 4095) / 4096 * 4096);
  std::vector<ReadCellSpec> out;
  for (bool random : {true, false}) {
    for (std::uint64_t b : blocks) {
      for (int qd : {1, 4, 16, 32}) out.push_back({b, qd, random});
    }
  }
  return out;
}

double estimated_probe_seconds(const ProbeOptions& o) {
  const double cells = static_cast<double>(probe_cells(o.quick, o.record_bytes).size());
  const double runs = cells * pairs_per_cell(o);
  double per_drive = runs * (run_seconds(o.quick) * (o.use_fio ? 2.0 : 1.0) + (o.use_fio ? kFioStartupS : 0)) + cells;
  if (searches_fio(o)) per_drive += cells * kSearchJobs * (std::min(kSearchRunS, run_seconds(o.quick)) + kFioStartupS);
  const double drives = static_cast<double>(o.drive_dirs.size());
  const double aggregate = o.drive_dirs.size() > 1 ? per_drive / 2 : 0;
  return (o.quick ? kQuickMemoryS + kQuickKernelsS : kFullMemoryS + kFullKernelsS) + drives * per_drive + aggregate;
}

namespace {
std::vector<std::string> kernel_quants(bool quick) {
  return quick ? std::vector<std::string>{"mxfp4", "q4_k", "q4_0", "q2_k", "q8_0", "bf16"}
               : std::vector<std::string>{"bf16", "f16", "q8_0", "q4_0", "q4_k", "mxfp4", "q3_k", "q2_k"};
}
}  // namespace

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
  Notes notes{info.notes, progress};

  progress.phase("topology (hwloc)", -1);
  auto topo = probe_topology();
  const Environment env = capture_environment("", "");
  m.cpu_model = env.cpu_model;
  m.os = "linux";  // the probe reads /proc and /sys: it runs on Linux
  if (topo) {
    TopologyInfo t;
    t.packages = topo->packages;
    t.cores = topo->cores;
    t.pus = topo->pus;
    t.numa_memory_bytes = topo->numa_memory_bytes;
    for (const CacheLevel& c : topo->caches) t.caches.push_back({c.level, c.kind, c.size_bytes, c.instances});
    t.hwloc_version = topo->hwloc_version;
    m.topology = t;
    m.cores = measured(topo->cores, "hwloc " + topo->hwloc_version + ": cores (" + std::to_string(topo->pus) + " PUs)");
  } else {
    notes.add("topology: " + topo.error().message);
    m.cores = measured(env.logical_cpus, "std::thread::hardware_concurrency (hwloc failed)");
  }

  auto phase_start = std::chrono::steady_clock::now();
  auto lap = [&phase_start](const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - phase_start).count();
    phase_start = now;
    return what + " " + format_fixed(s, 1) + " s";
  };
  std::vector<std::string> timings;
  timings.push_back(lap("topology"));
  probe_memory(m, o, topo ? &*topo : nullptr, progress, notes);
  if (const std::string um = unified_memory_note(read_unified_memory_signals(m.cpu_model)); !um.empty()) {
    notes.add(um);
    m.memory_usable_bytes.source += "; " + um;
  }
  timings.push_back(lap("memory"));

  std::optional<std::string> fio_path;
  if (o.use_fio) fio_path = find_fio();
  info.fio = !o.use_fio ? "not run (--no-fio)" : fio_path ? "fio at " + *fio_path : "not installed: built-in figures only";
  if (o.use_fio && !fio_path) notes.add("fio is not installed (apt-get install fio): storage figures are built-in only");

  const std::vector<ReadCellSpec> cells = probe_cells(o.quick, o.record_bytes);
  const int pairs = pairs_per_cell(o);
  std::vector<ReadTarget> all_targets;
  std::vector<std::string> all_names;
  for (std::size_t i = 0; i < o.drive_dirs.size(); ++i) {
    const std::string& dir = o.drive_dirs[i];
    DriveProfile drive;
    drive.name = "drive" + std::to_string(i);
    drive.path = dir;
    auto tf = prepare_test_file(dir, o.file_bytes, progress);
    if (!tf) {
      notes.add(drive.name + " (" + dir + "): not probed: " + tf.error().message);
      continue;
    }
    DriveDevice dev = describe_drive(dir);
    if (topo) {  // hwloc's view of the same OS device: PCI bus and link speed
      for (const BlockDevice& b : topo->block_devices) {
        if (b.name != dev.disk) continue;
        if (dev.pci_bus_id.empty()) dev.pci_bus_id = b.pci_bus_id;
        if (dev.pci_link.empty() && b.pci_link_gb_s > 0) dev.pci_link = format_fixed(b.pci_link_gb_s, 2) + " GB/s (hwloc)";
      }
    }
    for (const std::string& n : dev.notes) notes.add(drive.name + ": " + n);
    DriveDeviceInfo di;
    di.dev_id = dev.dev_id;
    di.disk = dev.disk;
    di.partition = dev.partition;
    di.model = dev.model;
    di.filesystem = dev.filesystem;
    di.mount_point = dev.mount_point;
    di.pci_bus_id = dev.pci_bus_id;
    di.pci_link = dev.pci_link;
    if (dev.size_bytes > 0) di.size_bytes = dev.size_bytes;
    di.rotational = dev.rotational;
    di.o_direct = tf->direct_io;
    di.test_file_bytes = tf->size_bytes;
    drive.device = di;
    if (dev.size_bytes > 0) drive.capacity_bytes = measured(static_cast<double>(dev.size_bytes), "/sys/block/" + dev.disk + "/size");
    if (!tf->direct_io) {
      notes.add(drive.name + " (" + dir + ", " + dev.filesystem +
                "): the filesystem refuses O_DIRECT; reads are buffered and may come from the page cache, "
                "so its figures overstate the drive");
    }
    std::vector<double> cell_ranges;
    std::vector<std::string> cell_labels;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const ReadCellSpec& spec = cells[c];
      progress.phase(drive.name + " " + cell_label(spec) + " (" + std::to_string(pairs) + " pairs)",
                     static_cast<double>(c) / static_cast<double>(cells.size()));
      CellRequest q;
      q.targets = {{tf->path, tf->size_bytes}};
      q.spec = spec;
      q.pairs = pairs;
      q.run_s = run_seconds(o.quick);
      q.seed = 42 + c;
      q.fio_path = &fio_path;
      q.search_fio = searches_fio(o);
      q.direct = tf->direct_io;
      q.scratch_dir = o.scratch_dir;
      q.label = drive.name + " " + cell_label(spec);
      q.owner = drive.name;
      auto cell = measure_cell(q, notes);
      if (!cell) continue;
      drive.read_curve.push_back(std::move(cell->point));
      cell_ranges.push_back(cell->relative_range);
      cell_labels.push_back(cell_label(spec));
    }
    if (!cell_ranges.empty()) {
      const NoiseVerdict v = judge_drive_noise(cell_ranges, kNoisyRelativeRange);
      DriveRepeatability rep;
      rep.pairs = pairs;
      rep.threshold = kNoisyRelativeRange;
      rep.worst_relative_range = v.worst_relative_range;
      rep.worst_cell = cell_labels[v.worst_cell];
      rep.noisy = v.noisy;
      drive.repeatability = rep;
      if (v.noisy) {
        notes.add(drive.name + " is noisy: repeats of " + rep.worst_cell + " disagree by " +
                  format_fixed(100 * v.worst_relative_range, 0) + " % ((max − min) / median, threshold " +
                  format_fixed(100 * kNoisyRelativeRange, 0) +
                  " %); its curve is the median of disagreeing samples — see each point's spread");
      }
    }
    // Sequential bandwidth: the best sequential cell.
    double best_seq = 0;
    std::string best_label;
    for (const DriveReadPoint& p : drive.read_curve) {
      if (p.pattern == "sequential" && p.read_bytes_s.value > best_seq) {
        best_seq = p.read_bytes_s.value;
        best_label = format_bytes(static_cast<double>(p.block_bytes)) + " QD" + std::to_string(p.queue_depth);
      }
    }
    drive.seq_read_bytes_s = measured(best_seq, "best sequential built-in cell (" + best_label + ")");
    all_targets.push_back({tf->path, tf->size_bytes});
    all_names.push_back(drive.name);
    m.drives.push_back(std::move(drive));
    timings.push_back(lap(m.drives.back().name + (tf->reused ? "" : " (incl. writing the test file)")));
  }
  if (all_targets.size() > 1) {
    DriveSetProfile set;
    set.drives = all_names;
    for (const ReadCellSpec& spec : probe_cells(true, {})) {
      progress.phase("all drives " + cell_label(spec), -1);
      CellRequest q;
      q.targets = all_targets;
      q.spec = spec;
      q.pairs = pairs;
      q.run_s = run_seconds(o.quick);
      q.seed = 7;
      q.label = "all drives " + cell_label(spec);
      q.owner = "all drives";
      if (auto cell = measure_cell(q, notes)) set.read_curve.push_back(std::move(cell->point));
    }
    m.drive_sets.push_back(std::move(set));
  }
  if (m.drives.empty()) notes.add("no drive directory could be probed: the profile has no storage figures");
  if (all_targets.size() > 1) timings.push_back(lap("all drives"));
  KernelThroughputOptions ko;
  ko.quants = kernel_quants(o.quick);
  ko.max_threads = m.topology && m.topology->cores > 0 ? m.topology->cores : static_cast<int>(m.cores.value);
  ko.min_time_s = o.quick ? 0.05 : 0.3;
  // Package energy (Linux powercap/RAPL) over an idle second and over the
  // kernel phase, where readable: a note, never the machine's wall power.
  auto meter = PowercapMeter::open();
  std::optional<double> idle_w, kernel_w;
  if (meter) {
    const auto a = (*meter)->joules();
    const auto ta = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto b = (*meter)->joules();
    const double idle_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - ta).count();
    if (a && b) idle_w = (*b - *a) / idle_s;
  }
  const std::optional<double> k0 = meter ? (*meter)->joules() : std::nullopt;
  const auto tk = std::chrono::steady_clock::now();
  auto kernels = probe_kernel_throughput(ko, progress);
  if (meter && k0) {
    const double ks = std::chrono::duration<double>(std::chrono::steady_clock::now() - tk).count();
    if (const auto k1 = (*meter)->joules(); k1 && ks > 0) kernel_w = (*k1 - *k0) / ks;
  }
  if (!meter) {
    notes.add(meter.error().message);
  } else if (idle_w && kernel_w) {
    notes.add("energy: " + (*meter)->what() + ": " + format_fixed(*idle_w, 1) + " W idle (1 s), " +
              format_fixed(*kernel_w, 1) + " W averaged over the kernel phase (1 and all threads); runs carry J/token. "
              "Package power is not wall power: it is not written as the profile's power figure");
  }
  if (kernels) {
    for (const KernelThroughput& k : *kernels) {
      KernelFigure f;
      f.quant = k.quant;
      f.shape = k.shape;
      f.threads = k.threads;
      f.batch = k.batch;
      f.weight_bytes_s = measured(k.weight_bytes_s, "Google Benchmark in moebench: " + k.simd + " kernel, " +
                                                        std::string(k.shape == "matvec" ? "matvec" : "matmul batch ") +
                                                        (k.shape == "matvec" ? "" : std::to_string(k.batch)) +
                                                        " over 3584 x 3072 weights from DRAM, " +
                                                        std::to_string(k.iterations) + " iterations");
      f.gflop_s = k.gflop_s;
      m.kernels.push_back(f);
    }
  } else {
    notes.add("kernel throughput: " + kernels.error().message);
  }
  timings.push_back(lap("kernels"));
  info.notes.push_back("phase durations: " + join(timings, ", "));
  info.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.probe = info;
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
