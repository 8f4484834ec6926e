// shard_plan.cpp — see shard_plan.h: parsing the shard (option or
// scheduler environment), the cost estimate, the partition.
#include "harness/shard_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "model/cost_model.h"
#include "vocab/text.h"
#include "vocab/json_reader.h"
#include "model/spec_machine.h"
#include "vocab/machine_profile.h"

namespace moebench {
namespace {

constexpr int kMaxShardCount = 100000;

std::optional<long long> whole_number(std::string_view text) {
  long long v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

Expected<ShardSpec> checked(long long index, long long count, const std::string& what) {
  if (count < 1 || count > kMaxShardCount) {
    return make_error(fmt::format("{}: {} shards: the count is 1 to {}", what, count, kMaxShardCount));
  }
  if (index < 1 || index > count) {
    return make_error(fmt::format("{}: shard {} of {}: the index is 1 to {}", what, index, count, count));
  }
  return ShardSpec{static_cast<int>(index), static_cast<int>(count)};
}

// A variable that must hold a whole number.
Expected<long long> env_number(const GetEnvFn& getenv, const char* name) {
  const char* v = getenv(name);
  if (v == nullptr || *v == '\0') return make_error(std::string(name) + " is not set");
  auto n = whole_number(v);
  if (!n) return make_error(fmt::format("{}=\"{}\" is not a whole number", name, v));
  return *n;
}

}  // namespace

Expected<ShardSpec> parse_shard_spec(const std::string& text) {
  const auto slash = text.find('/');
  const std::string what = "--shard \"" + text + "\"";
  if (slash == std::string::npos) return make_error(what + ": expected K/N, e.g. 2/8 (the second of eight shards)");
  auto index = whole_number(std::string_view(text).substr(0, slash));
  auto count = whole_number(std::string_view(text).substr(slash + 1));
  if (!index || !count) return make_error(what + ": expected K/N with whole numbers, e.g. 2/8");
  return checked(*index, *count, what);
}

Expected<ShardSpec> shard_spec_from_env(const GetEnvFn& getenv) {
  if (const char* id = getenv("SLURM_ARRAY_TASK_ID"); id != nullptr && *id != '\0') {
    auto task = env_number(getenv, "SLURM_ARRAY_TASK_ID");
    auto count = env_number(getenv, "SLURM_ARRAY_TASK_COUNT");
    if (!task || !count) {
      return make_error("--shard-from-env: a Slurm job array, but " + (task ? count : task).error().message +
                        "; submit with sbatch --array=0-(N-1) (or pass --shard K/N)");
    }
    long long min = 0;
    if (const char* m = getenv("SLURM_ARRAY_TASK_MIN"); m != nullptr && *m != '\0') {
      auto mn = env_number(getenv, "SLURM_ARRAY_TASK_MIN");
      if (!mn) return make_error("--shard-from-env: " + mn.error().message);
      min = *mn;
    }
    // An array with a step or holes (--array=0-7:2) has no contiguous index.
    if (const char* mx = getenv("SLURM_ARRAY_TASK_MAX"); mx != nullptr && *mx != '\0') {
      auto max = env_number(getenv, "SLURM_ARRAY_TASK_MAX");
      if (max && *max - min + 1 != *count) {
        return make_error(fmt::format("--shard-from-env: the Slurm array runs tasks {} to {} but has {} tasks; "
                                      "use a contiguous array (sbatch --array={}-{}) so that every shard runs",
                                      min, *max, *count, min, min + *count - 1));
      }
    }
    return checked(*task - min + 1, *count,
                   fmt::format("--shard-from-env (SLURM_ARRAY_TASK_ID={}, SLURM_ARRAY_TASK_MIN={}, "
                               "SLURM_ARRAY_TASK_COUNT={})", *task, min, *count));
  }
  if (const char* idx = getenv("JOB_COMPLETION_INDEX"); idx != nullptr && *idx != '\0') {
    auto index = env_number(getenv, "JOB_COMPLETION_INDEX");
    if (!index) return make_error("--shard-from-env: " + index.error().message);
    auto count = env_number(getenv, "MOEBENCH_SHARD_COUNT");
    if (!count) {
      return make_error("--shard-from-env: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX), but " +
                        count.error().message + "; set it in the manifest's env to the Job's completions");
    }
    return checked(*index + 1, *count,
                   fmt::format("--shard-from-env (JOB_COMPLETION_INDEX={}, MOEBENCH_SHARD_COUNT={})", *index,
                               *count));
  }
  return make_error("--shard-from-env: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX "
                    "(a Kubernetes Indexed Job) is set; run under one of them, or pass --shard K/N");
}

ShardPartition partition_points(const std::vector<ShardItem>& items, int count) {
  ShardPartition out;
  const auto n = static_cast<std::size_t>(std::max(count, 1));
  out.shards.resize(n);
  out.cost_ms.assign(n, 0);
  // Groups in order of first appearance, each a list of (point, cost).
  std::vector<std::vector<const ShardItem*>> groups;
  std::map<std::string, std::size_t> group_of;
  std::int64_t total = 0;
  std::map<std::size_t, std::int64_t> costs;  // point → cost
  for (const ShardItem& it : items) {
    costs[it.point] = std::max<std::int64_t>(it.cost_ms, 1);
    auto [pos, fresh] = group_of.emplace(it.group, groups.size());
    if (fresh) groups.emplace_back();
    groups[pos->second].push_back(&it);
    total += std::max<std::int64_t>(it.cost_ms, 1);
  }
  // Pieces: a group, or consecutive parts of one costlier than a fair share.
  struct Piece {
    std::vector<std::size_t> points;
    std::int64_t cost = 0;
  };
  std::vector<Piece> pieces;
  const std::int64_t fair = std::max<std::int64_t>(1, (total + static_cast<std::int64_t>(n) - 1) /
                                                          static_cast<std::int64_t>(n));
  for (const auto& g : groups) {
    std::int64_t gcost = 0;
    for (const ShardItem* it : g) gcost += std::max<std::int64_t>(it->cost_ms, 1);
    const std::int64_t parts = std::min<std::int64_t>(static_cast<std::int64_t>(g.size()), (gcost + fair - 1) / fair);
    // Cut where the running cost passes k·gcost/parts.
    Piece cur;
    std::int64_t run = 0, k = 1;
    for (const ShardItem* it : g) {
      const std::int64_t c = std::max<std::int64_t>(it->cost_ms, 1);
      if (!cur.points.empty() && k < parts && run + c / 2 > k * gcost / parts) {
        pieces.push_back(std::move(cur));
        cur = Piece{};
        ++k;
      }
      cur.points.push_back(it->point);
      cur.cost += c;
      run += c;
    }
    if (!cur.points.empty()) pieces.push_back(std::move(cur));
  }
  // Longest piece first to the least-loaded shard (a heap: lowest load,
  // then lowest index); while the busiest shard carries more than 5/4 of
  // its fair share — or of the costliest single point, which no split can
  // shrink — halve the costliest piece of two points or more and deal
  // again, at most 2N + 16 times (a container then serves two shards, but
  // no shard waits on another's surplus).
  std::int64_t costliest_point = 1;
  for (const auto& [p, c] : costs) costliest_point = std::max(costliest_point, c);
  const std::int64_t target = std::max(fair, costliest_point);
  auto deal = [&]() {
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
      if (a.cost != b.cost) return a.cost > b.cost;
      return a.points.front() < b.points.front();
    });
    using Load = std::pair<std::int64_t, std::size_t>;  // (load, shard)
    std::priority_queue<Load, std::vector<Load>, std::greater<>> least;
    for (std::size_t k = 0; k < n; ++k) least.push({0, k});
    for (auto& sh : out.shards) sh.clear();
    std::fill(out.cost_ms.begin(), out.cost_ms.end(), 0);
    for (const Piece& p : pieces) {
      auto [load, k] = least.top();
      least.pop();
      out.cost_ms[k] = load + p.cost;
      out.shards[k].insert(out.shards[k].end(), p.points.begin(), p.points.end());
      least.push({out.cost_ms[k], k});
    }
    return *std::max_element(out.cost_ms.begin(), out.cost_ms.end());
  };
  std::int64_t busiest = deal();
  for (std::size_t round = 0; busiest * 4 > target * 5 && round < 2 * n + 16; ++round) {
    auto big = std::find_if(pieces.begin(), pieces.end(), [](const Piece& p) { return p.points.size() > 1; });
    if (big == pieces.end()) break;  // sorted by cost: the costliest splittable piece
    Piece half;
    std::int64_t kept = 0;
    std::size_t cut = 0;
    for (; cut + 1 < big->points.size() && 2 * (kept + costs.at(big->points[cut])) <= big->cost; ++cut) {
      kept += costs.at(big->points[cut]);
    }
    cut = std::max<std::size_t>(cut, 1);
    half.points.assign(big->points.begin() + static_cast<std::ptrdiff_t>(cut), big->points.end());
    big->points.resize(cut);
    for (std::size_t p : half.points) half.cost += costs.at(p);
    big->cost -= half.cost;
    pieces.push_back(std::move(half));
    busiest = deal();
  }
  for (auto& s : out.shards) std::sort(s.begin(), s.end());
  return out;
}

