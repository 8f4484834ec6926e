// regimes.h — what decides a decode token's time, with physical parameters.
//
// The setup model (setup_model.h) turns a case into its parts before any
// efficiency (CaseParts: bytes each processor reads at the spec bandwidth,
// flops at the spec peak, drive reads at the drives' rates, layers). This
// file prices those parts with a handful of parameters, each a physical
// quantity with a range it cannot leave, and names the regime that binds:
//
//   memory-cpu   CPU cores stream the weights from DRAM: bytes ÷ (bandwidth
//                × mem_eff_cpu), and no faster than threads × core_bw;
//   numa         the same over two or more sockets: the second socket adds
//                numa_gain of its bandwidth (an engine that ignores NUMA
//                reads much of its memory across the link);
//   memory-gpu   a GPU streams them (HBM/GDDR, or unified memory):
//                bytes ÷ (bandwidth × mem_eff_gpu);
//   hybrid       trunk on a GPU, routed experts on the CPU (-ot exps=CPU):
//                the two memory times add, and each layer pays a hand-off
//                (layer_s_handoff) instead of either side's fixed cost;
//   compute      flops ÷ (peak × compute_eff) exceeds the memory time;
//   io           reads from the drives: bytes ÷ (drive rate × io_eff),
//                overlapped with compute by `overlap`;
//   paging       the same, where page faults (small reads) dominate;
//   fixed        per-layer fixed costs (dispatch, synchronisation):
//                layers × layer_s_cpu or layer_s_gpu.
// A token takes max(memory, compute) + fixed, then the I/O joins through
// decode_token_time_s; linked nodes add their sync; speculative decoding
// divides.
//
// Each parameter is fitted only on figures of the regimes it governs, on a
// grid inside its range (fit_regimes): a value at the edge of its range is
// reported as such, never moved past it.
#pragma once

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
};

// The parameter set, as data (names, values, ranges, what fits them).
struct RegimeParams {
  std::vector<RegimeParam> p;
  double get(const std::string& name) const;
  void set(const std::string& name, double v);
  // The priors: the middle of what published memory-bound decodes reach.
  static RegimeParams defaults();
};

// Seconds of one decode token for a case's parts at end `k` (0 slow, 1
// realistic, 2 fast: the spec figures' low, value and high).
double regime_token_s(const CaseParts& parts, const RegimeParams& q, int k = 1);

// The regime that binds a case under `q`: the largest of its priced parts.
std::string case_regime(const CaseParts& parts, const RegimeParams& q);

// The regimes, in report order.
const std::vector<std::string>& regime_names();

}  // namespace moebench
