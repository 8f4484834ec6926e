// memory_plan.cpp — see memory_plan.h.
#include "engines/cache/memory_plan.h"

#include <algorithm>

namespace moebench {

namespace {
// The smallest B with B − ⌊B/100⌋ >= x. B − ⌊B/100⌋ over B = 100q + r
// (0 <= r < 100) is 99q + r: it rises by one per byte except where r wraps
// (100q + 99 and 100(q+1) both give 99(q+1)), so x = 99q + r is first
// reached at 100q + r, and a multiple of 99 one byte earlier.
std::uint64_t smallest_budget_leaving(std::uint64_t x) {
  const std::uint64_t q = x / 99, r = x % 99;
  if (r == 0 && q > 0) return 100 * (q - 1) + 99;
  return 100 * q + r;
}
}  // namespace

std::uint64_t working_margin_bytes(std::uint64_t scale_bytes) { return kWorkingMarginBaseBytes + scale_bytes / 100; }

std::uint64_t streaming_slots(std::uint64_t budget_bytes, std::uint64_t resident_bytes, std::uint64_t slot_bytes,
                              std::uint64_t all_experts) {
  const std::uint64_t fixed = resident_bytes + working_margin_bytes(budget_bytes);
  if (budget_bytes <= fixed || slot_bytes == 0) return 0;
  return std::min(all_experts, (budget_bytes - fixed) / slot_bytes);
}

StreamingPlan plan_streaming(const StreamingPlanInput& in) {
  StreamingPlan p;
  p.all_experts = static_cast<std::uint64_t>(std::max(0, in.moe_layers)) * static_cast<std::uint64_t>(std::max(0, in.experts));
  const std::uint64_t k = static_cast<std::uint64_t>(std::max(0, in.k));
  if (in.budget_bytes) {
    p.margin_bytes = working_margin_bytes(*in.budget_bytes);
    p.slots = streaming_slots(*in.budget_bytes, in.resident_bytes, in.slot_bytes, p.all_experts);
    if (in.slot_bytes > 0 && p.all_experts >= k) {
      // B − ⌊B/100⌋ >= resident + 24 MiB + k·slot: then B exceeds resident +
      // margin(B) and leaves k slots.
      p.min_budget_bytes = smallest_budget_leaving(in.resident_bytes + kWorkingMarginBaseBytes + k * in.slot_bytes);
    }
  } else {
    p.margin_bytes = kUnbudgetedHeadroomBytes;
    const std::uint64_t taken = in.resident_bytes + kUnbudgetedHeadroomBytes;
    const std::uint64_t room = in.usable_bytes > taken ? in.usable_bytes - taken : 0;
    p.slots = in.slot_bytes > 0 ? std::min(p.all_experts, room / in.slot_bytes) : 0;
  }
  p.fits = p.slots >= k;
  return p;
}

ResidentPlan plan_resident(const ResidentPlanInput& in) {
  ResidentPlan p;
  p.working_bytes = working_margin_bytes(in.file_bytes);
  p.need_bytes = in.file_bytes + in.state_bytes + p.working_bytes;
  p.within_budget = !in.budget_bytes || p.need_bytes <= *in.budget_bytes;
  p.within_usable = p.need_bytes <= in.usable_bytes;
  return p;
}

std::uint64_t routing_seed(std::uint64_t sweep_seed, int repetition) {
  return sweep_seed * 1000003ull + static_cast<std::uint64_t>(repetition);
}

std::uint64_t source_seed(std::uint64_t sweep_seed, int repetition) {
  return sweep_seed + 7919 * static_cast<std::uint64_t>(repetition);
}

}  // namespace moebench
