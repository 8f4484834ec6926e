// cost_model.h — the analytic cost model: what a point costs on a machine,
// from the machine's profile, the (scaled) card and the point alone.
//
// It mirrors what the real engines do, step by step, and keeps every step
// (name, value, unit, how) so a prediction can be explained:
//   memory plan   engines/cache/memory_plan.h, as the engines: resident:
//                 container + KV/state + working margin must fit usable
//                 memory and the budget;
//                 streaming: trunk + KV/state + process overhead + margin
//                 (24 MiB + 1 % of the budget, as the engine) leave the
//                 expert cache; fewer slots than one layer's k → infeasible
//                 with the minimum budget stated;
//   hits          replay of the point's own run through the engine's cache
//                 (same routing seed, cold start, prefetch as the engine) when
//                 small enough, else the steady-state closed form (uniform)
//                 or Che's computation (other routings);
//   bytes         per decode token: trunk before routing (embedding row,
//                 attention, routers, norms, dense FFNs, lm_head, KV/state),
//                 after routing (shared experts, latent projection, routed
//                 experts), and storage reads (misses × aligned record);
//   times         compute = bytes ÷ the profile's kernel rates (matvec, all
//                 threads; memory bandwidth when a kernel was not probed) ÷
//                 the compute efficiency; I/O = read bytes ÷ the drive set's
//                 bandwidth at the read size and queue depth (drives on one
//                 device share it; a throttle caps each) ÷ the I/O
//                 efficiency; a token takes
//                   max(pre + post, pre + (1−h)·io, io) + (1−overlap)·min(io, post)
//                 with h the share of misses a prefetch hid (reads that can
//                 run before the router chose);
//   prefill       chunks of the engine's chunk size: trunk once per chunk,
//                 each distinct expert once, compute at the matmul rate;
//                 TTFT = prefill time (the first token leaves with it);
//   cliff         a streaming budget beyond usable memory: the cache part
//                 beyond it pages, so those hits cost small random reads —
//                 predicted, and warned about.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/measurement.h"
#include "vocab/model_card.h"
#include "vocab/point.h"

namespace moebench {

// Factors fitted by `calibrate` (1 = the profile's figures as they are).
struct Efficiency {
  double io = 1.0;       // achieved read bandwidth ÷ the profile's
  double compute = 1.0;  // achieved kernel rate ÷ the profile's
  double overlap = 1.0;  // share of min(I/O, compute after routing) hidden
};

// The profile's calibrated factors (`moebench calibrate`), or all 1.
Efficiency profile_efficiency(const MachineProfile& profile);

struct Step {
  std::string name;
  double value = 0;
  std::string unit;
  std::string how;
};

struct PredictContext {
  std::uint64_t seed = 0;     // sweep seed (the engines derive their routing seed from it)
  int repetition = 0;
  std::string base_dir;       // for trace paths
  // Replay the run when L·k·tokens·slots stays below this (cache operations
  // × victim scan); above it the steady-state formulas answer.
  double replay_limit = 4e9;
};

struct Prediction {
  Measurement m;
  std::vector<Step> steps;
  double hit_rate_decode = 0;
  double t_pre_s = 0, t_post_s = 0, t_io_s = 0, t_token_s = 0;  // per decode token
  double hidden_share = 0;  // misses a prefetch hid ÷ misses
};

Expected<Prediction> predict_point(const MachineProfile& profile, const ModelCard& card, const Point& point,
                                   const Efficiency& eff, const PredictContext& ctx);

// Pieces, exposed for tests and for `claims --explain`.
// Read bandwidth of `drives` drives of the profile at `block_bytes` and
// `queue_depth` (per drive), before efficiency; `how` says where it came from.
double drive_set_read_bw(const MachineProfile& profile, int drives, std::uint64_t block_bytes, int queue_depth,
                         std::optional<double> throttle_bytes_s, std::string* how);
// Weight bytes/s of a matvec in `quant` with all threads: the probe's kernel
// figure; without one (a catalog machine), min(memory stream, CPU FLOP peak
// as weight bytes) × the profile's decode efficiency; memory bandwidth × 0.8
// only for a profile with neither.
double matvec_rate(const MachineProfile& profile, const std::string& quant, std::string* how);

// Bytes one decode token reads before its MoE layers' routers have chosen
// (pre) and after (post, routed experts excluded), trunk in trunk_quant.
struct TrunkSplit {
  double pre_bytes = 0;   // embedding row, attention, routers, norms, dense FFNs, latent out, lm_head
  double post_bytes = 0;  // shared experts, latent in
};
TrunkSplit trunk_split(const ModelCard& card);

// Per-layer trunk bytes as the container lays them out (each tensor 4 KiB
// aligned): what pinning a layer holds and streaming it reads.
std::vector<std::uint64_t> trunk_layer_bytes(const ModelCard& card);

}  // namespace moebench
