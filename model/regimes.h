// regimes.h — what decides a token's time, decode or prefill, with physical
// parameters.
//
// The setup model (setup_model.h) turns a case into its parts before any
// efficiency (CaseParts: bytes each processor reads at the spec bandwidth,
// flops at the spec peak, drive reads at the drives' rates, layers). This
// file prices those parts with a handful of parameters, each a physical
// quantity with a range it cannot leave, and names the regime that binds:
//
//   memory-cpu   CPU cores stream the weights from DRAM: bytes ÷ (bandwidth
//                × mem_eff_cpu), and no faster than threads × core_bw
//                (a thread's matrix-vector kernel rate; decode only);
//   numa         the same over two or more sockets: the second socket adds
//                numa_gain of its bandwidth (an engine that ignores NUMA
//                reads much of its memory across the link);
//   memory-gpu   a GPU streams them (HBM/GDDR, or unified memory):
//                bytes ÷ (bandwidth × mem_eff_gpu);
//   hybrid       trunk on a GPU, routed experts on the CPU (-ot exps=CPU):
//                the two memory times add, and each layer pays a hand-off
//                (layer_s_handoff) instead of either side's fixed cost;
//   compute      flops ÷ (peak × compute_eff) exceeds the memory time;
//   attention    the attention's arithmetic over the context, flops ÷ (peak
//                × attn_eff), a phase after each layer's weight reads (it
//                adds to them, never hides behind them), is the largest
//                term: long contexts;
//   io           reads from the drives: bytes ÷ (drive rate × io_eff),
//                overlapped with compute by `overlap`;
//   paging       the same, where page faults (small reads) dominate;
//   fixed        per-layer fixed costs (dispatch, synchronisation):
//                layers × layer_s_cpu, layer_s_gpu (a discrete GPU) or
//                layer_s_igpu (an integrated one on unified memory), and layers ×
//                layer_s_tp where several GPUs split every layer (tensor
//                parallelism: an all-reduce per layer); a CPU decode adds
//                layers × threads × layer_s_thread (its barriers cost more
//                the more threads meet at them).
// CPU compute runs on the threads the engine was given: stated threads ÷
// the machine's cores (at most 1) of the peak.
// A decode token takes max(memory, compute) + attention + fixed, then the I/O joins through
// decode_token_time_s; linked nodes add their sync; speculative decoding
// divides.
//
// A prefill figure (CaseParts::prefill) is a pass over a ubatch of tokens:
// the weights it touches are read once, then multiplied (the two add; a
// copy over the host link is the read of what it copies); the regime is
// its largest part:
//   prefill-cpu     the CPU cores' quantized-matmul peak × prefill_eff_cpu;
//   prefill-gpu     the GPU's dense peak × prefill_eff_gpu;
//   prefill-link    hybrid: the CPU-held experts copied over the host link
//                   (× link_eff), then computed on the GPU: where the
//                   engine's rule copies them (CaseParts::copies_experts),
//                   else where that beats the CPU cores;
//   prefill-attention  the attention over a long context binds: its own
//                   share of the peak (prefill_attn_eff), after the matmuls;
//   prefill-memory  the pass's weight reads are its larger part (small ubatches);
//   prefill-io      its reads from the drives bind.
// A pass takes its weight reads + its compute on each processor in turn,
// then the attention, + fixed (reads and arithmetic do not overlap), the
// I/O joined as for decode; a token is the pass ÷ its tokens.
//
// Each parameter is fitted only on figures of the regimes it governs, on a
// grid inside its range (fit_regimes): a value at the edge of its range is
// reported as such, never moved past it.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "model/setup_model.h"

