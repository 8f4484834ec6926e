// spec_machine.cpp — see spec_machine.h.
#include "model/spec_machine.h"

#include <algorithm>
#include <cmath>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Memory (DIMMs, unified memory, VRAM) is made in powers of two: a "GB" of
// memory as sold or printed is a GiB. Sizes written in decimal units are
// read so, and the figure says it.
double memory_bytes_of(const MachineSpecMemory& m) {
  const std::string& t = m.size_text;
  const bool decimal = t.size() >= 2 && (t.compare(t.size() - 2, 2, "GB") == 0 || t.compare(t.size() - 2, 2, "TB") == 0) &&
                       t.find("iB") == std::string::npos;
  return decimal ? static_cast<double>(m.size_bytes) / 1e9 * kGiB : static_cast<double>(m.size_bytes);
}

Figure spec_figure(double v, std::string source) {
  Figure f;
  f.value = v;
  f.provenance = Provenance::kSpec;
  f.source = std::move(source);
  return f;
}

Figure estimate_figure(double v, std::string source, std::optional<double> lo = {}, std::optional<double> hi = {}) {
  Figure f;
  f.value = v;
  f.provenance = Provenance::kEstimate;
  f.source = std::move(source);
  f.low = lo;
  f.high = hi;
  return f;
}

std::string num(double v) { return format_fixed(v, v == std::floor(v) ? 0 : 2); }

// A required number of a row, or an error naming the row and the field.
Expected<double> need(const SpecRow& r, const std::string& key) {
  if (auto v = r.number(key)) return *v;
  return make_error(r.file + " ‹" + r.name + "›: no \"" + key + "\", which building a machine needs: add it with its source");
}

struct MemoryPeak {
  Figure bw;
  std::string kind;
};

// The share of the channels' peak a read spread over all of memory reaches
// with the stated DIMMs (1 when none are stated). Each of a socket's n
// DIMMs (of one size, as a balanced order has them) holds 1/n of the
// pages; the channel carrying the most DIMMs, ceil(n / c) of them, serves
// that many n-ths of every read, and the read ends when that channel does:
// n / (c × ceil(n / c)) of c channels' peak. 12 or 6 DIMMs on a 6-channel
// socket give 1; 8 give 8 / 12 = 0.67 (Dell's paper on balanced memory
// with 2nd-gen Xeon Scalable: unbalanced configurations "can reduce memory
// bandwidth by up to 33%"); 4 give 4/6, two channels left empty.
struct PopulationShare {
  double share = 1;
  std::string how;  // " × 0.67 (16 DIMMs on 12 channels: ...)", or empty
};

Expected<PopulationShare> population_share(const MachineSpec& spec, double channels) {
  PopulationShare out;
  if (!spec.memory.dimms) return out;
  const int dimms = *spec.memory.dimms, sockets = std::max(1, spec.sockets);
  const int whole = static_cast<int>(channels);
  if (whole % sockets != 0) {
    return make_error("machine_spec/memory/channels: " + num(channels) + " channels do not split evenly over " + std::to_string(sockets) +
                      " sockets, which stated DIMMs need: state the whole machine's channels, the same on every socket");
  }
  if (dimms % sockets != 0) {
    return make_error("machine_spec/memory/dimms: " + std::to_string(dimms) + " DIMMs do not split evenly over " + std::to_string(sockets) +
                      " sockets: state the whole machine's count, the same on every socket");
  }
  const double n = dimms / sockets, c = whole / sockets;
  const double busiest = std::ceil(n / c);
  out.share = n / (c * busiest);
  if (out.share < 1) {
    out.how = " × " + format_fixed(out.share, 2) + " (" + std::to_string(dimms) + " DIMMs on " + num(channels) + " channels: " + num(n) +
              " per socket on " + num(c) + " channels, the busiest channel holds " + num(busiest) + " of them and serves " + num(busiest) + "/" +
              num(n) + " of a read spread over all memory: " + num(n) + " ÷ (" + num(c) + " × " + num(busiest) + "))";
  }
  return out;
}

