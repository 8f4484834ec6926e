// machine_profile.h — MachineProfile: what a machine offers, with the
// provenance of every figure.
//
// `moebench probe` writes one for this machine; configs/hardware/*.json use
// the same schema for machines moebench cannot measure. Each figure says
// whether it was `measured` (and how), taken from a `spec` sheet (and which),
// or is an `estimate` (and why) — a prediction built on a figure inherits
// that figure's standing. An optional range carries spec uncertainty (e.g.
// sustained CPU-achievable bandwidth against the peak of the spec sheet).
//
// What the figures describe — one convention for every profile:
//
// - Whole setup. cores, memory_total, memory_usable, memory_read_bw, the
//   drives list and price are for everything the profile describes, summed
//   over its `nodes`: four linked 512 GB Mac Studios are memory_total
//   2048 GiB, memory_read_bw 4 × 819 GB/s, four internal SSDs in /drives.
//   What linking costs is carried separately by `interconnect_bw` (one
//   node's network bandwidth to the others, one direction, all its ports
//   together — a link is crossed, not summed) and `sync_s_per_token` (the
//   time a decode token spends synchronizing the nodes; it grows with the
//   model's layer count, so its source names the model it assumes and how
//   the model is split). Nodes are alike,
//   so one node's figure is the whole-setup figure divided by `nodes` (what
//   a model split across the nodes must fit on each).
// - Unified memory (Apple silicon, DGX Spark / GB10): no accelerator block;
//   memory_total and memory_read_bw describe the one pool CPU and GPU share.
// - Discrete GPUs: memory_total, memory_usable and memory_read_bw describe
//   HOST RAM; the `accelerators` block describes the GPUs, its figures per
//   device and its count over the whole setup (all nodes), so the setup's
//   GPU memory is count × memory. A machine whose engine ignores its GPUs
//   (a CPU-only campaign) leaves the block out and says so in its
//   description.
// - Compute (the optional `compute` block, hand-written catalog entries; a
//   probed profile has its measured `kernels` table instead). cpu_flops is
//   the dense FP32 FMA peak of every CPU core of the whole setup (cores ×
//   clock × FMA lanes × 2, the arithmetic in its source); cpu_int8_ops the
//   int8 dot-product peak where the ISA has one (VNNI, AMX, dotprod, i8mm);
//   gpu_flops, on unified-memory machines only, the integrated GPU's dense
//   FP16/BF16 peak. A discrete GPU's peak is per device in
//   accelerators.flops (dense BF16 tensor-core, no sparsity). All in plain
//   numbers of FLOP/s (or ops/s): the units helper parses bytes, not FLOPs.
//   `efficiency` says what share of those peaks an engine reaches — decode
//   (batch-1 matvec, bound by the weight stream: the share of the binding
//   peak, memory_read_bw or compute) and prefill (batched matmul, bound by
//   compute) — each a fraction in (0, 1] with a required [low, high] range
//   and the rationale and public source in its own `source`.
// - Paging. Past memory_usable, a cache's overflow is paged: each paged hit
//   faults its pages in at QD1, so every catalog drive carries random
//   4 KiB QD1 and QD32 read_curve points (plus a large-block point, so the
//   small-block points are not the curve's top end), and memory_usable
//   names the documented limit it stands for (macOS wired-memory limit,
//   DGX Spark usable unified memory, RAM less the kernel on Linux).
// - Link rates (host_link_bw, peer_bw, interconnect_bw) are one direction;
//   vendors often quote both directions added (NVLink "600 GB/s" is
//   300 GB/s each way), and a figure's source says which was halved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

enum class Provenance { kMeasured, kSpec, kEstimate };
const char* to_string(Provenance p);

struct Figure {
  double value = 0;
  Provenance provenance = Provenance::kEstimate;
  std::string source;                // who/what says so: a probe method, a URL, reasoning
  std::optional<double> low, high;   // uncertainty range, same unit as value
  double low_or_value() const { return low.value_or(value); }    // the range's low end, the value without one
  double high_or_value() const { return high.value_or(value); }  // the range's high end, the value without one
};

// Repeats of one measured figure: `moebench probe` runs every storage cell
// several times (interleaved built-in/fio pairs, probes/read_pairs.h). The
// figure's value is the median of the repeats — the cost model reads only
// that — and the spread says how far the median can be trusted. Absent in
// profiles written before repeats existed and in spec-sheet profiles.
struct RepeatSpread {
  int n = 1;  // repeats that produced a figure
  double median = 0, min = 0, max = 0;
  std::vector<double> samples;  // every repeat in run order; may be empty (then n, median, min, max only)
};

// fio's figures for the same cell as a built-in measurement.
struct FioFigures {
  double read_bytes_s = 0;  // the median of read_spread when there are repeats
  double iops = 0;          // iops and latencies: of the repeat nearest the median
  double clat_p50_us = 0;
  double clat_p99_us = 0;
  std::optional<RepeatSpread> read_spread;     // fio's bytes/s over the repeats
  std::optional<RepeatSpread> pair_ratio;      // built-in ÷ fio, one ratio per pair where both ran
  std::string job;      // the fio job the figures are of ("io_uring fixedbufs 1.00 MiB QD16"); "" in older profiles
  std::string search;   // how it was chosen: the jobs a search tried with their rates (probes/fio_search.h), or ""
};

