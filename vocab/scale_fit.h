// scale_fit.h — configs/fits/scale.json: how far the full-model arithmetic
// (harness/full_model.h) missed when `bench-engines` checked it against a
// deeper card it ran (its line 6), and the band the full-model columns carry
// from it.
//
// Each check keeps, per repetition, max(predicted ÷ measured, measured ÷
// predicted) (≥ 1) for resident decode (6a), resident TTFT (6b) and
// streaming decode (6c), with where and when it ran. `bench-engines
// --write-scale-fit` appends its run. A full-model figure's band is its
// value ÷ f to × f, f the 90th percentile of that kind's stored ratios (the
// largest with fewer than 10).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

struct ScaleCheck {
  std::string taken_at, host, cpu;  // when, the host name, its CPU (and the kernels that ran)
  std::string cards;                // "<scale> -> <deeper scale>" as bench-engines printed it
  std::vector<double> resident_decode, resident_ttft, streaming_decode;  // per repetition, each ≥ 1
};

struct ScaleFit {
  std::vector<ScaleCheck> checks;
};

// What a full-model figure of one kind is checked by.
enum class FullModelKind { kResidentDecode, kResidentTtft, kStreamingDecode, kStreamingTtft };

// The band factor f (≥ 1) of a kind, and how many ratios it stands on; none
// without ratios. Streaming TTFT has no check of its own: the larger of the
// resident TTFT's and the streaming decode's (the prefill window's compute,
// its reads).
struct ScaleBand {
  double factor = 1;
  int ratios = 0;
};
std::optional<ScaleBand> scale_band(const ScaleFit& fit, FullModelKind kind);

std::optional<ScaleFit> load_scale_fit(const Json& j, Diagnostics& d);
// configs/fits/scale.json from the store; none when it has no such file.
class ConfigStore;
Expected<std::optional<ScaleFit>> stored_scale_fit(const ConfigStore& store);
Json scale_fit_json(const ScaleFit& fit);

// Appends `check` to the fit at `path` (created when missing), written
// atomically: a bad existing file is an error naming it, left as it was.
Status append_scale_check(const std::string& path, const ScaleCheck& check);

}  // namespace moebench
