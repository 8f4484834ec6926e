// shard_plan.h — one sweep over many machines (`moebench run --shard K/N`).
//
// A shard is one of N parts of a sweep's points. The partition is a pure
// function of the sweep and the build, so every machine of a fleet computes
// the same one without talking to the others:
//   1. every point gets a cost estimate: the analytic model's time for its
//      warm-ups and repetitions (load + prefill + every decode token) on one
//      fixed reference machine profile (kShardReferenceMachine), whatever
//      machine runs it — a fleet's machines must agree;
//   2. points sharing a setup (container, drives: Point::setup_key) form a
//      group, so a container is made and its weights loaded once per shard;
//      a group costlier than a shard's fair share is cut into consecutive
//      pieces so that one big group does not leave shards idle;
//   3. pieces go, costliest first, to the least-loaded shard (ties: the
//      lower index), costs in whole milliseconds so that no rounding of a
//      different CPU can reorder them; while the busiest shard holds more
//      than 5/4 of a fair share (or of the costliest point, which no split
//      shrinks), the costliest piece of two points or more is halved and
//      the pieces dealt again (4 equal groups on 3 shards: 9/9/6 points,
//      not 12/6/6).
// The cost estimate reads configs (the reference profile, the cards) that a
// machine's --configs or working directory could change: each shard records
// a digest of the whole partition, and `merge` refuses shards whose
// partitions differ instead of losing or doubling points.
// Each shard runs its points in sweep order; its journal header records the
// shard and its point ids (vocab/run_results.h: ShardInfo), so `merge`
// (harness/shard_merge.h) can tell a finished shard from a stopped one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/point.h"
#include "vocab/run_results.h"
#include "vocab/sweep_spec.h"

namespace moebench {

// The profile (configs/hardware) whose predicted times weigh the points.
inline constexpr const char* kShardReferenceMachine = "ryzen-9900x-ddr5-6000";

struct ShardSpec {
  int index = 0;  // 1-based
  int count = 0;
};

// "K/N" with 1 ≤ K ≤ N ≤ 100000.
Expected<ShardSpec> parse_shard_spec(const std::string& text);

// The shard a scheduler gave this process: a Slurm job array
// (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN + 1 of SLURM_ARRAY_TASK_COUNT)
// or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX + 1 of
// MOEBENCH_SHARD_COUNT, which the manifest sets to its completions).
// `getenv` is injected for tests. Errors name the variables and what to set.
using GetEnvFn = std::function<const char*(const char* name)>;
Expected<ShardSpec> shard_spec_from_env(const GetEnvFn& getenv);

// One point as the partition sees it.
struct ShardItem {
  std::size_t point = 0;       // index into the sweep's points
  std::int64_t cost_ms = 1;    // estimated, ≥ 1
  std::string group;           // points of one group stay together when they fit
};

struct ShardPartition {
  std::vector<std::vector<std::size_t>> shards;  // per shard (0-based here), point indices ascending
  std::vector<std::int64_t> cost_ms;             // per shard
};

// Deterministic: the same items and count give the same partition.
ShardPartition partition_points(const std::vector<ShardItem>& items, int count);

// Step 1 above: each point's estimated cost in ms (≥ 1). A point the model
// cannot predict (an unknown card, a budget below the minimum) costs the
// median of the others, or 1 s when none could be predicted; `how` says
// which reference answered and how many points fell back.
// `base_dir` is the sweep file's directory (relative trace paths).
std::vector<std::int64_t> estimate_point_costs_ms(const SweepSpec& spec, const std::vector<Point>& points,
                                                  const ConfigStore& store, const std::string& base_dir,
                                                  std::string* how);

// Steps 1–3 for shard `shard` of the sweep: its ShardInfo (point ids in
// sweep order, its cost, the partition's digest) and the positions of its
// points in `points`.
struct ShardSelection {
  ShardInfo info;
  std::vector<std::size_t> positions;
  std::string how;  // the cost estimate's note
};
ShardSelection select_shard(const SweepSpec& spec, const std::vector<Point>& points, const ConfigStore& store,
                            const std::string& base_dir, const ShardSpec& shard);

}  // namespace moebench
