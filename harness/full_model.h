// full_model.h — what a run of a scaled card says about a deeper card (the
// full model, or another scale): its decode seconds per token and its TTFT.
//
// A scaled card (`--scale layers=2,experts=64`) keeps every tensor's shape,
// so one of its layers costs what that layer costs in the full model — except
// for the expert cache, whose hit rate depends on how many experts there are.
// The engines time each layer and the per-token head (measurement.h), so
//   s/token(target) = head + residual
//                   + Σ over the target's layers of the measured compute
//                     seconds of a layer of its kind (attention × FFN)
//                   + per MoE layer: the measured expert-read wait
//                     × (target misses per layer ÷ scaled misses per layer)
// where the miss ratio comes from replaying both shapes through the
// engine's cache (model/hit_rate.h: fast_replay) with the same
// routing, prefetch and policy, and the target's cache scaled with its
// expert pool (slots × experts × MoE layers, target ÷ scaled) — the budget
// a reproduction scales in the same proportion. The head (embedding rows,
// lm_head: vocabulary and hidden size are not scaled) and the residual (the
// token's time outside the executor's forward pass) stay. TTFT is the same
// arithmetic over the prefill window. A kind the scaled card lacks (K3's one
// dense layer) takes the compute of a layer with the same attention; the
// derivation says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/measurement.h"
#include "vocab/model_card.h"
#include "vocab/point.h"

namespace moebench {

struct FullModelFigures {
  double decode_s_per_token = 0;
  double ttft_s = 0;
  double decode_miss_ratio = 1;   // target ÷ scaled expert misses per MoE layer per token
  double prefill_miss_ratio = 1;  // the same over the prefill window
  std::vector<std::string> steps; // the derivation, one line each, with units
};

// `ran` is the card the measurement ran (the point's scaled card), `target`
// the deeper card (same model; the full card or another scale). Errors when
// the measurement carries no per-layer timings (engines without an
// executor) or its layer count does not match `ran`.
// `target_slots`: the target's expert-cache slots when known (a measured run
// of it); by default the measured slots × the expert pool ratio.
Expected<FullModelFigures> full_model_figures(const ModelCard& ran, const ModelCard& target, const Measurement& m,
                                              const Point& point, std::optional<std::size_t> target_slots = std::nullopt);

}  // namespace moebench
