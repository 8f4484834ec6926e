// case_hit_rates.h — the expert-cache hit rates the setup model
// (setup_model.h) gives a streaming case: the steady state of its routing,
// and a run that starts from an empty cache; both replayed (hit_rate.h)
// once per cache shape and memoized, the slot count rounded to two
// significant digits.
#pragma once

#include <cstdint>
#include <string>

#include "model/hit_rate.h"

namespace moebench {

// The steady-state decode hit rate of `routing` with LRU (estimate_hits).
double memo_hit_rate(const CacheShape& shape, const std::string& routing);

// The decode hit rate of one run that starts with an empty cache: the
// engine's cache replayed (fast_replay) over the run's prompt (in chunks of
// the family's prefill pass, 512 tokens when unknown) and generated tokens;
// `steady` when the replay cannot run.
double cold_run_hit_rate(const CacheShape& shape, const std::string& routing, const std::string& family, std::int64_t prompt,
                         std::int64_t gen, double steady);

}  // namespace moebench
