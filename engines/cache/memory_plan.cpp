// memory_plan.cpp — see memory_plan.h.
#include "engines/cache/memory_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>

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

const char* to_string(TrunkPlacement p) {
  switch (p) {
    case TrunkPlacement::kAuto: return "auto";
    case TrunkPlacement::kResident: return "resident";
    case TrunkPlacement::kStream: return "stream";
  }
  return "?";
}

std::string TrunkSplitPolicy::to_string() const {
  if (kind == Kind::kTrunkFirst) return "trunk-first";
  if (kind == Kind::kExpertsFirst) return "experts-first";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, fraction);
  return std::string(buf, r.ptr);
}

std::optional<TrunkSplitPolicy> parse_split_policy(const std::string& text) {
  TrunkSplitPolicy s;
  if (text == "trunk-first") return s;
  if (text == "experts-first") {
    s.kind = TrunkSplitPolicy::Kind::kExpertsFirst;
    return s;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !(v > 0 && v < 1)) return std::nullopt;
  s.kind = TrunkSplitPolicy::Kind::kFraction;
  s.fraction = v;
  return s;
}

TrunkPlan plan_trunk_split(const TrunkPlanInput& in) {
  TrunkPlan p;
  const int L = static_cast<int>(in.layer_bytes.size());
  const std::uint64_t all = static_cast<std::uint64_t>(std::max(0, in.moe_layers)) *
                            static_cast<std::uint64_t>(std::max(0, in.experts));
  const std::uint64_t k = static_cast<std::uint64_t>(std::max(0, in.k));
  // prefix[q]: bytes of layers 0..q−1; suffix_max[q]: the largest of q..L−1.
  std::vector<std::uint64_t> prefix(static_cast<std::size_t>(L) + 1, 0), suffix_max(static_cast<std::size_t>(L) + 1, 0);
  for (int q = 0; q < L; ++q) prefix[static_cast<std::size_t>(q) + 1] = prefix[static_cast<std::size_t>(q)] + in.layer_bytes[static_cast<std::size_t>(q)];
  for (int q = L; q-- > 0;) {
    suffix_max[static_cast<std::size_t>(q)] = std::max(suffix_max[static_cast<std::size_t>(q) + 1], in.layer_bytes[static_cast<std::size_t>(q)]);
  }
  auto buffers = [&](int q) -> std::uint64_t {
    const int streamed = L - q;
    if (streamed <= 0) return 0;
    return (streamed == 1 ? 1u : 2u) * suffix_max[static_cast<std::size_t>(q)];
  };
  auto need = [&](int q) { return prefix[static_cast<std::size_t>(q)] + buffers(q); };
  const int lo = in.placement == TrunkPlacement::kResident ? L : 0;
  const int hi = in.placement == TrunkPlacement::kStream ? 0 : L;

  std::uint64_t avail = 0;
  if (in.budget_bytes) {
    p.margin_bytes = working_margin_bytes(*in.budget_bytes);
    const std::uint64_t taken = in.fixed_bytes + p.margin_bytes;
    avail = *in.budget_bytes > taken ? *in.budget_bytes - taken : 0;
    if (in.slot_bytes > 0 && all >= k) {
      std::uint64_t best = UINT64_MAX;
      for (int q = lo; q <= hi; ++q) best = std::min(best, need(q));
      p.min_budget_bytes = smallest_budget_leaving(in.fixed_bytes + kWorkingMarginBaseBytes + best + k * in.slot_bytes);
    }
  } else {
    p.margin_bytes = kUnbudgetedHeadroomBytes;
    const std::uint64_t taken = in.fixed_bytes + kUnbudgetedHeadroomBytes;
    avail = in.usable_bytes > taken ? in.usable_bytes - taken : 0;
  }
  auto slots_of = [&](int q) -> std::uint64_t {
    const std::uint64_t n = need(q);
    if (avail < n || in.slot_bytes == 0) return 0;
    return std::min(all, (avail - n) / in.slot_bytes);
  };
  auto fits = [&](int q) { return in.slot_bytes > 0 && need(q) <= avail && slots_of(q) >= k; };
  int chosen = -1;
  switch (in.split.kind) {
    case TrunkSplitPolicy::Kind::kTrunkFirst:
      for (int q = hi; q >= lo && chosen < 0; --q) {
        if (fits(q)) chosen = q;
      }
      break;
    case TrunkSplitPolicy::Kind::kExpertsFirst:
      for (int q = hi; q >= lo; --q) {
        if (fits(q) && (chosen < 0 || slots_of(q) > slots_of(chosen))) chosen = q;
      }
      break;
    case TrunkSplitPolicy::Kind::kFraction: {
      const double share = std::floor(in.split.fraction * static_cast<double>(avail));
      for (int q = hi; q >= lo && chosen < 0; --q) {
        if (fits(q) && static_cast<double>(prefix[static_cast<std::size_t>(q)]) <= share) chosen = q;
      }
      if (chosen < 0) {
        for (int q = hi; q >= lo; --q) {
          if (fits(q) && (chosen < 0 || need(q) < need(chosen))) chosen = q;
        }
      }
      break;
    }
  }
  p.fits = chosen >= 0;
  if (chosen < 0) {
    // Nothing fits: report the candidate closest to fitting (the smallest need).
    chosen = hi;
    for (int q = hi; q >= lo; --q) {
      if (need(q) < need(chosen)) chosen = q;
    }
  }
  p.pinned_layers = chosen;
  p.pinned_bytes = prefix[static_cast<std::size_t>(chosen)];
  p.streamed_bytes_per_token = prefix[static_cast<std::size_t>(L)] - p.pinned_bytes;
  p.buffer_bytes = buffers(chosen);
  p.slots = slots_of(chosen);
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