Expected<MemoryPeak> memory_peak(const MachineSpec& spec, const SpecRow& cpu, const SpecTables& tables) {
  MemoryPeak out;
  if (auto u = cpu.number("unified_memory.bandwidth_gb_s")) {
    if (spec.memory.dimms) {
      return make_error("machine_spec/memory/dimms: the " + cpu.name + "'s memory is on its package (unified), its bandwidth the row's: "
                        "drop \"dimms\"");
    }
    out.bw = spec_figure(*u * 1e9, "unified memory of the " + cpu.name + ": " + cpu.cite("unified_memory.bandwidth_gb_s"));
    out.kind = cpu.text("unified_memory.kind").value_or("unified");
    return out;
  }
  const auto per_socket = cpu.number("memory_channels");
  const auto rated = cpu.number("memory_mt_s");
  const std::string kind = spec.memory.kind.value_or(cpu.text("memory_kind").value_or(""));
  if (kind.empty()) return make_error("machine_spec/memory/kind: the " + cpu.name + " row names no memory kind; state it (e.g. \"DDR5\")");
  auto kind_row = tables.find("memory_kinds", kind);
  if (!kind_row) return make_error("machine_spec/memory/kind: " + kind_row.error().message);
  auto kind_bits = need(**kind_row, "bus_bits_per_channel");
  if (!kind_bits) return kind_bits.error();
  // CPU tables count memory channels 64 bits wide, LPDDR included (a
  // 128-bit LPDDR5X laptop chip lists 2): the kind's own narrower channel
  // is not the unit they count in.
  const bool lpddr = kind.rfind("LPDDR", 0) == 0;
  const Expected<double> bits = lpddr ? Expected<double>(64.0) : kind_bits;
  std::vector<std::string> assumed;
  double channels = 0, mt = 0;
  if (spec.memory.channels) {
    channels = *spec.memory.channels;
    if (per_socket && channels > *per_socket * spec.sockets) {
      return make_error("machine_spec/memory/channels: " + std::to_string(*spec.memory.channels) + " channels, but " +
                        std::to_string(spec.sockets) + " × " + cpu.name + " have " + num(*per_socket * spec.sockets) + " (" +
                        cpu.cite("memory_channels") + "): count the whole machine's 64-bit channels");
    }
  } else if (per_socket) {
    channels = *per_socket * spec.sockets;
    // Stated DIMMs say how the channels are populated (population_share).
    if (!spec.memory.dimms) {
      assumed.push_back("every channel populated (" + num(*per_socket) + " per socket × " + std::to_string(spec.sockets) +
                        ": " + cpu.cite("memory_channels") + ")");
    }
  } else {
    return make_error("machine_spec/memory/channels: the " + cpu.name + " row gives no channel count; state it");
  }
  if (spec.memory.mt_s) {
    mt = *spec.memory.mt_s;
  } else if (rated) {
    mt = *rated;
    assumed.push_back("DIMMs at the rated " + num(*rated) + " MT/s (" + cpu.cite("memory_mt_s") + ")");
  } else {
    return make_error("machine_spec/memory/mt_s: the " + cpu.name + " row gives no rated speed; state it");
  }
  const auto share = population_share(spec, channels);
  if (!share) return share.error();
  const double peak = channels * mt * 1e6 * *bits / 8 * share->share;
  std::string how = num(channels) + " channels × " + kind + "-" + num(mt) + " × " + num(*bits) + " bits ÷ 8" + share->how + " = " +
                    format_fixed(peak / 1e9, 1) + " GB/s peak (bus width: " +
                    (lpddr ? std::string("64-bit channels, as CPU tables count LPDDR") : (*kind_row)->cite("bus_bits_per_channel")) + ")";
  out.kind = kind;
  if (assumed.empty()) {
    out.bw = spec_figure(peak, how);
  } else {
    // Unstated population or speed: fewer or slower DIMMs than the CPU
    // takes are common, so the range reaches down to 3/4 of the peak.
    out.bw = estimate_figure(peak, how + "; assumed: " + join(assumed, "; ") + "; range down to 3/4 for fewer or slower DIMMs",
                             0.75 * peak, peak);
  }
  return out;
}

