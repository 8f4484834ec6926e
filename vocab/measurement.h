// measurement.h — what an engine returns for one run of one point.
//
// Timing windows (the same for every engine; see DESIGN.md):
// - load: preparing the point (container open, weights loaded); never
//   inside another window. Zero when the engine reused the previous point's
//   set-up (load_reused is then true).
// - t = 0 is the moment the prompt is handed to the engine. token_times_s[i]
//   is when generated token i became available. TTFT = token_times_s[0]: it
//   includes prefill, the first decode step and any cold reads they cause.
// - prefill window: [0, prefill_s]; prefill_tok_s = prompt_tokens / prefill_s.
// - decode window: (token_times_s[0], token_times_s.back()], which holds
//   gen_tokens − 1 tokens; decode_tok_s = (gen_tokens − 1) / its length.
//   Every *_decode counter below covers exactly this window.
// The KV cache / linear state is filled to context_tokens before t = 0,
// outside every window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moebench {

enum class RowStatus { kOk, kFailed, kInfeasible, kInvalid };
const char* to_string(RowStatus s);
bool parse_row_status(const std::string& s, RowStatus& out);

struct Measurement {
  // An engine may declare a point infeasible (budget below the minimum) or
  // invalid; failures are returned as errors instead.
  RowStatus status = RowStatus::kOk;
  std::string reason;
  // "measured" (real engine), "predicted" (cost model) or "synthetic"
  // (null engine: test data, not a measurement of anything).
  std::string provenance = "measured";

  double load_s = 0;
  bool load_reused = false;
  std::int64_t prompt_tokens = 0;
  double prefill_s = 0;
  std::vector<double> token_times_s;

  std::uint64_t read_bytes_prefill = 0;                // engine I/O counters, prefill window
  std::uint64_t read_bytes_decode = 0;                 // engine I/O counters
  std::optional<std::uint64_t> proc_read_bytes_decode; // /proc/self/io read_bytes
  std::uint64_t mem_weight_bytes_decode = 0;           // weight bytes touched in RAM
  std::uint64_t expert_hits_decode = 0;                // cached at the moment of need
  std::uint64_t expert_misses_decode = 0;              // not cached at the moment of need
  std::uint64_t expert_misses_hidden_decode = 0;       // misses a prefetch had in flight
  // Hits Belady's MIN would have had in the decode window on the same needs
  // with the same slots (engines/cache/optimal_cache.h); engines with an
  // expert cache only.
  std::optional<std::uint64_t> expert_hits_optimal_decode;
  double io_wait_s_decode = 0;                         // compute blocked on reads
  double io_busy_s_decode = 0;                         // time with ≥ 1 read outstanding
  double routed_phase_s_decode = 0;  // MoE layers' routing decision → expert output (Executor::routed_phase_s)
  double routed_phase_s_prefill = 0; // the same over the prefill window
  // Attention work (counted, not timed; engines/executor/attention.h), summed
  // over layers; absent for engines that run no attention (null, analytic):
  std::optional<std::uint64_t> kv_positions_decode;  // cached positions visited
  std::optional<std::uint64_t> kv_bytes_decode;      // KV cache / linear-state bytes read
  // Trunk placement (streaming engine): bytes of per-layer trunk tensors
  // pinned in RAM, and the trunk bytes read from storage in the decode
  // window (part of read_bytes_decode). Absent for engines that hold the
  // whole trunk or none.
  std::optional<std::uint64_t> trunk_pinned_bytes;
  std::optional<std::uint64_t> trunk_read_bytes_decode;
  // Where a token's time goes (executor engines; empty/absent otherwise):
  // seconds in each layer (index among all the card's layers) and in the
  // per-token head (embedding, routing draw, final norm, lm_head, pick), per
  // window; the prefill window's I/O wait and expert misses; the expert
  // cache's slot count. With the card they carry a scaled run to the full
  // model (harness/full_model.h).
  std::vector<double> layer_s_prefill, layer_s_decode;
  std::optional<double> head_s_prefill, head_s_decode;
  double io_wait_s_prefill = 0;
  std::uint64_t expert_misses_prefill = 0;
  std::optional<std::uint64_t> cache_slots;
  // Package energy in each window (vocab/energy_meter.h), when the run
  // context has a meter: absent, never zero, where the machine exposes none.
  std::optional<double> energy_j_prefill, energy_j_decode;
  std::uint64_t peak_rss_bytes = 0;
  bool budget_enforced = false;  // engine promises to stay within ram_budget

  // An engine that declares a point infeasible for memory says here the
  // smallest RAM budget that would run it (a fact, never parsed from the reason).
  std::optional<std::uint64_t> min_budget_bytes;

  std::vector<std::string> notes;  // non-fatal observations, kept in the row
};

}  // namespace moebench
