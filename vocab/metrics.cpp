// metrics.cpp — see metrics.h.
#include "vocab/metrics.h"

#include <algorithm>
#include <cmath>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

const char* to_string(RowStatus s) {
  switch (s) {
    case RowStatus::kOk: return "ok";
    case RowStatus::kFailed: return "failed";
    case RowStatus::kInfeasible: return "infeasible";
    case RowStatus::kInvalid: return "invalid";
  }
  return "?";
}

bool parse_row_status(const std::string& s, RowStatus& out) {
  for (RowStatus v : {RowStatus::kOk, RowStatus::kFailed, RowStatus::kInfeasible,
                      RowStatus::kInvalid}) {
    if (s == to_string(v)) {
      out = v;
      return true;
    }
  }
  return false;
}

std::optional<std::string> check_measurement(const Measurement& m) {
  if (m.token_times_s.size() < 2) {
    return "engine returned " + std::to_string(m.token_times_s.size()) +
           " token timestamps; a decode rate needs at least 2";
  }
  if (!(m.prefill_s > 0) || !std::isfinite(m.prefill_s)) {
    return "engine returned a non-positive prefill interval";
  }
  if (m.token_times_s.front() < m.prefill_s) {
    return "first token before the end of prefill: the engine's windows are inconsistent";
  }
  for (std::size_t i = 1; i < m.token_times_s.size(); ++i) {
    if (!(m.token_times_s[i] > m.token_times_s[i - 1])) {
      return "token timestamps are not strictly increasing at token " + std::to_string(i);
    }
  }
  return std::nullopt;
}

RepMetrics derive_metrics(const Measurement& m) {
  RepMetrics r;
  const double decode_s = m.token_times_s.back() - m.token_times_s.front();
  const double decode_tokens = static_cast<double>(m.token_times_s.size() - 1);
  r[metric::kTtftS] = m.token_times_s.front();
  r[metric::kPrefillTokS] = static_cast<double>(m.prompt_tokens) / m.prefill_s;
  r[metric::kDecodeTokS] = decode_tokens / decode_s;
  r[metric::kReadBytesPerToken] = static_cast<double>(m.read_bytes_decode) / decode_tokens;
  if (m.proc_read_bytes_decode) {
    r[metric::kProcReadBytesPerToken] = static_cast<double>(*m.proc_read_bytes_decode) / decode_tokens;
  }
  r[metric::kMemBytesPerToken] = static_cast<double>(m.mem_weight_bytes_decode) / decode_tokens;
  if (m.kv_positions_decode) {
    r[metric::kKvPositionsPerToken] = static_cast<double>(*m.kv_positions_decode) / decode_tokens;
  }
  if (m.kv_bytes_decode) r[metric::kKvBytesPerToken] = static_cast<double>(*m.kv_bytes_decode) / decode_tokens;
  const std::uint64_t needed = m.expert_hits_decode + m.expert_misses_decode;
  if (needed > 0) {
    r[metric::kExpertHitRate] = static_cast<double>(m.expert_hits_decode) / static_cast<double>(needed);
    if (m.expert_hits_optimal_decode) {
      r[metric::kExpertHitRateOptimal] = static_cast<double>(*m.expert_hits_optimal_decode) / static_cast<double>(needed);
    }
  }
  if (m.expert_misses_decode > 0) {
    r[metric::kHiddenMissFrac] = static_cast<double>(m.expert_misses_hidden_decode) /
                                 static_cast<double>(m.expert_misses_decode);
  }
  r[metric::kIoWaitFrac] = m.io_wait_s_decode / decode_s;
  if (m.io_busy_s_decode > 0 && m.read_bytes_decode > 0) {
    r[metric::kReadBusyBytesS] = static_cast<double>(m.read_bytes_decode) / m.io_busy_s_decode;
  }
  r[metric::kPeakRssBytes] = static_cast<double>(m.peak_rss_bytes);
  if (m.trunk_pinned_bytes) r[metric::kTrunkPinnedBytes] = static_cast<double>(*m.trunk_pinned_bytes);
  if (m.trunk_read_bytes_decode) {
    r[metric::kTrunkReadBytesPerToken] = static_cast<double>(*m.trunk_read_bytes_decode) / decode_tokens;
  }
  if (m.energy_j_decode) r[metric::kJPerDecodeToken] = *m.energy_j_decode / decode_tokens;
  if (m.energy_j_prefill && m.prompt_tokens > 0) {
    r[metric::kJPerPromptToken] = *m.energy_j_prefill / static_cast<double>(m.prompt_tokens);
  }
  return r;
}

