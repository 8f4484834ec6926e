// memory_plan.h — the one memory plan of the engines and the cost model:
// how a RAM budget is split, written once so that the resident engine, the
// streaming engine and the analytic cost model cannot disagree.
//
// Pure: numbers in, numbers out, no I/O. The callers measure (the engines:
// current RSS after the executor allocated its KV/state; the cost model:
// trunk + KV/state + a fitted process overhead) and format their own reasons.
//
//   working margin  24 MiB + 1 % of a scale (the budget for the streaming
//                   cache, the loaded files for the resident engine): the
//                   executor's per-batch buffers, io_uring rings, allocator
//                   slack;
//   streaming       slots = min(L·E, (budget − resident − margin(budget)) ÷
//                   slot), 0 when the budget does not exceed resident +
//                   margin; without a budget, usable memory less the
//                   resident and 1 GiB of headroom; fewer than k slots (one
//                   layer's top-k) does not fit, and the minimum budget is
//                   the smallest budget that gives k slots;
//   resident        need = files + KV/state + margin(files); it fits when
//                   the budget (if any) and usable memory both hold it; the
//                   minimum budget is the need;
//   trunk split     plan_trunk_split (below): which prefix of layers keeps
//                   its trunk tensors pinned in RAM and which are read from
//                   the drive every token, and what the cache gets;
//   seeds           the routing generator's seed and the streaming source's
//                   (pregate's wrong guesses), from the sweep seed and the
//                   repetition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moebench {

constexpr std::uint64_t kWorkingMarginBaseBytes = 24ull << 20;
// Headroom left beside the cache when no budget is given.
constexpr std::uint64_t kUnbudgetedHeadroomBytes = 1ull << 30;

// 24 MiB + scale/100 (integer division, as the engines have always done).
std::uint64_t working_margin_bytes(std::uint64_t scale_bytes);

struct StreamingPlanInput {
  std::optional<std::uint64_t> budget_bytes;  // nullopt: no budget, usable memory decides
  std::uint64_t usable_bytes = 0;             // read only without a budget
  std::uint64_t resident_bytes = 0;           // trunk + KV/state + process, before the cache
  std::uint64_t slot_bytes = 0;               // one cache slot (the largest expert read)
  int moe_layers = 0;
  int experts = 0;  // per MoE layer
  int k = 0;        // active experts per token per layer
};

struct StreamingPlan {
  std::uint64_t margin_bytes = 0;     // working margin (budgeted), or the 1 GiB headroom
  std::uint64_t all_experts = 0;      // L·E: more slots than this are never made
  std::uint64_t slots = 0;            // expert cache slots
  bool fits = false;                  // slots >= k
  // Budgeted: the smallest budget that gives k slots (0 without a budget or
  // when no budget can, e.g. a slot of 0 bytes or L·E < k).
  std::uint64_t min_budget_bytes = 0;
};

StreamingPlan plan_streaming(const StreamingPlanInput& in);

// Cache slots a budget gives (the budgeted branch of plan_streaming).
std::uint64_t streaming_slots(std::uint64_t budget_bytes, std::uint64_t resident_bytes, std::uint64_t slot_bytes,
                              std::uint64_t all_experts);

// ---- Trunk placement and the budget split -------------------------------
//
// The streaming engine keeps the model-level tensors (embedding table,
// lm_head, final norm) resident, pins the trunk tensors of a prefix of
// layers 0..p−1, and reads each later layer's trunk tensors from the drive
// every token into staging buffers (two, so layer l+1's read overlaps layer
// l's compute; one when a single layer streams). The rest of the budget is
// the expert cache.
//
// Placement (engine option trunk=):
//   resident  every layer pinned (p = L): the engine as it was before
//             trunk streaming; infeasible when trunk + k slots do not fit;
//   stream    no layer pinned (p = 0): every layer's trunk is read every
//             token (the card's "everything streamed" traffic);
//   auto      the split policy chooses p in 0..L.
// Split policy (engine option split=), over the candidates p that fit
// (need(p) + k·slot <= avail, where need(p) = pinned(p) + buffers(p)):
//   trunk-first    the largest p: pin as much trunk as leaves k slots;
//   experts-first  the p giving the most slots (capped at L·E), ties to the
//                  largest p: the cache first, the trunk gets what is left;
//   F in (0, 1)    the largest p with pinned(p) <= F·avail; if none fits,
//                  the fitting p with the smallest need.
// avail = budget − fixed − margin(budget) (margin: 24 MiB + 1 % of the
// budget); without a budget, usable − fixed − 1 GiB headroom.
// Every number is an input, so the cost model can call this with predicted
// sizes (fixed = head tensors + KV/state + process overhead).

