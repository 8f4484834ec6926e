// setup_model.cpp — see setup_model.h.
#include "model/setup_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "model/case_peaks.h"
#include "model/engine_families.h"
#include "model/case_hit_rates.h"
#include "model/hit_rate.h"
#include "model/routing_fit.h"
#include "engines/cache/memory_plan.h"
#include "vocab/card_tensors.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

double decode_token_time_s(double pre_s, double post_s, double io_s, double hidden, double overlap) {
  const double h = std::clamp(hidden, 0.0, 1.0), w = std::clamp(overlap, 0.0, 1.0);
  return std::max({pre_s + post_s, pre_s + (1 - h) * io_s, io_s}) + (1 - w) * std::min(io_s, post_s);
}

namespace {

// Whether `quant` can store the card's trunk matrices (row lengths are
// multiples of its block).
bool trunk_quant_fits(const ModelCard& card, const std::string& quant) {
  const auto f = find_quant(quant);
  if (!f) return false;
  for (const CardTensor& t : card_trunk_tensors(card)) {
    if (!t.small && t.row_len % f->block_weights != 0) return false;
  }
  return true;
}

// The share of the layers a layer split (-ngl) puts on the GPU; 1: no split.
double gpu_layer_share(const SetupCase& c) { return std::clamp(c.gpu_layer_share, 0.0, 1.0); }

// Trunk bytes of the card at a case's trunk precision: the card's tensors
// in a named quant the table knows, else the card's bytes scaled by bits.
struct TrunkAt {
  double total = 0, head = 0, layers = 0;  // bytes
  double pre_tok = 0, post_tok = 0;        // read per decode token
  double head_tok = 0;                     // embedding row + final norm, per token
  std::vector<std::uint64_t> layer_bytes;  // per layer (+ the lm_head), as the container lays it out (before scaling)
  std::string how;
};

std::uint64_t sum_layers(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (std::uint64_t x : v) s = sat_add(s, x);
  return s;
}

TrunkAt trunk_at(const ModelCard& card, const SetupCase& c) {
  TrunkAt t;
  ModelCard k = card;
  double scale = 1;
  if (!c.trunk_quant.empty() && find_quant(c.trunk_quant) && trunk_quant_fits(card, c.trunk_quant)) {
    k.trunk_quant = c.trunk_quant;
    t.how = "the card's trunk tensors in " + c.trunk_quant;
  } else {
    const auto own = find_quant(card.trunk_quant);
    const double own_bits = own ? own->bits_per_weight() : 16;
    scale = c.trunk_bits / own_bits;
    t.how = "the card's " + card.trunk_quant + " trunk scaled to " + format_fixed(c.trunk_bits, 2) + " bits per weight" +
            (c.trunk_quant.empty() ? "" : " (" + c.trunk_quant + ")");
  }
  const TrunkBytes tb = k.trunk();
  const TrunkSplit split = trunk_split(k);
  t.total = static_cast<double>(tb.total()) * scale;
  // A real engine keeps only the final norm resident for sure: it reads the
  // token's embedding row on demand and can stream the lm_head like a layer
  // (kimi-k3-in-c runs K3 in 8.24 GB beside a 4.7 GB bf16 head).
  t.head = static_cast<double>(tb.output_norm) * scale;
  t.layers = static_cast<double>(sat_add(tb.layers, tb.lm_head)) * scale;
  t.head_tok = static_cast<double>(sat_add(tb.embedding_row, tb.output_norm)) * scale;
  t.layer_bytes = trunk_layer_bytes(k);
  if (tb.lm_head > 0) t.layer_bytes.push_back(tb.lm_head);  // streamed last, like a layer
  t.pre_tok = split.pre_bytes * scale;
  t.post_tok = split.post_bytes * scale;
  return t;
}

// Read bandwidth (low, value, high) of the profile's first `n` drives at
// large reads, or at the small-block rate when `paged`.
struct Bw {
  double lo = 0, mid = 0, hi = 0;
  std::string how;
};

// Paged reads: `qd` small (4 KiB) reads in flight — 1 for hits that became
// page faults (the faulting thread waits), 32 for an mmap engine's many
// faulting threads.
Bw drives_bw(const MachineProfile& m, int n, double block, bool paged, int qd = 1) {
  Bw b;
  const int use = std::min<int>(n, static_cast<int>(m.drives.size()));
  std::vector<std::string> names;
  for (int i = 0; i < use; ++i) {
    const DriveProfile& d = m.drives[static_cast<std::size_t>(i)];
    names.push_back(d.name);
    double mid = 0;
    std::string how;
    if (paged) {
      MachineProfile one;
      one.drives = {d};
      // How many faults are in flight is not known: from one (the slow end)
      // to 32 (the fast end), their geometric middle realistic. No curve:
      // 4 KiB reads at ~1 % (QD1) and ~15 % (QD32) of sequential.
      double q1 = drive_set_read_bw(one, 1, 4096, 1, std::nullopt, &how);
      double q32 = drive_set_read_bw(one, 1, 4096, 32, std::nullopt, &how);
      if (d.read_curve.empty()) {
        q1 = d.seq_read_bytes_s.value * 0.01;
        q32 = d.seq_read_bytes_s.value * 0.15;
      }
      if (q1 > q32) std::swap(q1, q32);       // the slow end is the slower figure, whatever the profile says
      if (qd > 1) q1 = std::sqrt(q1 * q32);  // an mmap engine faults from many threads
      b.lo += q1;
      b.mid += std::sqrt(q1 * q32);
      b.hi += q32;
      (void)mid;
      continue;
    }
    MachineProfile one;
    one.drives = {d};
    mid = drive_set_read_bw(one, 1, static_cast<std::uint64_t>(block), 32, std::nullopt, &how);
    b.mid += mid;
    b.lo += d.read_curve.empty() ? 0.85 * d.seq_read_bytes_s.low_or_value() : mid;
    b.hi += std::max(mid, d.seq_read_bytes_s.high_or_value());  // the fast end: large reads at the sequential spec
  }
  b.how = join(names, " + ") + (paged ? std::string(" at page-fault reads (4 KiB, QD1 .. QD32)") : " at " + format_bytes(block) + " reads");
  return b;
}

}  // namespace