// FLOP/s of every core: cores × clock × FMA pipes × lanes × 2.
std::optional<ComputeInfo> cpu_compute(const SpecRow& cpu, int sockets) {
  const auto cores = cpu.number("performance_cores") ? cpu.number("performance_cores") : cpu.number("cores");
  const auto pipes = cpu.number("fma_pipes"), width = cpu.number("fma_width_bits");
  // The clock every core holds under a long vector load: the vendor's
  // all-core figure where it publishes one; else between the base clock
  // (the floor the part guarantees at its rated power) and the boost (one
  // or two cores), taken midway; the base alone without a boost.
  const auto all_core = cpu.number("all_core_ghz"), base = cpu.number("base_ghz"), boost = cpu.number("boost_ghz");
  const std::optional<double> clock = all_core ? all_core : base && boost ? std::optional<double>((*base + *boost) / 2) : base;
  const bool cpu_known = cores && pipes && width && clock;
  if (!cpu_known && !cpu.number("gpu.fp16_tflops") && !cpu.number("gpu.fp32_tflops")) return std::nullopt;
  ComputeInfo ci;
  if (!cpu_known) {
    ci.cpu_flops = estimate_figure(0, cpu.name + ": the row lacks the cores, clock or FMA width a CPU peak needs (not counted)");
  }
  const std::string clock_cite = all_core ? cpu.cite("all_core_ghz")
                                 : base && boost ? "midway between the base " + cpu.cite("base_ghz") + " and the boost " +
                                                       cpu.cite("boost_ghz") + ": no all-core clock published"
                                 : base ? cpu.cite("base_ghz") : std::string();
  const double lanes = cpu_known ? *width / 32 : 0;
  const double flops = cpu_known ? *cores * sockets * *clock * 1e9 * *pipes * lanes * 2 : 0;
  if (cpu_known) ci.cpu_flops = spec_figure(flops, num(*cores) + (cpu.number("performance_cores") ? " performance" : "") + " cores × " +
                                        std::to_string(sockets) + " sockets × " + num(*clock) + " GHz × " + num(*pipes) +
                                        " FMA pipes × " + num(lanes) + " FP32 lanes × 2 = " + format_fixed(flops / 1e12, 2) +
                                        " TFLOP/s (cores: " + cpu.cite("cores") + "; clock: " + clock_cite +
                                        "; FMA: " + cpu.cite("fma_width_bits") + ")");
  if (cpu_known && (*width == 128 || *width == 256 || *width == 512)) ci.cpu_vector_bits = static_cast<int>(*width);
  if (auto dot = cpu.text("int8_dot"); dot && cpu_known) {
    const double ops = *cores * sockets * *clock * 1e9 * *pipes * lanes * 4 * 2;
    ci.cpu_int8_ops = spec_figure(ops, *dot + ": 4 int8 MACs per 32-bit lane, " + format_fixed(ops / 1e12, 1) + " TOPS (" +
                                           cpu.cite("int8_dot") + ")");
  }
  const auto g32 = cpu.number("gpu.fp32_tflops");
  if (g32) ci.gpu_vector_flops = spec_figure(*g32 * 1e12, "integrated GPU's FP32 vector rate: " + cpu.cite("gpu.fp32_tflops"));
  if (auto g = cpu.number("gpu.fp16_tflops")) {
    ci.gpu_flops = spec_figure(*g * 1e12, "integrated GPU: " + cpu.cite("gpu.fp16_tflops"));
  } else if (g32) {
    ci.gpu_flops = spec_figure(*g32 * 1e12, "integrated GPU at its FP32 rate (FP16 runs no slower): " + cpu.cite("gpu.fp32_tflops"));
  }
  // The catalog's estimates (configs/hardware conventions), so a spec-built
  // machine and a hand-written profile of it compute alike in the setup
  // model; the regime model reads the peak alone (regimes.h: compute_eff).
  ci.efficiency.decode = estimate_figure(0.6, "estimate, as the catalog profiles: batch-1 decode reaches 40-80 % of the binding peak", 0.4, 0.8);
  ci.efficiency.prefill = estimate_figure(0.6, "estimate, as the catalog profiles: a batched matmul reaches 30-90 % of the compute peak", 0.3, 0.9);
  return ci;
}

