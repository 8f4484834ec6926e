// machine_profile_writer.cpp — MachineProfile → JSON, the inverse of the
// loader (keys in a readable order; sizes and rates as plain numbers, units
// in the key names' documentation and in each figure's source).
#include "vocab/machine_profile.h"

#include <cmath>

namespace moebench {
namespace {

using OJson = nlohmann::ordered_json;

OJson figure(const Figure& f) {
  OJson j = OJson::object();
  // Whole numbers (byte counts, core counts) are written as integers.
  if (f.value == std::floor(f.value) && std::fabs(f.value) < 9.0e15) {
    j["value"] = static_cast<std::int64_t>(f.value);
  } else {
    j["value"] = f.value;
  }
  j["provenance"] = to_string(f.provenance);
  j["source"] = f.source;
  if (f.low && f.high) j["range"] = OJson::array({*f.low, *f.high});
  return j;
}

template <typename T>
OJson or_null(const std::optional<T>& v) {
  return v ? OJson(*v) : OJson(nullptr);
}

OJson repeats(const RepeatSpread& r) {
  OJson j = OJson::object();
  j["n"] = r.n;
  j["median"] = r.median;
  j["min"] = r.min;
  j["max"] = r.max;
  if (!r.samples.empty()) j["samples"] = r.samples;
  return j;
}

OJson curve(const std::vector<DriveReadPoint>& points) {
  OJson arr = OJson::array();
  for (const DriveReadPoint& p : points) {
    OJson j = OJson::object();
    j["block"] = p.block_bytes;
    j["queue_depth"] = p.queue_depth;
    j["pattern"] = p.pattern;
    j["read_bw"] = figure(p.read_bytes_s);
    if (p.read_spread) j["read_bw_repeats"] = repeats(*p.read_spread);
    if (p.iops) j["iops"] = *p.iops;
    if (p.lat_p50_us) j["lat_p50_us"] = *p.lat_p50_us;
    if (p.lat_p99_us) j["lat_p99_us"] = *p.lat_p99_us;
    if (!p.io_path.empty()) j["io_path"] = p.io_path;
    if (p.fio) {
      OJson f = OJson::object();
      f["read_bw"] = p.fio->read_bytes_s;
      f["iops"] = p.fio->iops;
      f["clat_p50_us"] = p.fio->clat_p50_us;
      f["clat_p99_us"] = p.fio->clat_p99_us;
      if (p.fio->read_spread) f["read_bw_repeats"] = repeats(*p.fio->read_spread);
      if (p.fio->pair_ratio) f["pair_ratio"] = repeats(*p.fio->pair_ratio);
      if (!p.fio->job.empty()) f["job"] = p.fio->job;
      if (!p.fio->search.empty()) f["search"] = p.fio->search;
      // Derived for readers (ignored on load): the median per-pair ratio when
      // there were pairs, else the ratio of the two figures.
      if (p.fio->pair_ratio) {
        f["builtin_over_fio"] = p.fio->pair_ratio->median;
      } else if (p.fio->read_bytes_s > 0) {
        f["builtin_over_fio"] = p.read_bytes_s.value / p.fio->read_bytes_s;
      }
      j["fio"] = f;
    }
    arr.push_back(j);
  }
  return arr;
}

// The GPUs (one model, a count) and their memory, links and peak.
OJson accelerators_json(const AcceleratorInfo& a) {
  OJson aj = OJson::object();
  aj["model"] = a.model;
  aj["count"] = a.count;
  aj["memory"] = figure(a.memory_bytes);
  aj["memory_read_bw"] = figure(a.memory_read_bytes_s);
  if (a.host_link_bytes_s) aj["host_link_bw"] = figure(*a.host_link_bytes_s);
  if (a.peer_bytes_s) aj["peer_bw"] = figure(*a.peer_bytes_s);
  if (a.flops) aj["flops"] = figure(*a.flops);
  if (a.vector_flops) aj["vector_flops"] = figure(*a.vector_flops);
  return aj;
}

// The processors' peaks and the decode/prefill efficiencies.
OJson compute_json(const ComputeInfo& c) {
  OJson cj = OJson::object();
  cj["cpu_flops"] = figure(c.cpu_flops);
  if (c.cpu_int8_ops) cj["cpu_int8_ops"] = figure(*c.cpu_int8_ops);
  if (c.gpu_flops) cj["gpu_flops"] = figure(*c.gpu_flops);
  if (c.gpu_vector_flops) cj["gpu_vector_flops"] = figure(*c.gpu_vector_flops);
  if (c.cpu_vector_bits) cj["cpu_vector_bits"] = *c.cpu_vector_bits;
  OJson ej = OJson::object();
  ej["decode"] = figure(c.efficiency.decode);
  ej["prefill"] = figure(c.efficiency.prefill);
  cj["efficiency"] = ej;
  return cj;
}

// A calibration's fitted efficiencies and its errors.
OJson calibration_json(const CalibrationInfo& c) {
  nlohmann::ordered_json cj = nlohmann::ordered_json::object();
  cj["io_efficiency"] = c.io_efficiency;
  cj["compute_efficiency"] = c.compute_efficiency;
  cj["overlap"] = c.overlap;
  cj["fit_error"] = c.fit_error;
  if (c.holdout_error) cj["holdout_error"] = *c.holdout_error;
  cj["rows"] = c.rows;
  cj["source"] = c.source;
  return cj;
}

// How the probe ran: build, host, time, fio, notes.
OJson probe_json(const ProbeInfo& p) {
  OJson pj = OJson::object();
  pj["build"] = p.build;
  pj["host"] = p.host;
  pj["started_at"] = p.started_at;
  pj["duration_s"] = p.duration_s;
  pj["quick"] = p.quick;
  pj["fio"] = p.fio;
  pj["notes"] = p.notes;
  return pj;
}

// hwloc's view: packages, cores, PUs, caches.
OJson topology_json(const TopologyInfo& t) {
  OJson tj = OJson::object();
  tj["packages"] = t.packages;
  tj["cores"] = t.cores;
  tj["pus"] = t.pus;
  tj["numa_memory"] = t.numa_memory_bytes;
  OJson caches = OJson::array();
  for (const CacheInfo& c : t.caches) {
    OJson cj = OJson::object();
    cj["level"] = c.level;
    cj["kind"] = c.kind;
    cj["size"] = c.size_bytes;
    cj["instances"] = c.instances;
    caches.push_back(cj);
  }
  tj["caches"] = caches;
  tj["hwloc_version"] = t.hwloc_version;
  return tj;
}

// The read-bandwidth cells per thread count and the sysbench cross-check.
OJson memory_bandwidth_json(const MemoryBandwidthInfo& b) {
  OJson bj = OJson::object();
  bj["convention"] = b.convention;
  OJson cells = OJson::array();
  for (const BandwidthFigure& f : b.cells) {
    OJson cj = OJson::object();
    cj["kernel"] = f.kernel;
    cj["threads"] = f.threads;
    cj["best_bw"] = f.best_bytes_s;
    cj["median_bw"] = f.median_bytes_s;
    cj["repetitions"] = f.repetitions;
    cj["array"] = f.array_bytes;
    cj["pinned"] = f.pinned;
    cells.push_back(cj);
  }
  bj["cells"] = cells;
  bj["reference"] = b.reference;
  if (b.reference_read_bytes_s) bj["reference_read_bw"] = *b.reference_read_bytes_s;
  return bj;
}

// The memory limits and what the usable-memory touch held.
OJson memory_limits_json(const MemoryLimitsInfo& l) {
  OJson lj = OJson::object();
  lj["mem_total"] = l.mem_total_bytes;
  lj["mem_available"] = l.mem_available_bytes;
  lj["swap_total"] = l.swap_total_bytes;
  lj["cgroup_version"] = l.cgroup_version;
  lj["cgroup_limit"] = or_null(l.cgroup_limit_bytes);
  lj["rlimit_as"] = or_null(l.rlimit_as_bytes);
  lj["rlimit_memlock"] = or_null(l.rlimit_memlock_bytes);
  lj["overcommit_mode"] = l.overcommit_mode;
  lj["binding_limit"] = l.binding_limit_bytes;
  lj["binding_limit_name"] = l.binding_limit_name;
  lj["touchable"] = l.touchable_bytes;
  lj["held"] = l.held_bytes;
  lj["lockable"] = l.lockable_bytes;
  lj["stop_reason"] = l.stop_reason;
  lj["touch_rate"] = l.touch_bytes_s;
  return lj;
}

// One drive: its curve, the device it sits on, its repeatability.
OJson drive_json(const DriveProfile& d) {
  OJson dj = OJson::object();
  dj["name"] = d.name;
  if (d.path) dj["path"] = *d.path;
  if (d.capacity_bytes) dj["capacity"] = figure(*d.capacity_bytes);
  dj["seq_read_bw"] = figure(d.seq_read_bytes_s);
  if (!d.read_curve.empty()) dj["read_curve"] = curve(d.read_curve);
  if (d.device) {
    const DriveDeviceInfo& v = *d.device;
    OJson dev = OJson::object();
    dev["dev_id"] = v.dev_id;
    dev["disk"] = v.disk;
    dev["partition"] = v.partition;
    dev["model"] = v.model;
    dev["size"] = or_null(v.size_bytes);
    if (v.rotational) dev["rotational"] = *v.rotational;
    dev["filesystem"] = v.filesystem;
    dev["mount_point"] = v.mount_point;
    dev["pci_bus_id"] = v.pci_bus_id;
    dev["pci_link"] = v.pci_link;
    dev["o_direct"] = v.o_direct;
    if (v.test_file_bytes > 0) dev["test_file"] = v.test_file_bytes;
    dj["device"] = dev;
  }
  if (d.repeatability) {
    const DriveRepeatability& r = *d.repeatability;
    OJson rj = OJson::object();
    rj["pairs"] = r.pairs;
    rj["threshold"] = r.threshold;
    rj["worst_relative_range"] = r.worst_relative_range;
    rj["worst_cell"] = r.worst_cell;
    rj["noisy"] = r.noisy;
    dj["repeatability"] = rj;
  }
  return dj;
}

// One kernel rate: quant, shape, threads, batch, weight bytes/s.
OJson kernel_json(const KernelFigure& k) {
  OJson kj = OJson::object();
  kj["quant"] = k.quant;
  kj["shape"] = k.shape;
  kj["threads"] = k.threads;
  kj["batch"] = k.batch;
  kj["weight_bw"] = figure(k.weight_bytes_s);
  if (k.gflop_s) kj["gflop_s"] = *k.gflop_s;
  return kj;
}

}  // namespace

OJson machine_profile_to_json(const MachineProfile& m) {
  OJson j = OJson::object();
  j["name"] = m.name;
  if (!m.description.empty()) j["description"] = m.description;
  if (!m.cpu_model.empty()) j["cpu_model"] = m.cpu_model;
  if (m.os) j["os"] = *m.os;
  j["cores"] = figure(m.cores);
  j["memory_total"] = figure(m.memory_total_bytes);
  j["memory_usable"] = figure(m.memory_usable_bytes);
  j["memory_read_bw"] = figure(m.memory_read_bytes_s);
  if (m.accelerators) j["accelerators"] = accelerators_json(*m.accelerators);
  if (m.compute) j["compute"] = compute_json(*m.compute);
  if (m.nodes != 1) j["nodes"] = m.nodes;
  if (m.sockets != 1) j["sockets"] = m.sockets;
  if (m.interconnect_bytes_s) j["interconnect_bw"] = figure(*m.interconnect_bytes_s);
  if (m.sync_s_per_token) j["sync_s_per_token"] = figure(*m.sync_s_per_token);
  if (m.power) {
    OJson pw = OJson::object();
    pw["load_w"] = figure(m.power->load_w);
    pw["idle_w"] = figure(m.power->idle_w);
    j["power"] = pw;
  }
  if (m.price_usd) j["price_usd"] = figure(*m.price_usd);
  if (m.price_basis) j["price_basis"] = *m.price_basis;
  if (m.calibration) j["calibration"] = calibration_json(*m.calibration);
  OJson drives = OJson::array();
  for (const DriveProfile& d : m.drives) drives.push_back(drive_json(d));
  j["drives"] = drives;
  if (!m.drive_sets.empty()) {
    OJson sets = OJson::array();
    for (const DriveSetProfile& s : m.drive_sets) {
      sets.push_back(OJson{{"drives", s.drives}, {"read_curve", curve(s.read_curve)}});
    }
    j["drive_sets"] = sets;
  }
  if (!m.kernels.empty()) {
    OJson ks = OJson::array();
    for (const KernelFigure& k : m.kernels) ks.push_back(kernel_json(k));
    j["kernels"] = ks;
  }
  if (m.probe) j["probe"] = probe_json(*m.probe);
  if (m.topology) j["topology"] = topology_json(*m.topology);
  if (m.memory_bandwidth) j["memory_bandwidth"] = memory_bandwidth_json(*m.memory_bandwidth);
  if (m.memory_limits) j["memory_limits"] = memory_limits_json(*m.memory_limits);
  return j;
}

}  // namespace moebench
