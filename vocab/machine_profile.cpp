// machine_profile.cpp — strict loader for MachineProfile (see the header).
// The writer is in machine_profile_writer.cpp; the two round-trip.
#include "vocab/machine_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"

#include "vocab/quant_format.h"

namespace moebench {

const char* to_string(Provenance p) {
  switch (p) {
    case Provenance::kMeasured: return "measured";
    case Provenance::kSpec: return "spec";
    case Provenance::kEstimate: return "estimate";
  }
  return "?";
}

namespace {

enum class FigureKind { kSize, kRate, kCount, kSeconds, kMoney, kFlops, kShare, kWatts };

// A compute peak beyond this is no machine's (a zettaFLOP/s), only a typo.
constexpr double kMaxFlops = 1e21;

std::optional<double> read_figure_value(const Json& j, const std::string& path, Diagnostics& d,
                                        FigureKind kind) {
  switch (kind) {
    case FigureKind::kSize: {
      auto v = read_size(j, path, d);
      return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
    }
    case FigureKind::kRate: return read_rate(j, path, d);
    case FigureKind::kFlops: {
      if (j.is_string()) {
        d.add(path, "expected a plain number of FLOP/s (or ops/s), e.g. 2.25e15; units are parsed for bytes, "
                    "not FLOPs, got " + dump_untrusted(j));
        return std::nullopt;
      }
      auto v = read_number(j, path, d);
      if (v && !(*v > 0 && *v <= kMaxFlops)) {
        d.add(path, "expected a peak greater than zero and at most 1e21, got " + dump_untrusted(j));
        return std::nullopt;
      }
      return v;
    }
    case FigureKind::kWatts: {
      if (j.is_string()) {
        d.add(path, "expected a plain number of watts, e.g. 140, got " + dump_untrusted(j));
        return std::nullopt;
      }
      auto v = read_number(j, path, d);
      if (v && !(*v > 0 && *v <= 1e8)) {
        d.add(path, "expected watts greater than zero and at most 1e8, got " + dump_untrusted(j));
        return std::nullopt;
      }
      return v;
    }
    case FigureKind::kShare: {
      auto v = read_number(j, path, d);
      if (v && !(*v > 0 && *v <= 1)) {
        d.add(path, "expected a share of peak greater than 0 and at most 1, got " + dump_untrusted(j));
        return std::nullopt;
      }
      return v;
    }
    case FigureKind::kCount:
    case FigureKind::kSeconds:
    case FigureKind::kMoney: {
      auto v = read_number(j, path, d);
      if (v && *v < 0) {
        d.add(path, "expected a value of zero or more, got " + dump_untrusted(j));
        return std::nullopt;
      }
      return v;
    }
  }
  return std::nullopt;
}

// {"value": ..., "provenance": "spec", "source": "...", "range": [lo, hi]}
std::optional<Figure> read_figure(ObjectReader& parent, const char* key, bool required, FigureKind kind) {
  const Json* j = parent.object(key, required);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of(key), d);
  Figure f;
  const Json* v = r.get("value", true);
  std::optional<double> value = v ? read_figure_value(*v, r.path_of("value"), d, kind) : std::nullopt;
  const auto prov = r.enumeration("provenance", true, {"measured", "spec", "estimate"}, "provenance");
  const auto source = r.string("source", true);
  if (source && source->empty()) {
    d.add(r.path_of("source"), "a figure needs its source: the probe method, the spec sheet, or "
                               "the reasoning behind an estimate");
  }
  if (const Json* range = r.array("range", false, false)) {
    if (range->size() != 2) {
      d.add(r.path_of("range"), "expected [low, high]");
    } else {
      f.low = read_figure_value((*range)[0], json_pointer_append(r.path_of("range"), 0), d, kind);
      f.high = read_figure_value((*range)[1], json_pointer_append(r.path_of("range"), 1), d, kind);
      if (f.low && f.high && value && !(*f.low <= *value && *value <= *f.high)) {
        d.add(r.path_of("range"), "the range must contain the value");
      }
    }
  }
  r.finish();
  if (!value || !prov || !source) return std::nullopt;
  f.value = *value;
  f.provenance = *prov == "measured" ? Provenance::kMeasured
                 : *prov == "spec"   ? Provenance::kSpec : Provenance::kEstimate;
  f.source = *source;
  return f;
}

// A non-negative plain number (measured detail fields).
std::optional<double> nonneg(ObjectReader& r, const char* key, bool required) {
  auto v = r.number(key, required);
  if (v && *v < 0) {
    r.diagnostics().add(r.path_of(key), "expected a value of zero or more");
    return std::nullopt;
  }
  return v;
}

// A byte count written as a plain number (measured detail fields): zero or
// more, and small enough for the uint64 it is converted to.
std::uint64_t nonneg_bytes(ObjectReader& r, const char* key) {
  const auto v = nonneg(r, key, true);
  if (!v) return 0;
  if (*v > kMaxSizeBytes) {
    r.diagnostics().add(r.path_of(key), "a byte count of " + format_scientific(*v, 3) +
                                            " is beyond 16 EiB; give the measured number of bytes");
    return 0;
  }
  return static_cast<std::uint64_t>(*v);
}

// A size that may be null (= no limit).
std::optional<std::uint64_t> size_or_null(ObjectReader& r, const char* key) {
  const Json* j = r.get(key, false);
  if (j == nullptr || j->is_null()) return std::nullopt;
  return read_size(*j, r.path_of(key), r.diagnostics());
}

std::vector<std::string> strings(ObjectReader& r, const char* key) {
  std::vector<std::string> out;
  if (const Json* arr = r.array(key, false, false)) {
    for (std::size_t i = 0; i < arr->size(); ++i) {
      if (auto s = read_string((*arr)[i], json_pointer_append(r.path_of(key), i), r.diagnostics())) out.push_back(*s);
    }
  }
  return out;
}

// Two statistics written from one computation: equal up to rounding.
bool same_value(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// {"n": 3, "median": x, "min": a, "max": b, "samples": [...]?}: the repeats
// of one figure. Every number finite and zero or more, min ≤ median ≤ max,
// n ≥ 1; samples, when given, number n and give the same median, min and
// max. `figure_value` (the figure these are repeats of) must be the median.
std::optional<RepeatSpread> read_repeats(ObjectReader& parent, const char* key, std::optional<double> figure_value,
                                         const char* figure_name) {
  const Json* j = parent.object(key, false);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of(key), d);
  const auto n = r.integer("n", true, 1, 1000000);
  const auto median = nonneg(r, "median", true);
  const auto lo = nonneg(r, "min", true);
  const auto hi = nonneg(r, "max", true);
  RepeatSpread out;
  bool ok = n && median && lo && hi;
  if (ok && !(*lo <= *median && *median <= *hi)) {
    d.add(r.path(), "expected min ≤ median ≤ max, got min " + format_scientific(*lo, 3) + ", median " +
                        format_scientific(*median, 3) + ", max " + format_scientific(*hi, 3) +
                        "; rerun `moebench probe` or drop the repeats");
    ok = false;
  }
  if (const Json* samples = r.array("samples", false, false)) {
    const std::string sp = r.path_of("samples");
    for (std::size_t i = 0; i < samples->size(); ++i) {
      const std::string ip = json_pointer_append(sp, i);
      auto v = read_number((*samples)[i], ip, d);
      if (v && *v < 0) {
        d.add(ip, "expected a value of zero or more");
        v.reset();
      }
      if (!v) {
        ok = false;
        continue;
      }
      out.samples.push_back(*v);
    }
    if (ok && n && out.samples.size() != static_cast<std::size_t>(*n)) {
      d.add(sp, "expected n = " + std::to_string(*n) + " samples, got " + std::to_string(out.samples.size()));
      ok = false;
    }
    if (ok) {
      const auto [smin, smax] = std::minmax_element(out.samples.begin(), out.samples.end());
      if (!same_value(*smin, *lo) || !same_value(*smax, *hi) || !same_value(moebench::median(out.samples), *median)) {
        d.add(sp, "the samples' median, min and max (" + format_scientific(moebench::median(out.samples), 3) + ", " +
                      format_scientific(*smin, 3) + ", " + format_scientific(*smax, 3) +
                      ") disagree with the fields beside them");
        ok = false;
      }
    }
  }
  if (ok && figure_value && !same_value(*figure_value, *median)) {
    d.add(r.path_of("median"), "the median of the repeats (" + format_scientific(*median, 3) + ") must be the " +
                                   figure_name + " value (" + format_scientific(*figure_value, 3) + ")");
    ok = false;
  }
  r.finish();
  if (!ok) return std::nullopt;
  out.n = static_cast<int>(*n);
  out.median = *median;
  out.min = *lo;
  out.max = *hi;
  return out;
}

// {"pairs", "threshold", "worst_relative_range", "worst_cell", "noisy"}.
std::optional<DriveRepeatability> read_repeatability(ObjectReader& parent) {
  const Json* j = parent.object("repeatability", false);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of("repeatability"), d);
  const auto pairs = r.integer("pairs", true, 1, 1000000);
  const auto threshold = nonneg(r, "threshold", true);
  const auto worst = nonneg(r, "worst_relative_range", true);
  const auto cell = r.string("worst_cell", true);
  const auto noisy = r.boolean("noisy", true);
  if (threshold && *threshold == 0) d.add(r.path_of("threshold"), "expected a threshold greater than zero");
  if (threshold && worst && noisy && *threshold > 0 && *noisy != (*worst > *threshold)) {
    d.add(r.path_of("noisy"), std::string("a drive is noisy exactly when worst_relative_range (") +
                                  format_fixed(*worst, 3) + ") exceeds threshold (" + format_fixed(*threshold, 3) +
                                  "): expected " + (*worst > *threshold ? "true" : "false"));
  }
  r.finish();
  if (!pairs || !threshold || !worst || !cell || !noisy) return std::nullopt;
  DriveRepeatability out;
  out.pairs = static_cast<int>(*pairs);
  out.threshold = *threshold;
  out.worst_relative_range = *worst;
  out.worst_cell = *cell;
  out.noisy = *noisy;
  return out;
}

