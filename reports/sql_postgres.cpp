// sql_postgres.cpp — the PostgreSQL side of sql_connection.h, through
// libpq: PQexecParams with every value in text form and typed (text 25,
// int8 20, float8 701), results read as text; notices silenced (the server's
// chatter is not moebench's output); SQLSTATE 23505 is the unique violation
// a writer that lost a race sees. A build without libpq (MOEBENCH_HAVE_LIBPQ
// unset: the aarch64 cross build, where Debian 12's libpq-dev:arm64 cannot
// be installed beside the host's libpq-dev) refuses postgresql:// URLs with
// an error that says so; SQLite history files work in every build.
#if defined(MOEBENCH_HAVE_LIBPQ)
#include <libpq-fe.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "reports/sql_connection.h"

#include <cctype>

namespace moebench {
#if defined(MOEBENCH_HAVE_LIBPQ)
namespace {

constexpr Oid kText = 25, kInt8 = 20, kFloat8 = 701;

Oid oid_of(SqlType t) {
  switch (t) {
    case SqlType::kInteger: return kInt8;
    case SqlType::kReal: return kFloat8;
    case SqlType::kText: break;
  }
  return kText;
}

// ?N → $N outside quoted literals and identifiers.
std::string to_dollar_params(const std::string& sql, int* count) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  *count = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      out += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '?' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      out += '$';
      int n = 0;
      for (std::size_t j = i + 1; j < sql.size() && sql[j] >= '0' && sql[j] <= '9'; ++j) n = n * 10 + (sql[j] - '0');
      *count = std::max(*count, n);
      continue;
    }
    out += c;
  }
  return out;
}

struct PgState {
  PGconn* conn = nullptr;
  bool unique_violation = false;
};

// A result's error as text, and whether it was a unique violation.
std::string result_error(PgState& st, PGresult* res) {
  const char* code = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  st.unique_violation = code != nullptr && std::string(code) == "23505";
  std::string message = res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(st.conn);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return "postgresql: " + message;
}

class PgStatement final : public SqlStatement {
 public:
  PgStatement(PgState& st, std::string sql, int params)
      : st_(st), sql_(std::move(sql)), values_(static_cast<std::size_t>(params)),
        types_(static_cast<std::size_t>(params), kText) {}
  ~PgStatement() override { PQclear(res_); }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  SqlStatement& text(int i, const std::string& v) override { return set(i, v, kText); }
  SqlStatement& integer(int i, std::int64_t v) override { return set(i, std::to_string(v), kInt8); }
  SqlStatement& real(int i, double v) override {
    if (!std::isfinite(v)) return null(i, SqlType::kReal);
    return set(i, fmt::format("{}", v), kFloat8);  // shortest text that reads back exactly
  }
  SqlStatement& null(int i, SqlType type) override {
    if (valid(i)) {
      values_[static_cast<std::size_t>(i - 1)].reset();
      types_[static_cast<std::size_t>(i - 1)] = oid_of(type);
    }
    return *this;
  }

  Expected<bool> next() override {
    if (res_ == nullptr) {
      if (Status st = execute(); !st) return st.error();
      row_ = -1;
    }
    ++row_;
    return row_ < PQntuples(res_);
  }
  Status run() override {
    Status st = execute();
    reset();
    return st;
  }
  void reset() override {
    PQclear(res_);
    res_ = nullptr;
    row_ = -1;
    for (auto& v : values_) v.reset();
    for (auto& t : types_) t = kText;
  }
  std::string col_text(int i) const override { return col_null(i) ? std::string() : PQgetvalue(res_, row_, i); }
  std::int64_t col_int(int i) const override {
    return col_null(i) ? 0 : std::strtoll(PQgetvalue(res_, row_, i), nullptr, 10);
  }
  bool col_null(int i) const override { return res_ == nullptr || PQgetisnull(res_, row_, i) != 0; }
  std::optional<double> col_real(int i) const override {
    if (col_null(i)) return std::nullopt;
    return std::strtod(PQgetvalue(res_, row_, i), nullptr);
  }

 private:
  bool valid(int i) const { return i >= 1 && static_cast<std::size_t>(i) <= values_.size(); }
  SqlStatement& set(int i, std::string v, Oid type) {
    if (valid(i)) {
      values_[static_cast<std::size_t>(i - 1)] = std::move(v);
      types_[static_cast<std::size_t>(i - 1)] = type;
    }
    return *this;
  }
  Status execute() {
    std::vector<const char*> ptrs;
    ptrs.reserve(values_.size());
    for (const auto& v : values_) ptrs.push_back(v ? v->c_str() : nullptr);
    PQclear(res_);
    res_ = PQexecParams(st_.conn, sql_.c_str(), static_cast<int>(values_.size()), types_.data(), ptrs.data(),
                        nullptr, nullptr, 0);
    const ExecStatusType s = res_ != nullptr ? PQresultStatus(res_) : PGRES_FATAL_ERROR;
    if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
      std::string message = result_error(st_, res_);
      PQclear(res_);
      res_ = nullptr;
      return make_error(message);
    }
    st_.unique_violation = false;
    return {};
  }

  PgState& st_;
  std::string sql_;
  std::vector<std::optional<std::string>> values_;
  std::vector<Oid> types_;
  PGresult* res_ = nullptr;
  int row_ = -1;
};

