// sql_connection.h — the little SQL the history database needs, over two
// stores: an SQLite file (the embedded default) and a PostgreSQL server
// (libpq), so that many machines and CI runners can write one history.
//
// Statements are written once, with SQLite's numbered parameters (?1, ?2…);
// the PostgreSQL side rewrites them to $1, $2… and sends every value in text
// form with its type (text, int8, float8), so a double comes back exactly
// as it went in (shortest round-trip text). Values are always bound, never
// spliced into SQL. Errors are values whose message names the store (a
// PostgreSQL URL with its password masked) and what the server said.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "vocab/expected.h"

namespace moebench {

enum class SqlDialect { kSqlite, kPostgres };

enum class SqlType { kText, kInteger, kReal };

class SqlStatement {
 public:
  virtual ~SqlStatement() = default;
  virtual SqlStatement& text(int i, const std::string& v) = 0;
  virtual SqlStatement& integer(int i, std::int64_t v) = 0;
  virtual SqlStatement& real(int i, double v) = 0;  // NaN / inf → NULL
  virtual SqlStatement& null(int i, SqlType type) = 0;
  SqlStatement& text_or_null(int i, const std::string& v) {
    return v.empty() ? null(i, SqlType::kText) : text(i, v);
  }
  SqlStatement& integer_or_null(int i, const std::optional<std::int64_t>& v) {
    return v ? integer(i, *v) : null(i, SqlType::kInteger);
  }

  // Executes on the first call, then steps: true while a row is current.
  virtual Expected<bool> next() = 0;
  // Executes a statement without results and resets it (bindings cleared).
  virtual Status run() = 0;
  // Ends the current execution and clears the bindings.
  virtual void reset() = 0;

  virtual std::string col_text(int i) const = 0;
  virtual std::int64_t col_int(int i) const = 0;
  virtual bool col_null(int i) const = 0;
  virtual std::optional<double> col_real(int i) const = 0;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;
  // The store for messages: the file, or the URL with its password masked.
  virtual const std::string& label() const = 0;
  // One or more statements without parameters.
  virtual Status exec(const std::string& sql) = 0;
  virtual Expected<std::unique_ptr<SqlStatement>> prepare(const std::string& sql) = 0;
  // Starts a transaction that will write: SQLite takes the write lock at
  // once (BEGIN IMMEDIATE); PostgreSQL begins READ COMMITTED and relies on
  // the keys (a writer that loses a race on one sees a unique violation).
  virtual Status begin_write() = 0;
  // Whether the last failed statement broke a UNIQUE or PRIMARY KEY
  // constraint (another writer stored the same key first).
  virtual bool last_error_was_unique_violation() const = 0;
};

// A PostgreSQL URL: postgresql://… or postgres://….
bool is_postgres_url(const std::string& location);
// The URL with the password (user:PASSWORD@) replaced by ***.
std::string mask_postgres_password(const std::string& url);
// "" for a location that can be a SQLite file; otherwise why it cannot (a
// URL of another scheme, a mistyped postgres URL, a libpq keyword string),
// with any password masked — never a file named after a password.
std::string refuse_non_sqlite_location(const std::string& location);

// The file is created when missing unless `read_only`.
Expected<std::unique_ptr<SqlConnection>> open_sqlite(const std::string& path, bool read_only);
// Connects (10 s timeout); `read_only` makes every transaction read-only.
Expected<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url, bool read_only);

}  // namespace moebench