std::vector<DriveReadPoint> read_curve(ObjectReader& parent, const char* key) {
  std::vector<DriveReadPoint> out;
  Diagnostics& d = parent.diagnostics();
  const Json* curve = parent.array(key, false, false);
  if (curve == nullptr) return out;
  for (std::size_t k = 0; k < curve->size(); ++k) {
    ObjectReader c((*curve)[k], json_pointer_append(parent.path_of(key), k), d);
    DriveReadPoint pt;
    pt.block_bytes = c.size("block", true).value_or(0);
    pt.queue_depth = static_cast<int>(c.integer("queue_depth", true, 1, 65536).value_or(1));
    pt.pattern = c.enumeration("pattern", true, {"random", "sequential"}, "pattern").value_or("");
    const auto read_bw = read_figure(c, "read_bw", true, FigureKind::kRate);
    pt.read_bytes_s = read_bw.value_or(Figure{});
    pt.read_spread = read_repeats(c, "read_bw_repeats",
                                  read_bw ? std::optional<double>(read_bw->value) : std::nullopt, "read_bw");
    pt.iops = nonneg(c, "iops", false);
    pt.lat_p50_us = nonneg(c, "lat_p50_us", false);
    pt.lat_p99_us = nonneg(c, "lat_p99_us", false);
    pt.io_path = c.enumeration("io_path", false, {"io_uring", "pread-threads"}, "I/O path").value_or("");
    if (const Json* fio = c.object("fio", false)) {
      ObjectReader f(*fio, c.path_of("fio"), d);
      FioFigures ff;
      const auto fio_bw = f.rate("read_bw", true);
      ff.read_bytes_s = fio_bw.value_or(0);
      ff.iops = nonneg(f, "iops", true).value_or(0);
      ff.clat_p50_us = nonneg(f, "clat_p50_us", true).value_or(0);
      ff.clat_p99_us = nonneg(f, "clat_p99_us", true).value_or(0);
      ff.read_spread = read_repeats(f, "read_bw_repeats", fio_bw, "fio read_bw");
      ff.pair_ratio = read_repeats(f, "pair_ratio", std::nullopt, "");
      ff.job = f.string("job", false).value_or("");
      ff.search = f.string("search", false).value_or("");
      f.get("builtin_over_fio", false);  // derived, written for readers; recomputed on load
      f.finish();
      pt.fio = ff;
    }
    c.finish();
    out.push_back(pt);
  }
  return out;
}

