// sweep_spec.h — SweepSpec: the Cartesian product of axes that a run covers.
//
// Axes (each a non-empty array; absent axes take one default value):
//   engine, model (+ scale), quant, trunk_quant (the trunk's matrices;
//   "native" = the card's), ram_budget, drives (count, layout, throttle),
//   context_tokens, prompt_tokens, gen_tokens, threads, routing,
//   cache_policy, prefetch, hot_set (vocab/hot_set_spec.h)
// plus repetitions, warmup, seed, timeout_s, drive_dirs and optional
// include/exclude filters. Expansion nests the axes in the order above, so
// neighbouring points share a model, quant and drive set (one container, one
// load) for as long as possible. Every value is validated with its JSON path.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/model_card.h"
#include "vocab/point.h"

namespace moebench {

// Limits of a sweep's values, shared with the readers of results files (a
// row's point must be one a sweep could have made) and with `run --timeout`.
// Beyond them, engine and cost-model arithmetic would overflow, or a
// duration would not fit the clocks' 64-bit nanoseconds.
inline constexpr int kMaxRepetitions = 10000;             // repetitions, warmup
inline constexpr int kMaxDrives = 64;                     // drives per point
inline constexpr std::int64_t kMaxTokens = std::int64_t{1} << 30;  // context, prompt, gen tokens
inline constexpr std::int64_t kMaxThreads = 1 << 16;
inline constexpr double kMaxTimeoutS = 30.0 * 24 * 3600;  // 30 days

// What the sweep loader needs to know about engines and cards, supplied by
// the caller so that harness/ does not depend on engines/.
struct SweepContext {
  std::vector<std::string> engine_names;
  // "" if the options are valid for the engine, else a message.
  std::function<std::string(const EngineSpec&)> check_engine_options;
  // Engines that read a container from drive directories.
  std::function<bool(const std::string&)> engine_uses_drives;
  std::vector<std::string> card_names;
  std::function<Expected<ModelCard>(const std::string& name)> find_card;
  std::string base_dir;  // relative paths (trace files) resolve from here
  // Drive directories given on the command line: replace the sweep's.
  std::vector<std::string> drive_dirs_override;
  // `moebench validate` of a regime fit (configs/fits/): the model layer's
  // loader, given by the caller (a summary line, or every problem).
  std::function<Expected<std::string>(const Json& j, const std::string& label)> check_regime_fit;
};

// The axis names, in nesting order.
const std::vector<std::string>& sweep_axis_names();

struct SweepFilter {
  // axis → accepted canonical values; a point matches if every listed axis
  // has one of its values.
  std::map<std::string, std::vector<Json>> accepted;
};

struct SweepSpec {
  std::string name;
  std::string description;
  int repetitions = 3;
  int warmup = 1;
  std::uint64_t seed = 42;
  double timeout_s = 600;
  std::vector<std::string> drive_dirs;
  std::map<std::string, std::vector<Json>> axes;  // canonical values per axis
  std::vector<SweepFilter> include, exclude;
  std::string digest;  // hash of the canonical spec; a journal belongs to one digest
};

std::optional<SweepSpec> load_sweep(const Json& j, Diagnostics& d, const SweepContext& ctx);
Expected<SweepSpec> load_sweep_file(const std::string& path, const SweepContext& ctx);
Expected<SweepSpec> load_sweep_text(const std::string& text, const std::string& label,
                                    const SweepContext& ctx);

// Expands the product, applies filters, resolves "native" quants, numbers
// the points. Fails if filters leave nothing or a combination is invalid.
Expected<std::vector<Point>> expand_sweep(const SweepSpec& spec, const SweepContext& ctx);

// "" if `routing` is a valid routing spec (uniform, zipf:S, sticky:P,
// trace:FILE), else a message.
std::string check_routing(const std::string& routing, const std::string& base_dir);

// "" if `quant` can store every trunk matrix of `card` (its block size
// divides each matrix's row length, and it is a quant the table knows),
// else a message naming the first tensor it cannot store.
std::string trunk_quant_fits_card(const ModelCard& card, const std::string& quant);

}  // namespace moebench
