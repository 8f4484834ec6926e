// drive_probe.cpp — the probe's storage step (probe_steps.h): each drive's
// test file and device, its read curve as interleaved built-in/fio pairs per
// cell (probes/read_pairs.h), its repeatability verdict, then every drive at
// once.
#include <algorithm>
#include <set>

#include "vocab/text.h"
#include "vocab/units.h"
#include "probes/block_device.h"
#include "probes/fio_adapter.h"
#include "probes/fio_search.h"
#include "probes/probe_steps.h"
#include "probes/read_pairs.h"
#include "probes/test_file.h"
#include "engines/executor/topology.h"

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

std::string cell_label(const ReadCellSpec& c) {
  return std::string(c.random ? "random " : "sequential ") + format_bytes(static_cast<double>(c.block_bytes)) +
         " QD" + std::to_string(c.queue_depth);
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
  p.read_bytes_s = measured_figure(
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
std::optional<CellOutcome> measure_cell(const CellRequest& q, ProbeNotes& notes) {
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

// The drive's device as the system and hwloc see it (PCI bus and link
// speed from hwloc's view of the same OS device), its notes said.
DriveDeviceInfo device_info(const std::string& dir, const TestFile& tf, const Topology* topo, DriveProfile& drive,
                            ProbeNotes& notes) {
  DriveDevice dev = describe_drive(dir);
  if (topo != nullptr) {
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
  di.o_direct = tf.direct_io;
  di.test_file_bytes = tf.size_bytes;
  if (dev.size_bytes > 0) {
    drive.capacity_bytes = measured_figure(static_cast<double>(dev.size_bytes), "/sys/block/" + dev.disk + "/size");
  }
  if (!tf.direct_io) {
    notes.add(drive.name + " (" + dir + ", " + dev.filesystem +
              "): the filesystem refuses O_DIRECT; reads are buffered and may come from the page cache, "
              "so its figures overstate the drive");
  }
  return di;
}

// Whether the drive's repeats agree: the worst cell's (max − min) / median
// against kNoisyRelativeRange, said in a note when they do not.
DriveRepeatability judge_repeatability(const std::string& drive, const std::vector<double>& ranges,
                                       const std::vector<std::string>& labels, int pairs, ProbeNotes& notes) {
  const NoiseVerdict v = judge_drive_noise(ranges, kNoisyRelativeRange);
  DriveRepeatability rep;
  rep.pairs = pairs;
  rep.threshold = kNoisyRelativeRange;
  rep.worst_relative_range = v.worst_relative_range;
  rep.worst_cell = labels[v.worst_cell];
  rep.noisy = v.noisy;
  if (v.noisy) {
    notes.add(drive + " is noisy: repeats of " + rep.worst_cell + " disagree by " +
              format_fixed(100 * v.worst_relative_range, 0) + " % ((max − min) / median, threshold " +
              format_fixed(100 * kNoisyRelativeRange, 0) +
              " %); its curve is the median of disagreeing samples — see each point's spread");
  }
  return rep;
}

// The drive's sequential bandwidth: its best sequential cell.
Figure best_sequential(const DriveProfile& drive) {
  double best = 0;
  std::string label;
  for (const DriveReadPoint& p : drive.read_curve) {
    if (p.pattern == "sequential" && p.read_bytes_s.value > best) {
      best = p.read_bytes_s.value;
      label = format_bytes(static_cast<double>(p.block_bytes)) + " QD" + std::to_string(p.queue_depth);
    }
  }
  return measured_figure(best, "best sequential built-in cell (" + label + ")");
}

// Every cell of one drive's curve, as pairs; the curve's repeatability.
void measure_curve(DriveProfile& drive, const TestFile& tf, const ProbeOptions& o,
                   const std::optional<std::string>& fio_path, Progress& progress, ProbeNotes& notes) {
  const std::vector<ReadCellSpec> cells = probe_cells(o.quick, o.record_bytes);
  const int pairs = pairs_per_cell(o);
  std::vector<double> ranges;
  std::vector<std::string> labels;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const ReadCellSpec& spec = cells[c];
    progress.phase(drive.name + " " + cell_label(spec) + " (" + std::to_string(pairs) + " pairs)",
                   static_cast<double>(c) / static_cast<double>(cells.size()));
    CellRequest q;
    q.targets = {{tf.path, tf.size_bytes}};
    q.spec = spec;
    q.pairs = pairs;
    q.run_s = run_seconds(o.quick);
    q.seed = 42 + c;
    q.fio_path = &fio_path;
    q.search_fio = searches_fio(o);
    q.direct = tf.direct_io;
    q.scratch_dir = o.scratch_dir;
    q.label = drive.name + " " + cell_label(spec);
    q.owner = drive.name;
    auto cell = measure_cell(q, notes);
    if (!cell) continue;
    drive.read_curve.push_back(std::move(cell->point));
    ranges.push_back(cell->relative_range);
    labels.push_back(cell_label(spec));
  }
  if (!ranges.empty()) drive.repeatability = judge_repeatability(drive.name, ranges, labels, pairs, notes);
  drive.seq_read_bytes_s = best_sequential(drive);
}

// Every drive at once: the quick cells over all test files together.
DriveSetProfile measure_drive_set(const std::vector<ReadTarget>& targets, const std::vector<std::string>& names,
                                  const ProbeOptions& o, Progress& progress, ProbeNotes& notes) {
  DriveSetProfile set;
  set.drives = names;
  for (const ReadCellSpec& spec : probe_cells(true, {})) {
    progress.phase("all drives " + cell_label(spec), -1);
    CellRequest q;
    q.targets = targets;
    q.spec = spec;
    q.pairs = pairs_per_cell(o);
    q.run_s = run_seconds(o.quick);
    q.seed = 7;
    q.label = "all drives " + cell_label(spec);
    q.owner = "all drives";
    if (auto cell = measure_cell(q, notes)) set.read_curve.push_back(std::move(cell->point));
  }
  return set;
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

double storage_seconds_per_drive(const ProbeOptions& o) {
  const double cells = static_cast<double>(probe_cells(o.quick, o.record_bytes).size());
  const double runs = cells * pairs_per_cell(o);
  double s = runs * (run_seconds(o.quick) * (o.use_fio ? 2.0 : 1.0) + (o.use_fio ? kFioStartupS : 0)) + cells;
  if (searches_fio(o)) s += cells * kSearchJobs * (std::min(kSearchRunS, run_seconds(o.quick)) + kFioStartupS);
  return s;
}

void probe_storage(MachineProfile& m, const ProbeOptions& o, const Topology* topo, Progress& progress,
                   ProbeNotes& notes, PhaseClock& clock) {
  std::optional<std::string> fio_path;
  if (o.use_fio) fio_path = find_fio();
  m.probe->fio = !o.use_fio ? "not run (--no-fio)" : fio_path ? "fio at " + *fio_path : "not installed: built-in figures only";
  if (o.use_fio && !fio_path) notes.add("fio is not installed (apt-get install fio): storage figures are built-in only");
  std::vector<ReadTarget> targets;
  std::vector<std::string> names;
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
    drive.device = device_info(dir, *tf, topo, drive, notes);
    measure_curve(drive, *tf, o, fio_path, progress, notes);
    targets.push_back({tf->path, tf->size_bytes});
    names.push_back(drive.name);
    m.drives.push_back(std::move(drive));
    clock.lap(m.drives.back().name + (tf->reused ? "" : " (incl. writing the test file)"));
  }
  if (m.drives.empty()) notes.add("no drive directory could be probed: the profile has no storage figures");
  if (targets.size() > 1) {
    m.drive_sets.push_back(measure_drive_set(targets, names, o, progress, notes));
    clock.lap("all drives");
  }
}

}  // namespace moebench
