// history_db.h — the history database of `moebench history`: results of many
// runs (one per commit, typically from CI; one per machine of a fleet) in one
// SQLite file (the embedded default) or one PostgreSQL database that many
// machines and CI runners write at once (reports/sql_connection.h), so that
// each point's metrics can be followed across commits and machines and steps
// found in them.
//
// What it stores (schema version kHistorySchemaVersion; the tables and columns
// are documented in docs/regressions.md, "History across commits", and created by
// kHistorySchemaSql in history_db.cpp):
//   runs     one per results.json, keyed by the run id of its first run
//            segment; sweep, commit, build, machine, host, start time, the
//            file it came from, when it was added, every environment as JSON
//   rows     one per point of a run: point id and key, the point's axes as
//            columns (for filtering), status, provenance, machine, build
//   metrics  one per (row, metric): median, MAD, n and the other summaries
//   samples  the raw repetition samples of each metric
// Adding is idempotent (a run already present with the same rows is not added
// again) and atomic (one transaction: a failure leaves the store unchanged);
// two writers adding the same run at once store it once (the loser of the
// race retries and finds it), writers of different runs never block each
// other on PostgreSQL.
// A database written by a newer schema is refused, never guessed at.
//
// Deliberately left out: git itself (commits are ordered by the runs' start
// times, not by ancestry), deleting runs (use the sqlite3 shell), and any
// rendering (cmd_history.cpp renders).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/run_results.h"
#include "reports/step_detect.h"


namespace moebench {

class SqlConnection;

inline constexpr int kHistorySchemaVersion = 1;

// The CREATE statements of the current schema (for docs/regressions.md and tests).
extern const char* const kHistorySchemaSql;

struct HistoryAddOptions {
  bool replace = false;     // a run already present with other rows is replaced instead of refused
  std::string added_at;     // RFC 3339; "" = now
};

enum class HistoryAddOutcome { kAdded, kAlreadyPresent, kReplaced };

struct HistoryAddResult {
  HistoryAddOutcome outcome = HistoryAddOutcome::kAdded;
  std::string run_id;
  std::string git_commit;
  std::size_t rows = 0, metrics = 0, samples = 0;
  std::string existing_file;      // kAlreadyPresent / kReplaced: what was there
  std::string existing_added_at;
  std::vector<std::string> warnings;
};

struct HistoryRun {
  std::string run_id, sweep_name, sweep_digest, git_commit, build_label, build_type, machine, host, started_at,
      file_path, added_at;
  std::int64_t rows = 0;
};

// One machine's share of the history (`history machines`).
struct HistoryMachine {
  std::string machine;
  std::int64_t runs = 0, rows = 0;
  std::string first_started_at, last_started_at;
  std::vector<std::string> sweeps;  // sorted
};

struct HistoryCounts {
  std::int64_t runs = 0, rows = 0, metrics = 0, samples = 0;
};

struct HistoryFilter {
  std::string metric = "decode_tok_s";
  std::string engine;      // engine name ("streaming") or full spec ("streaming:packed=1")
  std::string model, quant, machine, provenance, sweep;
  std::string point;       // point id or a prefix of it
};

// One row of one run, with the filtered metric.
struct HistoryEntry {
  // Series identity: same point on the same machine with the same provenance.
  std::string point_id, machine, provenance;
  std::string point_key_json, engine_spec, model, scale, quant, drive_layout;
  std::optional<std::uint64_t> ram_budget_bytes;
  int drives = 1;
  std::int64_t context_tokens = 0;
  // The run.
  std::string run_id, git_commit, build_label, started_at, host, sweep_name;
  // The row and its metric (median absent when the row has no such metric).
  std::string status, reason;
  std::optional<double> median, mad;
  std::size_t n = 0;
  std::vector<double> samples;
  // Repetitions of the row marked disturbed by other work (its "disturbed"
  // samples, probes/machine_activity.h); nullopt: the run recorded no marks.
  std::optional<std::size_t> disturbed;
  std::vector<double> marks;  // one per repetition, in the samples' order (1: disturbed)
};

class HistoryDb {
 public:
  enum class Mode { kReadWrite, kReadOnly };

  // `location` is an SQLite file or a PostgreSQL URL (postgresql://…).
  // kReadWrite creates the file (SQLite) and the schema when missing;
  // kReadOnly requires an existing history database. Errors name the file
  // or the URL (password masked) and what to do.
  static Expected<HistoryDb> open(const std::string& location, Mode mode);

  HistoryDb(HistoryDb&& other) noexcept;
  HistoryDb& operator=(HistoryDb&& other) noexcept;
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;
  ~HistoryDb();

  const std::string& path() const { return path_; }
  int schema_version() const { return version_; }

  // Adds one run (all its rows, metrics and samples) in one transaction.
  // `file_path` is recorded as given (callers pass an absolute path).
  Expected<HistoryAddResult> add(const RunResults& results, const std::string& file_path,
                                 const HistoryAddOptions& options = {});

  Expected<std::vector<HistoryRun>> runs() const;              // in time order
  Expected<HistoryCounts> counts() const;
  Expected<std::vector<std::string>> metric_names() const;     // every metric stored
  Expected<std::vector<HistoryMachine>> machines() const;      // by name
  // A stored run back as results (sweep, environments, rows with their
  // metrics and samples; the sweep's warm-up count and seed are not stored).
  Expected<RunResults> load_run(const std::string& run_id) const;
  // Rows matching the filter, ordered by series then run start time.
  Expected<std::vector<HistoryEntry>> query(const HistoryFilter& filter) const;

 private:
  HistoryDb();
  Expected<HistoryAddResult> add_once(const RunResults& results, const std::string& file_path,
                                      const HistoryAddOptions& options);
  std::unique_ptr<SqlConnection> conn_;
  std::string path_;
  int version_ = 0;
};

// A step mapped back to the entries of its series.
struct HistoryStep {
  LevelStep stats;              // indices in stats refer to the series' values
  std::size_t entry = 0;   // entries[entry] is the first run at the new level
  std::size_t prev_entry = 0;  // entries[prev_entry] is the last run at the old level
  // The first run at the new level had repetitions other work disturbed,
  // and without them the step is not found: the change may be the
  // machine's, so a slowdown there is inconclusive.
  bool disturbed = false;
};

struct HistorySeries {
  std::string point_id, machine, provenance;
  std::vector<HistoryEntry> entries;     // time order (every status)
  std::vector<std::size_t> values;       // entries with a finite median of the metric (status ok)
  std::vector<HistoryStep> steps;
};

// Groups query results into series, keeps the last `last_n` runs of each
// (0 = all) and runs step detection on each series' values.
std::vector<HistorySeries> build_series(const std::vector<HistoryEntry>& entries, std::size_t last_n,
                                        const StepOptions& options);

}  // namespace moebench