class PgConnection final : public SqlConnection {
 public:
  PgConnection(PGconn* conn, std::string label) : label_(std::move(label)) { st_.conn = conn; }
  ~PgConnection() override { PQfinish(st_.conn); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  const std::string& label() const override { return label_; }
  Status exec(const std::string& sql) override {
    PGresult* res = PQexec(st_.conn, sql.c_str());
    const ExecStatusType s = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    Status out;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) out = make_error(result_error(st_, res));
    PQclear(res);
    return out;
  }
  Expected<std::unique_ptr<SqlStatement>> prepare(const std::string& sql) override {
    int params = 0;
    std::string converted = to_dollar_params(sql, &params);
    return std::unique_ptr<SqlStatement>(std::make_unique<PgStatement>(st_, std::move(converted), params));
  }
  Status begin_write() override { return exec("BEGIN"); }
  bool last_error_was_unique_violation() const override { return st_.unique_violation; }

 private:
  PgState st_;
  std::string label_;
};

void ignore_notice(void*, const char*) {}

}  // namespace
#endif  // MOEBENCH_HAVE_LIBPQ

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool is_postgres_url(const std::string& location) {
  const std::string l = lower(location.substr(0, 13));
  return l.rfind("postgresql://", 0) == 0 || l.rfind("postgres://", 0) == 0;
}

std::string mask_postgres_password(const std::string& url) {
  std::string out = url;
  // scheme://user:PASSWORD@host/…: the password runs to the LAST '@' before
  // the path (an unescaped '@' inside it must not leave its tail in clear).
  if (const auto scheme = out.find("://"); scheme != std::string::npos) {
    const auto slash = out.find('/', scheme + 3);
    const auto at = out.rfind('@', slash == std::string::npos ? std::string::npos : slash);
    const auto colon = out.find(':', scheme + 3);
    if (at != std::string::npos && at > scheme && colon != std::string::npos && colon < at) {
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
    }
  } else if (const auto at = out.rfind('@'); at != std::string::npos) {
    // scheme:user:PASSWORD@host (no "//"): everything between the second ':' and the '@'.
    const auto first = out.find(':');
    const auto second = first == std::string::npos ? std::string::npos : out.find(':', first + 1);
    if (second != std::string::npos && second < at) out = out.substr(0, second + 1) + "***" + out.substr(at);
  }
  // password=… as a URL query (?password=, &password=) or a libpq keyword
  // (password=… up to a space); "***" holds no "password=", so this ends.
  for (auto at = lower(out).find("password="); at != std::string::npos; at = lower(out).find("password=", at + 1)) {
    const auto start = at + 9;
    const auto end = out.find_first_of("& ", start);
    out = out.substr(0, start) + "***" + (end == std::string::npos ? std::string() : out.substr(end));
  }
  return out;
}

std::string refuse_non_sqlite_location(const std::string& location) {
  const std::string l = lower(location);
  const bool has_scheme = l.find("://") != std::string::npos;
  const bool keywords = l.find('=') != std::string::npos &&
                        (l.find("host=") != std::string::npos || l.find("dbname=") != std::string::npos ||
                         l.find("password=") != std::string::npos || l.find("user=") != std::string::npos);
  const bool pg_like = (l.rfind("postgres", 0) == 0 || l.rfind("pg:", 0) == 0) && l.find(':') != std::string::npos;
  if (!has_scheme && !keywords && !pg_like) return "";
  return mask_postgres_password(location) +
         ": neither a SQLite file nor a PostgreSQL URL: give a file path, or postgresql://USER@HOST[:PORT]/DBNAME "
         "(postgres:// also works; a libpq keyword string is not taken as a file name)";
}

#if !defined(MOEBENCH_HAVE_LIBPQ)
Expected<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url, bool) {
  return make_error(mask_postgres_password(url) +
                    ": this moebench was built without libpq, so it cannot reach a PostgreSQL history database; "
                    "use a SQLite file (--db FILE), or rebuild with libpq-dev installed (a native build does)");
}
#else
Expected<std::unique_ptr<SqlConnection>> open_postgres(const std::string& url, bool read_only) {
  const std::string label = mask_postgres_password(url);
  // libpq ends the user information at the first '@': a second one would
  // send part of the password as the host name, and libpq's error would
  // print it. Refused before anything is sent.
  // Only the part before any query is looked at: '@' may be in a parameter.
  const std::size_t scheme_end = url.find("://");
  const std::string head = url.substr(0, url.find('?'));
  const std::size_t last_at = head.rfind('@');
  if (scheme_end != std::string::npos && last_at != std::string::npos && last_at > scheme_end &&
      head.find('@', scheme_end + 3) < last_at) {
    return make_error(url.substr(0, scheme_end + 3) + "…: the user name or password holds '@', which a URL writes "
                      "as %40 (libpq would take what follows the first '@' as the host); nothing was sent");
  }
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {url.c_str(), "10", "moebench", nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  if (conn == nullptr) return make_error(label + ": cannot connect (out of memory)");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    // libpq quotes a URL it cannot parse: never the password.
    for (auto at = message.find(url); !url.empty() && at != std::string::npos; at = message.find(url, at + label.size())) {
      message.replace(at, url.size(), label);
    }
    return make_error(label + ": cannot connect to the PostgreSQL history database (is the server running, the URL "
                              "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE right?) (postgresql: " +
                      message + ")");
  }
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);
  auto c = std::make_unique<PgConnection>(conn, label);
  // Doubles as shortest exact text, also from servers older than 12.
  if (Status st = c->exec("SET client_min_messages = warning; SET extra_float_digits = 3"); !st) {
    return make_error(label + ": " + st.error().message);
  }
  if (read_only) {
    if (Status st = c->exec("SET default_transaction_read_only = on"); !st) {
      return make_error(label + ": " + st.error().message);
    }
  }
  return std::unique_ptr<SqlConnection>(std::move(c));
}
#endif  // MOEBENCH_HAVE_LIBPQ

}  // namespace moebench
