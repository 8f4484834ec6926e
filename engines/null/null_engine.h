// null_engine.h — the null engine: a deterministic test double.
//
// It touches no hardware. Its Measurement comes from a fixed formula over
// the card's geometry and the point (hit rate = cached share of experts,
// reads at a nominal 1.5 GB/s per drive, memory at 20 GB/s, a small
// attention term per context token), with a seeded ±1.5 % jitter per token,
// and is labelled provenance "synthetic" so no output can pass it off as a
// measurement. It exists to test the runner, journal, statistics and writers.
//
// Options (engine "null:key=value,..."), all for tests:
//   sleep_ms=N           spend N ms of (injectable) clock time per generated token
//   fail_at=I            point index I returns an error
//   throw_at=I           point index I throws an exception
//   hang_at=I            point index I waits until cancelled (cooperative timeout)
//   hang_hard_at=I       point index I ignores cancellation (hard watchdog test)
//   infeasible_below=S   budgets below size S are declared infeasible
//   over_budget=1        report a peak RSS 1.5 × the budget (invalid-row test)
//   fail_while=PATH      every point fails while PATH exists (--retry-failed test)
// And one from the environment, so that a copy of this binary behaves as a
// slowed build (the compare-builds tests; the points stay the same):
//   MOEBENCH_NULL_SLOWDOWN=F   every token takes (1 + F) times as long (F in 0..10)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "engines/engine_options.h"

namespace moebench {

// The option table above, as data (engines/engine_options.h).
const OptionTable& null_engine_options();
std::unique_ptr<Engine> make_null_engine(const EngineSpec& spec);

}  // namespace moebench