struct DriveReadPoint {
  std::uint64_t block_bytes = 0;
  int queue_depth = 1;
  std::string pattern;  // "random" | "sequential"
  Figure read_bytes_s;  // measured: the median of read_spread
  // Measured cells also carry these (absent in spec-sheet profiles):
  std::optional<RepeatSpread> read_spread;  // the built-in repeats (bytes/s)
  std::optional<double> iops;  // iops, latencies and path: of the repeat nearest the median
  std::optional<double> lat_p50_us;
  std::optional<double> lat_p99_us;
  std::string io_path;              // "io_uring" | "pread-threads"
  std::optional<FioFigures> fio;    // same cell through fio, when it ran
};

// What a probed drive directory sits on (probes/block_device.h).
struct DriveDeviceInfo {
  std::string dev_id, disk, partition, model, filesystem, mount_point, pci_bus_id, pci_link;
  std::optional<std::uint64_t> size_bytes;
  std::optional<bool> rotational;
  bool o_direct = true;  // O_DIRECT honoured; false = buffered reads, flagged
  std::uint64_t test_file_bytes = 0;
};

// Whether a probed drive's repeats agree: each cell's relative range
// (max − min) / median, of the built-in and of the fio repeats, against a
// threshold (probes/read_pairs.h states it and why). `noisy` is true exactly
// when the worst cell's range exceeds the threshold; the curve is then a
// median of disagreeing samples, and the profile says so.
struct DriveRepeatability {
  int pairs = 1;                      // pairs (repeats) per cell
  double threshold = 0;               // relative range above which repeats disagree
  double worst_relative_range = 0;    // over every cell, built-in and fio
  std::string worst_cell;             // e.g. "random 1 MiB QD16"
  bool noisy = false;
};

struct DriveProfile {
  std::string name;
  std::optional<std::string> path;  // a directory on the drive, for measured profiles
  std::optional<Figure> capacity_bytes;
  Figure seq_read_bytes_s;
  std::vector<DriveReadPoint> read_curve;
  std::optional<DriveDeviceInfo> device;
  std::optional<DriveRepeatability> repeatability;  // measured profiles with repeats
};

// All listed drives read at once (each with the cell's queue depth).
struct DriveSetProfile {
  std::vector<std::string> drives;
  std::vector<DriveReadPoint> read_curve;
};

struct KernelFigure {
  std::string quant;
  std::string shape;  // "matvec" (decode) | "matmul" (prefill)
  int threads = 1;
  int batch = 1;      // activations per call (prefill batch)
  Figure weight_bytes_s;
  std::optional<double> gflop_s;  // 2 flops per weight per batch row
};

// Electrical power of the whole setup at the wall, in watts (catalog
// profiles, each figure with its source): while it decodes one stream, and
// idle with the model loaded. The energy per token of a prediction is
// load_w × seconds per token (harness/machine_plan.h: the cost table).
struct PowerInfo {
  Figure load_w;
  Figure idle_w;
};

struct CacheInfo {
  int level = 0;
  std::string kind;
  std::uint64_t size_bytes = 0;
  int instances = 0;
};

struct TopologyInfo {
  int packages = 0, cores = 0, pus = 0;
  std::vector<std::uint64_t> numa_memory_bytes;
  std::vector<CacheInfo> caches;
  std::string hwloc_version;
};

struct BandwidthFigure {
  std::string kernel;  // read | copy | triad
  int threads = 1;
  double best_bytes_s = 0;
  double median_bytes_s = 0;
  int repetitions = 0;
  std::uint64_t array_bytes = 0;
  bool pinned = false;
};

struct MemoryBandwidthInfo {
  std::string convention;
  std::vector<BandwidthFigure> cells;
  std::string reference;  // cross-check tool and its figure, or why there is none
  std::optional<double> reference_read_bytes_s;
};

struct MemoryLimitsInfo {
  std::uint64_t mem_total_bytes = 0, mem_available_bytes = 0, swap_total_bytes = 0;
  std::string cgroup_version;
  std::optional<std::uint64_t> cgroup_limit_bytes, rlimit_as_bytes, rlimit_memlock_bytes;
  int overcommit_mode = -1;
  std::uint64_t binding_limit_bytes = 0;
  std::string binding_limit_name;
  std::uint64_t touchable_bytes = 0, held_bytes = 0, lockable_bytes = 0;
  std::string stop_reason;
  double touch_bytes_s = 0;
};

struct ProbeInfo {
  std::string build;
  std::string host;
  std::string started_at;
  double duration_s = 0;
  bool quick = false;
  std::string fio;  // fio version, or why fio figures are missing
  std::vector<std::string> notes;
};

