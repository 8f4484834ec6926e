// journal.h — the durable record of a sweep in progress (JSONL; the format
// is vocab/journal_format.h).
//
// Line 1 is a header (journal version, sweep name/digest/size, environment);
// each resumed invocation adds a "segment" line with its environment; each
// finished point adds a "row" line, fsynced before the next point starts. A
// kill -9 can only tear the last line, which reopening drops. --resume
// skips every point already in the journal, so no finished point is lost or
// run twice; a failed point stays failed unless --retry-failed measures it
// again (its new row then replaces the failed one). A journal belongs to one sweep digest: resuming with a changed
// sweep is refused, because its rows would answer a different question.
#pragma once

#include <mutex>
#include <set>
#include <string>

#include "vocab/file_io.h"
#include "vocab/journal_format.h"
#include "vocab/run_results.h"

namespace moebench {

class Journal {
 public:
  enum class Mode {
    kCreate,  // new journal; refuse if one with rows exists
    kResume,  // continue an existing journal (or start one if none exists)
    kFresh,   // discard an existing journal and start over
  };

  // `retry_failed` (with kResume): points journaled as failed run again;
  // their new rows replace the failed ones (journal_row_line).
  static Expected<Journal> open(const std::string& path, const SweepInfo& sweep,
                                const Environment& env, Mode mode, bool retry_failed = false);

  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&&) = delete;
  Journal(const Journal&) = delete;

  const RunResults& results() const { return results_; }
  // Whether the point is done: journaled, and not a failure being retried.
  bool has(const std::string& point_id) const;
  std::size_t rows_loaded_at_open() const { return loaded_rows_; }
  // Failed rows found at open: kept (skipped), or retried with retry_failed.
  std::size_t failed_at_open() const { return failed_at_open_; }
  // Durably appends the row (then adds it to results()). Thread-safe.
  Status append(const ResultRow& row);
  const std::string& path() const { return appender_.path(); }

 private:
  Journal() = default;
  mutable std::mutex mu_;
  DurableAppender appender_;
  RunResults results_;
  std::set<std::string> ids_;
  std::set<std::string> retry_ids_;  // failed rows a retry may replace
  std::size_t loaded_rows_ = 0;
  std::size_t failed_at_open_ = 0;
};

}  // namespace moebench