std::optional<DriveDeviceInfo> read_device(ObjectReader& parent) {
  const Json* j = parent.object("device", false);
  if (j == nullptr) return std::nullopt;
  ObjectReader r(*j, parent.path_of("device"), parent.diagnostics());
  DriveDeviceInfo v;
  v.dev_id = r.string("dev_id", false).value_or("");
  v.disk = r.string("disk", false).value_or("");
  v.partition = r.string("partition", false).value_or("");
  v.model = r.string("model", false).value_or("");
  v.filesystem = r.string("filesystem", false).value_or("");
  v.mount_point = r.string("mount_point", false).value_or("");
  v.pci_bus_id = r.string("pci_bus_id", false).value_or("");
  v.pci_link = r.string("pci_link", false).value_or("");
  v.size_bytes = size_or_null(r, "size");
  v.rotational = r.boolean("rotational", false);
  v.o_direct = r.boolean("o_direct", true).value_or(true);
  v.test_file_bytes = r.size("test_file", false).value_or(0);
  r.finish();
  return v;
}

// {"model": ..., "count": N, "memory": {figure}, "memory_read_bw": {figure},
//  "host_link_bw": {figure}, "peer_bw": {figure}, "flops": {figure},
//  "vector_flops": {figure}}: per-device figures.
std::optional<AcceleratorInfo> read_accelerators(ObjectReader& parent) {
  const Json* j = parent.object("accelerators", false);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of("accelerators"), d);
  AcceleratorInfo a;
  const auto model = r.string("model", true);
  if (model && model->empty()) {
    d.add(r.path_of("model"), "name the device model, e.g. \"NVIDIA A100-SXM4-40GB\"");
  }
  const auto count = r.integer("count", true, 1, 1 << 20);
  const auto memory = read_figure(r, "memory", true, FigureKind::kSize);
  const auto read_bw = read_figure(r, "memory_read_bw", true, FigureKind::kRate);
  a.host_link_bytes_s = read_figure(r, "host_link_bw", false, FigureKind::kRate);
  a.peer_bytes_s = read_figure(r, "peer_bw", false, FigureKind::kRate);
  a.flops = read_figure(r, "flops", false, FigureKind::kFlops);
  a.vector_flops = read_figure(r, "vector_flops", false, FigureKind::kFlops);
  if (count && *count == 1 && a.peer_bytes_s) {
    d.add(r.path_of("peer_bw"), "a single device has no peer link; drop peer_bw or raise count "
                                "(count is over the whole setup, all nodes)");
  }
  r.finish();
  if (!model || !count || !memory || !read_bw) return std::nullopt;
  a.model = *model;
  a.count = static_cast<int>(*count);
  a.memory_bytes = *memory;
  a.memory_read_bytes_s = *read_bw;
  return a;
}

