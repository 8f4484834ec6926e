// regimes.cpp — see regimes.h.
#include "model/regimes.h"

#include <algorithm>
#include <cstdlib>

namespace moebench {

namespace {

// The priced parts of one case at end k.
struct Priced {
  double cpu = 0, gpu = 0, flops = 0, attn = 0, fixed = 0, io = 0, paged = 0;
};

// The share of the CPU cores' peak the engine's threads can reach: the
// stated threads over the machine's cores (threads past the cores, SMT
// siblings, add no multiply units); every core when unstated.
double core_share(const CaseParts& p) {
  if (p.threads <= 0 || p.cores <= 0) return 1.0;
  return static_cast<double>(std::min(p.threads, p.cores)) / p.cores;
}

// How much longer a CPU pass takes on the engine's threads than the cores'
// summed peak says: Amdahl's law with a serial share `serial` of the pass
// (one thread's work per layer: norms, routing, the softmax, the join of
// every operation), cores × (serial + (1 − serial) ÷ threads); at serial 0
// the stated threads over the cores (core_share). A machine of many cores
// loses more to it than one of few.
double cpu_pass_scaling(const CaseParts& p, double serial) {
  if (p.cores <= 0) return 1.0;
  const int n = p.threads > 0 ? std::min(p.threads, p.cores) : p.cores;
  return p.cores * (serial + (1 - serial) / n);
}

// The threads that meet at a CPU decode's barriers: as stated (SMT siblings
// and threads past the cores meet too), else one per core.
double barrier_threads(const CaseParts& p) {
  return static_cast<double>(p.threads > 0 ? p.threads : std::max(1, p.cores));
}

Priced price(const CaseParts& p, const RegimeParams& q, int k) {
  Priced r;
  const int sockets = std::max(1, p.sockets);
  const double numa_share = (1 + q.get("numa_gain") * (sockets - 1)) / sockets;
  r.cpu = p.mem_cpu_s[k] / (q.get("mem_eff_cpu") * numa_share);
  // A decode's matrix-vector kernels consume at most core_bw a thread
  // (dequantize and dot: per-core DRAM reads run at 16-52 GB/s, so this is
  // the kernel's rate, not the DRAM's): few threads cannot draw the socket's
  // bandwidth (threads past the cores add nothing). A prefill pass reads
  // each weight once for its whole batch; its matmuls are priced at
  // prefill_eff_cpu instead.
  int threads = p.threads > 0 ? p.threads : p.cores;
  if (p.cores > 0 && threads > p.cores) threads = p.cores;
  if (!p.prefill && p.cpu_bytes_tok > 0 && threads > 0) r.cpu = std::max(r.cpu, p.cpu_bytes_tok / (threads * q.get("core_bw")));
  r.gpu = p.mem_gpu_s[k] / q.get("mem_eff_gpu");
  // Decode compute on the CPU cores runs on the threads the engine was given
  // (all of it on a CPU engine; beside a GPU, the CPU's part).
  const double on_cpu = p.gpu_computes ? std::min(p.flops_cpu_peak_dec_s, p.flops_peak_s[k]) : p.flops_peak_s[k];
  r.flops = (p.flops_peak_s[k] - on_cpu + on_cpu / core_share(p)) / q.get("compute_eff");
  r.attn = p.attn_peak_s / q.get("attn_eff") / (p.gpu_computes ? 1.0 : core_share(p));
  // Hybrid: each layer hands its activations from the GPU to the CPU's
  // experts and back (two synchronisations and PCIe round trips): a cost of
  // its own, beside neither side's. A GPU on the CPU's own memory (unified)
  // launches and synchronises without crossing a host link: its own cost.
  const double per_layer = p.experts_on_cpu ? q.get("layer_s_handoff")
                           : p.gpu_computes  ? q.get(p.unified ? "layer_s_igpu" : "layer_s_gpu")
                                             : q.get("layer_s_cpu");
  // A layer split: the GPU's layers cost a GPU layer each, the CPU's layers
  // a CPU layer each.
  const int cpu_layers = p.gpu_computes ? std::clamp(p.cpu_layers, 0, p.layers) : p.layers;
  r.fixed = (p.layers - cpu_layers) * per_layer + cpu_layers * q.get("layer_s_cpu");
  // CPU threads meet at a barrier after every operation of a layer; a
  // barrier's cost grows with the threads that meet at it (one cache line
  // bounced between them, across dies and sockets).
  r.fixed += cpu_layers * barrier_threads(p) * q.get("layer_s_thread");
  // Tensor parallelism: every layer ends in all-reduces across the GPUs.
  if (p.tensor_parallel) r.fixed += p.layers * q.get("layer_s_tp");
  r.io = p.io_s[k] / q.get("io_eff");
  r.paged = p.paged_io_s[k] / q.get("io_eff");
  return r;
}

// A prefill pass (CaseParts::prefill): the weights it touches read once,
// the batch's matmuls at each processor's share of its peak. A hybrid engine
// computes the CPU-held experts where its own rule puts them
// (CaseParts::copies_experts: llama.cpp copies them over the host link for
// passes of 32 tokens and more), or where it is faster when the rule is not
// known.
struct PrefillPriced {
  double mem = 0, gpu = 0, cpu = 0, link = 0, attn = 0, fixed = 0, io = 0;
  double compute() const { return gpu + cpu + link + attn; }
  // The weights a pass touches are read and multiplied in turn: at the
  // tens of tokens a routed expert gets in a 512-token pass, a kernel's
  // weight loads and its arithmetic do not hide each other (a fitted
  // overlap share settled at 0: docs/measurements/2026-12-07b).
  double pass() const { return mem + compute() + fixed; }
};

PrefillPriced price_prefill(const CaseParts& p, const RegimeParams& q, int k) {
  const Priced r = price(p, q, k);
  PrefillPriced x;
  x.mem = r.cpu + r.gpu;
  x.fixed = r.fixed;
  x.io = r.io;
  x.gpu = p.flops_gpu_peak_s / q.get("prefill_eff_gpu");
  const double cpu_scaling = cpu_pass_scaling(p, q.get("prefill_serial"));
  x.cpu = p.flops_cpu_peak_s / q.get("prefill_eff_cpu") * cpu_scaling;
  // The attention over the context: tiled products of activations whose
  // share of the peak is its own (softmax, masking, the cache's layout), on
  // whichever processor runs the trunk, after the layer's matmuls.
  x.attn = (p.attn_gpu_peak_s + p.attn_cpu_peak_s * cpu_scaling) / q.get("prefill_attn_eff");
  if (p.link_s > 0) {
    const double copied = p.link_s / q.get("link_eff"), on_gpu = p.flops_offload_peak_s / q.get("prefill_eff_gpu");
    // ggml's scheduler copies a split's weights before it computes the
    // split: the copy and the GPU's work on the copied experts take turns.
    // The copy is the host-RAM read of those weights: a copied pass does
    // not read them from RAM a second time, and the CPU path pays that read
    // beside its matmuls. Without a CPU price (no stated peak: such cases
    // are reported without a number) the copy path stands, whatever the
    // rule: the experts are not free.
    const bool copy = x.cpu <= 0 || (p.copies_experts ? *p.copies_experts : copied + on_gpu < r.cpu + x.cpu);
    if (copy) {
      x.mem = r.gpu;
      x.cpu = 0;
      x.link = copied;
      x.gpu += on_gpu;
    }
  }
  return x;
}

double prefill_pass_s(const CaseParts& p, const RegimeParams& q, int k) {
  const PrefillPriced x = price_prefill(p, q, k);
  return decode_token_time_s(0, x.pass(), x.io, 0, q.get("overlap"));
}

std::string prefill_regime(const CaseParts& p, const RegimeParams& q) {
  const PrefillPriced x = price_prefill(p, q, 1);
  if (x.io > x.pass()) return "prefill-io";
  if (x.mem > x.compute()) return "prefill-memory";
  if (x.attn > x.gpu && x.attn > x.cpu && x.attn > x.link) return "prefill-attention";
  if (x.link >= x.gpu && x.link >= x.cpu) return "prefill-link";
  return x.gpu >= x.cpu ? "prefill-gpu" : "prefill-cpu";
}

}  // namespace

double RegimeParams::get(const std::string& name) const {
  for (const RegimeParam& x : p) {
    if (name == x.name) return x.value;
  }
  std::abort();  // a parameter name is a constant of this file: a typo is a defect
}

void RegimeParams::set(const std::string& name, double v) {
  for (RegimeParam& x : p) {
    if (name == x.name) {
      x.value = std::clamp(v, x.low, x.high);
      return;
    }
  }
  std::abort();
}

namespace {

// The CPU kind of a case: its vector datapath ("" unknown).
std::string cpu_kind(const CaseParts& c) { return c.cpu_vector_bits > 0 ? "simd" + std::to_string(c.cpu_vector_bits) : ""; }

void add_kinds(Kinds& k, const CaseParts& c) {
  if (k.gpu.empty()) k.gpu = c.gpu_kind;
  if (k.cpu.empty()) k.cpu = cpu_kind(c);
}

}  // namespace

Kinds kinds_of(std::initializer_list<const CaseParts*> cases) {
  Kinds k;
  for (const CaseParts* c : cases) {
    if (c) add_kinds(k, *c);
  }
  return k;
}

Kinds kinds_of(const std::vector<CaseParts>& cases) {
  Kinds k;
  for (const CaseParts& c : cases) add_kinds(k, c);
  return k;
}

const std::vector<std::string>& cpu_kinds() {
  static const std::vector<std::string> kKinds = {"simd128", "simd256", "simd512"};
  return kKinds;
}

std::vector<std::string> group_keys(const RegimeParam& p, const std::string& family, const Kinds& kinds) {
  if (p.per_kind) {
    if (kinds.gpu.empty()) return {};
    return {family + "@" + kinds.gpu, "@" + kinds.gpu};
  }
  if (p.per_cpu_kind && !kinds.cpu.empty()) return {family + "@" + kinds.cpu, family, "@" + kinds.cpu};
  if (p.per_family) return {family};
  return {};
}

RegimeParams RegimeParams::for_family(const std::string& name, const Kinds& kind) const {
  RegimeParams q;
  q.p = p;
  for (RegimeParam& x : q.p) {
    auto it = family.find(x.name);
    if (it == family.end()) continue;
    for (const std::string& key : group_keys(x, name, kind)) {
      auto v = it->second.find(key);
      if (v != it->second.end()) {
        x.value = v->second;
        break;
      }
    }
  }
  return q;
}

bool RegimeParams::has_family_values(const std::string& name, const Kinds& kind) const {
  for (const RegimeParam& x : p) {
    auto it = family.find(x.name);
    if (it == family.end()) continue;
    for (const std::string& key : group_keys(x, name, kind)) {
      if (it->second.count(key)) return true;
    }
  }
  return false;
}

RegimeParams RegimeParams::defaults() {
  RegimeParams q;
  q.p = {
      {"mem_eff_cpu", 0.6, 0.3, 0.9, false, "memory-cpu,hybrid",
       "share of the spec DRAM bandwidth a CPU decode streams (STREAM-class reads reach 0.6-0.85 of it)", false, true},
      {"core_bw", 10e9, 3e9, 40e9, true, "memory-cpu,hybrid",
       "bytes/s of weights one CPU thread's decode kernels consume (dequantize + dot; a core's own DRAM read stream is 16-52 GB/s): the cap when few threads run; not applied to a prefill pass"},
      {"numa_gain", 0.5, 0.0, 1.0, false, "numa",
       "share of a further socket's bandwidth an engine gains (1: NUMA-aware, 0: one socket's worth)", true},
      {"mem_eff_gpu", 0.7, 0.4, 0.95, false, "memory-gpu,hybrid",
       "share of the spec GPU or unified-memory bandwidth a GPU decode streams", false, true},
      {"layer_s_cpu", 30e-6, 3e-6, 1e-3, true, "memory-cpu,numa,fixed",
       "fixed seconds per layer on CPU threads (dispatch, a barrier per operation across every thread)"},
      {"layer_s_thread", 1e-6, 0.05e-6, 20e-6, true, "memory-cpu,numa,fixed",
       "fixed seconds per layer and per CPU thread of a CPU decode: each of a layer's ~20-30 operations ends in a barrier whose cost grows with the threads that meet at it (0.05-0.5 µs each per thread)"},
      {"layer_s_gpu", 20e-6, 2e-6, 200e-6, true, "memory-gpu,fixed",
       "fixed seconds per layer on a discrete GPU (kernel launches and synchronisation over the host link); fitted without the tensor-parallel figures, "
       "whose all-reduces layer_s_tp prices",
       /*ends_attainable=*/false, /*per_family=*/false, /*per_kind=*/false, /*per_cpu_kind=*/false,
       /*skips_tensor_parallel=*/true},
      {"layer_s_igpu", 20e-6, 2e-6, 200e-6, true, "memory-gpu,fixed",
       "fixed seconds per layer on an integrated GPU on unified memory (Apple silicon, GB10, Strix Halo): its command "
       "queue and the host share one memory, so launches and synchronisation cross no PCIe link; fitted without the "
       "tensor-parallel figures, as layer_s_gpu",
       /*ends_attainable=*/false, /*per_family=*/false, /*per_kind=*/false, /*per_cpu_kind=*/false,
       /*skips_tensor_parallel=*/true},
      {"layer_s_tp", 30e-6, 5e-6, 200e-6, true, "fixed,memory-gpu",
       "fixed seconds per layer a tensor-parallel engine spends on its all-reduces across GPUs (two per layer; an NVLink or PCIe round trip is 5-100 µs)"},
      {"layer_s_handoff", 60e-6, 5e-6, 500e-6, true, "hybrid",
       "fixed seconds per layer of a hybrid decode: GPU work, hand-off to the CPU's experts and back"},
      {"compute_eff", 0.3, 0.05, 0.9, true, "compute",
       "share of the FLOP peak a compute-bound decode reaches"},
      {"attn_eff", 0.3, 0.02, 0.9, true, "attention,memory-cpu,numa,memory-gpu,hybrid",
       "share of the FLOP peak a decode's attention over its context reaches (small matrix-vector products per head, a softmax between them)"},
      {"prefill_eff_cpu", 0.3, 0.05, 1.0, true, "prefill-cpu",
       "share of the CPU cores' matmul peak a prefill reaches (quantized weights: the int8 dot peak, or twice FP32 without one; wide weights: FP32 FMA; per vector datapath: dequantizing kernels do not scale with the pipe's width)",
       false, true, false, true},
      {"prefill_eff_gpu", 0.3, 0.05, 1.0, true, "prefill-gpu",
       "share of the GPU's dense BF16 peak a prefill reaches (per GPU maker: matrix units and backends differ)", false, true,
       true},
      {"prefill_attn_eff", 0.3, 0.02, 0.9, true, "prefill-attention,prefill-gpu,prefill-cpu,prefill-link",
       "share of the peak a prefill's attention over its context reaches (flash-attention tiles: products of activations, a softmax between them; the dense peak on a GPU (an AMD GPU's FP32 vector rate: case_peaks.h gpu_attention_peak), FP32 FMA on CPU cores with the query-key half at the int8 peak over an integer K cache; one pooled value: a backend's own, e.g. Vulkan's on AMD, comes from one source only)"},
      {"prefill_serial", 0.002, 0.0, 0.05, false, "prefill-cpu",
       "serial share of a CPU prefill pass (Amdahl's law: what one thread does while the others wait, per layer); "
       "threads n reach 1 ÷ (serial + (1 − serial) ÷ n) of one core's rate", true},
      {"link_eff", 0.7, 0.2, 1.0, false, "prefill-link",
       "share of the host link's rate a hybrid prefill copies CPU-held weights to the GPU at"},
      {"io_eff", 0.7, 0.3, 1.0, false, "io,paging,prefill-io",
       "share of the drives' rated read rate an engine's reads reach"},
      {"overlap", 0.5, 0.0, 1.0, false, "io",
       "share of min(I/O, compute) the pipeline hides (0: reads and compute in turn, 1: fully overlapped)", true},
  };
  return q;
}

double regime_token_s(const CaseParts& p, const RegimeParams& q, int k) {
  if (p.prefill) return prefill_pass_s(p, q, k) / std::max(1, p.batch);
  const Priced r = price(p, q, k);
  const double compute = std::max(r.cpu + r.gpu, r.flops) + r.attn + r.fixed;
  // Linked nodes' sync, unless the engine splits every layer: then
  // layer_s_tp prices those collectives (a profile's sync would count them twice).
  const double sync = p.tensor_parallel ? 0.0 : p.sync_s[k];
  const double t = decode_token_time_s(0, compute, r.io, 0, q.get("overlap")) + sync;
  return t / std::max(1.0, p.speculative);
}

std::string case_regime(const CaseParts& p, const RegimeParams& q) {
  if (p.prefill) return prefill_regime(p, q);
  const Priced r = price(p, q, 1);
  const double compute = std::max(r.cpu + r.gpu, r.flops) + r.attn + r.fixed;
  if (r.io > compute) return r.paged > 0.5 * r.io ? "paging" : "io";
  const double mem = r.cpu + r.gpu;
  if (r.attn > mem && r.attn > r.flops && r.attn > r.fixed) return "attention";
  if (r.fixed > mem && r.fixed > r.flops) return "fixed";
  if (r.flops > mem) return "compute";
  if ((p.experts_on_cpu || p.cpu_layers > 0) && r.cpu > 0 && r.gpu > 0) return "hybrid";
  if (r.gpu >= r.cpu) return "memory-gpu";
  return p.sockets > 1 ? "numa" : "memory-cpu";
}

RegimeTerms regime_terms(const CaseParts& p, const RegimeParams& q, int k) {
  RegimeTerms t;
  const Priced r = price(p, q, k);
  t.mem_cpu_s = r.cpu;
  t.mem_gpu_s = r.gpu;
  t.flops_s = r.flops;
  t.attn_s = r.attn;
  t.fixed_s = r.fixed;
  t.io_s = r.io;
  t.paged_s = r.paged;
  if (p.prefill) {
    const PrefillPriced x = price_prefill(p, q, k);
    t.prefill_gpu_s = x.gpu;
    t.prefill_cpu_s = x.cpu;
    t.prefill_link_s = x.link;
    t.prefill_attn_s = x.attn;
  }
  t.token_s = regime_token_s(p, q, k);
  t.regime = case_regime(p, q);
  return t;
}

const std::vector<std::string>& regime_names() {
  static const std::vector<std::string> kNames = {"memory-cpu", "numa",        "memory-gpu",     "hybrid",       "compute",     "attention",   "io",
                                                     "paging",     "fixed",       "prefill-cpu",    "prefill-gpu",  "prefill-link",
                                                     "prefill-attention", "prefill-memory", "prefill-io"};
  return kNames;
}

}  // namespace moebench