Aggregate aggregate(const std::vector<Measurement>& measurements,
                    const std::vector<Measurement>& warmups,
                    std::optional<std::uint64_t> ram_budget_bytes) {
  Aggregate a;
  // Set-up is loaded once per setup key, usually during a warm-up; every run
  // of the point that loaded contributes a load_s sample.
  for (const auto* runs : {&warmups, &measurements}) {
    for (const Measurement& m : *runs) {
      if (!m.load_reused) a.samples[metric::kLoadS].push_back(m.load_s);
    }
  }
  std::vector<double> itls;
  double peak_rss = 0;
  bool budget_enforced = false;
  double worst_mismatch = 0;
  for (const Measurement& m : measurements) {
    for (const auto& [name, value] : derive_metrics(m)) a.samples[name].push_back(value);
    for (std::size_t i = 1; i < m.token_times_s.size(); ++i) {
      itls.push_back(m.token_times_s[i] - m.token_times_s[i - 1]);
    }
    peak_rss = std::max(peak_rss, static_cast<double>(m.peak_rss_bytes));
    budget_enforced = budget_enforced || m.budget_enforced;
    if (m.proc_read_bytes_decode && m.read_bytes_decode > 0) {
      const double rel = std::fabs(static_cast<double>(*m.proc_read_bytes_decode) -
                                   static_cast<double>(m.read_bytes_decode)) /
                         static_cast<double>(m.read_bytes_decode);
      worst_mismatch = std::max(worst_mismatch, rel);
    }
    for (const std::string& note : m.notes) {
      if (std::find(a.notes.begin(), a.notes.end(), note) == a.notes.end()) a.notes.push_back(note);
    }
  }
  for (const auto& [name, values] : a.samples) a.summaries[name] = summarize(values);
  if (!itls.empty()) {
    // Pooled over all repetitions: one figure, not a per-repetition sample,
    // so only n and the value (kept in `median`) are meaningful.
    auto pooled = [&](double p) {
      Summary s = summarize({});
      s.n = itls.size();
      s.median = quantile(itls, p);
      return s;
    };
    a.summaries[metric::kItlP50S] = pooled(0.50);
    a.summaries[metric::kItlP99S] = pooled(0.99);
  }
  if (worst_mismatch > kIoCounterMismatchTolerance) {
    a.notes.push_back("engine read counter and /proc/self/io read_bytes differ by " +
                      format_fixed(100 * worst_mismatch, 1) + "% (limit " +
                      format_fixed(100 * kIoCounterMismatchTolerance, 0) + "%)");
  }
  if (budget_enforced && ram_budget_bytes &&
      peak_rss > static_cast<double>(*ram_budget_bytes) * (1 + kRssOverBudgetTolerance)) {
    const double budget = static_cast<double>(*ram_budget_bytes);
    a.status = RowStatus::kInvalid;
    a.reason = "peak RSS " + format_bytes(peak_rss) + " exceeds the RAM budget " + format_bytes(budget) +
               " by " + format_fixed(100 * (peak_rss / budget - 1), 1) + "% (limit " +
               format_fixed(100 * kRssOverBudgetTolerance, 0) + "%)";
  }
  return a;
}

}  // namespace moebench
