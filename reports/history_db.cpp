// history_db.cpp — see history_db.h. Plain sqlite3 C API: prepared
// statements with bound parameters (never SQL built from input), one
// transaction per added run, foreign keys on so that replacing a run removes
// its rows, metrics and samples with it.
#include "reports/history_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "vocab/build_info.h"
#include "vocab/environment.h"
#include "vocab/text.h"

namespace moebench {

// Version 1. A later version adds a migration in migrate() and bumps
// kHistorySchemaVersion; the README documents these columns.
const char* const kHistorySchemaSql = R"sql(
CREATE TABLE schema_version (
  version     INTEGER PRIMARY KEY,
  applied_at  TEXT NOT NULL,
  moebench    TEXT NOT NULL
);
CREATE TABLE runs (
  run_id            TEXT PRIMARY KEY,
  sweep_name        TEXT NOT NULL,
  sweep_digest      TEXT NOT NULL,
  points_total      INTEGER NOT NULL,
  repetitions       INTEGER NOT NULL,
  git_commit        TEXT NOT NULL,
  build_label       TEXT NOT NULL,
  build_type        TEXT NOT NULL,
  machine           TEXT NOT NULL,
  host              TEXT NOT NULL,
  started_at        TEXT NOT NULL,
  file_path         TEXT NOT NULL,
  content_digest    TEXT NOT NULL,
  added_at          TEXT NOT NULL,
  segments          INTEGER NOT NULL,
  environments_json TEXT NOT NULL
);
CREATE TABLE rows (
  row_id            INTEGER PRIMARY KEY,
  run_id            TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  segment_run_id    TEXT NOT NULL,
  point_index       INTEGER NOT NULL,
  point_id          TEXT NOT NULL,
  point_key_json    TEXT NOT NULL,
  engine            TEXT NOT NULL,
  engine_spec       TEXT NOT NULL,
  model             TEXT NOT NULL,
  scale             TEXT NOT NULL,
  quant             TEXT NOT NULL,
  ram_budget_bytes  INTEGER,
  drives            INTEGER NOT NULL,
  drive_layout      TEXT NOT NULL,
  context_tokens    INTEGER NOT NULL,
  status            TEXT NOT NULL,
  reason            TEXT NOT NULL,
  provenance        TEXT NOT NULL,
  machine           TEXT NOT NULL,
  build_label       TEXT NOT NULL,
  repetitions       INTEGER NOT NULL,
  UNIQUE (run_id, point_id)
);
CREATE INDEX rows_by_series ON rows (point_id, machine, provenance);
CREATE TABLE metrics (
  row_id  INTEGER NOT NULL REFERENCES rows(row_id) ON DELETE CASCADE,
  metric  TEXT NOT NULL,
  median  REAL,
  mad     REAL,
  n       INTEGER NOT NULL,
  min     REAL,
  max     REAL,
  mean    REAL,
  stddev  REAL,
  p10     REAL,
  p90     REAL,
  PRIMARY KEY (row_id, metric)
);
CREATE TABLE samples (
  row_id  INTEGER NOT NULL REFERENCES rows(row_id) ON DELETE CASCADE,
  metric  TEXT NOT NULL,
  rep     INTEGER NOT NULL,
  value   REAL,
  PRIMARY KEY (row_id, metric, rep)
);
)sql";

namespace {

std::string sqlite_message(sqlite3* db) { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }

Error db_error(const std::string& path, const std::string& what, sqlite3* db) {
  return make_error(path + ": " + what + " (sqlite: " + sqlite_message(db) + ")");
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }

  Stmt& text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& text_or_null(int i, const std::string& v) {
    if (v.empty()) {
      sqlite3_bind_null(s_, i);
    } else {
      text(i, v);
    }
    return *this;
  }
  Stmt& integer(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& real(int i, double v) {  // NaN / inf → NULL
    if (std::isfinite(v)) {
      sqlite3_bind_double(s_, i, v);
    } else {
      sqlite3_bind_null(s_, i);
    }
    return *this;
  }
  Stmt& null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(s_); }
  bool run() {  // one execution of a statement without results; resets for reuse
    const int rc = sqlite3_step(s_);
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    return rc == SQLITE_DONE;
  }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  std::string col_text(int i) const {
    const unsigned char* p = sqlite3_column_text(s_, i);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  }
  std::int64_t col_int(int i) const { return sqlite3_column_int64(s_, i); }
  bool col_null(int i) const { return sqlite3_column_type(s_, i) == SQLITE_NULL; }
  std::optional<double> col_real(int i) const {
    if (col_null(i)) return std::nullopt;
    return sqlite3_column_double(s_, i);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

// Rolls back unless committed.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { began_ = exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (began_ && !done_) exec(db_, "ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  bool began() const { return began_; }
  bool commit() {
    done_ = exec(db_, "COMMIT");
    return done_;
  }

 private:
  sqlite3* db_;
  bool began_ = false;
  bool done_ = false;
};

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Identity of a run's content: every row as written. Re-adding the same
// results.json (wherever it lives now) gives the same digest; a resumed run
// that gained rows does not.
std::string content_digest(const RunResults& r) {
  std::string all = r.sweep.digest;
  for (const ResultRow& row : r.rows) {
    all += row_to_json(row).dump();
    all += '\n';
  }
  return hex64(fnv1a64(all));
}

std::string build_version_label() {
  return std::string("moebench ") + build_info::kVersion + " (" + build_info::kGitCommit + ")";
}

}  // namespace