Expected<Figure> usable_memory_figure(const MachineSpec& spec, double total, const SpecTables& tables, bool unified) {
  const std::string os = spec.os.value_or("");
  if (os.empty()) {
    return estimate_figure(0.9 * total, "no OS stated: 90 % of the memory (range 80-95 %) — state the OS for its documented limit",
                           0.8 * total, 0.95 * total);
  }
  auto row = tables.find("os", os);
  if (!row) return make_error("machine_spec/os: " + row.error().message);
  const SpecRow& r = **row;
  const double gib = kGiB;  // the OS table's figures are GiB
  // The OS and services keep a reserve (and, on Linux, the page tables a
  // share); a phone lets an app hold a share of the memory.
  double usable = total;
  std::vector<std::string> how;
  if (auto share = r.number("app_usable_fraction")) {
    usable = *share * total;
    how.push_back(format_fixed(100 * *share, 0) + " % for one app (" + r.cite("app_usable_fraction") + ")");
  }
  if (auto k = r.number("kernel_overhead_fraction")) {
    usable -= *k * total;
    how.push_back(format_fixed(100 * *k, 2) + " % for the kernel (" + r.cite("kernel_overhead_fraction") + ")");
  }
  for (const char* key : {"cpu_reserve_gib", "reserve_gib"}) {
    if (auto v = r.number(key)) {
      usable -= *v * gib;
      how.push_back(format_bytes(*v * gib) + " kept by the OS and services (" + r.cite(key) + ")");
      break;
    }
  }
  Figure f = spec_figure(std::max(0.25 * total, usable), how.empty() ? "the whole memory (" + r.name + " row)" : join(how, "; "));
  // A GPU on unified memory is held to the wired limit: the low end.
  if (unified) {
    double fraction = 0;
    std::string key_used;
    for (int i = 0; i < 8; ++i) {
      const std::string k = "gpu_wired_fraction[" + std::to_string(i) + "]";
      const auto frac = r.number(k + ".fraction");
      if (!frac) break;
      const auto max_gib = r.number(k + ".max_memory_gib");
      if (!max_gib || total <= *max_gib * gib) {
        fraction = *frac;
        key_used = k + ".fraction";
        break;
      }
    }
    if (fraction > 0) {
      f.low = fraction * total;
      f.high = f.value;  // both ends, so the range survives a write and a reload
      f.source += "; a GPU engine is held to " + format_fixed(100 * fraction, 0) + " % (" + r.cite(key_used) + ")";
    }
  }
  return f;
}

// One GPU model's row, `count` of them.
Expected<AcceleratorInfo> gpu_of(const SpecRow& r, int count) {
  AcceleratorInfo a;
  a.model = r.name;
  a.count = count;
  // VRAM "GB" are GiB (memory_bytes_of).
  if (auto gb = r.number("memory_gb")) a.memory_bytes = spec_figure(*gb * kGiB, r.cite("memory_gb") + " (GB of memory: GiB)");
  else if (auto gib = r.number("memory_gib")) a.memory_bytes = spec_figure(*gib * kGiB, r.cite("memory_gib"));
  else return make_error(r.file + " ‹" + r.name + "›: no memory_gb or memory_gib");
  auto bw = need(r, "memory_bandwidth_gb_s");
  if (!bw) return bw.error();
  a.memory_read_bytes_s = spec_figure(*bw * 1e9, r.cite("memory_bandwidth_gb_s"));
  if (auto l = r.number("host_link_gb_s")) a.host_link_bytes_s = spec_figure(*l * 1e9, r.cite("host_link_gb_s"));
  if (auto p = r.number("peer_link_gb_s"); p && count > 1) a.peer_bytes_s = spec_figure(*p * 1e9, r.cite("peer_link_gb_s"));
  if (auto v = r.number("fp32_tflops")) a.vector_flops = spec_figure(*v * 1e12, r.cite("fp32_tflops"));
  for (const char* key : {"bf16_tflops_dense", "fp16_tensor_tflops_dense"}) {
    if (auto t = r.number(key)) {
      a.flops = spec_figure(*t * 1e12, r.cite(key));
      break;
    }
  }
  return a;
}

