// memory_plan_test.cpp — the one memory plan (engines/cache/memory_plan.h):
// the working margin, the streaming cache's slot count and minimum budget,
// the resident engine's need, and the routing seeds, with the numbers the
// engines and the cost model produced before they shared it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "engines/cache/memory_plan.h"

using namespace moebench;

namespace {
constexpr std::uint64_t MiB = 1ull << 20, GiB = 1ull << 30;

StreamingPlanInput budgeted(std::uint64_t budget, std::uint64_t resident, std::uint64_t slot, int layers = 60,
                            int experts = 384, int k = 8) {
  StreamingPlanInput in;
  in.budget_bytes = budget;
  in.resident_bytes = resident;
  in.slot_bytes = slot;
  in.moe_layers = layers;
  in.experts = experts;
  in.k = k;
  return in;
}

// The streaming engine's formula before the plan existed (commit c98a634,
// streaming_engine.cpp make_cache), kept to show the slots are unchanged.
std::uint64_t slots_before(std::uint64_t budget, std::uint64_t resident, std::uint64_t slot, std::uint64_t all) {
  const std::uint64_t fixed = resident + (24ull << 20) + budget / 100;
  return budget > fixed ? std::min(all, (budget - fixed) / slot) : 0;
}
// Its minimum budget: the same inequality solved in floating point, +1.
std::uint64_t min_budget_before(std::uint64_t resident, std::uint64_t slot, int k) {
  return static_cast<std::uint64_t>(static_cast<double>(resident + (24ull << 20) + static_cast<std::uint64_t>(k) * slot) / 0.99) + 1;
}
}  // namespace

TEST_CASE("the working margin is 24 MiB plus 1 % of its scale, in whole bytes", "[plan]") {
  CHECK(working_margin_bytes(0) == 24 * MiB);
  CHECK(working_margin_bytes(100 * GiB) == 24 * MiB + GiB);
  CHECK(working_margin_bytes(199) == 24 * MiB + 1);  // integer division, as the engines always did
}

TEST_CASE("a budget leaves (budget − resident − margin) ÷ slot cache slots, capped at every expert", "[plan]") {
  // 8 GiB budget, 3 GiB resident, 44 MiB slots: 8 GiB − 3 GiB − 24 MiB −
  // 85.9 MB = 5.02 GB, 113 slots (the number the engine computed before).
  const StreamingPlan p = plan_streaming(budgeted(8 * GiB, 3 * GiB, 44 * MiB));
  CHECK(p.margin_bytes == 24 * MiB + (8 * GiB) / 100);
  CHECK(p.slots == 113);
  CHECK(p.slots == slots_before(8 * GiB, 3 * GiB, 44 * MiB, 60 * 384));
  CHECK(p.fits);

  // A budget below resident + margin gives none; a huge one every expert.
  CHECK(plan_streaming(budgeted(3 * GiB, 3 * GiB, 44 * MiB)).slots == 0);
  CHECK_FALSE(plan_streaming(budgeted(3 * GiB, 3 * GiB, 44 * MiB)).fits);
  CHECK(plan_streaming(budgeted(4096 * GiB, 3 * GiB, 44 * MiB)).slots == 60 * 384);

  // More cases against the old formula, byte for byte.
  struct Case {
    std::uint64_t budget, resident, slot;
    int layers, experts;
    std::uint64_t slots;
  };
  for (const Case& c : {Case{6 * GiB, 5 * GiB + 12345, 18432000, 6, 100, 53}, Case{2 * GiB, GiB, 7 * MiB, 4, 112, 139},
                        Case{64 * GiB, 20 * GiB, 12288000, 60, 384, 3786}}) {
    const StreamingPlan p2 = plan_streaming(budgeted(c.budget, c.resident, c.slot, c.layers, c.experts));
    CHECK(p2.slots == c.slots);
    CHECK(p2.slots == slots_before(c.budget, c.resident, c.slot, static_cast<std::uint64_t>(c.layers * c.experts)));
  }
}

