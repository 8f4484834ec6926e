// run_results.h — everything a run produced: the sweep it ran, the
// environments of its run segments (one per invocation; --resume adds one),
// and its rows in sweep order. Writers are pure functions of this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/environment.h"
#include "vocab/result_row.h"

namespace moebench {

struct SweepInfo {
  std::string name;
  std::string description;
  std::string digest;
  std::size_t points_total = 0;
  int repetitions = 0;
  int warmup = 0;
  std::uint64_t seed = 0;
};

Json sweep_info_to_json(const SweepInfo& s);
Expected<SweepInfo> sweep_info_from_json(const Json& j);

struct RunResults {
  SweepInfo sweep;
  std::vector<Environment> environments;
  std::vector<ResultRow> rows;  // ordered by point index

  const Environment* environment_of(const ResultRow& row) const;
};

}  // namespace moebench