// Two or more GPU models in one box, as that many devices of one kind that
// behave alike under a layer split (llama.cpp's default: layers in
// proportion to each device's memory, run one device after another): the
// mean memory; the rate that reads a token's bytes in the same time,
// total memory ÷ Σ (memory ÷ bandwidth) over the devices; the mean peak;
// the slowest host link.
AcceleratorInfo mixed_gpus(const std::vector<AcceleratorInfo>& parts) {
  AcceleratorInfo a;
  double mem = 0, time = 0, flops = 0, vector_flops = 0;
  bool all_flops = true, all_vector = true;
  std::vector<std::string> names;
  std::optional<Figure> link;
  for (const AcceleratorInfo& g : parts) {
    a.count += g.count;
    mem += g.count * g.memory_bytes.value;
    time += g.count * g.memory_bytes.value / g.memory_read_bytes_s.value;
    if (g.flops) flops += g.count * g.flops->value; else all_flops = false;
    if (g.vector_flops) vector_flops += g.count * g.vector_flops->value; else all_vector = false;
    names.push_back(std::to_string(g.count) + " × " + g.model);
    if (g.host_link_bytes_s && (!link || g.host_link_bytes_s->value < link->value)) link = g.host_link_bytes_s;
  }
  const std::string each = join(names, " + ");
  auto cites = [&](auto field) {
    std::vector<std::string> v;
    for (const AcceleratorInfo& g : parts) v.push_back(g.model + ": " + field(g));
    return " (" + join(v, " | ") + ")";
  };
  a.model = each;
  a.memory_bytes = spec_figure(mem / a.count, "the mean of " + each + cites([](const AcceleratorInfo& g) { return g.memory_bytes.source; }));
  a.memory_read_bytes_s = spec_figure(
      mem / time, "a layer split over " + each + " in proportion to memory reads a token at total memory ÷ Σ (memory ÷ bandwidth) = " +
                      format_fixed(mem / time / 1e9, 0) + " GB/s per device" +
                      cites([](const AcceleratorInfo& g) { return g.memory_read_bytes_s.source; }));
  if (all_flops) {
    a.flops = spec_figure(flops / a.count, "the mean peak of " + each + cites([](const AcceleratorInfo& g) { return g.flops->source; }));
  }
  if (all_vector) {
    a.vector_flops = spec_figure(vector_flops / a.count, "the mean FP32 vector rate of " + each +
                                                       cites([](const AcceleratorInfo& g) { return g.vector_flops->source; }));
  }
  if (link) {
    a.host_link_bytes_s = *link;
    a.host_link_bytes_s->source = "the slowest host link of " + each + ": " + link->source;
  }
  return a;
}

Expected<AcceleratorInfo> gpus_of(const MachineSpec& spec, const SpecTables& tables) {
  // Count per model, in the spec's order.
  std::vector<std::pair<const SpecRow*, int>> models;
  for (const MachineSpecPart& g : spec.gpus) {
    auto row = tables.find("gpus", g.model);
    if (!row) return make_error("machine_spec/gpus: " + row.error().message);
    auto it = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == *row; });
    if (it == models.end()) models.push_back({*row, g.count}); else it->second += g.count;
  }
  std::vector<AcceleratorInfo> parts;
  for (const auto& [row, count] : models) {
    auto a = gpu_of(*row, count);
    if (!a) return a.error();
    parts.push_back(*a);
  }
  if (parts.size() == 1) return parts.front();
  return mixed_gpus(parts);
}