namespace moebench {

struct RegimeParam {
  const char* name;
  double value;
  double low, high;        // the physical range; the fit never leaves it
  bool log_scale;          // grid spaced in log (rates, times) or linearly (shares)
  const char* regimes;     // the regimes it is fitted on, comma-separated
  const char* meaning;
  // A share whose ends are physical states (no overlap, full overlap): a fit
  // there is a finding, not a missing term.
  bool ends_attainable = false;
  // An efficiency engines reach differently (kernels, threading): a family
  // with enough figures of its regimes gets its own value, in the same range.
  bool per_family = false;
  // An efficiency GPUs of different makers reach differently (matrix units,
  // compilers, backends): fitted per GPU kind (key "@apple"), then per family
  // on that kind ("llama.cpp@apple") where each has enough figures; a case
  // on no GPU sees the pooled value.
  bool per_kind = false;
  // The same per CPU vector datapath (keys "@simd256", "family@simd256"):
  // dequantizing kernels reach a different share of a 256-bit and a 512-bit
  // pipe's peak. Between the two comes the family's own value (an engine's
  // kernels differ more than the datapaths they run on); a CPU of unknown
  // width sees its family's value.
  bool per_cpu_kind = false;
  // Fitted only on figures where no tensor-parallel engine splits every
  // layer across GPUs: there the per-layer all-reduces (layer_s_tp) are the
  // fixed cost to explain, and a launch cost fitted on them would carry it
  // to every single-GPU decode.
  bool skips_tensor_parallel = false;
};

// The processor kinds a case computes on: the GPU's maker ("" none) and the
// CPU's vector datapath ("simd256", …; "" unknown); per-kind parameters
// take theirs.
struct Kinds {
  std::string gpu, cpu;
  Kinds() = default;
  Kinds(std::string g, std::string c = "") : gpu(std::move(g)), cpu(std::move(c)) {}
  Kinds(const char* g) : gpu(g) {}
};

// The parameter set, as data (names, values, ranges, what fits them).
struct RegimeParams {
  std::vector<RegimeParam> p;
  // parameter → group → its own value; the group is an engine family, or for
  // a per-kind parameter "@kind" and "family@kind" (group_keys).
  std::map<std::string, std::map<std::string, double>> family;
  double get(const std::string& name) const;
  void set(const std::string& name, double v);
  // The parameters as `family` on processors of `kinds` sees them: its own
  // values where it has them.
  RegimeParams for_family(const std::string& family, const Kinds& kinds = {}) const;
  // Whether that family and kinds have a value of their own for any parameter.
  bool has_family_values(const std::string& family, const Kinds& kinds = {}) const;
  // The priors: the middle of what published memory-bound decodes reach.
  static RegimeParams defaults();
};

// The groups whose values a parameter takes for `family` on processors of
// `kinds`, most specific first: a per-kind parameter "family@kind" then
// "@kind" (none without a GPU kind); a per-CPU-kind one "family@kind", the
// family, "@kind" (the family alone without a CPU kind); a per-family one
// the family.
std::vector<std::string> group_keys(const RegimeParam& p, const std::string& family, const Kinds& kinds);

// The kinds a set of cases computes on, the kinds their per-kind parameters
// take: for each, the first case's that names one ("" none). The cases may
// be given as pointers (e.g. a decode case, then its prefill case).
Kinds kinds_of(std::initializer_list<const CaseParts*> cases);
Kinds kinds_of(const std::vector<CaseParts>& cases);

// Seconds of one token (decode, or a prefill pass ÷ its tokens) for a
// case's parts at end `k` (0 slow, 1 realistic, 2 fast: the spec figures'
// low, value and high).
double regime_token_s(const CaseParts& parts, const RegimeParams& q, int k = 1);

// The regime that binds a case under `q`: the largest of its priced parts.
std::string case_regime(const CaseParts& parts, const RegimeParams& q);

// A case's priced parts at end `k`, in seconds per token (decode) or per
// pass (prefill), as regime_token_s sums them: what `validate-model
// --regimes --explain` prints.
struct RegimeTerms {
  double mem_cpu_s = 0, mem_gpu_s = 0, flops_s = 0, attn_s = 0, fixed_s = 0, io_s = 0, paged_s = 0;
  double prefill_gpu_s = 0, prefill_cpu_s = 0, prefill_link_s = 0, prefill_attn_s = 0;  // a prefill pass's compute
  double token_s = 0;  // regime_token_s
  std::string regime;
};
RegimeTerms regime_terms(const CaseParts& parts, const RegimeParams& q, int k = 1);

// Every CPU kind kinds_of names.
const std::vector<std::string>& cpu_kinds();

// The regimes, in report order.
const std::vector<std::string>& regime_names();

}  // namespace moebench
