// history_writer.h — pure writers for `moebench history`: one metric's
// series across runs (each run's median ± MAD in time order, and the steps
// found in it) as plain text, markdown or JSON, and the table of stored runs.
// Values are spelled through the column table (reports/cell_format.h), so a
// metric reads the same here as in the results table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/history_db.h"

namespace moebench {

struct HistoryView {
  std::string db;             // the database path, as given
  std::string metric;         // a stored metric name
  double threshold = 0.05;    // the step detector's minimum relative change
  double alpha = 0.05;        // its significance level
  std::size_t min_segment = 1;
  std::size_t last = 0;       // 0: every run of each series
  bool steps_only = false;    // only series with a step
  std::size_t runs = 0;       // runs stored
  std::vector<HistorySeries> series;
};

enum class HistoryFormat { kText, kMarkdown, kJson };

std::string write_history(const HistoryView& view, HistoryFormat format);

std::string write_history_runs(const std::vector<HistoryRun>& runs, const std::string& path, int schema_version);

}  // namespace moebench
