// journal.h — the durable record of a sweep in progress (JSONL).
//
// Line 1 is a header (journal version, sweep name/digest/size, environment);
// each resumed invocation adds a "segment" line with its environment; each
// finished point adds a "row" line, fsynced before the next point starts. A
// kill -9 can only tear the last line, which reopening drops. --resume
// skips every point already in the journal, so no finished point is lost or
// run twice. A journal belongs to one sweep digest: resuming with a changed
// sweep is refused, because its rows would answer a different question.
#pragma once

#include <mutex>
#include <set>
#include <string>

#include "harness/file_io.h"
#include "harness/json_reader.h"
#include "harness/run_results.h"

namespace moebench {

class Journal {
 public:
  enum class Mode {
    kCreate,  // new journal; refuse if one with rows exists
    kResume,  // continue an existing journal (or start one if none exists)
    kFresh,   // discard an existing journal and start over
  };

  static Expected<Journal> open(const std::string& path, const SweepInfo& sweep,
                                const Environment& env, Mode mode);

  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&&) = delete;
  Journal(const Journal&) = delete;

  const RunResults& results() const { return results_; }
  bool has(const std::string& point_id) const;
  std::size_t rows_loaded_at_open() const { return loaded_rows_; }
  // Durably appends the row (then adds it to results()). Thread-safe.
  Status append(const ResultRow& row);
  const std::string& path() const { return appender_.path(); }

 private:
  Journal() = default;
  mutable std::mutex mu_;
  DurableAppender appender_;
  RunResults results_;
  std::set<std::string> ids_;
  std::size_t loaded_rows_ = 0;
};

// Reads a journal without opening it for writing (for `report`-style tools
// and tests). Drops a torn last line (one without its newline, or a last
// line that is not JSON). Every other problem is an error naming the file,
// the line and the JSON Pointer: a line that is not JSON, or JSON that is
// not a record (`[1]`, `3`), a record of an unknown type, a field missing,
// of the wrong type or out of range. Never throws.
Expected<RunResults> read_journal(const std::string& path);
// The same for a journal's text (`label` names it in errors).
Expected<RunResults> parse_journal_text(const std::string& text, const std::string& label);

// Checks of the records a journal line or a results.json holds, made before
// the decoders (sweep_info_from_json, environment_from_json, row_from_json)
// see them: every field they read is present with its type, and every number
// is in the range of the field that holds it (a row's point is one a sweep
// could have made: see the limits in sweep_spec.h). Issues go to `d` at JSON
// Pointers under `path`; unknown keys are allowed (newer writers may add).
void check_sweep_record(const Json& j, const std::string& path, Diagnostics& d);
void check_environment_record(const Json& j, const std::string& path, Diagnostics& d);
void check_row_record(const Json& j, const std::string& path, Diagnostics& d);

}  // namespace moebench
