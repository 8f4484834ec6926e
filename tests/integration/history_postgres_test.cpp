// history_postgres_test.cpp — `moebench history` over a real PostgreSQL
// server (pg_server.h: Debian's postgresql, started in a temporary
// directory and stopped by the test):
//   - two processes add twelve different runs at once: all twelve stored,
//     each once, every row, metric and sample;
//   - two processes add the same six runs at once into an empty database
//     (both racing to create the schema too): six runs, nothing doubled;
//   - `history show` and `history runs` print the same over PostgreSQL as
//     over SQLite for the same files (the store's name aside);
//   - a wrong URL or a database that is not a history is refused by name,
//     the password masked.
#include <catch2/catch.hpp>

#include <regex>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"

#include "pg_server.h"
#include "process.h"
#include "../unit/test_support.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

const char* kSweep = R"({"name": "pg", "repetitions": 3, "warmup": 0, "seed": 5,
  "axes": {"engine": ["null:sleep_ms=1"], "model": ["tiny-moe"], "quant": ["mxfp4", "q8_0"],
           "context_tokens": [0, 128], "gen_tokens": [4]}})";

// Copies of one real results.json as `count` different runs: run ids (and
// start times) rewritten in the environment and every row.
std::vector<std::string> run_variants(const TempDir& dir, const std::string& results, const std::string& tag,
                                      int count) {
  const Json base = Json::parse(read_file(results).value());
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    Json j = base;
    const std::string id = "20261202T1" + std::to_string(i) + "0000Z-" + tag + std::to_string(i);
    j["environments"][0]["run_id"] = id;
    j["environments"][0]["started_at"] = "2026-12-02T1" + std::to_string(i) + ":00:00Z";
    for (Json& row : j["rows"]) row["run_id"] = id;
    const std::string path = dir.file(tag + std::to_string(i) + ".json");
    REQUIRE(write_file_atomic(path, j.dump(1)).ok());
    files.push_back(path);
  }
  return files;
}

