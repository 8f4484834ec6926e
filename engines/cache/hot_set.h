// hot_set.h — learned expert residency: which experts the streaming engine
// pins in its cache at load (the `hot_set` axis, vocab/hot_set_spec.h).
//
// The set is the experts needed most often over calibration tokens, most
// needed first (ties: lower layer, then lower expert id), cut to
//   held = min(⌊share × slots⌋, slots − k)
// (k slots stay under the cache policy, so a layer's misses have somewhere
// to land) and to the experts the calibration needed at all. Calibration:
//   learned:N  tokens [run, run + N) of the point's own routing — the same
//              seeded model on the text after the run's, so the set never
//              saw the needs it is judged on (a trace wraps: the note says
//              when its calibration reached the run's own tokens);
//   trace:F    every token of the trace file once.
// Pinned slots are held for the whole run: their hits are hits, their
// loads happen before the first token (load time, not the run's reads).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engines/routing/routing.h"
#include "vocab/expected.h"
#include "vocab/hot_set_spec.h"

namespace moebench {

struct HotSet {
  std::vector<std::pair<int, int>> experts;  // (MoE layer, expert), most needed first
  std::int64_t calibration_tokens = 0;
  std::uint64_t calibration_needs = 0;       // needs counted (tokens × layers × k)
  std::uint64_t held_needs = 0;              // of those, needs of the held experts
  bool overlaps_run = false;                 // a trace's calibration wrapped into the run's tokens
  std::string describe() const;              // one line for the row's notes
};

// The experts to hold for `spec` (not off) with `slots` slots of a cache
// for `shape`. `routing` and `seed` are the point's (learned); the run uses
// `run_tokens` tokens (prompt + gen). Cost: O(N · L · k) for N calibration
// tokens plus a sort of the L · E counts.
Expected<HotSet> learn_hot_set(const HotSetSpec& spec, const std::string& routing, const RoutingShape& shape,
                               std::uint64_t seed, std::int64_t run_tokens, std::size_t slots,
                               const std::string& base_dir = "");

// The largest set a cache of `slots` may hold at `share`.
std::size_t hot_set_capacity(std::size_t slots, int k, double share);

}  // namespace moebench
