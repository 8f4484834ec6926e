// hot_set.cpp — see hot_set.h.
#include "engines/cache/hot_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace moebench {

namespace {

// A trace longer than this is counted up to here (it has to fit in memory
// anyway; the counts converge long before).
constexpr std::int64_t kMaxTraceTokens = 1'000'000;

}  // namespace

std::size_t hot_set_capacity(std::size_t slots, int k, double share) {
  const std::size_t free_slots = static_cast<std::size_t>(std::max(0, k));
  const std::size_t by_share = static_cast<std::size_t>(std::floor(share * static_cast<double>(slots)));
  return slots > free_slots ? std::min(by_share, slots - free_slots) : 0;
}

std::string HotSet::describe() const {
  const double share = calibration_needs ? static_cast<double>(held_needs) / static_cast<double>(calibration_needs) : 0;
  std::string s = "hot set: " + std::to_string(experts.size()) + " experts pinned at load, learned from " +
                  std::to_string(calibration_tokens) + " calibration tokens (they served " +
                  std::to_string(static_cast<int>(std::lround(100 * share))) + " % of its needs)";
  if (overlaps_run) s += "; the trace wrapped, so the calibration included the run's own tokens";
  return s;
}

Expected<HotSet> learn_hot_set(const HotSetSpec& spec, const std::string& routing, const RoutingShape& shape,
                               std::uint64_t seed, std::int64_t run_tokens, std::size_t slots,
                               const std::string& base_dir) {
  HotSet out;
  if (spec.off()) return out;
  const bool from_trace = spec.kind == HotSetSpec::Kind::kTrace;
  auto gen = make_routing(from_trace ? "trace:" + spec.path : routing, shape, seed, base_dir);
  if (!gen) return make_error("hot_set: " + gen.error().message);
  std::vector<int> ids;
  if (!from_trace) {
    for (std::int64_t t = 0; t < run_tokens; ++t) (*gen)->next_token(ids);  // the run's own tokens
  }
  const std::size_t E = static_cast<std::size_t>(shape.experts);
  std::vector<std::uint64_t> count(static_cast<std::size_t>(shape.moe_layers) * E, 0);
  const std::int64_t limit = from_trace ? kMaxTraceTokens : spec.tokens;
  for (std::int64_t t = 0; t < limit; ++t) {
    (*gen)->next_token(ids);
    if (from_trace && (*gen)->wrapped_tokens() > 0) break;  // every token of the file once
    if ((*gen)->wrapped_tokens() > 0) out.overlaps_run = true;
    for (int l = 0; l < shape.moe_layers; ++l) {
      for (int j = 0; j < shape.k; ++j) {
        ++count[static_cast<std::size_t>(l) * E + static_cast<std::size_t>(ids[static_cast<std::size_t>(l * shape.k + j)])];
      }
    }
    ++out.calibration_tokens;
  }
  out.calibration_needs = static_cast<std::uint64_t>(out.calibration_tokens) * static_cast<std::uint64_t>(shape.moe_layers) *
                          static_cast<std::uint64_t>(shape.k);
  std::vector<std::size_t> order(count.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return count[a] > count[b]; });
  const std::size_t held = hot_set_capacity(slots, shape.k, spec.share);
  for (std::size_t i = 0; i < order.size() && out.experts.size() < held && count[order[i]] > 0; ++i) {
    out.experts.emplace_back(static_cast<int>(order[i] / E), static_cast<int>(order[i] % E));
    out.held_needs += count[order[i]];
  }
  return out;
}

}  // namespace moebench