std::vector<std::string> add_args(const std::vector<std::string>& files, const std::string& db) {
  std::vector<std::string> a = {"history", "add"};
  a.insert(a.end(), files.begin(), files.end());
  a.push_back("--db");
  a.push_back(db);
  return a;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("history over PostgreSQL: concurrent writers, and the same answers as SQLite", "[integration][postgres]") {
  if (!server_available(!PgServer::bindir().empty(), "PostgreSQL (Debian package postgresql)")) return;
  TempDir dir;
  PgServer pg(dir.path());
  pg.psql("CREATE DATABASE fleet");
  pg.psql("CREATE DATABASE race");
  const std::string url = pg.url("fleet");

  const std::string sweep = dir.file("pg.json");
  REQUIRE(write_file_atomic(sweep, kSweep).ok());
  Finished run = run_moebench({"run", sweep, "--out", dir.file("r"), "--quiet", "--print", "none"}, dir.path(), "run");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<std::string> a = run_variants(dir, dir.file("r/results.json"), "a", 6);
  const std::vector<std::string> b = run_variants(dir, dir.file("r/results.json"), "b", 6);

  // Two writers of different runs at once.
  Spawned wa = spawn_moebench(add_args(a, url), dir.path(), "wa");
  Spawned wb = spawn_moebench(add_args(b, url), dir.path(), "wb");
  Finished fa = wait_for(wa), fb = wait_for(wb);
  INFO(fa.out << fa.err << fb.out << fb.err);
  REQUIRE(fa.exit_code == 0);
  REQUIRE(fb.exit_code == 0);
  CHECK(pg.psql("SELECT count(*) FROM runs", "fleet") == "12\n");
  CHECK(pg.psql("SELECT count(*) FROM rows", "fleet") == "48\n");
  CHECK(pg.psql("SELECT count(*) FROM (SELECT run_id, point_id FROM rows GROUP BY 1, 2 HAVING count(*) > 1) d",
                "fleet") == "0\n");
  CHECK(pg.psql("SELECT count(*) FROM samples s JOIN metrics m USING (row_id, metric) WHERE m.n = 3", "fleet") !=
        "0\n");

  // Two writers of the same runs at once, into an empty database.
  const std::string race = pg.url("race");
  Spawned r1 = spawn_moebench(add_args(a, race), dir.path(), "r1");
  Spawned r2 = spawn_moebench(add_args(a, race), dir.path(), "r2");
  Finished f1 = wait_for(r1), f2 = wait_for(r2);
  INFO(f1.out << f1.err << f2.out << f2.err);
  REQUIRE(f1.exit_code == 0);
  REQUIRE(f2.exit_code == 0);
  CHECK(pg.psql("SELECT count(*) FROM runs", "race") == "6\n");
  CHECK(pg.psql("SELECT count(*) FROM rows", "race") == "24\n");
  CHECK(pg.psql("SELECT count(*) FROM schema_version", "race") == "1\n");

  // The same files in SQLite: the same answers.
  const std::string lite = dir.file("h.sqlite");
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  Finished added = run_moebench(add_args(all, lite), dir.path(), "lite");
  REQUIRE(added.exit_code == 0);
  for (const std::vector<std::string>& view :
       {std::vector<std::string>{"history", "show"}, std::vector<std::string>{"history", "show", "--format", "json"},
        std::vector<std::string>{"history", "show", "--metric", "ttft_s", "--format", "md"},
        std::vector<std::string>{"history", "runs"}}) {
    std::vector<std::string> over_pg = view, over_lite = view;
    over_pg.insert(over_pg.end(), {"--db", url});
    over_lite.insert(over_lite.end(), {"--db", lite});
    Finished p = run_moebench(over_pg, dir.path(), "pg");
    Finished l = run_moebench(over_lite, dir.path(), "sqlite");
    INFO(command_line(over_pg) << "\n" << p.err << l.err);
    REQUIRE(p.exit_code == 0);
    REQUIRE(l.exit_code == 0);
    CHECK(p.out.size() > 200);
    // `history runs` ends each line with when the run was added: not the same moment.
    const std::regex added_at(R"(\| [0-9T:-]+Z \|\n)");
    CHECK(std::regex_replace(replace_all(p.out, url, "DB"), added_at, "| ADDED |\n") ==
          std::regex_replace(replace_all(l.out, lite, "DB"), added_at, "| ADDED |\n"));
  }

  // Refusals name the store, never its password.
  Finished wrong = run_moebench({"history", "runs", "--db",
                                 "postgresql://moebench:s3cret@127.0.0.1:" + std::to_string(free_tcp_port()) + "/x"},
                                dir.path(), "wrong");
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("cannot connect") != std::string::npos);
  CHECK(wrong.err.find("moebench:***@127.0.0.1") != std::string::npos);
  CHECK(wrong.err.find("s3cret") == std::string::npos);
  Finished query_pw = run_moebench({"history", "runs", "--db",
                                    "postgresql://moebench@127.0.0.1:" + std::to_string(free_tcp_port()) +
                                        "/x?sslmode=disable&password=s3cret"},
                                   dir.path(), "query_pw");
  CHECK(query_pw.exit_code == 2);
  CHECK(query_pw.err.find("password=***") != std::string::npos);
  CHECK(query_pw.err.find("s3cret") == std::string::npos);
  Finished bad_uri = run_moebench({"history", "runs", "--db", "postgresql://moebench:s3cret@[::1/x"}, dir.path(),
                                  "bad_uri");
  CHECK(bad_uri.exit_code == 2);
  CHECK(bad_uri.err.find("s3cret") == std::string::npos);
  pg.psql("CREATE DATABASE other");
  pg.psql("CREATE TABLE t (x int)", "other");
  Finished other = run_moebench(add_args({a[0]}, pg.url("other")), dir.path(), "other");
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("not a moebench history database") != std::string::npos);
  Finished empty = run_moebench({"history", "show", "--db", pg.url("postgres")}, dir.path(), "empty");
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("no history yet") != std::string::npos);
}