Expected<HistoryDb> HistoryDb::open(const std::string& path, Mode mode) {
  const bool exists = file_exists(path);
  if (mode == Mode::kReadOnly && !exists) {
    return make_error(path + ": no such history database; create it with `moebench history add RESULTS.json --db " +
                      path + "`");
  }
  HistoryDb h;
  h.path_ = path;
  const int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &h.db_, flags, nullptr) != SQLITE_OK) {
    return db_error(path, "cannot open the history database (does its directory exist and is it writable?)", h.db_);
  }
  sqlite3_busy_timeout(h.db_, 10000);  // another `history add` (CI job) may hold the write lock
  if (!exec(h.db_, "PRAGMA foreign_keys = ON")) return db_error(path, "cannot enable foreign keys", h.db_);

  // What is in the file: nothing (new), our schema, or something else.
  Stmt tables(h.db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!tables.ok()) {
    return db_error(path, "not a readable SQLite database; pass the --db file that `moebench history add` created",
                    h.db_);
  }
  bool has_version = false;
  int other_tables = 0;
  for (int rc; (rc = tables.step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) {
      return db_error(path, "not a readable SQLite database; pass the --db file that `moebench history add` created",
                      h.db_);
    }
    if (tables.col_text(0) == "schema_version") {
      has_version = true;
    } else {
      ++other_tables;
    }
  }
  if (!has_version && other_tables > 0) {
    return make_error(path + ": an SQLite database but not a moebench history database (no schema_version table); "
                             "pass another --db file");
  }
  if (!has_version) {
    if (mode == Mode::kReadOnly) {
      return make_error(path + ": empty database, no history yet; add runs with `moebench history add RESULTS.json --db " +
                        path + "`");
    }
    Transaction tx(h.db_);
    if (!tx.began()) return db_error(path, "cannot start a transaction to create the schema", h.db_);
    if (!exec(h.db_, kHistorySchemaSql)) return db_error(path, "cannot create the history schema", h.db_);
    Stmt v(h.db_, "INSERT INTO schema_version (version, applied_at, moebench) VALUES (?1, ?2, ?3)");
    v.integer(1, kHistorySchemaVersion).text(2, rfc3339_now_utc()).text(3, build_version_label());
    if (!v.ok() || !v.run() || !tx.commit()) return db_error(path, "cannot record the schema version", h.db_);
    h.version_ = kHistorySchemaVersion;
    return h;
  }
  Stmt v(h.db_, "SELECT max(version) FROM schema_version");
  if (!v.ok() || v.step() != SQLITE_ROW || v.col_null(0)) {
    return db_error(path, "cannot read the schema version (damaged file?); pass another --db file", h.db_);
  }
  h.version_ = static_cast<int>(v.col_int(0));
  if (h.version_ > kHistorySchemaVersion) {
    return make_error(path + ": history schema version " + std::to_string(h.version_) +
                      " is newer than this moebench understands (" + std::to_string(kHistorySchemaVersion) +
                      "); use the moebench that wrote it (or a newer one), or another --db file");
  }
  if (h.version_ < 1) {
    return make_error(path + ": history schema version " + std::to_string(h.version_) + " is not valid; pass another --db file");
  }
  // Version 1 is the first schema: no migration exists yet.
  return h;
}

HistoryDb::HistoryDb(HistoryDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)), version_(other.version_) {}

HistoryDb& HistoryDb::operator=(HistoryDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    version_ = other.version_;
  }
  return *this;
}

HistoryDb::~HistoryDb() { sqlite3_close(db_); }