Expected<DriveProfile> drive_of(const MachineSpecDrive& d, const SpecTables& tables, int index) {
  DriveProfile p;
  const std::string where = "machine_spec/drives/" + std::to_string(index);
  if (d.read_bytes_s) {
    p.name = d.model.value_or("drive " + std::to_string(index + 1));
    p.seq_read_bytes_s = Figure{*d.read_bytes_s, Provenance::kMeasured, "the read rate the spec states (read_gb_s)", {}, {}};
  } else {
    auto row = tables.find("drives", *d.model);
    if (!row) return make_error(where + "/model: " + row.error().message);
    const SpecRow& r = **row;
    p.name = r.name;
    auto seq = need(r, "seq_read_mb_s");
    if (!seq) return seq.error();
    p.seq_read_bytes_s = spec_figure(*seq * 1e6, r.cite("seq_read_mb_s"));
    auto point = [&](std::uint64_t block, int qd, const std::string& pattern, double bytes_s, std::string how) {
      DriveReadPoint x;
      x.block_bytes = block;
      x.queue_depth = qd;
      x.pattern = pattern;
      x.read_bytes_s = spec_figure(bytes_s, std::move(how));
      p.read_curve.push_back(x);
    };
    if (auto q1 = r.number("random_read_4k_qd1_iops")) point(4096, 1, "random", *q1 * 4096, r.cite("random_read_4k_qd1_iops") + " × 4 KiB");
    if (auto q32 = r.number("random_read_4k_qd32_iops")) point(4096, 32, "random", *q32 * 4096, r.cite("random_read_4k_qd32_iops") + " × 4 KiB");
    if (!p.read_curve.empty()) point(1 << 20, 32, "sequential", *seq * 1e6, r.cite("seq_read_mb_s"));
  }
  if (d.enclosure) {
    auto row = tables.find("enclosures", *d.enclosure);
    if (!row) return make_error(where + "/enclosure: " + row.error().message);
    auto cap = need(**row, "max_read_mb_s");
    if (!cap) return cap.error();
    const double c = *cap * 1e6;
    if (c < p.seq_read_bytes_s.value) {
      p.seq_read_bytes_s.value = c;
      p.seq_read_bytes_s.source += "; capped by the enclosure: " + (*row)->cite("max_read_mb_s");
    }
    for (DriveReadPoint& x : p.read_curve) x.read_bytes_s.value = std::min(x.read_bytes_s.value, c);
    p.name += " in " + (*row)->name;
  }
  return p;
}

}  // namespace

namespace {

// A GPU box whose host the source does not state: the GPUs alone. Host
// memory has no figure (bandwidth 0), so a case that needs it does not fit
// and says why, instead of borrowing an invented host.
Expected<MachineProfile> gpus_only(const MachineSpec& spec, const SpecTables& tables) {
  MachineProfile m;
  m.name = "spec: " + describe_machine_spec(spec);
  m.os = spec.os;
  auto a = gpus_of(spec, tables);
  if (!a) return a.error();
  m.accelerators = *a;
  const std::string none = "host not stated: only what the GPUs hold is judged";
  m.cores = estimate_figure(0, none);
  m.memory_total_bytes = estimate_figure(0, none);
  m.memory_usable_bytes = estimate_figure(0, none);
  m.memory_read_bytes_s = estimate_figure(0, none);
  m.description = "built from its parts by moebench (model/spec_machine.h): " + describe_machine_spec(spec);
  return m;
}

}  // namespace