std::vector<std::int64_t> estimate_point_costs_ms(const SweepSpec& spec, const std::vector<Point>& points,
                                                  const ConfigStore& store, const std::string& base_dir,
                                                  std::string* how) {
  std::vector<std::int64_t> cost(points.size(), 0);
  std::optional<MachineProfile> profile;
  std::string profile_note;
  if (auto m = resolve_machine(store, kShardReferenceMachine); m) {
    profile = std::move(m->profile);
  } else {
    profile_note = m.error().message;
  }
  const int runs = std::max(1, spec.repetitions + spec.warmup);
  std::vector<std::int64_t> known;
  std::size_t fallbacks = 0;
  for (std::size_t i = 0; profile && i < points.size(); ++i) {
    const Point& p = points[i];
    auto card = store.card(p.model);
    if (!card) continue;
    auto scaled = point_card(*card, p);
    if (!scaled) continue;
    PredictContext pc;
    pc.seed = spec.seed;
    pc.base_dir = base_dir;
    pc.replay_limit = 1e7;  // the steady-state formulas: a weight, not a forecast
    auto pred = predict_point(*profile, *scaled, p, profile_efficiency(*profile), pc);
    if (!pred || pred->m.status != RowStatus::kOk) continue;
    const Measurement& m = pred->m;
    const double decode_s = std::accumulate(m.token_times_s.begin(), m.token_times_s.end(), 0.0);
    const double s = m.load_s + runs * (m.prefill_s + decode_s);
    if (!std::isfinite(s) || s < 0) continue;
    cost[i] = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(std::min(s, 1e9) * 1000.0)));
    known.push_back(cost[i]);
  }
  std::int64_t fill = 1000;
  if (!known.empty()) {
    std::vector<std::int64_t> sorted = known;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    fill = sorted[sorted.size() / 2];
  }
  for (std::int64_t& c : cost) {
    if (c == 0) {
      c = fill;
      ++fallbacks;
    }
  }
  if (how != nullptr) {
    *how = profile ? fmt::format("costs predicted on {}", kShardReferenceMachine)
                   : fmt::format("no reference profile ({}): every point weighs the same", profile_note);
    if (profile && fallbacks > 0) {
      *how += fmt::format("; {} of {} points not predictable, weighed as the median", fallbacks, points.size());
    }
  }
  return cost;
}

