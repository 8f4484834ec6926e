// result_row.h — ResultRow: the one normalized row every engine's output
// becomes (measured, predicted or synthetic alike), so that rows from
// different engines and runs compare directly. A row = point keys + status
// + per-metric summaries over repetitions + raw samples + conditions
// (provenance, machine, build, run). Columns are declared in columns.h.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/measurement.h"
#include "vocab/point.h"
#include "vocab/stats.h"

namespace moebench {

struct ResultRow {
  Point point;
  RowStatus status = RowStatus::kOk;
  std::string reason;               // why the status is not ok
  std::optional<std::uint64_t> min_budget_bytes;  // infeasible for memory: the smallest budget that runs
  std::vector<std::string> notes;   // non-fatal observations
  std::string provenance;           // measured | predicted | synthetic
  std::string run_id;               // → environment of the run that produced it
  std::string machine;              // machine profile name, or "unprofiled:HOST"
  std::string build;                // Environment::build_label()
  int repetitions = 0;              // recorded repetitions (warm-ups excluded)
  int warmup = 0;
  double wall_s = 0;                // whole point, warm-ups and load included
  SummaryMap metrics;
  SampleMap samples;

  // Median of `metric`, or nullopt when absent / not finite.
  std::optional<double> median(std::string_view metric) const;
  // Recorded repetitions marked disturbed by other work (its "disturbed"
  // samples, probes/machine_activity.h); nullopt when the row has no marks.
  std::optional<std::size_t> disturbed_repetitions() const;
};

Json row_to_json(const ResultRow& row);
Expected<ResultRow> row_from_json(const Json& j);

}  // namespace moebench