TEST_CASE("the minimum budget is the smallest that gives one layer's k slots", "[plan]") {
  // At the minimum exactly k slots, one byte less k − 1: the round trip the
  // reason's "minimum budget" promises.
  for (std::uint64_t resident : {GiB, 3 * GiB, 5 * GiB + 12345, 20 * GiB + 7}) {
    for (std::uint64_t slot : {std::uint64_t{7 * MiB}, std::uint64_t{18432000}, std::uint64_t{44 * MiB}, std::uint64_t{4096 * 3001}}) {
      const StreamingPlan p = plan_streaming(budgeted(GiB / 2, resident, slot));
      INFO("resident " << resident << ", slot " << slot);
      REQUIRE_FALSE(p.fits);
      const std::uint64_t min = p.min_budget_bytes;
      CHECK(plan_streaming(budgeted(min, resident, slot)).slots == 8);
      CHECK(plan_streaming(budgeted(min, resident, slot)).fits);
      CHECK(plan_streaming(budgeted(min - 1, resident, slot)).slots == 7);
      // The old floating-point solution was one or two bytes above it (at
      // which the plan already gave k slots): never below, never further.
      const std::uint64_t before = min_budget_before(resident, slot, 8);
      CHECK(before >= min + 1);
      CHECK(before <= min + 2);
    }
  }
  // Three cases whose old minimum the engine printed, now a byte lower.
  CHECK(plan_streaming(budgeted(GiB, 3 * GiB, 44 * MiB)).min_budget_bytes == 3652010149ull);       // was 3652010150
  CHECK(plan_streaming(budgeted(GiB, 5 * GiB + 12345, 18432000)).min_budget_bytes == 5597316453ull);  // was 5597316454
  CHECK(plan_streaming(budgeted(GiB, GiB, 7 * MiB)).min_budget_bytes == 1169321115ull);            // was 1169321116
}

TEST_CASE("without a budget usable memory less the resident and 1 GiB of headroom holds the cache", "[plan]") {
  StreamingPlanInput in = budgeted(0, 3 * GiB, 44 * MiB);
  in.budget_bytes.reset();
  in.usable_bytes = 16 * GiB;
  const StreamingPlan p = plan_streaming(in);
  CHECK(p.margin_bytes == GiB);
  CHECK(p.slots == (16 * GiB - 3 * GiB - GiB) / (44 * MiB));
  CHECK(p.fits);
  CHECK(p.min_budget_bytes == 0);  // no budget, nothing to state
  in.usable_bytes = 4 * GiB + 7 * 44 * MiB;
  CHECK(plan_streaming(in).slots == 7);
  CHECK_FALSE(plan_streaming(in).fits);
}

TEST_CASE("the resident engine needs its files, the KV/state and a margin of the files", "[plan]") {
  ResidentPlanInput in;
  in.file_bytes = 10 * GiB;
  in.state_bytes = 512 * MiB;
  in.usable_bytes = 32 * GiB;
  ResidentPlan p = plan_resident(in);
  CHECK(p.working_bytes == 24 * MiB + (10 * GiB) / 100);
  CHECK(p.need_bytes == 10 * GiB + 512 * MiB + p.working_bytes);
  CHECK(p.fits());
  in.budget_bytes = p.need_bytes;  // the minimum budget round-trips
  CHECK(plan_resident(in).fits());
  in.budget_bytes = p.need_bytes - 1;
  CHECK_FALSE(plan_resident(in).within_budget);
  CHECK(plan_resident(in).min_budget_bytes() == p.need_bytes);
  in.budget_bytes.reset();
  in.usable_bytes = p.need_bytes - 1;
  CHECK_FALSE(plan_resident(in).within_usable);
}

TEST_CASE("the routing and source seeds come from the sweep seed and the repetition", "[plan]") {
  CHECK(routing_seed(42, 0) == 42000126ull);
  CHECK(routing_seed(42, 3) == 42000129ull);
  CHECK(source_seed(42, 0) == 42);
  CHECK(source_seed(42, 3) == 42 + 3 * 7919);
}
