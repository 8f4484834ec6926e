// postgres_location_test.cpp — a history location is a SQLite file or a
// PostgreSQL URL: any spelling of the scheme is PostgreSQL, anything else
// that looks like a database address is refused without printing its
// password, and never becomes a file named after it.
#include <catch2/catch.hpp>

#include "reports/history_db.h"
#include "reports/sql_connection.h"
#include "test_support.h"

using namespace moebench;

TEST_CASE("a postgres URL is told apart in any letter case", "[history]") {
  CHECK(is_postgres_url("postgresql://u@h/db"));
  CHECK(is_postgres_url("PostgreSQL://u@h/db"));
  CHECK(is_postgres_url("POSTGRES://u@h/db"));
  CHECK_FALSE(is_postgres_url("history.db"));
  CHECK_FALSE(is_postgres_url("pg://u@h/db"));
}

TEST_CASE("the password is masked whatever it holds and however the address is written", "[history]") {
  CHECK(mask_postgres_password("postgresql://u:s3cr3t@h/db") == "postgresql://u:***@h/db");
  CHECK(mask_postgres_password("postgresql://u:p@ss@h:5432/db") == "postgresql://u:***@h:5432/db");  // an unescaped '@'
  CHECK(mask_postgres_password("postgresql:u:s3cr3t@h/db") == "postgresql:u:***@h/db");
  CHECK(mask_postgres_password("postgresql://u@h/db?sslmode=require&password=s3cr3t") ==
        "postgresql://u@h/db?sslmode=require&password=***");
  CHECK(mask_postgres_password("host=h password=s3cr3t dbname=x") == "host=h password=*** dbname=x");
  for (const char* with : {"pg://u:s3cr3t@h/db", "postgressql://u:s3cr3t@h/db", "host=h password=s3cr3t dbname=x",
                           "PASSWORD=s3cr3t host=h"}) {
    CHECK(mask_postgres_password(with).find("s3cr3t") == std::string::npos);
  }
}

TEST_CASE("a database address that is not PostgreSQL is refused, not made a SQLite file", "[history]") {
  testing::TempDir dir;
  for (const std::string bad : {"pg://u:s3cr3t@h/db", "postgressql://u:s3cr3t@h/db", "postgresql:u:s3cr3t@h/db",
                                "host=h password=s3cr3t dbname=x"}) {
    INFO(bad);
    auto h = HistoryDb::open(bad, HistoryDb::Mode::kReadWrite);
    REQUIRE_FALSE(h.ok());
    CHECK(h.error().message.find("s3cr3t") == std::string::npos);
    CHECK(h.error().message.find("neither a SQLite file nor a PostgreSQL URL") != std::string::npos);
  }
  // A plain file, even one named after the server software, is a SQLite file.
  auto ok = HistoryDb::open(dir.file("postgres-history.db"), HistoryDb::Mode::kReadWrite);
  CHECK(ok.ok());
}
