// setup_model.h — the one model of bytes, memory and time for a setup: a
// model card at some expert and trunk precision, on a machine profile, with a
// memory budget, a set of drives, a context and an engine. `claims`, `plan`
// and `validate-model` ask it; `predict` (cost_model.h) shares its byte
// split (trunk_split), its memory plan (engines/cache/memory_plan.h) and its
// token-time formula (decode_token_time_s) for this machine's own engines.
//
// One case (every condition has one value) is estimated in five steps, each
// kept as a Step for `--explain`:
//   1. bytes     routed experts at the case's expert bits; the trunk at its
//                bits (the card's tensors in a named quant, or the card's bytes
//                scaled to a stated bits/weight); split into the head
//                (embedding, lm_head, final norm: always resident) and the
//                per-layer trunk (the part a small budget streams);
//   2. memory    weights go to the fastest tier first (GPU memory when the
//                engine uses GPUs, then RAM: the budget, the RSS or usable
//                memory). All of it fits: resident. Otherwise the engine
//                streams: KV/state and the head stay, the per-layer trunk is
//                pinned as far as the memory allows (the rest is re-read every
//                token), the remaining memory is the expert cache — or, when
//                the source states its expert cache, the trunk gets what that
//                cache leaves (the split is a condition: sources measured it
//                changing speed 1.7× at one budget);
//   3. hits      the expert cache's hit rate under the case's routing model
//                (model/hit_rate.h);
//   4. paging    memory the case counts on beyond usable memory (a budget
//                above it), and every read of an engine that pages through
//                mmap, are served by page faults: small random reads at the
//                drive's small-block rate instead of the large-read rate;
//   5. time      memory time = bytes from each tier ÷ its bandwidth × the
//                engine's memory efficiency; compute = flops ÷ (peak × the
//                compute efficiency) when the profile states a peak; per-layer
//                fixed costs (kernel dispatch and synchronisation); I/O =
//                storage bytes ÷ the drives' bandwidth × the I/O efficiency;
//                a token takes decode_token_time_s of those; linked nodes add
//                their sync; speculative decoding divides by its speed-up.
// The band of a case runs from the slow end (low spec figures, efficiencies
// × the engine's band_low, no overlap) to the fast end (high figures, × the
// band_high, full overlap); the realistic value uses the fitted efficiencies.
//
// Unstated conditions are ranges (plausible_cases): each missing condition
// takes every value of its declared set, and a figure is judged against the
// band over every combination (claim_check.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "model/engine_families.h"
#include "vocab/claim.h"
#include "vocab/engine_efficiency.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"