Expected<MachineProfile> build_machine(const MachineSpec& spec, const SpecTables& tables) {
  if (spec.cpu.empty()) return gpus_only(spec, tables);
  auto cpu_row = tables.find("cpus", spec.cpu);
  if (!cpu_row) return make_error("machine_spec/cpu: " + cpu_row.error().message);
  const SpecRow& cpu = **cpu_row;
  if (auto most = cpu.number("max_sockets"); most && spec.sockets > *most) {
    return make_error("machine_spec/sockets: " + std::to_string(spec.sockets) + " sockets, but the " + cpu.name + " takes at most " +
                      num(*most) + " (" + cpu.cite("max_sockets") + ")");
  }
  MachineProfile m;
  m.name = "spec: " + describe_machine_spec(spec);
  m.cpu_model = cpu.name;
  m.os = spec.os;
  m.sockets = spec.sockets;
  auto cores = need(cpu, "cores");
  if (!cores) return cores.error();
  m.cores = spec_figure(*cores * spec.sockets, num(*cores) + " × " + std::to_string(spec.sockets) + " sockets (" + cpu.cite("cores") + ")");
  // An unstated size: the run is taken to have fit (a source that paged
  // would say so); the figure says it, and nothing past memory is judged.
  const bool size_stated = spec.memory.size_bytes > 0;
  const bool unified = cpu.number("unified_memory.bandwidth_gb_s").has_value();
  double total = size_stated ? memory_bytes_of(spec.memory) : 4096 * kGiB * spec.sockets;
  std::string unstated = "memory size not stated: assumed large enough to hold the run (4 TiB per socket); paging past memory is not judged on this machine";
  if (!size_stated && unified && cpu.lists.count("unified_memory.sizes_gb") != 0) {
    const auto& sizes = cpu.lists.at("unified_memory.sizes_gb");
    total = *std::max_element(sizes.begin(), sizes.end()) * kGiB;
    unstated = "memory size not stated: the largest configuration (" + cpu.cite("unified_memory.sizes_gb") + ")";
  }
  m.memory_total_bytes = size_stated ? spec_figure(total, "the memory the spec states (" + spec.memory.size_text +
                                                              (total != static_cast<double>(spec.memory.size_bytes)
                                                                   ? ", read as GiB: memory is made in powers of two)"
                                                                   : ")"))
                                     : estimate_figure(total, unstated);
  if (unified && size_stated && cpu.lists.count("unified_memory.sizes_gb") != 0) {
    const auto& sizes = cpu.lists.at("unified_memory.sizes_gb");
    const bool offered = std::any_of(sizes.begin(), sizes.end(), [&](double gb) {
      return std::fabs(gb * kGiB - total) < 0.01 * total;
    });
    if (!offered) {
      std::vector<std::string> s;
      for (double gb : sizes) s.push_back(num(gb) + "GB");
      return make_error("machine_spec/memory/size: the " + cpu.name + " comes with " + join(s, ", ") + ", not " + spec.memory.size_text +
                        " (" + cpu.cite("unified_memory.sizes_gb") + ")");
    }
  }
  auto peak = memory_peak(spec, cpu, tables);
  if (!peak) return peak.error();
  m.memory_read_bytes_s = peak->bw;
  auto usable = usable_memory_figure(spec, total, tables, unified);
  if (!usable) return usable.error();
  m.memory_usable_bytes = *usable;
  m.compute = cpu_compute(cpu, spec.sockets);
  if (!spec.gpus.empty()) {
    auto a = gpus_of(spec, tables);
    if (!a) return a.error();
    m.accelerators = *a;
  }
  std::vector<std::string> unrated;
  for (std::size_t i = 0; i < spec.drives.size(); ++i) {
    if (spec.drives[i].unrated) {
      unrated.push_back(std::to_string(spec.drives[i].count) + " × " + spec.drives[i].model.value_or("drive"));
      continue;
    }
    for (int k = 0; k < spec.drives[i].count; ++k) {
      auto d = drive_of(spec.drives[i], tables, static_cast<int>(i));
      if (!d) return d.error();
      m.drives.push_back(*d);
    }
  }
  // Sizes are whole bytes (the profile's loader reads byte counts).
  for (Figure* f : {&m.memory_total_bytes, &m.memory_usable_bytes}) {
    f->value = std::floor(f->value);
    if (f->low) *f->low = std::floor(*f->low);
    if (f->high) *f->high = std::floor(*f->high);
  }
  m.description = "built from its parts by moebench (model/spec_machine.h): " + describe_machine_spec(spec) + "; memory " +
                  peak->kind + ", every figure's source names its spec row" +
                  (unrated.empty() ? std::string()
                                   : "; left out, no rate known (a case that must read from them is not judged): " +
                                         join(unrated, ", "));
  return m;
}

}  // namespace moebench

