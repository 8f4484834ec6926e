// columns.cpp — the column table (see columns.h). Order here is the order of
// every output.
#include "vocab/columns.h"

#include <cmath>

#include "vocab/metrics.h"

namespace moebench {

const char* to_string(ColumnType t) {
  switch (t) {
    case ColumnType::kString: return "string";
    case ColumnType::kInteger: return "integer";
    case ColumnType::kNumber: return "number";
    case ColumnType::kBytes: return "bytes";
    case ColumnType::kFraction: return "fraction";
  }
  return "?";
}

const char* to_string(ColumnGroup g) {
  switch (g) {
    case ColumnGroup::kKey: return "point key";
    case ColumnGroup::kStatus: return "status";
    case ColumnGroup::kMetric: return "metric";
    case ColumnGroup::kCondition: return "condition";
  }
  return "?";
}

namespace {

Cell text(std::string s) { return Cell(std::move(s)); }
Cell num(double v) { return std::isfinite(v) ? Cell(v) : Cell(); }

// Median of a metric when the row has it and its status allows numbers.
std::function<Cell(const ResultRow&)> median_of(const char* metric_name) {
  return [metric_name](const ResultRow& r) -> Cell {
    auto m = r.median(metric_name);
    return m ? num(*m) : Cell();
  };
}

std::function<Cell(const ResultRow&)> rel_mad_of(const char* metric_name) {
  return [metric_name](const ResultRow& r) -> Cell {
    auto it = r.metrics.find(metric_name);
    if (it == r.metrics.end() || it->second.n < 2) return Cell();
    return num(it->second.rel_mad_pct());
  };
}

std::vector<Column> build() {
  using T = ColumnType;
  using G = ColumnGroup;
  std::vector<Column> c;
  auto add = [&c](std::string name, std::string unit, T type, G group, std::string desc,
                  std::function<Cell(const ResultRow&)> get, bool md = false,
                  std::string md_header = "") {
    c.push_back({std::move(name), std::move(unit), type, group, std::move(desc), std::move(get), md,
                 std::move(md_header)});
  };
  // Point keys.
  add("point_id", "", T::kString, G::kKey, "stable id of the point (hash of all its keys)",
      [](const ResultRow& r) { return text(r.point.id()); });
  add("engine", "", T::kString, G::kKey, "engine and its options",
      [](const ResultRow& r) { return text(r.point.engine.to_string()); }, true, "engine");
  add("model", "", T::kString, G::kKey, "model card name",
      [](const ResultRow& r) { return text(r.point.model); }, true, "model");
  add("scale", "", T::kString, G::kKey, "card scaling (layers=,experts=) or full",
      [](const ResultRow& r) { return text(r.point.scale.to_string()); }, true, "scale");
  add("quant", "", T::kString, G::kKey, "quant of the routed experts",
      [](const ResultRow& r) { return text(r.point.quant); }, true, "quant");
  add("trunk_quant", "", T::kString, G::kKey,
      "quant of the trunk's matrices (attention, shared experts, dense FFN, embedding, lm_head); empty in rows "
      "written before the axis existed (the card's trunk_quant)",
      [](const ResultRow& r) { return r.point.trunk_quant.empty() ? Cell() : text(r.point.trunk_quant); }, true, "trunk");
  add("ram_budget_bytes", "bytes", T::kBytes, G::kKey, "RAM budget of the run (empty = unlimited)",
      [](const ResultRow& r) {
        return r.point.ram_budget_bytes ? num(static_cast<double>(*r.point.ram_budget_bytes)) : Cell();
      }, true, "budget");
  add("drives", "count", T::kInteger, G::kKey, "number of drive directories read from",
      [](const ResultRow& r) { return num(r.point.drives.count); }, true, "drives");
  add("drive_layout", "", T::kString, G::kKey, "replicate (full copy per drive) or stripe",
      [](const ResultRow& r) { return text(r.point.drives.layout); });
  add("drive_throttle_bytes_s", "bytes/s", T::kNumber, G::kKey,
      "per-drive read throttle (empty = none)", [](const ResultRow& r) {
        return r.point.drives.throttle_bytes_s ? num(*r.point.drives.throttle_bytes_s) : Cell();
      });
  add("context_tokens", "tokens", T::kInteger, G::kKey, "KV/state filled before the prompt",
      [](const ResultRow& r) { return num(static_cast<double>(r.point.context_tokens)); }, true, "ctx");
  add("prompt_tokens", "tokens", T::kInteger, G::kKey, "prompt length (prefill)",
      [](const ResultRow& r) { return num(static_cast<double>(r.point.prompt_tokens)); });
  add("gen_tokens", "tokens", T::kInteger, G::kKey, "tokens generated (first one excluded from decode rate)",
      [](const ResultRow& r) { return num(static_cast<double>(r.point.gen_tokens)); });
  add("threads", "count", T::kInteger, G::kKey, "compute threads (empty = all)",
      [](const ResultRow& r) { return r.point.threads ? num(r.point.threads) : Cell(); });
  add("routing", "", T::kString, G::kKey, "expert routing generator",
      [](const ResultRow& r) { return text(r.point.routing); });
  add("cache_policy", "", T::kString, G::kKey, "expert cache eviction policy",
      [](const ResultRow& r) { return text(r.point.cache_policy); });
  add("prefetch", "", T::kString, G::kKey, "lookahead prefetch mode",
      [](const ResultRow& r) { return text(r.point.prefetch); });
  add("hot_set", "", T::kString, G::kKey, "experts pinned in the expert cache at load (off, learned:N, trace:FILE)",
      [](const ResultRow& r) { return text(r.point.hot_set); });
  // Status.
  add("status", "", T::kString, G::kStatus, "ok | failed | infeasible | invalid",
      [](const ResultRow& r) { return text(to_string(r.status)); }, true, "status");
  add("reason", "", T::kString, G::kStatus, "why the status is not ok",
      [](const ResultRow& r) { return text(r.reason); });
  add("min_budget_bytes", "bytes", T::kBytes, G::kStatus,
      "infeasible for memory: the smallest RAM budget the engine would run the point in",
      [](const ResultRow& r) { return r.min_budget_bytes ? Cell(static_cast<double>(*r.min_budget_bytes)) : Cell{}; });
  // Metrics (medians over repetitions).
  add(metric::kDecodeTokS, "tokens/s", T::kNumber, G::kMetric,
      "steady decode rate: (gen_tokens-1) / (t_last - t_first), median",
      median_of(metric::kDecodeTokS), true, "decode tok/s");
  add("decode_tok_s_rel_mad_pct", "%", T::kNumber, G::kMetric,
      "spread of decode_tok_s: MAD / median over repetitions", rel_mad_of(metric::kDecodeTokS), true, "±%");
  add(metric::kTtftS, "s", T::kNumber, G::kMetric,
      "prompt handed over → first token available (prefill + first decode step), median",
      median_of(metric::kTtftS), true, "TTFT s");
  add("ttft_s_rel_mad_pct", "%", T::kNumber, G::kMetric, "spread of ttft_s: MAD / median",
      rel_mad_of(metric::kTtftS));
  add(metric::kPrefillTokS, "tokens/s", T::kNumber, G::kMetric,
      "prompt_tokens / prefill interval, median", median_of(metric::kPrefillTokS), true, "prefill tok/s");
  add(metric::kFullDecodeTokS, "tokens/s", T::kNumber, G::kMetric,
      "a scaled row's full model: decode tok/s from the measured per-layer times × the full card's layers, the head "
      "as measured, expert-read waits × the full cache's replayed misses (harness/full_model.h), median",
      median_of(metric::kFullDecodeTokS), true, "full-model tok/s");
  add(metric::kFullTtftS, "s", T::kNumber, G::kMetric,
      "a scaled row's full model: TTFT by the same arithmetic over the prefill window, median",
      median_of(metric::kFullTtftS), true, "full-model TTFT s");
  add(metric::kFullDecodeTokSLow, "tokens/s", T::kNumber, G::kMetric,
      "full_decode_tok_s ÷ the error bench-engines' line 6 measured for the arithmetic (configs/fits/scale.json), median",
      median_of(metric::kFullDecodeTokSLow));
  add(metric::kFullDecodeTokSHigh, "tokens/s", T::kNumber, G::kMetric,
      "full_decode_tok_s × that error, median", median_of(metric::kFullDecodeTokSHigh));
  add(metric::kFullTtftSLow, "s", T::kNumber, G::kMetric,
      "full_ttft_s ÷ the error line 6 measured for it, median", median_of(metric::kFullTtftSLow));
  add(metric::kFullTtftSHigh, "s", T::kNumber, G::kMetric, "full_ttft_s × that error, median",
      median_of(metric::kFullTtftSHigh));
  add(metric::kItlP50S, "s", T::kNumber, G::kMetric,
      "inter-token latency, 50th percentile over all decode tokens of all repetitions",
      median_of(metric::kItlP50S));
  add(metric::kItlP99S, "s", T::kNumber, G::kMetric,
      "inter-token latency, 99th percentile over all decode tokens of all repetitions",
      median_of(metric::kItlP99S), true, "ITL p99 s");
  add(metric::kReadBytesPerToken, "bytes/token", T::kBytes, G::kMetric,
      "storage bytes read per decode token (engine counters), median",
      median_of(metric::kReadBytesPerToken), true, "read/token");
  add(metric::kProcReadBytesPerToken, "bytes/token", T::kBytes, G::kMetric,
      "storage bytes per decode token from /proc/self/io read_bytes (cross-check), median",
      median_of(metric::kProcReadBytesPerToken));
  add(metric::kMemBytesPerToken, "bytes/token", T::kBytes, G::kMetric,
      "weight bytes touched in RAM per decode token, median", median_of(metric::kMemBytesPerToken));
  add(metric::kKvPositionsPerToken, "positions/token", T::kNumber, G::kMetric,
      "cached positions attention visited per decode token, summed over layers (MLA, GQA: the context so far "
      "per layer; linear: 0), counted by the executor; empty for engines without attention, median",
      median_of(metric::kKvPositionsPerToken));
  add(metric::kKvBytesPerToken, "bytes/token", T::kBytes, G::kMetric,
      "KV cache and linear-attention state bytes read per decode token, summed over layers, median",
      median_of(metric::kKvBytesPerToken));
  add(metric::kExpertHitRate, "fraction", T::kFraction, G::kMetric,
      "expert cache hits / (hits + misses) at the moment of need, decode, median",
      median_of(metric::kExpertHitRate), true, "hit rate");
  add(metric::kExpertHitRateOptimal, "fraction", T::kFraction, G::kMetric,
      "the hit rate of Belady's offline optimum (evict the expert needed farthest ahead) on the same needs with "
      "the same slots, decode: no replacement policy can exceed it (engines/cache/optimal_cache.h), median",
      median_of(metric::kExpertHitRateOptimal), true, "optimal hit");
  add(metric::kHiddenMissFrac, "fraction", T::kFraction, G::kMetric,
      "share of misses whose read a prefetch had completed before the need, median",
      median_of(metric::kHiddenMissFrac));
  add(metric::kIoWaitFrac, "fraction", T::kFraction, G::kMetric,
      "share of decode wall time compute waited on reads, median", median_of(metric::kIoWaitFrac), true,
      "I/O wait");
  add(metric::kReadBusyBytesS, "bytes/s", T::kNumber, G::kMetric,
      "decode read rate while at least one read was outstanding (read bytes / busy time), median",
      median_of(metric::kReadBusyBytesS));
  add(metric::kPeakRssBytes, "bytes", T::kBytes, G::kMetric, "peak resident set size during the run, median",
      median_of(metric::kPeakRssBytes), true, "peak RSS");
  add(metric::kTrunkPinnedBytes, "bytes", T::kBytes, G::kMetric,
      "per-layer trunk bytes pinned in RAM (streaming engine; the rest is read every token), median",
      median_of(metric::kTrunkPinnedBytes));
  add(metric::kTrunkReadBytesPerToken, "bytes/token", T::kBytes, G::kMetric,
      "trunk bytes read from storage per decode token (part of read_bytes_per_token; streaming engine), median",
      median_of(metric::kTrunkReadBytesPerToken));
  add(metric::kLoadS, "s", T::kNumber, G::kMetric,
      "open/load time (empty when set-up was reused from the previous point), median",
      median_of(metric::kLoadS));
  add(metric::kJPerDecodeToken, "J/token", T::kNumber, G::kMetric,
      "package energy per decode token (Linux powercap/RAPL: CPU packages only), median; empty where no counter "
      "is readable (the row's notes say why)",
      median_of(metric::kJPerDecodeToken));
  add(metric::kJPerPromptToken, "J/token", T::kNumber, G::kMetric,
      "package energy per prompt token over the prefill window (powercap/RAPL), median",
      median_of(metric::kJPerPromptToken));
  add(metric::kOtherCpuFrac, "fraction", T::kFraction, G::kMetric,
      "share of the machine's CPU time other work used during a repetition (/proc/stat busy time minus this "
      "process's), median; empty for synthetic and predicted rows",
      median_of(metric::kOtherCpuFrac));
  add("disturbed_repetitions", "count", T::kInteger, G::kMetric,
      "recorded repetitions disturbed by other work (its CPU share over 10 %, or steal over 5 %: "
      "probes/machine_activity.h); empty for synthetic and predicted rows",
      [](const ResultRow& r) -> Cell {
        const auto n = r.disturbed_repetitions();
        return n ? num(static_cast<double>(*n)) : Cell();
      });
  add("repetitions", "count", T::kInteger, G::kMetric, "recorded repetitions (warm-ups excluded)",
      [](const ResultRow& r) { return num(r.repetitions); });
  // Conditions.
  add("provenance", "", T::kString, G::kCondition,
      "measured | predicted | reproduced (moebench reproduce: measured here, emulating a claim) | synthetic (null "
      "engine: test data, not a measurement)",
      [](const ResultRow& r) { return text(r.provenance); }, true, "provenance");
  add("machine", "", T::kString, G::kCondition, "machine profile of the run",
      [](const ResultRow& r) { return text(r.machine); });
  add("build", "", T::kString, G::kCondition, "moebench version, commit and build type",
      [](const ResultRow& r) { return text(r.build); });
  add("run_id", "", T::kString, G::kCondition, "run that produced the row (→ its environment)",
      [](const ResultRow& r) { return text(r.run_id); });
  add("notes", "", T::kString, G::kCondition, "non-fatal observations, separated by \"; \"",
      [](const ResultRow& r) {
        std::string s;
        for (const std::string& n : r.notes) s += (s.empty() ? "" : "; ") + n;
        return text(s);
      });
  return c;
}

}  // namespace

const std::vector<Column>& result_columns() {
  static const std::vector<Column> kColumns = build();
  return kColumns;
}

}  // namespace moebench