// An efficiency: a share of peak with its band, [low, high] required.
std::optional<Figure> read_efficiency(ObjectReader& r, const char* key) {
  auto f = read_figure(r, key, true, FigureKind::kShare);
  if (f && !(f->low && f->high)) {
    r.diagnostics().add(r.path_of(key), "an efficiency needs its band: give \"range\": [low, high] beside the "
                                        "realistic value");
    return std::nullopt;
  }
  return f;
}

// {"cpu_flops": {figure}, "cpu_int8_ops": {figure}?, "gpu_flops": {figure}?, "gpu_vector_flops": {figure}?,
//  "cpu_vector_bits": 128|256|512?,
//  "efficiency": {"decode": {figure}, "prefill": {figure}}}.
std::optional<ComputeInfo> read_compute(ObjectReader& parent, bool discrete_gpu) {
  const Json* j = parent.object("compute", false);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = parent.diagnostics();
  ObjectReader r(*j, parent.path_of("compute"), d);
  ComputeInfo c;
  const auto cpu = read_figure(r, "cpu_flops", true, FigureKind::kFlops);
  c.cpu_int8_ops = read_figure(r, "cpu_int8_ops", false, FigureKind::kFlops);
  c.gpu_flops = read_figure(r, "gpu_flops", false, FigureKind::kFlops);
  c.gpu_vector_flops = read_figure(r, "gpu_vector_flops", false, FigureKind::kFlops);
  if (auto bits = r.integer("cpu_vector_bits", false, 64, 2048)) {
    if (*bits != 128 && *bits != 256 && *bits != 512) {
      d.add(r.path_of("cpu_vector_bits"), "the width of one FMA pipe is 128, 256 or 512 bits (SSE/NEON, AVX2, AVX-512 at full width)");
    } else {
      c.cpu_vector_bits = static_cast<int>(*bits);
    }
  }
  if (c.gpu_flops && discrete_gpu) {
    d.add(r.path_of("gpu_flops"), "gpu_flops is the integrated GPU of a unified-memory machine; a discrete GPU's "
                                  "peak goes per device in /accelerators/flops");
  }
  std::optional<Figure> decode, prefill;
  if (const Json* e = r.object("efficiency", true)) {
    ObjectReader er(*e, r.path_of("efficiency"), d);
    decode = read_efficiency(er, "decode");
    prefill = read_efficiency(er, "prefill");
    er.finish();
  }
  r.finish();
  if (!cpu || !decode || !prefill) return std::nullopt;
  c.cpu_flops = *cpu;
  c.efficiency.decode = *decode;
  c.efficiency.prefill = *prefill;
  return c;
}

