// sql_sqlite.cpp — the SQLite side of sql_connection.h: the plain sqlite3
// C API, prepared statements with bound parameters, foreign keys on, a 10 s
// busy timeout (another `history add` may hold the write lock).
#include <sqlite3.h>

#include <cmath>
#include <filesystem>

#include "reports/sql_connection.h"

namespace moebench {
namespace {

std::string sqlite_message(sqlite3* db) { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }

class SqliteStatement final : public SqlStatement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  ~SqliteStatement() override { sqlite3_finalize(s_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqlStatement& text(int i, const std::string& v) override {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  SqlStatement& integer(int i, std::int64_t v) override {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  SqlStatement& real(int i, double v) override {
    if (std::isfinite(v)) {
      sqlite3_bind_double(s_, i, v);
    } else {
      sqlite3_bind_null(s_, i);
    }
    return *this;
  }
  SqlStatement& null(int i, SqlType) override {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  Expected<bool> next() override {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return make_error("sqlite: " + sqlite_message(db_));
  }
  Status run() override {
    const int rc = sqlite3_step(s_);
    std::string message = rc == SQLITE_DONE ? "" : sqlite_message(db_);
    reset();
    if (rc != SQLITE_DONE) return make_error("sqlite: " + message);
    return {};
  }
  void reset() override {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::string col_text(int i) const override {
    const unsigned char* p = sqlite3_column_text(s_, i);
    return p != nullptr ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  }
  std::int64_t col_int(int i) const override { return sqlite3_column_int64(s_, i); }
  bool col_null(int i) const override { return sqlite3_column_type(s_, i) == SQLITE_NULL; }
  std::optional<double> col_real(int i) const override {
    if (col_null(i)) return std::nullopt;
    return sqlite3_column_double(s_, i);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_;
};

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sqlite3_close(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  const std::string& label() const override { return path_; }
  Status exec(const std::string& sql) override {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      return make_error("sqlite: " + sqlite_message(db_));
    }
    return {};
  }
  Expected<std::unique_ptr<SqlStatement>> prepare(const std::string& sql) override {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      return make_error("sqlite: " + sqlite_message(db_));
    }
    return std::unique_ptr<SqlStatement>(std::make_unique<SqliteStatement>(db_, s));
  }
  Status begin_write() override { return exec("BEGIN IMMEDIATE"); }
  bool last_error_was_unique_violation() const override {
    const int e = sqlite3_extended_errcode(db_);
    return e == SQLITE_CONSTRAINT_UNIQUE || e == SQLITE_CONSTRAINT_PRIMARYKEY;
  }

 private:
  sqlite3* db_;
  std::string path_;
};

}  // namespace

Expected<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& path, bool read_only) {
  // SQLite would block opening a FIFO (forever, with no writer) and fail
  // obscurely on a directory or device: a database is a regular file.
  std::error_code ec;
  const auto kind = std::filesystem::status(path, ec);
  if (path != ":memory:" && !ec && std::filesystem::exists(kind) && !std::filesystem::is_regular_file(kind)) {
    const char* what = std::filesystem::is_fifo(kind)        ? "a FIFO"
                       : std::filesystem::is_directory(kind) ? "a directory"
                       : std::filesystem::is_socket(kind)    ? "a socket"
                                                           : "a device or other special file";
    return make_error(path + ": is " + what + ", not a history database file; pass --db a file path (it is "
                             "created on first use) or a postgresql:// URL");
  }
  sqlite3* db = nullptr;
  const int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string message = sqlite_message(db);
    sqlite3_close(db);
    return make_error(path + ": cannot open the history database (does its directory exist and is it writable?) "
                             "(sqlite: " + message + ")");
  }
  auto conn = std::make_unique<SqliteConnection>(db, path);
  sqlite3_busy_timeout(db, 10000);
  if (Status st = conn->exec("PRAGMA foreign_keys = ON"); !st) {
    return make_error(path + ": cannot enable foreign keys (" + st.error().message + ")");
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace moebench
