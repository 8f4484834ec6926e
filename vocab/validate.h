// validate.h — `moebench validate`: check any config file against its
// schema. The kind comes from --kind, else from the directory the file sits
// in (models/, hardware/, sweeps/, claims/, fits/), else from its top-level
// keys. A regime fit (fits/) is checked by the model layer through
// SweepContext::check_regime_fit (this layer cannot know its ranges).
#pragma once

#include <optional>
#include <string>

#include "vocab/expected.h"
#include "vocab/sweep_spec.h"

namespace moebench {

enum class ConfigKind { kModel, kMachine, kSweep, kClaims, kEfficiency, kSpecs, kMachineSpec, kRegimeFit, kScaleFit };
const char* to_string(ConfigKind k);
std::optional<ConfigKind> parse_config_kind(const std::string& s);  // "model", "machine", …

// On success: a one-line summary ("sweep \"quick\": 24 points").
// On failure: every problem found, one per line, each naming file and path.
Expected<std::string> validate_config_file(const std::string& path, std::optional<ConfigKind> kind,
                                           const SweepContext& ctx);

}  // namespace moebench
