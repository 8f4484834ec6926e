// trunk_plan_test.cpp — plan_trunk_split (engines/cache/memory_plan.h): which
// prefix of layers keeps its trunk pinned, the staging buffers, the expert
// cache, and the exact minimum budget, per placement and split policy.
#include <catch2/catch.hpp>

#include <cstdint>

#include "engines/cache/memory_plan.h"

using namespace moebench;

namespace {
constexpr std::uint64_t MiB = 1ull << 20;

// 4 layers of 10 MiB trunk, 1 MiB slots, 4 × 8 experts, top-2, 30 MiB fixed.
TrunkPlanInput four_layers(std::optional<std::uint64_t> budget, TrunkPlacement placement = TrunkPlacement::kAuto,
                           TrunkSplitPolicy split = {}) {
  TrunkPlanInput in;
  in.budget_bytes = budget;
  in.fixed_bytes = 30 * MiB;
  in.layer_bytes = {10 * MiB, 10 * MiB, 10 * MiB, 10 * MiB};
  in.slot_bytes = MiB;
  in.moe_layers = 4;
  in.experts = 8;
  in.k = 2;
  in.placement = placement;
  in.split = split;
  return in;
}

// avail = budget − fixed − 24 MiB − budget/100.
std::uint64_t avail_of(std::uint64_t budget) { return budget - 30 * MiB - 24 * MiB - budget / 100; }
}  // namespace

TEST_CASE("trunk split: the split policies parse and print", "[plan]") {
  CHECK(parse_split_policy("trunk-first")->kind == TrunkSplitPolicy::Kind::kTrunkFirst);
  CHECK(parse_split_policy("experts-first")->kind == TrunkSplitPolicy::Kind::kExpertsFirst);
  auto f = parse_split_policy("0.25");
  REQUIRE(f);
  CHECK(f->kind == TrunkSplitPolicy::Kind::kFraction);
  CHECK(f->fraction == 0.25);
  CHECK(f->to_string() == "0.25");
  for (const char* bad : {"", "0", "1", "1.5", "-0.1", "half", "0.5x"}) {
    INFO(bad);
    CHECK_FALSE(parse_split_policy(bad));
  }
}

TEST_CASE("trunk split: trunk-first pins every layer when it fits and the rest is cache", "[plan]") {
  const std::uint64_t budget = 200 * MiB;
  const TrunkPlan p = plan_trunk_split(four_layers(budget));
  CHECK(p.fits);
  CHECK(p.pinned_layers == 4);
  CHECK(p.pinned_bytes == 40 * MiB);
  CHECK(p.streamed_bytes_per_token == 0);
  CHECK(p.buffer_bytes == 0);
  CHECK(p.slots == std::min<std::uint64_t>(32, (avail_of(budget) - 40 * MiB) / MiB));
}

TEST_CASE("trunk split: trunk-first pins the most trunk that leaves k slots", "[plan]") {
  // need(p) = pinned + buffers: 20, 30, 40, 40, 40 MiB for p = 0..4 (two
  // 10 MiB buffers while two or more layers stream, one for one, none for
  // none). avail = 90 − 54 − 0.9 = 35.1 MiB: p = 1 (30 + 2 slots), not 2..4.
  const std::uint64_t budget = 90 * MiB;
  const TrunkPlan p = plan_trunk_split(four_layers(budget));
  REQUIRE(p.fits);
  CHECK(p.pinned_layers == 1);
  CHECK(p.pinned_bytes == 10 * MiB);
  CHECK(p.buffer_bytes == 20 * MiB);
  CHECK(p.streamed_bytes_per_token == 30 * MiB);
  CHECK(p.slots == (avail_of(budget) - 30 * MiB) / MiB);
  CHECK(p.slots == 5);
}

TEST_CASE("trunk split: a budget below the trunk fits by streaming it", "[plan]") {
  // Everything streamed: fixed 30 + 2 buffers of 10 + 2 slots + 24 MiB + 1 %.
  const TrunkPlan probe = plan_trunk_split(four_layers(1 * MiB));
  REQUIRE(probe.min_budget_bytes > 0);
  const std::uint64_t min = probe.min_budget_bytes;
  // The inequality min − ⌊min/100⌋ >= 30 + 24 + 20 + 2 MiB, smallest such.
  const std::uint64_t x = 76 * MiB;
  CHECK(min - min / 100 >= x);
  CHECK((min - 1) - (min - 1) / 100 < x);
  CHECK(min < 30 * MiB + 40 * MiB + 24 * MiB);  // below fixed + the trunk + margin: resident trunk could not run

  const TrunkPlan p = plan_trunk_split(four_layers(min));
  CHECK(p.fits);
  CHECK(p.pinned_layers == 0);
  CHECK(p.slots == 2);
  CHECK(p.buffer_bytes == 20 * MiB);
  CHECK(p.streamed_bytes_per_token == 40 * MiB);
  const TrunkPlan below = plan_trunk_split(four_layers(min - 1));
  CHECK_FALSE(below.fits);
  CHECK(below.min_budget_bytes == min);

  // The same minimum for trunk=stream; every split policy fits at it.
  CHECK(plan_trunk_split(four_layers(min, TrunkPlacement::kStream)).fits);
  CHECK_FALSE(plan_trunk_split(four_layers(min - 1, TrunkPlacement::kStream)).fits);
  CHECK(plan_trunk_split(four_layers(min, TrunkPlacement::kAuto, *parse_split_policy("experts-first"))).fits);
  CHECK(plan_trunk_split(four_layers(min, TrunkPlacement::kAuto, *parse_split_policy("0.5"))).fits);
}