ShardSelection select_shard(const SweepSpec& spec, const std::vector<Point>& points, const ConfigStore& store,
                            const std::string& base_dir, const ShardSpec& shard) {
  ShardSelection out;
  const std::vector<std::int64_t> cost = estimate_point_costs_ms(spec, points, store, base_dir, &out.how);
  std::vector<ShardItem> items;
  items.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) items.push_back(ShardItem{i, cost[i], points[i].setup_key()});
  ShardPartition part = partition_points(items, shard.count);
  const auto k = static_cast<std::size_t>(shard.index - 1);
  out.positions = part.shards[k];
  out.info.index = shard.index;
  out.info.count = shard.count;
  out.info.predicted_cost_s = static_cast<double>(part.cost_ms[k]) / 1000.0;
  for (std::size_t pos : out.positions) out.info.point_ids.push_back(points[pos].id());
  // The whole partition's digest: every point's id and shard, in sweep order.
  std::vector<std::size_t> shard_of(points.size(), 0);
  for (std::size_t s = 0; s < part.shards.size(); ++s) {
    for (std::size_t pos : part.shards[s]) shard_of[pos] = s;
  }
  std::string all;
  for (std::size_t i = 0; i < points.size(); ++i) all += points[i].id() + ":" + std::to_string(shard_of[i]) + "\n";
  out.info.partition_digest = hex64(fnv1a64(all));
  return out;
}

}  // namespace moebench
