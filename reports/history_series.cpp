// history_series.cpp — build_series (see history_db.h): the entries a query
// returned grouped into series per point, machine and provenance, with the
// steps found with and without the repetitions marked disturbed.
#include "reports/history_db.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "vocab/stats.h"

namespace moebench {

namespace {

// The entries (indices into s.entries) where a step starts when every
// repetition marked disturbed is left out: its sample dropped, and a run
// whose repetitions were all disturbed left out whole. Steps of the same
// direction are what a quiet machine would have shown.
// An ok entry's value for the step detector; nullopt for one without.
std::optional<SeriesEntry> value_of(const HistoryEntry& e) {
  if (e.status != "ok" || !e.median || !std::isfinite(*e.median)) return std::nullopt;
  SeriesEntry v;
  v.median = *e.median;
  v.mad = e.mad.value_or(std::nan(""));
  v.n = std::max<std::size_t>(1, e.n);
  v.samples = e.samples;
  return v;
}

std::vector<std::size_t> steps_without_disturbed(const HistorySeries& s, const StepOptions& options) {
  std::vector<SeriesEntry> values;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    const HistoryEntry& e = s.entries[i];
    std::optional<SeriesEntry> got = value_of(e);
    if (!got) continue;
    SeriesEntry& v = *got;
    if (e.disturbed.value_or(0) > 0 && e.marks.size() == e.samples.size()) {
      std::vector<double> kept;
      for (std::size_t r = 0; r < e.samples.size(); ++r) {
        if (!(e.marks[r] > 0)) kept.push_back(e.samples[r]);
      }
      if (kept.empty()) continue;
      v.samples = kept;
      v.median = median(kept);
      v.mad = mad(kept);
      v.n = kept.size();
    }
    values.push_back(std::move(v));
    index.push_back(i);
  }
  std::vector<std::size_t> out;
  for (const LevelStep& st : detect_steps(values, options)) out.push_back(index[st.index]);
  return out;
}

}  // namespace

std::vector<HistorySeries> build_series(const std::vector<HistoryEntry>& entries, std::size_t last_n,
                                        const StepOptions& options) {
  // Entries arrive ordered by series then time; a map keeps that robust to any order.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const HistoryEntry*>> groups;
  for (const HistoryEntry& e : entries) groups[{e.point_id, e.machine, e.provenance}].push_back(&e);
  std::vector<HistorySeries> out;
  for (auto& [key, list] : groups) {
    std::stable_sort(list.begin(), list.end(), [](const HistoryEntry* a, const HistoryEntry* b) {
      return std::tie(a->started_at, a->run_id) < std::tie(b->started_at, b->run_id);
    });
    HistorySeries s;
    std::tie(s.point_id, s.machine, s.provenance) = key;
    const std::size_t first = last_n > 0 && list.size() > last_n ? list.size() - last_n : 0;
    for (std::size_t i = first; i < list.size(); ++i) s.entries.push_back(*list[i]);
    std::vector<SeriesEntry> values;
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      std::optional<SeriesEntry> v = value_of(s.entries[i]);
      if (!v) continue;
      values.push_back(std::move(*v));
      s.values.push_back(i);
    }
    const std::vector<std::size_t> quiet_steps = steps_without_disturbed(s, options);
    for (const LevelStep& st : detect_steps(values, options)) {
      HistoryStep h;
      h.stats = st;
      h.entry = s.values[st.index];
      h.prev_entry = s.values[st.index - 1];
      // Inconclusive only when the new level starts on a disturbed run and
      // the step is not there without the disturbed repetitions.
      h.disturbed = s.entries[h.entry].disturbed.value_or(0) > 0 &&
                    std::find(quiet_steps.begin(), quiet_steps.end(), h.entry) == quiet_steps.end();
      s.steps.push_back(h);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace moebench