TEST_CASE("trunk split: trunk=resident needs the whole trunk beside k slots, exactly", "[plan]") {
  const std::uint64_t min = plan_trunk_split(four_layers(1 * MiB, TrunkPlacement::kResident)).min_budget_bytes;
  const std::uint64_t x = 30 * MiB + 24 * MiB + 40 * MiB + 2 * MiB;
  CHECK(min - min / 100 >= x);
  CHECK((min - 1) - (min - 1) / 100 < x);
  const TrunkPlan p = plan_trunk_split(four_layers(min, TrunkPlacement::kResident));
  CHECK(p.fits);
  CHECK(p.pinned_layers == 4);
  CHECK(p.slots == 2);
  CHECK_FALSE(plan_trunk_split(four_layers(min - 1, TrunkPlacement::kResident)).fits);
  // It agrees with the plain streaming plan of a resident trunk.
  StreamingPlanInput s;
  s.budget_bytes = min;
  s.resident_bytes = 30 * MiB + 40 * MiB;
  s.slot_bytes = MiB;
  s.moe_layers = 4;
  s.experts = 8;
  s.k = 2;
  CHECK(plan_streaming(s).min_budget_bytes == min);
  CHECK(plan_streaming(s).slots == p.slots);
}

TEST_CASE("trunk split: trunk=stream pins nothing whatever the budget", "[plan]") {
  const TrunkPlan p = plan_trunk_split(four_layers(1000 * MiB, TrunkPlacement::kStream));
  CHECK(p.fits);
  CHECK(p.pinned_layers == 0);
  CHECK(p.pinned_bytes == 0);
  CHECK(p.streamed_bytes_per_token == 40 * MiB);
  CHECK(p.buffer_bytes == 20 * MiB);
  CHECK(p.slots == 32);
}

TEST_CASE("trunk split: the policy moves the same budget between pinned trunk and cache", "[plan]") {
  // avail = 120 − 54 − 1.2 = 64.8 MiB.
  const std::uint64_t budget = 120 * MiB;
  const TrunkPlan trunk_first = plan_trunk_split(four_layers(budget));
  const TrunkPlan experts_first =
      plan_trunk_split(four_layers(budget, TrunkPlacement::kAuto, *parse_split_policy("experts-first")));
  const TrunkPlan quarter = plan_trunk_split(four_layers(budget, TrunkPlacement::kAuto, *parse_split_policy("0.25")));
  REQUIRE(trunk_first.fits);
  REQUIRE(experts_first.fits);
  REQUIRE(quarter.fits);
  // trunk-first: 4 layers need 40 + 0, leaving 25 slots.
  CHECK(trunk_first.pinned_layers == 4);
  CHECK(trunk_first.slots == (avail_of(budget) - 40 * MiB) / MiB);
  // experts-first: the cache takes all 32 experts first; of the p that leave
  // 32 slots (need(p) <= 64.8 − 32 MiB: p = 0 (20), 1 (10 + 20 = 30)), the largest.
  CHECK(experts_first.slots == 32);
  CHECK(experts_first.pinned_layers == 1);
  CHECK(experts_first.pinned_bytes == 10 * MiB);
  // 0.25 of 64.8 MiB = 16.2 MiB of pinned trunk: one layer.
  CHECK(quarter.pinned_layers == 1);
  CHECK(quarter.pinned_bytes <= avail_of(budget) / 4);
  CHECK(trunk_first.pinned_bytes > experts_first.pinned_bytes);
}

TEST_CASE("trunk split: without a budget usable memory less 1 GiB of headroom decides", "[plan]") {
  TrunkPlanInput in = four_layers(std::nullopt);
  in.usable_bytes = (1ull << 30) + 30 * MiB + 50 * MiB;
  const TrunkPlan p = plan_trunk_split(in);
  CHECK(p.fits);
  CHECK(p.margin_bytes == 1ull << 30);
  CHECK(p.pinned_layers == 4);
  CHECK(p.slots == 10);
  CHECK(p.min_budget_bytes == 0);
}

TEST_CASE("trunk split: a single streamed layer uses one buffer, and unequal layers size the buffers by the largest", "[plan]") {
  TrunkPlanInput in = four_layers(1000 * MiB, TrunkPlacement::kStream);
  in.layer_bytes = {30 * MiB, 5 * MiB, 7 * MiB};
  const TrunkPlan p = plan_trunk_split(in);
  CHECK(p.buffer_bytes == 60 * MiB);
  // Pinning lowers the need below streaming everything (need 60, 44, 42, 42
  // for p = 0..3): the auto minimum budget uses the smallest, and
  // trunk-first at that budget fits with the most trunk pinned.
  in.placement = TrunkPlacement::kAuto;
  in.budget_bytes = 1 * MiB;
  const std::uint64_t min = plan_trunk_split(in).min_budget_bytes;
  const std::uint64_t x = 30 * MiB + 24 * MiB + 42 * MiB + 2 * MiB;
  CHECK(min - min / 100 >= x);
  CHECK((min - 1) - (min - 1) / 100 < x);
  in.budget_bytes = min;
  const TrunkPlan at = plan_trunk_split(in);
  CHECK(at.fits);
  CHECK(at.pinned_layers == 3);
  in.budget_bytes = min - 1;
  CHECK_FALSE(plan_trunk_split(in).fits);
  in.layer_bytes = {5 * MiB};
  in.budget_bytes = 1000 * MiB;
  in.placement = TrunkPlacement::kStream;
  CHECK(plan_trunk_split(in).buffer_bytes == 5 * MiB);
}