namespace moebench {

namespace {

Expected<ResolvedMachine> resolve_source(const ConfigStore& store, const ConfigSource& src) {
  auto m = load_machine_source(store, src);
  if (!m) return m.error();
  ResolvedMachine r;
  r.name = m->name;
  r.source = src.label;
  auto j = parse_json_text(src.text, src.label);
  r.from_spec = j && is_machine_spec_document(*j);
  r.profile = std::move(*m);
  return r;
}

}  // namespace

Expected<ResolvedMachine> resolve_machine(const ConfigStore& store, const std::string& name_or_path,
                                          const std::string& if_missing) {
  auto src = store.find("hardware", name_or_path);
  if (!src) return make_error(src.error().message + if_missing);
  return resolve_source(store, *src);
}

Expected<std::optional<ResolvedMachine>> find_machine(const ConfigStore& store, const std::string& name_or_path) {
  auto src = store.find("hardware", name_or_path);
  if (!src) return std::optional<ResolvedMachine>();
  auto r = resolve_source(store, *src);
  if (!r) return r.error();
  return std::optional<ResolvedMachine>(std::move(*r));
}

Expected<MachineProfile> load_machine_source(const ConfigStore& store, const ConfigSource& src) {
  auto j = parse_json_text(src.text, src.label);
  if (!j) return j.error();
  if (!is_machine_spec_document(*j)) {
    Diagnostics d(src.label);
    auto p = load_machine_profile(*j, d);
    if (!p) return d.to_error();
    return std::move(*p);
  }
  Diagnostics d(src.label);
  auto spec = load_machine_spec_document(*j, d);
  if (!spec) return d.to_error();
  auto tables = load_spec_tables(store);
  if (!tables) return tables.error();
  auto m = build_machine(*spec, *tables);
  if (!m) return make_error(src.label + ": " + m.error().message);
  return m;
}

}  // namespace moebench

namespace moebench {

std::string write_machine_figures(const MachineProfile& m) {
  std::string out = "# " + m.name + "\n\n" + m.description + "\n\n| figure | value | provenance | source |\n|---|---:|---|---|\n";
  auto row = [&out](const std::string& what, const std::string& value, const Figure& f) {
    std::string range;
    if (f.low || f.high) range = " (" + format_fixed(f.low_or_value() / std::max(1e-30, f.value), 2) + "–" +
                                 format_fixed(f.high_or_value() / std::max(1e-30, f.value), 2) + "×)";
    out += "| " + what + " | " + value + range + " | " + to_string(f.provenance) + " | " + f.source + " |\n";
  };
  row("cores", format_fixed(m.cores.value, 0), m.cores);
  row("memory", format_bytes_decimal(m.memory_total_bytes.value), m.memory_total_bytes);
  row("usable memory", format_bytes_decimal(m.memory_usable_bytes.value), m.memory_usable_bytes);
  row("memory read bandwidth", format_fixed(m.memory_read_bytes_s.value / 1e9, 1) + " GB/s", m.memory_read_bytes_s);
  if (m.compute) {
    row("CPU FP32 peak", format_fixed(m.compute->cpu_flops.value / 1e12, 2) + " TFLOP/s", m.compute->cpu_flops);
    if (m.compute->cpu_int8_ops) row("CPU int8 peak", format_fixed(m.compute->cpu_int8_ops->value / 1e12, 1) + " TOPS", *m.compute->cpu_int8_ops);
    if (m.compute->gpu_flops) row("integrated GPU FP16 peak", format_fixed(m.compute->gpu_flops->value / 1e12, 1) + " TFLOP/s", *m.compute->gpu_flops);
  }
  if (m.accelerators) {
    const AcceleratorInfo& a = *m.accelerators;
    const std::string each = std::to_string(a.count) + " × ";
    row("GPU memory", each + format_bytes_decimal(a.memory_bytes.value), a.memory_bytes);
    row("GPU memory bandwidth", each + format_fixed(a.memory_read_bytes_s.value / 1e9, 0) + " GB/s", a.memory_read_bytes_s);
    if (a.flops) row("GPU BF16 dense peak", each + format_fixed(a.flops->value / 1e12, 0) + " TFLOP/s", *a.flops);
    if (a.host_link_bytes_s) row("GPU host link (one direction)", format_fixed(a.host_link_bytes_s->value / 1e9, 1) + " GB/s", *a.host_link_bytes_s);
  }
  for (const DriveProfile& d : m.drives) {
    row("drive " + d.name + " sequential read", format_fixed(d.seq_read_bytes_s.value / 1e9, 2) + " GB/s", d.seq_read_bytes_s);
    for (const DriveReadPoint& p : d.read_curve) {
      if (p.block_bytes == 4096) {
        row("drive " + d.name + " 4 KiB QD" + std::to_string(p.queue_depth), format_fixed(p.read_bytes_s.value / 1e6, 0) + " MB/s", p.read_bytes_s);
      }
    }
  }
  return out;
}

}  // namespace moebench