MachineProfile machine_share(const MachineProfile& machine, int nodes, int gpus) {
  MachineProfile m = machine;
  if (nodes > 0 && nodes < m.nodes) {
    const double f = static_cast<double>(nodes) / m.nodes;
    auto scale = [f](Figure& x) {
      x.value *= f;
      if (x.low) *x.low *= f;
      if (x.high) *x.high *= f;
    };
    scale(m.cores);
    scale(m.memory_total_bytes);
    scale(m.memory_usable_bytes);
    scale(m.memory_read_bytes_s);
    if (m.compute) {
      scale(m.compute->cpu_flops);
      if (m.compute->cpu_int8_ops) scale(*m.compute->cpu_int8_ops);
      if (m.compute->gpu_flops) scale(*m.compute->gpu_flops);
    }
    if (m.accelerators) m.accelerators->count = std::max(1, static_cast<int>(std::lround(m.accelerators->count * f)));
    m.nodes = nodes;
  }
  if (gpus > 0 && m.accelerators) m.accelerators->count = std::min(gpus, m.accelerators->count);
  return m;
}

namespace {

void add_step(CaseEstimate& e, std::string name, double v, std::string unit, std::string how) {
  e.steps.push_back({std::move(name), v, std::move(unit), std::move(how)});
}

// Whether the card caches an MLA latent: one tensor per layer, which
// llama.cpp (since it runs MLA) and ik_llama.cpp (-mla 1-3) store in K's
// type. An engine that ran such a card without MLA (llama.cpp before
// April 2025, ik_llama.cpp -mla 0) kept K and V apart: not distinguished
// (docs/model.md, Limitations).
bool caches_latent(const ModelCard& card) {
  return card.mla && std::any_of(card.layers.begin(), card.layers.end(), [](const LayerGroup& g) { return g.attention == AttentionKind::kMla; });
}

// The KV cache's bytes per cached position against the card's: the stated
// K and V element types' bits over the card's kv_dtype (K's alone for a
// latent cache); 1 when neither is stated. The linear-attention state is
// not the KV cache and keeps its own bytes.
double kv_cache_scale(const ModelCard& card, const SetupCase& c) {
  if (c.cache_type_k.empty() && c.cache_type_v.empty()) return 1;
  const double own = published_quant_bits(card.kv_dtype).value_or(16);
  auto bits = [&](const std::string& t) { return t.empty() ? own : published_quant_bits(t).value_or(own); };
  return (caches_latent(card) ? bits(c.cache_type_k) : (bits(c.cache_type_k) + bits(c.cache_type_v)) / 2) / own;
}

// How the stated cache types were read, for the bytes step.
std::string kv_cache_how(const ModelCard& card, const SetupCase& c, double scale) {
  if (scale == 1) return "";
  const std::string types = caches_latent(card) ? "latent " + c.cache_type_k : "K " + c.cache_type_k + ", V " + c.cache_type_v;
  return "; KV cache " + types + ": ×" + format_fixed(scale, 3) + " the card's " + card.kv_dtype;
}

// What a token of a case reads before any placement (estimate_case's step 1).
struct CaseBytes {
  ParamCounts pc;
  double L = 0, E = 0, k = 0, expert_bytes = 0, routed_total = 0, b = 1, routed_tok = 0;
  TrunkAt tr;
  double kv_total = 0, kv_tok = 0;
};

CaseBytes case_bytes(const ModelCard& card, const SetupCase& c, CaseEstimate& e) {
  CaseBytes B;
  // 1. Bytes.
  B.pc = card.parameter_counts();
  const ParamCounts& pc = B.pc;
  const double L = B.L = card.moe_layers(), E = B.E = card.moe.experts, k = B.k = card.moe.active;
  const double expert_bytes = B.expert_bytes = 3.0 * card.moe.expert_dim * card.moe.expert_intermediate * c.expert_bits / 8;
  const double routed_total = B.routed_total = static_cast<double>(pc.routed_experts) * c.expert_bits / 8;
  // A pass of `batch` tokens reads each distinct expert once.
  const double b = B.b = std::max(1, c.batch);
  const double routed_tok = B.routed_tok = b <= 1 ? static_cast<double>(pc.routed_active) * c.expert_bits / 8
                                   : L * distinct_experts_uniform(E, k, b) * expert_bytes;
  B.tr = trunk_at(card, c);
  const TrunkAt& tr = B.tr;
  const double kv_scale = kv_cache_scale(card, c);
  const double kv_at = static_cast<double>(card.kv_bytes_at(static_cast<std::uint64_t>(c.context))) * kv_scale;
  B.kv_total = kv_at + static_cast<double>(card.linear_state_bytes());
  // Concurrent streams each read their own KV; a prompt's tokens share one
  // sequence's, read once per pass (tiled attention).
  const double sequences = c.one_sequence ? 1.0 : b;
  const double kv_tok = B.kv_tok = sequences * (kv_at + 2.0 * static_cast<double>(card.linear_state_bytes()));
  e.model_bytes = tr.total + routed_total;
  add_step(e, "trunk", tr.total, "B", tr.how + "; layers and lm_head " + format_bytes_decimal(tr.layers) + " (pinned or streamed), embedding read a row at a time");
  add_step(e, "routed experts", routed_total, "B", format_fixed(c.expert_bits, 2) + " bits per weight; one expert " + format_bytes_decimal(expert_bytes));
  add_step(e, "bytes per token", tr.pre_tok + tr.post_tok + routed_tok + kv_tok, "B",
       "trunk " + format_bytes_decimal(tr.pre_tok + tr.post_tok) + " + " + format_fixed(k, 0) + " × " + format_fixed(L, 0) + " experts " +
           format_bytes_decimal(routed_tok) + " + KV/state " + format_bytes_decimal(kv_tok) + " (context " + format_fixed(c.context, 0) + (c.context_how.empty() ? "" : ": " + c.context_how) +
           kv_cache_how(card, c, kv_scale) + ")");

  return B;
}

// Where the case's bytes live (step 2): resident, or the engines' own trunk
// split and expert cache with its hit rate. False when even streaming does
// not fit (e.fits and e.why say so).
struct CasePlacement {
  double usable = 0, gpu_cap = 0, gpu_bw_lo = 0, gpu_bw_mid = 0, gpu_bw_hi = 0, ram = 0, need_resident = 0;
  double pinned_layers_trunk = 0, cache = 0, slots = 0, hit = 1, hit_uniform = 1, stream_held = 0;
};

// Runtime, scratch and I/O buffers of a real engine (estimate).
constexpr double kEngineOverheadBytes = 0.5e9;

// The GPU tier: what its memory holds and the bandwidth one token streams
// at. Layers split across devices (llama.cpp's default) run one device at a
// time: one token streams at one device's bandwidth. A tensor-parallel
// engine streams every device at once (and the fast end allows a row split
// of any engine).
void place_gpu_tier(const MachineProfile& machine, const SetupCase& c, CasePlacement& M) {
  if (!c.gpus || !machine.accelerators) return;
  const AcceleratorInfo& a = *machine.accelerators;
  M.gpu_cap = 0.9 * a.count * a.memory_bytes.value;  // the runtime, activations, other requests' KV
  const double devices = family_tensor_parallel(c.family) ? static_cast<double>(a.count) : 1.0;
  M.gpu_bw_lo = a.memory_read_bytes_s.low_or_value();
  M.gpu_bw_mid = a.memory_read_bytes_s.value * devices;
  M.gpu_bw_hi = a.count * a.memory_read_bytes_s.high_or_value();
}

// A stated expert cache larger than the memory assumed for an unstated
// budget: the source's machine held it (a raised GPU wired limit, say), so
// the memory is at least that cache beside KV and the trunk, up to the
// machine's total.
void raise_for_stated_cache(const MachineProfile& machine, const SetupCase& c, const CaseBytes& B, CasePlacement& M,
                            CaseEstimate& e) {
  if (!c.cache_bytes || !c.memory_assumed) return;
  const double need = *c.cache_bytes + B.kv_total + kEngineOverheadBytes + B.tr.head + B.tr.layers;
  if (need <= M.ram + M.gpu_cap) return;
  M.ram = std::min(std::max(M.ram, need - M.gpu_cap), machine.memory_total_bytes.value);
  M.usable = std::max(M.usable, M.ram);
  add_step(e, "memory", M.ram, "B",
           "raised from " + format_bytes_decimal(c.memory_bytes) + " to hold the stated expert cache " +
               format_bytes_decimal(*c.cache_bytes) + " (the source ran it; machine total " +
               format_bytes_decimal(machine.memory_total_bytes.value) + ")");
}

// Streaming: KV, the head and a token's working set of experts must stay.
// The engine holds those, the pinned trunk and its cache, no more (a stated
// cache below the memory leaves the rest free). The engines' own plan
// (engines/cache/memory_plan.h: plan_trunk_split, trunk first): pin whole
// layers while k expert slots and the staging buffers still fit; the rest of
// the memory is the expert cache, whose hit rate is its routing's under LRU
// (a cold run's, replayed, where the figure is a run average from empty).
bool place_streaming(const SetupCase& c, const CaseBytes& B, CasePlacement& M, CaseEstimate& e) {
  const double L = B.L, E = B.E, k = B.k, expert_bytes = B.expert_bytes;
  const TrunkAt& tr = B.tr;
  const double fixed = B.kv_total + kEngineOverheadBytes + tr.head;
  TrunkPlanInput in;
  in.budget_bytes = static_cast<std::uint64_t>(std::max(0.0, M.ram + M.gpu_cap));
  in.fixed_bytes = static_cast<std::uint64_t>(fixed);
  const double scale = tr.layers > 0 ? tr.layers / std::max(1.0, static_cast<double>(sum_layers(tr.layer_bytes))) : 1;
  for (std::uint64_t lb : tr.layer_bytes) in.layer_bytes.push_back(static_cast<std::uint64_t>(static_cast<double>(lb) * scale));
  in.slot_bytes = static_cast<std::uint64_t>(std::max(1.0, expert_bytes));
  in.moe_layers = static_cast<int>(L);
  in.experts = static_cast<int>(E);
  in.k = static_cast<int>(k);
  if (c.cache_bytes) {
    // The stated cache (0: none): the trunk may pin what it leaves of the memory.
    const double avail = std::max(1.0, M.ram + M.gpu_cap - fixed);
    in.split.kind = TrunkSplitPolicy::Kind::kFraction;
    in.split.fraction = std::clamp((avail - *c.cache_bytes) / avail, 1e-6, 1 - 1e-6);
  }
  const TrunkPlan plan = plan_trunk_split(in);
  if (!plan.fits) {
    e.fits = false;
    e.why = "memory " + format_bytes_decimal(M.ram + M.gpu_cap) + " is below the streaming minimum " +
            format_bytes_decimal(static_cast<double>(plan.min_budget_bytes)) +
            " (KV/state, head, staging for a streamed layer and one layer's top-k experts)";
    add_step(e, "does not fit", static_cast<double>(plan.min_budget_bytes), "B", e.why);
    return false;
  }
  M.pinned_layers_trunk = static_cast<double>(plan.pinned_bytes);
  M.slots = static_cast<double>(plan.slots);
  // The engine ran the cache it states, even where more memory was free.
  if (c.cache_bytes) M.slots = std::max(k, std::min(M.slots, std::floor(*c.cache_bytes / std::max(1.0, expert_bytes))));
  M.cache = M.slots * expert_bytes;
  M.stream_held = fixed + M.pinned_layers_trunk + M.cache + static_cast<double>(plan.buffer_bytes + plan.margin_bytes);
  const CacheShape shape{static_cast<int>(L), static_cast<int>(E), static_cast<int>(k), static_cast<std::size_t>(M.slots)};
  M.hit_uniform = L * E > 0 ? uniform_lru_hit_rate(shape) : 1;
  M.hit = c.routing == "uniform" ? M.hit_uniform : memo_hit_rate(shape, c.routing);
  add_step(e, "placement", M.cache, "B",
           "streaming: trunk pinned " + format_bytes_decimal(M.pinned_layers_trunk) + " of " +
               format_bytes_decimal(tr.layers) + " per-layer trunk; expert cache " + format_bytes_decimal(M.cache) +
               " = " + format_fixed(M.slots, 0) + " slots of " + format_fixed(L * E, 0) +
               (c.cache_bytes ? " (the split the source states: cache " + format_bytes_decimal(*c.cache_bytes) + ")"
                              : std::string(" (trunk first)")));
  add_step(e, "hit rate", M.hit, "",
           c.routing + " routing, LRU, steady state (uniform, the pessimistic bound: " + format_fixed(M.hit_uniform, 3) + ")");
  if (c.cold_gen_tokens > 1 && L * E > 0) {
    // A run average from an empty cache: its tokens hit what the run has
    // seen so far, at most.
    const double cold = cold_run_hit_rate(shape, c.routing, c.family, c.cold_prompt_tokens, c.cold_gen_tokens, M.hit);
    if (cold < M.hit) {
      add_step(e, "cold cache", cold, "",
               "the run's " + std::to_string(c.cold_gen_tokens) + " tokens after a " +
                   std::to_string(c.cold_prompt_tokens) +
                   "-token prompt start with an empty cache: their hit rate, replayed (steady state " +
                   format_fixed(M.hit, 3) + ")");
      M.hit = cold;
      M.hit_uniform = std::min(M.hit_uniform, cold);
    }
  }
  return true;
}

// 2. Memory: the fastest tier first; everything resident where it fits,
// else the streaming plan.
bool place_case(const MachineProfile& machine, const SetupCase& c, const CaseBytes& B, CasePlacement& M, CaseEstimate& e) {
  M.usable = usable_memory(machine, c.on_cpu);
  place_gpu_tier(machine, c, M);
  M.ram = c.memory_bytes;
  raise_for_stated_cache(machine, c, B, M, e);
  M.need_resident = B.tr.total + B.routed_total + B.kv_total + kEngineOverheadBytes;
  // A measured RSS within the model's own size (the source's runtime holds
  // less than our 0.5 GB overhead, or maps part of the file) says the run
  // held the whole model, not that memory ran short.
  if (c.memory_is_rss && M.need_resident <= 1.15 * M.ram && M.ram < M.usable) M.ram = std::min(M.usable, M.need_resident);
  M.pinned_layers_trunk = B.tr.layers;
  M.slots = B.L * B.E;
  if (M.need_resident > M.ram + M.gpu_cap) return place_streaming(c, B, M, e);
  e.resident = true;
  add_step(e, "placement", M.need_resident, "B",
           "everything resident in " + format_bytes_decimal(M.ram + M.gpu_cap) + " (" + c.memory_how + ")");
  return true;
}

// How a token's bytes split between the drives, RAM and GPU memory, and
// what pages (steps 3-4).
struct CaseTiers {
  double head_tok = 0, layers_tok = 0, storage = 0, storage_slow_extra = 0, memory = 0, in_gpu = 0, paged_fast = 0;
  double cold_load = 0;  // a cold run's one-time read of its pinned trunk, per token of the run (drives only)
  bool paged = false;
};

// A decode run average from a cold start: before or with its first token
// the engine reads the trunk layers it pins, once, from the drives
// (kimi-k3-in-c's ladder counts them as token 0's trunk misses: 84.7 % hit
// = 7 of 8 tokens × 90 of 93 layers). Per token of the run; drive time only,
// the kernels never compute on the load. A prefill pass (a TTFT) is not
// priced with it: which passes paid the pin is not known.
double cold_pin_load(const SetupCase& c, double pinned, CaseEstimate& e) {
  if (e.resident || c.batch > 1 || c.cold_gen_tokens <= 1 || !(pinned > 0)) return 0;
  const double load = pinned / static_cast<double>(c.cold_gen_tokens);
  add_step(e, "cold start: pinned trunk read", load, "B",
           format_bytes_decimal(pinned) + " of pinned trunk read once over the run's " + std::to_string(c.cold_gen_tokens) + " tokens");
  return load;
}

// Bytes a token reads from GPU memory: GPU memory holds KV and the trunk
// first (what every token reads), then experts; the per-token bytes it
// serves follow that placement. A layer split (-ngl below the layers): the
// GPU holds its share of the layers whole, their KV, trunk and experts; the
// output head and the other layers stay in RAM.
double gpu_bytes_tok(const SetupCase& c, const CaseBytes& B, const CasePlacement& M, const CaseTiers& T,
                     double streamed_share, CaseEstimate& e) {
  const TrunkAt& tr = B.tr;
  const double s = gpu_layer_share(c);
  const bool split = s < 1;
  const double kv_gpu_total = B.kv_total * s;
  const double trunk_held = split ? M.pinned_layers_trunk * s : tr.head + M.pinned_layers_trunk;
  const double trunk_in_gpu = std::min(std::max(0.0, M.gpu_cap - kv_gpu_total), trunk_held);
  const double trunk_tok_held = (split ? 0 : T.head_tok) + T.layers_tok * (1 - streamed_share) * s;
  const double experts_held = e.resident ? B.routed_total : M.cache;
  // Hybrid: the routed experts stay in host RAM, all of them, or those of
  // the stated --n-cpu-moe layers (the others' go to the GPU while it has
  // room).
  const double gpu_room = std::max(0.0, M.gpu_cap - kv_gpu_total - trunk_in_gpu);
  const double experts_for_gpu = experts_held * s * (c.experts_on_cpu ? 1 - c.cpu_expert_share : 1);
  const double experts_in_gpu = std::min(gpu_room, experts_for_gpu);
  double in_gpu = B.kv_tok * s + (trunk_held > 0 ? trunk_tok_held * trunk_in_gpu / trunk_held : 0) +
                  (experts_held > 0 ? M.hit * B.routed_tok * experts_in_gpu / experts_held : 0);
  in_gpu = std::min(in_gpu, T.memory);
  if (split) {
    add_step(e, "layer split", s, "",
             format_fixed(100 * s, 0) + " % of the layers on the GPU (-ngl), whole: " + format_bytes_decimal(in_gpu) +
                 " per token from GPU memory; the other layers and the output head in RAM on the CPU cores");
  }
  return in_gpu;
}

// 4. Paging. A budget above usable memory does not make memory: what the
// case holds beyond it faults in from the drive.
//  - Streaming on macOS (the profile's `os`), which compresses and swaps
//    anonymous memory on its own: the expert cache is what the OS takes
//    back (the trunk is touched every token and stays), and its reclaim
//    order is not the engine's LRU, so a hit finds its slot paged out:
//    realistic, every hit (WASTE measured it so past the knee on a 64 GB
//    M5 Pro, sqliteai/waste docs/EFFICIENCY.md: "each hit is a page
//    fault"); the fast end, a share over ÷ cache of them (reclaim that
//    spares recently used slots). Held beyond the cache too, the trunk
//    pages in proportion.
//  - Elsewhere (Linux servers page anonymous memory only with swap, and
//    reclaim least recently used pages first), and resident: the share of
//    the weights held beyond usable memory.
// Moves the faulted bytes from memory to the paged reads.
void page_beyond_usable(const MachineProfile& machine, const CaseBytes& B, const CasePlacement& M, CaseTiers& T,
                        CaseEstimate& e) {
  // What RAM holds (GPU memory first when GPUs hold weights).
  const double held = std::min(M.ram, std::max(0.0, (e.resident ? M.need_resident : M.stream_held) - M.gpu_cap));
  if (held <= M.usable) return;
  const double over = held - M.usable;
  double faulted = 0;
  std::string how;
  if (!e.resident && M.cache > 0 && machine.os == std::optional<std::string>("macos")) {
    const double hit_tok = M.hit * B.routed_tok;
    const double beyond = over > M.cache ? (over - M.cache) / std::max(1.0, held - M.cache) : 0;
    const double trunk_faulted = (T.memory - hit_tok) * beyond;
    faulted = hit_tok + trunk_faulted;
    T.paged_fast = hit_tok * std::min(1.0, over / M.cache) + trunk_faulted;
    how = "held " + format_bytes_decimal(held) + ", usable " + format_bytes_decimal(M.usable) + ": every cache hit faults (" +
          format_bytes_decimal(hit_tok) + "; fast end " + format_fixed(100 * std::min(1.0, over / M.cache), 0) + " % of them)" +
          (trunk_faulted > 0 ? " + " + format_bytes_decimal(trunk_faulted) + " of trunk beyond the cache" : "");
  } else {
    const double share = over / held;
    faulted = (T.memory - T.in_gpu) * share;  // of what RAM serves
    T.paged_fast = faulted;
    how = "memory beyond usable " + format_bytes_decimal(M.usable) + ": " + format_fixed(100 * share, 0) +
          " % of the weights held fault in from the drive per token";
  }
  T.memory -= faulted;
  e.paged_bytes_tok += faulted;
  add_step(e, "paged", faulted, "B", how);
}

CaseTiers case_tiers(const MachineProfile& machine, const SetupCase& c, const CaseBytes& B, const CasePlacement& M,
                     CaseEstimate& e) {
  CaseTiers T;
  const TrunkAt& tr = B.tr;
  e.pinned_trunk_bytes = M.pinned_layers_trunk;
  e.cache_bytes = M.cache;
  e.slots = M.slots;
  e.hit_rate = M.hit;
  const double layer_tok = tr.pre_tok + tr.post_tok;
  const double streamed_share = tr.layers > 0 ? 1 - M.pinned_layers_trunk / tr.layers : 0;
  // The head's per-token part (embedding row, lm_head) is always resident;
  // the per-layer trunk's per-token part scales with the pinned share.
  T.head_tok = tr.head_tok;
  T.layers_tok = std::max(0.0, layer_tok - T.head_tok);
  e.trunk_streamed_bytes_tok = T.layers_tok * streamed_share;
  const double storage_experts = (1 - M.hit) * B.routed_tok;
  T.storage_slow_extra = (M.hit - M.hit_uniform) * B.routed_tok;  // the slow end routes uniformly
  T.storage = e.trunk_streamed_bytes_tok + storage_experts;
  T.cold_load = cold_pin_load(c, M.pinned_layers_trunk, e);
  T.memory = T.head_tok + T.layers_tok * (1 - streamed_share) + M.hit * B.routed_tok + B.kv_tok;
  T.paged = c.residency == Residency::kMmap && T.storage > 0;
  // Bytes by tier: GPU memory first when it holds weights.
  if (M.gpu_cap > 0) T.in_gpu = gpu_bytes_tok(c, B, M, T, streamed_share, e);
  page_beyond_usable(machine, B, M, T, e);
  e.memory_bytes_tok = T.memory;
  e.storage_bytes_tok = T.storage + T.cold_load + e.paged_bytes_tok;
  return T;
}

// The memory side of a token's time (step 5): who reads each byte, from
// which memory, at each end of the bandwidths. False when RAM must serve
// bytes and the machine states no host bandwidth. Sets `in_ram` and
// `igpu` (the integrated GPU computes) for the compute step.
bool memory_parts(const MachineProfile& machine, const ModelCard& card, const SetupCase& c, const CasePlacement& M,
                  const CaseTiers& T, CaseEstimate& e, double& in_ram_out, bool& igpu_out) {
  const double gpu_bw_lo = M.gpu_bw_lo, gpu_bw_mid = M.gpu_bw_mid, gpu_bw_hi = M.gpu_bw_hi;
  const double storage = T.storage, memory = T.memory, in_gpu = T.in_gpu;
  // 5. Time.
  const Figure& mbw = machine.memory_read_bytes_s;
  // What a token reads from the drives lands in RAM and the kernels read it
  // from there like any other weight: the memory-side work of a token is
  // every weight it touches, wherever it came from.
  const double landed = storage + e.paged_bytes_tok;
  const double in_ram = in_ram_out = memory - in_gpu + landed;
  if (in_ram > 1e-6 * std::max(1.0, memory) && !(mbw.value > 0)) {
    e.fits = false;
    e.why = "the model does not fit the GPUs and the machine's host memory is not stated";
    return false;
  }
  auto mem_time = [&](double bw_gpu, double bw_ram, double f) {
    double t = 0;
    if (in_gpu > 0) t += in_gpu / (bw_gpu * f);
    if (in_ram > 0) t += in_ram / (bw_ram * f);
    return t;
  };
  CaseParts& P = e.parts;
  P.mem_s[1] = mem_time(gpu_bw_mid, mbw.value, 1);
  P.mem_s[0] = mem_time(gpu_bw_lo, mbw.low_or_value(), 1);
  P.mem_s[2] = mem_time(gpu_bw_hi, mbw.high_or_value(), 1);
  // Who reads each byte: a discrete GPU its own memory; on unified memory
  // the integrated GPU reads RAM too unless the engine computes on the CPU.
  P.unified = !machine.accelerators && machine.compute && machine.compute->gpu_flops;
  const bool igpu = igpu_out = P.unified && !c.on_cpu;
  for (int end = 0; end < 3; ++end) {
    const double bw_gpu = end == 0 ? gpu_bw_lo : end == 1 ? gpu_bw_mid : gpu_bw_hi;
    const double bw_ram = end == 0 ? mbw.low_or_value() : end == 1 ? mbw.value : mbw.high_or_value();
    const double gpu_part = in_gpu > 0 && bw_gpu > 0 ? in_gpu / bw_gpu : 0;
    const double ram_part = in_ram > 0 && bw_ram > 0 ? in_ram / bw_ram : 0;
    P.mem_gpu_s[end] = gpu_part + (igpu ? ram_part : 0);
    P.mem_cpu_s[end] = igpu ? 0 : ram_part;
  }
  P.cpu_bytes_tok = igpu ? 0 : in_ram;
  P.sockets = std::max(1, machine.sockets);
  P.threads = c.threads;
  P.cores = static_cast<int>(machine.cores.value);
  P.layers = card.total_layers();
  P.gpu_computes = in_gpu > 0 || igpu;
  P.gpu_kind = P.gpu_computes ? gpu_kind(machine) : "";
  P.cpu_vector_bits = machine.compute ? machine.compute->cpu_vector_bits.value_or(0) : 0;
  P.experts_on_cpu = c.experts_on_cpu && in_gpu > 0;
  if (gpu_layer_share(c) < 1 && in_gpu > 0 && !igpu) P.cpu_layers = static_cast<int>(std::lround(P.layers * (1 - gpu_layer_share(c))));
  P.tensor_parallel = in_gpu > 0 && machine.accelerators && machine.accelerators->count > 1 && family_tensor_parallel(c.family);
  add_step(e, "memory time / token at full bandwidth", P.mem_s[1], "s",
       format_bytes_decimal(memory + landed) + " at " + format_rate(mbw.value) + (landed > 0 ? " (" + format_bytes_decimal(landed) + " of it read from the drives into RAM)" : "") +
           (in_gpu > 0 ? " (" + format_bytes_decimal(in_gpu) + " in GPU memory)" : ""));
  return true;
}

// The compute side (step 5): the token's (or pass's) flops at the peak that
// runs them, the attention apart, and the prefill pass's parts.
void compute_parts(const MachineProfile& machine, const ModelCard& card, const SetupCase& c, const CaseBytes& B,
                   const CaseTiers& T, double in_ram, bool igpu, CaseEstimate& e) {
  const ParamCounts& pc = B.pc;
  const double b = B.b, in_gpu = T.in_gpu;
  CaseParts& P = e.parts;
  // Compute: flops ÷ the peak, when the profile states a peak.
  // Every token of the pass attends to the whole context (its own stream's).
  const double attn = b * static_cast<double>(card.attention_flops_at(static_cast<std::uint64_t>(c.context)));
  const double flops = b * 2.0 * (static_cast<double>(pc.active()) - static_cast<double>(pc.embedding)) + attn;
  const Peak peak = peak_flops(machine, in_gpu > 0, c.on_cpu);
  // Hybrid: the routed experts' flops run on the CPU cores; a layer split's
  // CPU layers run there whole (their matmuls; the attention is priced with
  // the GPU's, as if every layer's were there).
  const double s = gpu_layer_share(c);
  const double expert_flops = b * 2.0 * static_cast<double>(pc.routed_active) * c.cpu_expert_share;
  const double cpu_flops = in_gpu <= 0 || igpu ? 0
                           : s < 1          ? (flops - attn) * (1 - s) + (c.experts_on_cpu ? expert_flops * s : 0)
                           : c.experts_on_cpu ? expert_flops
                                              : 0;
  const Peak cpu_peak = cpu_flops > 0 ? peak_flops(machine, false, true) : Peak{};
  if (peak.flops > 0) {
    auto at = [&](double f, const Peak& p, double eff_of) { return f > 0 && p.flops > 0 ? f / (p.flops * eff_of) : 0.0; };
    const double rest = flops - cpu_flops;
    P.flops_s[0] = at(rest, peak, peak.eff_lo) + at(cpu_flops, cpu_peak, cpu_peak.eff_lo);
    P.flops_s[1] = at(rest, peak, peak.eff) + at(cpu_flops, cpu_peak, cpu_peak.eff);
    P.flops_s[2] = at(rest, peak, peak.eff_hi) + at(cpu_flops, cpu_peak, cpu_peak.eff_hi);
    const double at_peak = at(rest - attn, peak, 1) + at(cpu_flops, cpu_peak, 1);  // the peak has no range
    std::fill(std::begin(P.flops_peak_s), std::end(P.flops_peak_s), at_peak);
    P.flops_cpu_peak_dec_s = at(cpu_flops, cpu_peak, 1);
    // A decode's attention is one query per head: each cached position's
    // dot product, softmax step and value accumulation are short vector
    // work, at the FP32 rate whatever K's type (an int8 K on CPU cores
    // priced here held out worse: docs/measurements/2026-12-07c-kv-cache.md).
    P.attn_peak_s = at(attn, peak, 1);
    add_step(e, "compute / token", P.flops_s[1], "s",
         format_fixed(rest / 1e9, 1) + " GFLOP at " + format_fixed(peak.flops / 1e12, 1) + " TFLOP/s, " + peak.how +
             (cpu_flops > 0 ? "; routed experts " + format_fixed(cpu_flops / 1e9, 1) + " GFLOP at " +
                                  format_fixed(cpu_peak.flops / 1e12, 1) + " TFLOP/s, " + cpu_peak.how
                            : std::string()) +
             (c.processor_how.empty() ? std::string() : "; processor " + c.processor_how));
  }
  prefill_parts(machine, c, flops, cpu_flops, attn, in_gpu > 0, igpu, in_ram, P);
  if (P.copies_experts && c.one_sequence) {  // a prompt's pass: a decode never copies
    add_step(e, "hybrid pass: CPU-held experts", *P.copies_experts ? 1 : 0, "",
             std::string(*P.copies_experts ? "copied to the GPU" : "computed on the CPU") + " for a pass of " +
                 std::to_string(P.batch) + " tokens (" + family_offload(c.family).source + ")");
  }
  // Per-layer fixed costs: ~12 kernel dispatches and a synchronisation per
  // layer (attention, norms, router, experts), ~10 µs each on CPU threads.
  P.fixed_s = card.total_layers() * 12 * 10e-6;
  add_step(e, "per-layer fixed costs / token", P.fixed_s, "s", std::to_string(card.total_layers()) + " layers × 12 dispatches × 10 µs (estimate)");
}

// The drive side (step 5): the reads at the record size and queue depth,
// page faults at the small-block rate. False when the case must read from
// drives the machine does not list.
bool io_parts(const MachineProfile& machine, const SetupCase& c, const CaseBytes& B, const CaseTiers& T, CaseEstimate& e) {
  const double expert_bytes = B.expert_bytes, storage = T.storage + T.cold_load, storage_slow_extra = T.storage_slow_extra,
               paged_fast = T.paged_fast;
  const bool paged = T.paged;
  CaseParts& P = e.parts;
  // I/O.
  if (storage + e.paged_bytes_tok > 0) {
    if (machine.drives.empty()) {
      e.fits = false;
      e.why = "the model does not fit memory and the profile lists no drive to stream from";
      return false;
    }
    const Bw big = drives_bw(machine, c.drives, expert_bytes / 3, paged, 32);
    const Bw small = drives_bw(machine, 1, 4096, true, 1);
    auto io = [&](double b_big, double b_small, double paged_b) {
      return (storage > 0 ? storage / b_big : 0) + (paged_b > 0 ? paged_b / b_small : 0);
    };
    P.io_s[1] = io(big.mid, small.mid, e.paged_bytes_tok);
    P.io_s[0] = io(big.lo, small.lo, e.paged_bytes_tok) + std::max(0.0, storage_slow_extra) / big.lo;
    P.io_s[2] = io(big.hi, small.hi, paged_fast);
    P.paged_io_s[1] = e.paged_bytes_tok > 0 ? e.paged_bytes_tok / small.mid : 0;
    P.paged_io_s[0] = e.paged_bytes_tok > 0 ? e.paged_bytes_tok / small.lo : 0;
    P.paged_io_s[2] = paged_fast > 0 ? paged_fast / small.hi : 0;
    add_step(e, "I/O / token at full bandwidth", P.io_s[1], "s",
         format_bytes_decimal(storage) + " from " + big.how + (e.paged_bytes_tok > 0 ? "; " + format_bytes_decimal(e.paged_bytes_tok) + " of page faults" : ""));
  }
  return true;
}

}  // namespace