void read_probe_sections(ObjectReader& r, MachineProfile& m) {
  Diagnostics& d = r.diagnostics();
  if (const Json* j = r.object("probe", false)) {
    ObjectReader p(*j, r.path_of("probe"), d);
    ProbeInfo info;
    info.build = p.string("build", true).value_or("");
    info.host = p.string("host", true).value_or("");
    info.started_at = p.string("started_at", true).value_or("");
    info.duration_s = nonneg(p, "duration_s", true).value_or(0);
    info.quick = p.boolean("quick", true).value_or(false);
    info.fio = p.string("fio", true).value_or("");
    info.notes = strings(p, "notes");
    p.finish();
    m.probe = info;
  }
  if (const Json* j = r.object("topology", false)) {
    ObjectReader t(*j, r.path_of("topology"), d);
    TopologyInfo info;
    info.packages = static_cast<int>(t.integer("packages", true, 0, 1 << 20).value_or(0));
    info.cores = static_cast<int>(t.integer("cores", true, 0, 1 << 20).value_or(0));
    info.pus = static_cast<int>(t.integer("pus", true, 0, 1 << 20).value_or(0));
    if (const Json* numa = t.array("numa_memory", false, false)) {
      for (std::size_t i = 0; i < numa->size(); ++i) {
        info.numa_memory_bytes.push_back(
            read_size((*numa)[i], json_pointer_append(t.path_of("numa_memory"), i), d).value_or(0));
      }
    }
    if (const Json* caches = t.array("caches", false, false)) {
      for (std::size_t i = 0; i < caches->size(); ++i) {
        ObjectReader c((*caches)[i], json_pointer_append(t.path_of("caches"), i), d);
        CacheInfo ci;
        ci.level = static_cast<int>(c.integer("level", true, 1, 8).value_or(0));
        ci.kind = c.enumeration("kind", true, {"data", "instruction", "unified"}, "cache kind").value_or("");
        ci.size_bytes = c.size("size", true).value_or(0);
        ci.instances = static_cast<int>(c.integer("instances", true, 1, 1 << 20).value_or(0));
        c.finish();
        info.caches.push_back(ci);
      }
    }
    info.hwloc_version = t.string("hwloc_version", false).value_or("");
    t.finish();
    m.topology = info;
  }
  if (const Json* j = r.object("memory_bandwidth", false)) {
    ObjectReader b(*j, r.path_of("memory_bandwidth"), d);
    MemoryBandwidthInfo info;
    info.convention = b.string("convention", true).value_or("");
    if (const Json* cells = b.array("cells", true, true)) {
      for (std::size_t i = 0; i < cells->size(); ++i) {
        ObjectReader c((*cells)[i], json_pointer_append(b.path_of("cells"), i), d);
        BandwidthFigure f;
        f.kernel = c.enumeration("kernel", true, {"read", "copy", "triad"}, "kernel").value_or("");
        f.threads = static_cast<int>(c.integer("threads", true, 1, 1 << 20).value_or(1));
        f.best_bytes_s = c.rate("best_bw", true).value_or(0);
        f.median_bytes_s = c.rate("median_bw", true).value_or(0);
        f.repetitions = static_cast<int>(c.integer("repetitions", true, 1, 1 << 20).value_or(1));
        f.array_bytes = c.size("array", true).value_or(0);
        f.pinned = c.boolean("pinned", true).value_or(false);
        c.finish();
        info.cells.push_back(f);
      }
    }
    info.reference = b.string("reference", true).value_or("");
    info.reference_read_bytes_s = b.rate("reference_read_bw", false);
    b.finish();
    m.memory_bandwidth = info;
  }
  if (const Json* j = r.object("memory_limits", false)) {
    ObjectReader l(*j, r.path_of("memory_limits"), d);
    MemoryLimitsInfo info;
    info.mem_total_bytes = l.size("mem_total", true).value_or(0);
    info.mem_available_bytes = l.size("mem_available", true).value_or(0);
    info.swap_total_bytes = nonneg_bytes(l, "swap_total");
    info.cgroup_version = l.enumeration("cgroup_version", true, {"v1", "v2", "none"}, "cgroup version").value_or("");
    info.cgroup_limit_bytes = size_or_null(l, "cgroup_limit");
    info.rlimit_as_bytes = size_or_null(l, "rlimit_as");
    info.rlimit_memlock_bytes = size_or_null(l, "rlimit_memlock");
    info.overcommit_mode = static_cast<int>(l.integer("overcommit_mode", true, -1, 2).value_or(-1));
    info.binding_limit_bytes = l.size("binding_limit", true).value_or(0);
    info.binding_limit_name = l.string("binding_limit_name", true).value_or("");
    info.touchable_bytes = nonneg_bytes(l, "touchable");
    info.held_bytes = nonneg_bytes(l, "held");
    info.lockable_bytes = nonneg_bytes(l, "lockable");
    info.stop_reason = l.string("stop_reason", true).value_or("");
    info.touch_bytes_s = nonneg(l, "touch_rate", true).value_or(0);
    l.finish();
    m.memory_limits = info;
  }
}

