// run_results.h — everything a run produced: the sweep it ran, the
// environments of its run segments (one per invocation; --resume adds one),
// and its rows in sweep order. Writers are pure functions of this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/environment.h"
#include "vocab/result_row.h"

namespace moebench {

// The part of a sweep one shard of a fleet ran (`run --shard K/N`): which
// shard, and the ids of the points the partition gave it, so that `merge`
// can tell a finished shard from one that stopped early.
struct ShardInfo {
  int index = 0;  // 1-based
  int count = 0;
  std::vector<std::string> point_ids;  // sweep order
  double predicted_cost_s = 0;         // the partition's estimate for this shard
  std::string partition_digest;        // of every point's shard: equal in every shard of one partition
  bool operator==(const ShardInfo& o) const {
    return index == o.index && count == o.count && point_ids == o.point_ids && partition_digest == o.partition_digest;
  }
  std::string label() const { return std::to_string(index) + "/" + std::to_string(count); }
};

struct SweepInfo {
  std::string name;
  std::string description;
  std::string digest;
  std::size_t points_total = 0;
  int repetitions = 0;
  int warmup = 0;
  std::uint64_t seed = 0;
  std::optional<ShardInfo> shard;  // set for one shard's run; points_total stays the whole sweep's
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