CaseEstimate estimate_case(const ModelCard& card, const MachineProfile& whole, const SetupCase& c,
                           const EngineEfficiency& eff) {
  const MachineProfile machine = machine_share(whole, c.nodes, c.gpu_count);
  CaseEstimate e;
  if (!c.contradiction.empty()) {
    e.fits = false;
    e.why = c.contradiction;
    return e;
  }
  const CaseBytes B = case_bytes(card, c, e);
  CasePlacement M;
  if (!place_case(machine, c, B, M, e)) return e;
  const CaseTiers T = case_tiers(machine, c, B, M, e);
  double in_ram = 0;
  bool igpu = false;
  if (!memory_parts(machine, card, c, M, T, e, in_ram, igpu)) return e;
  compute_parts(machine, card, c, B, T, in_ram, igpu, e);
  if (!io_parts(machine, c, B, T, e)) return e;
  CaseParts& P = e.parts;
  if (machine.nodes > 1 && machine.sync_s_per_token) {
    P.sync_s[0] = machine.sync_s_per_token->high_or_value();
    P.sync_s[1] = machine.sync_s_per_token->value;
    P.sync_s[2] = machine.sync_s_per_token->low_or_value();
  }
  P.speculative = std::max(1.0, c.speculative_speedup);
  if (P.speculative > 1) add_step(e, "speculative decoding", P.speculative, "×", "tokens per weight pass (assumed)");
  const CaseTimes t = case_times(P, eff);
  e.t_slow_s = t.slow_s;
  e.t_real_s = t.real_s;
  e.t_fast_s = t.fast_s;
  add_step(e, "decode / token", e.t_real_s, "s",
       "max(memory ÷ " + format_fixed(eff.memory, 3) + ", compute ÷ " + format_fixed(eff.compute, 3) + ") + fixed, I/O ÷ " +
           format_fixed(eff.io, 3) + ", overlap " + format_fixed(eff.overlap, 2) + "; band " + format_fixed(e.t_fast_s, 3) +
           " .. " + format_fixed(e.t_slow_s, 3) + " s (" + eff.source + ")");
  return e;
}

CaseTimes case_times(const CaseParts& p, const EngineEfficiency& eff) {
  auto token = [&](int end, double f, double overlap) {
    const double fm = std::min(1.0, eff.memory * f), fc = std::min(1.0, eff.compute * f), fi = std::min(1.0, eff.io * f);
    const double compute = std::max(p.mem_s[end] / fm, p.flops_s[end] / fc) + p.fixed_s;
    return (decode_token_time_s(0, compute, p.io_s[end] / fi, 0, overlap) + p.sync_s[end]) / p.speculative;
  };
  return {token(0, eff.band_low, 0), token(1, 1, eff.overlap), token(2, eff.band_high, 1)};
}

}  // namespace moebench