// The GPUs of a discrete-GPU machine (see the conventions above): figures
// per device, count over the whole setup.
struct AcceleratorInfo {
  std::string model;                        // "NVIDIA A100-SXM4-40GB"
  int count = 0;                            // devices in the whole setup (all nodes)
  Figure memory_bytes;                      // per device (HBM/GDDR capacity)
  Figure memory_read_bytes_s;               // per device (HBM/GDDR bandwidth)
  std::optional<Figure> host_link_bytes_s;  // per device, host RAM <-> device, one direction (PCIe, NVLink-C2C)
  std::optional<Figure> peer_bytes_s;       // per device, device <-> devices, one direction (NVLink), when there is one
  std::optional<Figure> flops;              // per device, dense BF16 tensor-core peak (no sparsity), FLOP/s
  std::optional<Figure> vector_flops;       // per device, FP32 vector (shader) peak, FLOP/s, where the spec row gives it
};

// Spec compute figures of a catalog machine (see the conventions above).
struct ComputeEfficiency {
  Figure decode;   // share of the binding peak a decode-time engine reaches; value realistic, range [low, high]
  Figure prefill;  // share of the compute peak a prefill (batched matmul) engine reaches
};

struct ComputeInfo {
  Figure cpu_flops;                     // dense FP32 FMA peak, all CPU cores of the whole setup, FLOP/s
  std::optional<Figure> cpu_int8_ops;   // int8 dot-product peak, ops/s, when the ISA has one
  std::optional<Figure> gpu_flops;      // unified memory only: integrated GPU, dense FP16/BF16, FLOP/s
  std::optional<Figure> gpu_vector_flops;  // the integrated GPU's FP32 vector peak, FLOP/s, where known
  // The width of one CPU FMA pipe in bits (128, 256, 512), where known: the
  // vector datapath quantized kernels run on (model/regimes.h: simd512_gain).
  std::optional<int> cpu_vector_bits;
  ComputeEfficiency efficiency;
};

// The analytic engine's efficiency factors fitted to measured rows of this
// machine (`moebench calibrate`), with the fit's error.
struct CalibrationInfo {
  double io_efficiency = 1;       // achieved read bandwidth ÷ the profile's
  double compute_efficiency = 1;  // achieved kernel rate ÷ the profile's
  double overlap = 1;             // share of min(I/O, compute after routing) hidden
  double fit_error = 0;           // median |predicted/measured − 1| of decode tok/s, fitted rows
  std::optional<double> holdout_error;  // the same on held-out rows
  int rows = 0;                   // rows fitted
  std::string source;             // results file and sweep
};

struct MachineProfile {
  std::string name;
  std::string description;
  std::string cpu_model;
  // "macos" | "linux" when known: how memory past usable is paged (macOS
  // compresses and swaps anonymous memory on its own, so an engine's cache
  // past usable memory faults; see model/setup_model.cpp).
  std::optional<std::string> os;
  Figure cores;
  Figure memory_total_bytes;
  Figure memory_usable_bytes;
  Figure memory_read_bytes_s;  // all threads, read-only stream
  std::optional<AcceleratorInfo> accelerators;  // discrete GPUs only
  std::optional<ComputeInfo> compute;           // spec compute figures (catalog entries)
  std::optional<CalibrationInfo> calibration;   // written by `moebench calibrate`
  std::vector<DriveProfile> drives;
  std::vector<DriveSetProfile> drive_sets;
  std::vector<KernelFigure> kernels;
  int nodes = 1;                               // linked machines acting as one
  // CPU sockets per node: their memory is summed in memory_read_bw, and an
  // engine that ignores NUMA draws less than the sum (model/regimes.h).
  int sockets = 1;
  std::optional<Figure> interconnect_bytes_s;  // per node, one direction (required when nodes > 1)
  std::optional<Figure> sync_s_per_token;      // added to each decode token by linking the nodes
  std::optional<PowerInfo> power;              // whole setup, at the wall
  std::optional<Figure> price_usd;             // whole setup
  std::optional<std::string> price_basis;      // "purchase" | "hourly"
  // Written by `moebench probe`; absent in hand-written catalog entries.
  std::optional<ProbeInfo> probe;
  std::optional<TopologyInfo> topology;
  std::optional<MemoryBandwidthInfo> memory_bandwidth;
  std::optional<MemoryLimitsInfo> memory_limits;
};

// The kind of GPU that computes on this machine, by its maker (the kernels,
// compilers and matrix units an engine's GPU backend meets): "nvidia",
// "amd", "apple", "intel" or "qualcomm"; the discrete accelerators' model,
// else the integrated GPU of a unified-memory machine (the CPU's name: Apple
// M-series, Ryzen AI Max, GB10, Snapdragon); "" when no GPU is known.
std::string gpu_kind(const MachineProfile& p);
// Every kind gpu_kind names.
const std::vector<std::string>& gpu_kinds();

std::optional<MachineProfile> load_machine_profile(const Json& j, Diagnostics& d);
Expected<MachineProfile> load_machine_profile_file(const std::string& path);

// The inverse of the loader: load_machine_profile(machine_profile_to_json(p))
// gives p back (sizes and rates are written as plain numbers).
nlohmann::ordered_json machine_profile_to_json(const MachineProfile& p);

}  // namespace moebench