enum class TrunkPlacement { kAuto, kResident, kStream };
const char* to_string(TrunkPlacement p);  // "auto", "resident", "stream"

struct TrunkSplitPolicy {
  enum class Kind { kTrunkFirst, kExpertsFirst, kFraction };
  Kind kind = Kind::kTrunkFirst;
  double fraction = 0;  // kFraction: in (0, 1)
  std::string to_string() const;  // "trunk-first", "experts-first", "0.25"
};
// "trunk-first", "experts-first" or a number strictly between 0 and 1;
// nullopt otherwise.
std::optional<TrunkSplitPolicy> parse_split_policy(const std::string& text);

struct TrunkPlanInput {
  std::optional<std::uint64_t> budget_bytes;  // nullopt: usable memory decides
  std::uint64_t usable_bytes = 0;             // read only without a budget
  // Resident whatever the split: head tensors (embedding, lm_head, final
  // norm), KV/state, executor buffers, the process.
  std::uint64_t fixed_bytes = 0;
  // Per layer (every layer, dense ones too, in order): the bytes its trunk
  // tensors take pinned, which is also what one streamed read of the layer
  // moves (the engine: the layer's 4096-aligned span in the trunk file).
  std::vector<std::uint64_t> layer_bytes;
  std::uint64_t slot_bytes = 0;  // one expert cache slot
  int moe_layers = 0;
  int experts = 0;
  int k = 0;
  TrunkPlacement placement = TrunkPlacement::kAuto;
  TrunkSplitPolicy split;
};

struct TrunkPlan {
  std::uint64_t margin_bytes = 0;       // working margin (budgeted), or the 1 GiB headroom
  int pinned_layers = 0;                // layers 0..pinned_layers−1 pinned
  std::uint64_t pinned_bytes = 0;       // their trunk bytes
  std::uint64_t streamed_bytes_per_token = 0;  // the other layers' bytes, read every decode token
  std::uint64_t buffer_bytes = 0;       // staging buffers: 2 (1 if one layer streams) × the largest streamed layer
  std::uint64_t slots = 0;              // expert cache slots (capped at L·E)
  bool fits = false;                    // slots >= k
  // Budgeted: the smallest budget at which this placement fits (any split
  // policy then fits too): fixed + min over allowed p of need(p) + k·slot +
  // margin. 0 without a budget, or when no budget can (slot 0, L·E < k).
  std::uint64_t min_budget_bytes = 0;
};

TrunkPlan plan_trunk_split(const TrunkPlanInput& in);

struct ResidentPlanInput {
  std::optional<std::uint64_t> budget_bytes;
  std::uint64_t usable_bytes = 0;
  std::uint64_t file_bytes = 0;   // container files held in RAM (trunk + experts)
  std::uint64_t state_bytes = 0;  // KV/state at the point's context
};

struct ResidentPlan {
  std::uint64_t working_bytes = 0;  // margin of the files
  std::uint64_t need_bytes = 0;     // files + state + working
  bool within_budget = true;        // no budget, or need <= budget
  bool within_usable = true;        // need <= usable memory
  bool fits() const { return within_budget && within_usable; }
  std::uint64_t min_budget_bytes() const { return need_bytes; }
};

ResidentPlan plan_resident(const ResidentPlanInput& in);

// The routing generator's seed for (sweep seed, repetition): the engines
// and the cost model's replay draw the same tokens.
std::uint64_t routing_seed(std::uint64_t sweep_seed, int repetition);
// The streaming source's own seed (pregate's simulated predictor).
std::uint64_t source_seed(std::uint64_t sweep_seed, int repetition);

}  // namespace moebench
