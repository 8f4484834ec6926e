// fleet_cli_test.cpp — the fleet view through the binary: one sweep run as
// two machines (two catalog profiles named with --machine), set side by
// side by `report --fleet` (markdown + HTML) and, after `history add`, by
// `history machines`.
#include <catch2/catch.hpp>

#include "vocab/file_io.h"

#include "process.h"
#include "../unit/test_support.h"

using namespace moebench;
using namespace moebench::testing;

TEST_CASE("fleet: one sweep on two machines, side by side in the report and the history", "[integration][fleet]") {
  TempDir dir;
  const std::string sweep = dir.file("f.json");
  REQUIRE(write_file_atomic(sweep, R"({"name": "fleet", "repetitions": 2, "warmup": 0, "seed": 9,
    "axes": {"engine": ["null:sleep_ms=1"], "model": ["tiny-moe"], "quant": ["mxfp4", "q8_0"], "gen_tokens": [4]}})")
              .ok());
  for (const char* m : {"dgx-spark", "ryzen-9900x-ddr5-6000"}) {
    Finished r = run_moebench({"run", sweep, "--machine", m, "--out", dir.file(m), "--quiet", "--print", "none"},
                              dir.path(), m);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const std::string a = dir.file("dgx-spark/results.json"), b = dir.file("ryzen-9900x-ddr5-6000/results.json");
  Finished rep = run_moebench({"report", "--fleet", a, b, "--html", dir.file("fleet.html"), "--md", dir.file("fleet.md")},
                              dir.path(), "fleet");
  INFO(rep.err);
  REQUIRE(rep.exit_code == 0);
  CHECK(rep.out.find("| # | point | dgx-spark | ryzen-9900x-ddr5-6000 |") != std::string::npos);
  CHECK(rep.out.find("per tok/s") != std::string::npos);  // dgx-spark's profile has a price
  CHECK(read_file(dir.file("fleet.md")).value() == rep.out);
  const std::string html = read_file(dir.file("fleet.html")).value();
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("ryzen-9900x-ddr5-6000") != std::string::npos);

  Finished one = run_moebench({"report", a, b, "--html", dir.file("x.html")}, dir.path(), "one");
  CHECK(one.exit_code == 1);
  CHECK(one.err.find("several with --fleet") != std::string::npos);

  const std::string db = dir.file("h.sqlite");
  REQUIRE(run_moebench({"history", "add", a, b, "--db", db}, dir.path(), "add").exit_code == 0);
  Finished machines = run_moebench({"history", "machines", "--db", db}, dir.path(), "machines");
  INFO(machines.err);
  REQUIRE(machines.exit_code == 0);
  CHECK(machines.out.find("| dgx-spark | 1 | 2 |") != std::string::npos);
  CHECK(machines.out.find("2 machine(s) in") != std::string::npos);
  CHECK(machines.out.find("# Fleet: sweep fleet") != std::string::npos);
  CHECK(machines.out.find("| # | point | dgx-spark | ryzen-9900x-ddr5-6000 |") != std::string::npos);
  Finished none = run_moebench({"history", "machines", "--db", db, "--sweep", "other"}, dir.path(), "none");
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("no run of sweep \"other\"") != std::string::npos);
}
