// metrics.h — turning Measurements into the row's metrics, as pure functions.
//
// derive_metrics() applies the timing windows of measurement.h to one
// repetition; aggregate() summarizes repetitions (median and spread per
// metric, inter-token latency percentiles over the pooled latencies of all
// repetitions) and applies the row-level checks: peak RSS against the RAM
// budget, engine I/O counters against /proc/self/io.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/measurement.h"
#include "vocab/stats.h"

namespace moebench {

// Metric names (also column names; units are in the names).
namespace metric {
inline constexpr const char* kDecodeTokS = "decode_tok_s";
inline constexpr const char* kTtftS = "ttft_s";
inline constexpr const char* kPrefillTokS = "prefill_tok_s";
inline constexpr const char* kItlP50S = "itl_p50_s";
inline constexpr const char* kItlP99S = "itl_p99_s";
inline constexpr const char* kReadBytesPerToken = "read_bytes_per_token";
inline constexpr const char* kProcReadBytesPerToken = "proc_read_bytes_per_token";
inline constexpr const char* kMemBytesPerToken = "mem_bytes_per_token";
inline constexpr const char* kKvPositionsPerToken = "kv_positions_per_token";
inline constexpr const char* kKvBytesPerToken = "kv_bytes_per_token";
inline constexpr const char* kExpertHitRate = "expert_hit_rate";
inline constexpr const char* kExpertHitRateOptimal = "expert_hit_rate_optimal";
inline constexpr const char* kHiddenMissFrac = "hidden_miss_frac";
inline constexpr const char* kIoWaitFrac = "io_wait_frac";
inline constexpr const char* kReadBusyBytesS = "read_busy_bytes_s";
inline constexpr const char* kPeakRssBytes = "peak_rss_bytes";
inline constexpr const char* kTrunkPinnedBytes = "trunk_pinned_bytes";
inline constexpr const char* kTrunkReadBytesPerToken = "trunk_read_bytes_per_token";
inline constexpr const char* kLoadS = "load_s";
inline constexpr const char* kJPerDecodeToken = "j_per_decode_token";
inline constexpr const char* kJPerPromptToken = "j_per_prompt_token";
// What other work did to a measured repetition (probes/machine_activity.h).
inline constexpr const char* kOtherCpuFrac = "other_cpu_frac";   // others' CPU time ÷ the machine's
inline constexpr const char* kStealFrac = "steal_frac";          // hypervisor steal ÷ the machine's time
inline constexpr const char* kLoadAvg1m = "load_avg_1m";         // /proc/loadavg at the repetition's end
inline constexpr const char* kInvolCtxSwitches = "invol_ctx_switches";  // this process's, during it
inline constexpr const char* kDisturbed = "disturbed";           // 1: the repetition was disturbed
// A scaled row carried to the full model (harness/full_model.h).
inline constexpr const char* kFullDecodeTokS = "full_decode_tok_s";
inline constexpr const char* kFullTtftS = "full_ttft_s";
// Their bands: the value ÷ and × the error bench-engines' line 6 measured
// for the arithmetic (vocab/scale_fit.h).
inline constexpr const char* kFullDecodeTokSLow = "full_decode_tok_s_low";
inline constexpr const char* kFullDecodeTokSHigh = "full_decode_tok_s_high";
inline constexpr const char* kFullTtftSLow = "full_ttft_s_low";
inline constexpr const char* kFullTtftSHigh = "full_ttft_s_high";
}  // namespace metric

// Tolerances of the row checks.
inline constexpr double kRssOverBudgetTolerance = 0.05;   // > 5 % over budget → invalid
inline constexpr double kIoCounterMismatchTolerance = 0.05;

// Per-repetition metric values. Absent keys mean "not applicable" (e.g. no
// expert was needed, so there is no hit rate).
using RepMetrics = std::map<std::string, double>;

// Fails (returns an error message) when the measurement cannot carry the
// windows: fewer than 2 tokens, non-increasing timestamps, non-positive
// prefill interval.
std::optional<std::string> check_measurement(const Measurement& m);
RepMetrics derive_metrics(const Measurement& m);

struct Aggregate {
  SummaryMap summaries;  // per metric
  SampleMap samples;     // per metric, per repetition
  RowStatus status = RowStatus::kOk;
  std::string reason;
  std::vector<std::string> notes;
};

// `measurements` are the recorded repetitions, all ok; `warmups` the
// unrecorded ones, which only contribute load_s (set-up usually happens there).
Aggregate aggregate(const std::vector<Measurement>& measurements,
                    const std::vector<Measurement>& warmups,
                    std::optional<std::uint64_t> ram_budget_bytes);

}  // namespace moebench