// Power under load and idle (idle no higher than load).
std::optional<PowerInfo> read_power(ObjectReader& r) {
  const Json* pw = r.object("power", false);
  if (pw == nullptr) return std::nullopt;
  Diagnostics& d = r.diagnostics();
  ObjectReader pr(*pw, r.path_of("power"), d);
  const auto load = read_figure(pr, "load_w", true, FigureKind::kWatts);
  const auto idle = read_figure(pr, "idle_w", true, FigureKind::kWatts);
  pr.finish();
  if (!load || !idle) return std::nullopt;
  if (idle->value > load->value) {
    d.add(pr.path_of("idle_w"), "idle power " + format_fixed(idle->value, 0) + " W is above the load power " +
                                    format_fixed(load->value, 0) + " W: check which figure is which");
  }
  return PowerInfo{*load, *idle};
}

// A calibration's factors, each in its range, and what it was fitted on.
std::optional<CalibrationInfo> read_calibration(ObjectReader& r) {
  const Json* cal = r.object("calibration", false);
  if (cal == nullptr) return std::nullopt;
  Diagnostics& d = r.diagnostics();
  ObjectReader c(*cal, r.path_of("calibration"), d);
  CalibrationInfo info;
  auto factor = [&](const char* key, double lo, double hi) {
    const auto v = c.number(key, true);
    if (v && (*v < lo || *v > hi)) {
      d.add(c.path_of(key), "expected a factor in [" + format_fixed(lo, 1) + ", " + format_fixed(hi, 1) +
                                "]; recalibrate with `moebench calibrate`");
    }
    return v.value_or(1.0);
  };
  info.io_efficiency = factor("io_efficiency", 0.01, 100);
  info.compute_efficiency = factor("compute_efficiency", 0.01, 100);
  info.overlap = factor("overlap", 0, 1);
  info.fit_error = factor("fit_error", 0, 100);
  if (c.get("holdout_error", false)) info.holdout_error = factor("holdout_error", 0, 100);
  info.rows = static_cast<int>(c.integer("rows", true, 1, 1000000).value_or(0));
  info.source = c.string("source", true).value_or("");
  c.finish();
  return info;
}