namespace moebench {

// The seconds of one decode token from its parts: compute before routing,
// compute after routing, I/O, the share of misses hidden before the router
// chose, and the share of min(I/O, post) the pipeline overlaps:
//   max(pre + post, pre + (1 − hidden)·io, io) + (1 − overlap)·min(io, post)
double decode_token_time_s(double pre_s, double post_s, double io_s, double hidden, double overlap);


// One combination of conditions.
struct SetupCase {
  std::string label;              // the assumed values, e.g. "trunk q8_0, drives 1, context 4096"
  std::vector<std::pair<std::string, std::string>> assumed;  // (condition, value) the source left out
  double expert_bits = 4.25;      // bits per routed-expert weight
  std::string trunk_quant;        // named quant of the trunk ("" = scale the card's by trunk_bits)
  double trunk_bits = 16;         // bits per trunk weight
  double memory_bytes = 0;        // RAM the engine may hold weights, cache and KV in
  std::string memory_how;
  int drives = 1;                 // the profile's first `drives` drives (each its own bandwidth)
  double context = 0;             // tokens in the KV cache
  std::string context_how;        // where that figure came from, when not stated
  double speculative_speedup = 1; // tokens per weight pass (1: no speculative decoding)
  bool gpus = false;              // GPUs hold weights
  bool on_cpu = false;            // the CPU cores compute (where a GPU shares the memory: not held to its wired limit)
  bool experts_on_cpu = false;    // hybrid: the GPU holds trunk and KV, the routed experts stay in RAM on the CPU
  std::string processor_how;      // where it computes and why ("cpu (as stated)", "cpu (the waste default: …)")
  int gpu_count = 0;              // GPUs used (0: every one of the profile's)
  int nodes = 0;                  // linked nodes used (0: every one of the profile's)
  Residency residency = Residency::kStream;
  std::string family = "any";     // engine family (which processor computes, its efficiencies)
  std::string routing = "uniform";  // plausible_cases: the fitted default_real_routing()
  int batch = 1;                  // tokens per weight pass (concurrent streams, a prefill chunk)
  bool one_sequence = false;      // the batch is one sequence's prompt (prefill): its KV is read once per pass
  std::optional<double> cache_bytes;  // a stated expert cache: the split of the memory between it and the pinned trunk
  bool memory_assumed = false;    // memory_bytes is not a stated budget (usable memory or RSS stand in)
  bool memory_is_rss = false;     // memory_bytes is the RSS the source measured (what the engine held, not a cap)
  int threads = 0;                // CPU threads the source states (0: not stated)
  // The KV cache's element types as stated (claim cache_type_k/_v; "" the
  // card's kv_dtype): the bytes a cached position costs, and on CPU cores
  // whether the query-key products run as int8 dot products (case_peaks.h).
  std::string cache_type_k, cache_type_v;
  double cpu_expert_share = 1;    // hybrid: share of MoE layers whose routed experts stay on the CPU (--n-cpu-moe)
  // A layer split (llama.cpp's -ngl below the card's layers): the share of
  // layers a GPU holds and computes whole (trunk, experts, KV); the others,
  // and the output head, sit in RAM and run on the CPU cores. 1: no split.
  double gpu_layer_share = 1;
  std::string contradiction;      // stated conditions that cannot hold together (estimate_case: does not fit, this why)
  // A run average of an engine that fills its own expert cache: the run
  // starts with it empty, so its hit rate is that of its first tokens, not
  // the steady state. The run's prompt and generated tokens (0: steady).
  std::int64_t cold_prompt_tokens = 0, cold_gen_tokens = 0;
};

// A case's times before efficiencies: [0] slow end (low spec figures),
// [1] realistic (the figures), [2] fast end (high figures). The efficiencies
// divide them (case_times), so fitting them costs nothing per evaluation.
struct CaseParts {
  double mem_s[3] = {0, 0, 0};   // memory bytes ÷ bandwidth
  double io_s[3] = {0, 0, 0};    // storage bytes ÷ the drives' bandwidth
  double flops_s[3] = {0, 0, 0}; // flops ÷ (peak × the machine's decode efficiency), 0 without a peak
  double fixed_s = 0;            // per-layer fixed costs
  double sync_s[3] = {0, 0, 0};  // linked nodes
  double speculative = 1;        // tokens per weight pass
  // What the regime model (model/regimes.h) reads, before any efficiency:
  double mem_gpu_s[3] = {0, 0, 0};    // of mem_s: bytes a GPU reads (discrete, or integrated on unified memory)
  double mem_cpu_s[3] = {0, 0, 0};    // of mem_s: bytes the CPU cores read, at every socket's bandwidth summed
  double cpu_bytes_tok = 0;           // bytes the CPU cores read per token (the per-thread cap)
  double paged_io_s[3] = {0, 0, 0};   // of io_s: page faults (small reads)
  double flops_peak_s[3] = {0, 0, 0}; // matmul flops ÷ the peak alone (no efficiency), 0 without a peak
  double flops_cpu_peak_dec_s = 0;    // of flops_peak_s, what the CPU cores compute beside a GPU (hybrid, a layer split)
  double attn_peak_s = 0;             // attention flops over the context ÷ the same peak: a phase of its own,
                                      // after the weights it reads are streamed, not overlapped with them
  int sockets = 1;                    // CPU sockets whose memory mem_cpu_s sums
  int threads = 0;                    // CPU threads the engine ran (0: not stated)
  int cores = 0;                      // CPU cores of the machine (the share used)
  int layers = 0;                     // layers one token passes
  bool gpu_computes = false;          // a GPU runs the layers (discrete or integrated)
  bool tensor_parallel = false;       // several GPUs split every layer (family_tensor_parallel): an all-reduce per layer
  bool experts_on_cpu = false;        // hybrid: routed experts in host RAM on the CPU beside a GPU
  int cpu_layers = 0;                 // a layer split: layers computed whole on the CPU cores beside a GPU (of `layers`)
  bool unified = false;               // one memory for CPU and GPU (Apple silicon, GB10, Strix Halo)
  std::string gpu_kind;               // the GPU's maker where one computes (gpu_kind(): "nvidia", "apple", …), else ""
  int cpu_vector_bits = 0;            // the width of one CPU FMA pipe (128, 256, 512), 0 unknown
  // A pass of `batch` tokens (a prefill ubatch) priced on its compute
  // (model/regimes.h: prefill regimes), at each processor's peak alone:
  bool prefill = false;                   // the figure is a prefill rate: a pass's compute binds, not a token's bytes
  int batch = 1;                          // tokens the pass computes
  double flops_gpu_peak_s = 0;            // what a GPU computes ÷ its peak (dense BF16; integrated on unified memory)
  double flops_cpu_peak_s = 0;            // what the CPU cores compute ÷ their quantized-matmul peak (int8 dot where the ISA has one)
  double attn_gpu_peak_s = 0;             // of the pass, the attention over the context on a GPU ÷ its peak (not in flops_gpu_peak_s)
  double attn_cpu_peak_s = 0;             // ... on the CPU cores at their peak (case_peaks.h: cpu_attention_peak_s; not in flops_cpu_peak_s)
  double flops_offload_peak_s = 0;        // hybrid: the CPU-held experts' flops ÷ the GPU's peak (were they copied over)
  double link_s = 0;                      // hybrid: the CPU-held weights the pass touches ÷ the GPU's host link
  // hybrid: where the engine's own rule (family_offload) computes the
  // CPU-held experts: copied to the GPU (true), on the CPU cores (false);
  // unset where the rule is not known (whichever side is faster)
  std::optional<bool> copies_experts;
  bool peak_missing = false;              // a processor that computes part of the pass has no stated peak
};
struct CaseTimes {
  double slow_s = 0, real_s = 0, fast_s = 0;
};
// Slow end: efficiencies × band_low, no overlap; realistic: the
// efficiencies; fast end: × band_high (capped at 1), full overlap.
CaseTimes case_times(const CaseParts& parts, const EngineEfficiency& eff);

struct CaseEstimate {
  bool fits = true;
  std::string why;                  // when it does not fit
  double t_slow_s = 0, t_real_s = 0, t_fast_s = 0;  // s/token
  double memory_bytes_tok = 0;      // weights + KV read from memory per token
  double storage_bytes_tok = 0;     // read from the drives per token (page faults and a cold run's pinned-trunk load included)
  double paged_bytes_tok = 0;       // of which page-fault reads
  double trunk_streamed_bytes_tok = 0;
  double pinned_trunk_bytes = 0, cache_bytes = 0, slots = 0;
  double hit_rate = 0;
  double model_bytes = 0;           // trunk + experts
  bool resident = false;
  CaseParts parts;
  std::vector<Step> steps;
  double tok_s_slow() const { return t_slow_s > 0 ? 1 / t_slow_s : 0; }
  double tok_s_real() const { return t_real_s > 0 ? 1 / t_real_s : 0; }
  double tok_s_fast() const { return t_fast_s > 0 ? 1 / t_fast_s : 0; }
};

CaseEstimate estimate_case(const ModelCard& card, const MachineProfile& machine, const SetupCase& c,
                           const EngineEfficiency& eff);

// The part of a machine a case uses: `nodes` of its linked nodes (memory,
// bandwidth, compute and GPUs in proportion; no link cost for one) and at
// most `gpus` of its GPUs; 0 keeps the whole.
MachineProfile machine_share(const MachineProfile& machine, int nodes, int gpus);

// Declared plausible values of conditions a source leaves out.
struct PlausibleSets {
  std::vector<std::string> trunk_quants = {"q4_0", "q8_0", "bf16"};  // 4.5 to 16 bits
  std::vector<double> contexts = {0, 4096, 32768};
  std::vector<double> speculative_speedups = {1.0, 2.0};  // no draft; a draft accepting ~half its tokens
  // Routed-expert quants when the source names none (nor bits nor a file
  // size): the published low-bit builds of giant MoEs (Unsloth's UD-IQ1_S
  // and Q2_K-class files) up to the card's native precision.
  std::vector<std::string> expert_quants = {"iq1_s", "q2_k"};
};

// The cases a claim's conditions allow: stated conditions fixed, missing ones
// over their plausible sets (drives over 1..the profile's drive count). A
// stated container size rules out the trunk precisions it cannot hold; when
// it rules out every one, the cases carry the contradiction (naming
// container_bytes) instead of a silently tiny expert precision.
std::vector<SetupCase> plausible_cases(const Claim& claim, const ModelCard& card, const MachineProfile& machine,
                                       const PlausibleSets& sets = {});

// Where the case computes: the stated `processor` (cpu | gpu | hybrid), else
// the family's default (engine_families.h) where the machine can host it;
// sets on_cpu, gpus, experts_on_cpu and processor_how. The case's family
// must be set.
void apply_processor(SetupCase& c, const std::optional<std::string>& stated, const MachineProfile& machine);
// Memory the family can hold on the machine before it pages (the GPU wired
// limit on unified memory for GPU engines, else usable memory).
double usable_for(const MachineProfile& machine, const std::string& family);
// The same for an engine that computes on the CPU cores (`on_cpu`) or not.
double usable_memory(const MachineProfile& machine, bool on_cpu);

}  // namespace moebench
