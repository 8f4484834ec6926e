// memory_limits.h — an active probe of how much memory this process really
// can hold, beside every limit on how much it may (MemoryLimits and
// read_memory_limits(), engines/executor/memory_limits.h, shared with the
// engines so that "usable memory" has one definition).
//
// The active probe runs in a forked child with oom_score_adj 1000 (so the
// kernel's OOM killer picks it first, never the parent): it allocates and
// touches memory in chunks up to min(limits) minus a safety margin, and stops
// on allocation failure, swap activity, a collapse of the touch rate, or the
// target. It then holds what it touched briefly and re-checks residency
// (mincore), and tries mlock for the lockable figure. It must never push
// the host into the OOM killer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/executor/memory_limits.h"
#include "vocab/expected.h"

namespace moebench {

struct UsableMemoryOptions {
  std::uint64_t chunk_bytes = 64ull << 20;
  double margin_fraction = 0.05;          // stay this far below the binding limit
  std::uint64_t min_margin_bytes = 256ull << 20;
  double hold_s = 1.0;                    // hold, then re-check residency
  double collapse_ratio = 0.02;           // stop if chunks touch 50× slower than the median (sustained)
  std::optional<std::uint64_t> max_bytes; // cap (tests)
  double max_touch_s = 0;                  // time budget for touching (--quick); 0 = none
};

struct UsableMemoryResult {
  std::uint64_t target_bytes = 0;      // what the probe aimed for
  std::uint64_t touchable_bytes = 0;   // allocated and touched
  std::uint64_t held_bytes = 0;        // still resident after the hold
  std::uint64_t lockable_bytes = 0;    // mlock succeeded for this much
  std::string bound_by;                // the limit (or event) that stopped it
  std::string stop_reason;             // "target reached", "allocation failed", "swap activity", ...
  double touch_bytes_s = 0;            // median touch rate
  std::vector<std::string> notes;
};

// Runs the active probe in a child process (see the file comment).
Expected<UsableMemoryResult> probe_usable_memory(const MemoryLimits& limits,
                                                 const UsableMemoryOptions& options);

// ---- unified memory (CPU and GPU share one pool) ---------------------------
// What marks a machine whose DRAM is also its GPU's memory: the DMI product
// name (/sys/class/dmi/id/product_name: "NVIDIA_DGX_Spark" on a DGX
// Spark), GB10's core mix (Cortex-X925 with Cortex-A725, as the CPU model
// names it), or GB10's PCIe host bridges (NVIDIA 10de:22ce / 10de:22d0 in
// /sys/bus/pci/devices). Sources in configs/hardware/dgx-spark.json.
struct UnifiedMemorySignals {
  std::string dmi_product_name;
  std::string cpu_model;
  std::vector<std::string> pci_ids;  // "10de:22ce", lower case
};
UnifiedMemorySignals read_unified_memory_signals(const std::string& cpu_model);
// "" when no signal is present; else the note the profile carries: what the
// usable-memory figure means on such a machine, and which signal said so.
std::string unified_memory_note(const UnifiedMemorySignals& s);

}  // namespace moebench