// The drives: name, sequential rate, read curve, device, repeatability.
std::vector<DriveProfile> read_drives(ObjectReader& r) {
  std::vector<DriveProfile> out;
  const Json* drives = r.array("drives", true, false);
  if (drives == nullptr) return out;
  for (std::size_t i = 0; i < drives->size(); ++i) {
    ObjectReader dr((*drives)[i], json_pointer_append(r.path_of("drives"), i), r.diagnostics());
    DriveProfile p;
    p.name = dr.string("name", true).value_or("");
    p.path = dr.string("path", false);
    p.capacity_bytes = read_figure(dr, "capacity", false, FigureKind::kSize);
    p.seq_read_bytes_s = read_figure(dr, "seq_read_bw", true, FigureKind::kRate).value_or(Figure{});
    p.read_curve = read_curve(dr, "read_curve");
    p.device = read_device(dr);
    p.repeatability = read_repeatability(dr);
    dr.finish();
    out.push_back(std::move(p));
  }
  return out;
}

// Sets of drives read at once, each naming drives the profile lists.
std::vector<DriveSetProfile> read_drive_sets(ObjectReader& r, const std::vector<DriveProfile>& drives) {
  std::vector<DriveSetProfile> out;
  const Json* sets = r.array("drive_sets", false, false);
  if (sets == nullptr) return out;
  for (std::size_t i = 0; i < sets->size(); ++i) {
    ObjectReader s((*sets)[i], json_pointer_append(r.path_of("drive_sets"), i), r.diagnostics());
    DriveSetProfile set;
    set.drives = strings(s, "drives");
    set.read_curve = read_curve(s, "read_curve");
    s.finish();
    for (const std::string& name : set.drives) {
      bool known = false;
      for (const DriveProfile& p : drives) known = known || p.name == name;
      if (!known) r.diagnostics().add(s.path_of("drives"), "drive \"" + name + "\" is not listed in /drives");
    }
    out.push_back(std::move(set));
  }
  return out;
}

// The measured kernel rates: quant, shape, threads, batch, weight bytes/s.
std::vector<KernelFigure> read_kernels(ObjectReader& r) {
  std::vector<KernelFigure> out;
  const Json* kernels = r.array("kernels", false, false);
  if (kernels == nullptr) return out;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    ObjectReader k((*kernels)[i], json_pointer_append(r.path_of("kernels"), i), r.diagnostics());
    KernelFigure kf;
    kf.quant = k.enumeration("quant", true, quant_names(), "quant").value_or("");
    kf.shape = k.enumeration("shape", true, {"matvec", "matmul"}, "kernel shape").value_or("");
    kf.threads = static_cast<int>(k.integer("threads", true, 1, 1 << 20).value_or(1));
    kf.batch = static_cast<int>(k.integer("batch", false, 1, 1 << 20).value_or(1));
    kf.weight_bytes_s = read_figure(k, "weight_bw", true, FigureKind::kRate).value_or(Figure{});
    kf.gflop_s = nonneg(k, "gflop_s", false);
    k.finish();
    out.push_back(std::move(kf));
  }
  return out;
}

}  // namespace

