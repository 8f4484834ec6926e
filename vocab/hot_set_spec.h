// hot_set_spec.h — the `hot_set` axis: experts pinned in the streaming
// engine's cache at load (learned expert residency), as a sweep value.
//
//   off                  nothing pinned: every slot follows the cache policy;
//   learned:N[,SHARE]    the experts needed most often in N calibration
//                        tokens of the point's own routing, drawn after the
//                        tokens the run itself uses (the same model on other
//                        text: a previous run's counts);
//   trace:FILE[,SHARE]   the experts needed most often in a recorded routing
//                        trace (engines/routing/routing.h's format), every
//                        token of the file once.
// SHARE (0 < SHARE ≤ 1, default 0.5) is the share of the cache's slots the
// set may hold; k slots always stay under the policy, so a layer's misses
// have somewhere to land. A FILE that contains a comma must be followed by
// ",SHARE". Pure parsing: no file is opened here.
#pragma once

#include <cstdint>
#include <string>

#include "vocab/expected.h"

namespace moebench {

struct HotSetSpec {
  enum class Kind { kOff, kLearned, kTrace };
  Kind kind = Kind::kOff;
  std::int64_t tokens = 0;  // learned: calibration tokens
  std::string path;         // trace: the file, as written
  double share = 0.5;       // of the slots, at most
  bool off() const { return kind == Kind::kOff; }
};

inline constexpr double kDefaultHotShare = 0.5;

// The spec, or what is wrong with `text` in the sweep validator's wording.
Expected<HotSetSpec> parse_hot_set(const std::string& text);

}  // namespace moebench