Expected<HistoryAddResult> HistoryDb::add(const RunResults& results, const std::string& file_path,
                                          const HistoryAddOptions& options) {
  HistoryAddResult out;
  if (results.environments.empty()) {
    return make_error(file_path + ": no /environments: history needs the run's commit and start time; add the "
                                  "results.json that `moebench run` wrote");
  }
  const Environment& env = results.environments.front();
  if (env.run_id.empty()) return make_error(file_path + ": /environments/0 has no run_id; cannot identify the run");
  out.run_id = env.run_id;
  out.git_commit = env.git_commit.empty() ? "unknown" : env.git_commit;
  for (std::size_t i = 1; i < results.environments.size(); ++i) {
    const Environment& e = results.environments[i];
    if (e.git_commit != env.git_commit || e.build_label() != env.build_label()) {
      out.warnings.push_back("run segment " + e.run_id + " was built from " + e.build_label() + ", not " +
                             env.build_label() + " (resumed with another build); the run is filed under commit " +
                             out.git_commit);
    }
  }
  if (!env.build_warning().empty()) out.warnings.push_back(env.build_warning());
  std::string machine = results.rows.empty() ? env.machine_profile : results.rows.front().machine;
  for (const ResultRow& row : results.rows) {
    if (row.machine != machine) {
      out.warnings.push_back("rows of several machines (" + machine + ", " + row.machine +
                             "); each row keeps its own machine, the run is filed under " + machine);
      break;
    }
  }
  const std::string digest = content_digest(results);

  Transaction tx(db_);
  if (!tx.began()) return db_error(path_, "cannot start a transaction (database locked or read-only?)", db_);

  Stmt existing(db_, "SELECT content_digest, file_path, added_at FROM runs WHERE run_id = ?1");
  if (!existing.ok()) return db_error(path_, "cannot query runs", db_);
  existing.text(1, out.run_id);
  const int found = existing.step();
  if (found != SQLITE_ROW && found != SQLITE_DONE) return db_error(path_, "cannot query runs", db_);
  if (found == SQLITE_DONE) existing.reset();
  if (found == SQLITE_ROW) {
    out.existing_file = existing.col_text(1);
    out.existing_added_at = existing.col_text(2);
    const bool same = existing.col_text(0) == digest;
    existing.reset();
    if (same) {
      out.outcome = HistoryAddOutcome::kAlreadyPresent;
      return out;  // nothing written; the transaction rolls back
    }
    if (!options.replace) {
      return make_error(path_ + ": run " + out.run_id + " is already stored (added " + out.existing_added_at +
                        " from " + out.existing_file + ") with other rows than " + file_path +
                        " (a resumed or re-written run?); pass --replace to replace it");
    }
    Stmt del(db_, "DELETE FROM runs WHERE run_id = ?1");
    if (!del.ok() || !del.text(1, out.run_id).run()) return db_error(path_, "cannot remove the old run " + out.run_id, db_);
    out.outcome = HistoryAddOutcome::kReplaced;
  }

  Json envs = Json::array();
  for (const Environment& e : results.environments) envs.push_back(environment_to_json(e));
  Stmt run(db_,
           "INSERT INTO runs (run_id, sweep_name, sweep_digest, points_total, repetitions, git_commit, build_label, "
           "build_type, machine, host, started_at, file_path, content_digest, added_at, segments, environments_json) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
  if (!run.ok()) return db_error(path_, "cannot prepare the run insert", db_);
  run.text(1, out.run_id)
      .text(2, results.sweep.name)
      .text(3, results.sweep.digest)
      .integer(4, static_cast<std::int64_t>(results.sweep.points_total))
      .integer(5, results.sweep.repetitions)
      .text(6, out.git_commit)
      .text(7, env.build_label())
      .text(8, env.build_type)
      .text(9, machine)
      .text(10, env.hostname)
      .text(11, env.started_at)
      .text(12, file_path)
      .text(13, digest)
      .text(14, options.added_at.empty() ? rfc3339_now_utc() : options.added_at)
      .integer(15, static_cast<std::int64_t>(results.environments.size()))
      .text(16, envs.dump());
  if (!run.run()) return db_error(path_, "cannot store run " + out.run_id + " from " + file_path, db_);

  Stmt row_ins(db_,
               "INSERT INTO rows (run_id, segment_run_id, point_index, point_id, point_key_json, engine, engine_spec, "
               "model, scale, quant, ram_budget_bytes, drives, drive_layout, context_tokens, status, reason, "
               "provenance, machine, build_label, repetitions) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
  Stmt metric_ins(db_,
                  "INSERT INTO metrics (row_id, metric, median, mad, n, min, max, mean, stddev, p10, p90) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  Stmt sample_ins(db_, "INSERT INTO samples (row_id, metric, rep, value) VALUES (?1, ?2, ?3, ?4)");
  if (!row_ins.ok() || !metric_ins.ok() || !sample_ins.ok()) return db_error(path_, "cannot prepare the row inserts", db_);
  for (const ResultRow& row : results.rows) {
    const Point& p = row.point;
    row_ins.text(1, out.run_id)
        .text(2, row.run_id)
        .integer(3, static_cast<std::int64_t>(p.index))
        .text(4, p.id())
        .text(5, p.key_json().dump())
        .text(6, p.engine.name)
        .text(7, p.engine.to_string())
        .text(8, p.model)
        .text(9, p.scale.to_string())
        .text(10, p.quant);
    if (p.ram_budget_bytes) {
      row_ins.integer(11, static_cast<std::int64_t>(*p.ram_budget_bytes));
    } else {
      row_ins.null(11);
    }
    row_ins.integer(12, p.drives.count)
        .text(13, p.drives.layout)
        .integer(14, p.context_tokens)
        .text(15, to_string(row.status))
        .text(16, row.reason)
        .text(17, row.provenance)
        .text(18, row.machine)
        .text(19, row.build)
        .integer(20, row.repetitions);
    if (!row_ins.run()) {
      return db_error(path_, "cannot store point " + p.id() + " (row " + std::to_string(p.index) + ") of " + file_path +
                                 "; nothing was added",
                      db_);
    }
    const std::int64_t row_id = sqlite3_last_insert_rowid(db_);
    ++out.rows;
    for (const auto& [name, s] : row.metrics) {
      metric_ins.integer(1, row_id)
          .text(2, name)
          .real(3, s.median)
          .real(4, s.mad)
          .integer(5, static_cast<std::int64_t>(s.n))
          .real(6, s.min)
          .real(7, s.max)
          .real(8, s.mean)
          .real(9, s.stddev)
          .real(10, s.p10)
          .real(11, s.p90);
      if (!metric_ins.run()) return db_error(path_, "cannot store metric " + name + " of point " + p.id() + "; nothing was added", db_);
      ++out.metrics;
    }
    for (const auto& [name, xs] : row.samples) {
      for (std::size_t i = 0; i < xs.size(); ++i) {
        sample_ins.integer(1, row_id).text(2, name).integer(3, static_cast<std::int64_t>(i)).real(4, xs[i]);
        if (!sample_ins.run()) return db_error(path_, "cannot store samples of " + name + " of point " + p.id() + "; nothing was added", db_);
        ++out.samples;
      }
    }
  }
  if (!tx.commit()) return db_error(path_, "cannot commit run " + out.run_id + "; nothing was added", db_);
  return out;
}

Expected<std::vector<HistoryRun>> HistoryDb::runs() const {
  Stmt s(db_,
         "SELECT u.run_id, u.sweep_name, u.sweep_digest, u.git_commit, u.build_label, u.build_type, u.machine, u.host, "
         "u.started_at, u.file_path, u.added_at, (SELECT count(*) FROM rows r WHERE r.run_id = u.run_id) "
         "FROM runs u ORDER BY u.started_at, u.run_id");
  if (!s.ok()) return db_error(path_, "cannot list runs", db_);
  std::vector<HistoryRun> out;
  for (int rc; (rc = s.step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return db_error(path_, "cannot list runs", db_);
    HistoryRun r;
    r.run_id = s.col_text(0);
    r.sweep_name = s.col_text(1);
    r.sweep_digest = s.col_text(2);
    r.git_commit = s.col_text(3);
    r.build_label = s.col_text(4);
    r.build_type = s.col_text(5);
    r.machine = s.col_text(6);
    r.host = s.col_text(7);
    r.started_at = s.col_text(8);
    r.file_path = s.col_text(9);
    r.added_at = s.col_text(10);
    r.rows = s.col_int(11);
    out.push_back(std::move(r));
  }
  return out;
}

Expected<HistoryCounts> HistoryDb::counts() const {
  Stmt s(db_,
         "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM rows), (SELECT count(*) FROM metrics), "
         "(SELECT count(*) FROM samples)");
  if (!s.ok() || s.step() != SQLITE_ROW) return db_error(path_, "cannot count the stored runs", db_);
  return HistoryCounts{s.col_int(0), s.col_int(1), s.col_int(2), s.col_int(3)};
}

Expected<std::vector<std::string>> HistoryDb::metric_names() const {
  Stmt s(db_, "SELECT DISTINCT metric FROM metrics ORDER BY metric");
  if (!s.ok()) return db_error(path_, "cannot list metrics", db_);
  std::vector<std::string> out;
  for (int rc; (rc = s.step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return db_error(path_, "cannot list metrics", db_);
    out.push_back(s.col_text(0));
  }
  return out;
}

Expected<std::vector<HistoryEntry>> HistoryDb::query(const HistoryFilter& f) const {
  // An empty filter value binds NULL and matches everything.
  Stmt s(db_,
         "SELECT r.row_id, r.point_id, r.machine, r.provenance, r.point_key_json, r.engine_spec, r.model, r.scale, "
         "r.quant, r.ram_budget_bytes, r.drives, r.drive_layout, r.context_tokens, r.status, r.reason, "
         "u.run_id, u.git_commit, u.build_label, u.started_at, u.host, u.sweep_name, m.median, m.mad, m.n "
         "FROM rows r JOIN runs u ON u.run_id = r.run_id "
         "LEFT JOIN metrics m ON m.row_id = r.row_id AND m.metric = ?1 "
         "WHERE (?2 IS NULL OR r.engine = ?2 OR r.engine_spec = ?2) AND (?3 IS NULL OR r.model = ?3) "
         "AND (?4 IS NULL OR r.quant = ?4) AND (?5 IS NULL OR r.machine = ?5) "
         "AND (?6 IS NULL OR substr(r.point_id, 1, length(?6)) = ?6) AND (?7 IS NULL OR r.provenance = ?7) "
         "AND (?8 IS NULL OR u.sweep_name = ?8) "
         "ORDER BY r.point_id, r.machine, r.provenance, u.started_at, u.run_id");
  Stmt samples(db_, "SELECT value FROM samples WHERE row_id = ?1 AND metric = ?2 ORDER BY rep");
  if (!s.ok() || !samples.ok()) return db_error(path_, "cannot query the history", db_);
  s.text(1, f.metric)
      .text_or_null(2, f.engine)
      .text_or_null(3, f.model)
      .text_or_null(4, f.quant)
      .text_or_null(5, f.machine)
      .text_or_null(6, f.point)
      .text_or_null(7, f.provenance)
      .text_or_null(8, f.sweep);
  std::vector<HistoryEntry> out;
  for (int rc; (rc = s.step()) != SQLITE_DONE;) {
    if (rc != SQLITE_ROW) return db_error(path_, "cannot query the history", db_);
    HistoryEntry e;
    const std::int64_t row_id = s.col_int(0);
    e.point_id = s.col_text(1);
    e.machine = s.col_text(2);
    e.provenance = s.col_text(3);
    e.point_key_json = s.col_text(4);
    e.engine_spec = s.col_text(5);
    e.model = s.col_text(6);
    e.scale = s.col_text(7);
    e.quant = s.col_text(8);
    if (!s.col_null(9)) e.ram_budget_bytes = static_cast<std::uint64_t>(s.col_int(9));
    e.drives = static_cast<int>(s.col_int(10));
    e.drive_layout = s.col_text(11);
    e.context_tokens = s.col_int(12);
    e.status = s.col_text(13);
    e.reason = s.col_text(14);
    e.run_id = s.col_text(15);
    e.git_commit = s.col_text(16);
    e.build_label = s.col_text(17);
    e.started_at = s.col_text(18);
    e.host = s.col_text(19);
    e.sweep_name = s.col_text(20);
    e.median = s.col_real(21);
    e.mad = s.col_real(22);
    e.n = s.col_null(23) ? 0 : static_cast<std::size_t>(s.col_int(23));
    if (e.median) {
      samples.integer(1, row_id).text(2, f.metric);
      for (int src; (src = samples.step()) == SQLITE_ROW;) {
        if (auto v = samples.col_real(0)) e.samples.push_back(*v);
      }
      samples.reset();
    }
    out.push_back(std::move(e));
  }
  return out;
}

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
      const HistoryEntry& e = s.entries[i];
      if (e.status != "ok" || !e.median || !std::isfinite(*e.median)) continue;
      SeriesEntry v;
      v.median = *e.median;
      v.mad = e.mad.value_or(std::nan(""));
      v.n = std::max<std::size_t>(1, e.n);
      v.samples = e.samples;
      values.push_back(std::move(v));
      s.values.push_back(i);
    }
    for (const Step& st : detect_steps(values, options)) {
      HistoryStep h;
      h.stats = st;
      h.entry = s.values[st.index];
      h.prev_entry = s.values[st.index - 1];
      s.steps.push_back(h);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace moebench