std::optional<MachineProfile> load_machine_profile(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  MachineProfile m;
  m.name = r.string("name", true).value_or("");
  m.description = r.string("description", false).value_or("");
  m.cpu_model = r.string("cpu_model", false).value_or("");
  m.os = r.enumeration("os", false, {"macos", "linux"}, "operating system");
  m.cores = read_figure(r, "cores", true, FigureKind::kCount).value_or(Figure{});
  m.memory_total_bytes = read_figure(r, "memory_total", true, FigureKind::kSize).value_or(Figure{});
  m.memory_usable_bytes = read_figure(r, "memory_usable", true, FigureKind::kSize).value_or(Figure{});
  m.memory_read_bytes_s = read_figure(r, "memory_read_bw", true, FigureKind::kRate).value_or(Figure{});
  // What cannot be: usable memory above the total, a machine smaller than
  // a megabyte, no cores.
  if (m.memory_total_bytes.value > 0 && m.memory_usable_bytes.value > m.memory_total_bytes.value * 1.0001) {
    d.add(r.path_of("memory_usable"), "usable memory " + format_bytes_decimal(m.memory_usable_bytes.value) +
                                          " is more than memory_total " + format_bytes_decimal(m.memory_total_bytes.value));
  }
  if (m.memory_total_bytes.value > 0 && m.memory_total_bytes.value < 1e6) {
    d.add(r.path_of("memory_total"), "a machine with less than 1 MB of memory: check the value and its unit");
  }
  if (r.get("cores", false) && m.cores.value < 1) d.add(r.path_of("cores"), "expected at least one core");
  m.accelerators = read_accelerators(r);
  m.compute = read_compute(r, r.get("accelerators", false) != nullptr);
  m.nodes = static_cast<int>(r.integer("nodes", false, 1, 4096).value_or(1));
  m.sockets = static_cast<int>(r.integer("sockets", false, 1, 64).value_or(1));
  m.interconnect_bytes_s = read_figure(r, "interconnect_bw", m.nodes > 1, FigureKind::kRate);
  m.sync_s_per_token = read_figure(r, "sync_s_per_token", false, FigureKind::kSeconds);
  m.power = read_power(r);
  m.price_usd = read_figure(r, "price_usd", false, FigureKind::kMoney);
  m.price_basis = r.enumeration("price_basis", m.price_usd.has_value(), {"purchase", "hourly"}, "price basis");
  m.calibration = read_calibration(r);
  m.drives = read_drives(r);
  m.drive_sets = read_drive_sets(r, m.drives);
  m.kernels = read_kernels(r);
  read_probe_sections(r, m);
  r.finish();
  if (!d.ok()) return std::nullopt;
  return m;
}

Expected<MachineProfile> load_machine_profile_file(const std::string& path) {
  return load_config_file<MachineProfile>(path, load_machine_profile);
}

const std::vector<std::string>& gpu_kinds() {
  static const std::vector<std::string> kKinds = {"nvidia", "amd", "apple", "intel", "qualcomm"};
  return kKinds;
}

std::string gpu_kind(const MachineProfile& p) {
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  auto has = [](const std::string& s, std::initializer_list<const char*> words) {
    for (const char* w : words) {
      if (s.find(w) != std::string::npos) return true;
    }
    return false;
  };
  std::string name;
  if (p.accelerators && p.accelerators->count > 0) {
    name = lower(p.accelerators->model);
  } else if (p.compute && p.compute->gpu_flops) {
    name = lower(p.cpu_model);
  } else {
    return "";
  }
  if (has(name, {"nvidia", "geforce", "rtx", "tesla", "gb10", "grace", "a100", "h100", "h200", "b200", "l40"})) return "nvidia";
  if (has(name, {"apple", "m1 ", "m2 ", "m3 ", "m4 ", "m5 "})) return "apple";
  if (has(name, {"amd", "radeon", "instinct", "ryzen", "strix"})) return "amd";
  if (has(name, {"intel", "arc "})) return "intel";
  if (has(name, {"qualcomm", "snapdragon", "adreno"})) return "qualcomm";
  return "";
}

}  // namespace moebench
