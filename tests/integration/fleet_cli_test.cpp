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
  // The resident engine on the tiny card: real rows, measured, in a second or two.
  REQUIRE(write_file_atomic(sweep, R"({"name": "fleet", "repetitions": 2, "warmup": 0, "seed": 9,
    "drive_dirs": [")" + dir.file("drives") + R"("],
    "axes": {"engine": ["resident"], "model": ["tiny-moe"], "quant": ["mxfp4", "q8_0"], "gen_tokens": [8]}})")
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
  CHECK(rep.out.find("- dgx-spark: run ") != std::string::npos);  // which host measured each machine
  CHECK(read_file(dir.file("fleet.md")).value() == rep.out);
  const std::string html = read_file(dir.file("fleet.html")).value();
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("ryzen-9900x-ddr5-6000") != std::string::npos);

  Finished one = run_moebench({"report", a, b, "--html", dir.file("x.html")}, dir.path(), "one");
  CHECK(one.exit_code == 2);
  CHECK(one.err.find("several with --fleet") != std::string::npos);
  // A run's --out directory stands for its results.json, as compare takes it.
  Finished from_dir = run_moebench({"report", dir.file("dgx-spark"), "--html", dir.file("d.html")}, dir.path(), "dir");
  INFO(from_dir.err);
  CHECK(from_dir.exit_code == 0);
  CHECK(read_file(dir.file("d.html")).value().find("<svg") != std::string::npos);

  const std::string db = dir.file("h.sqlite");
  REQUIRE(run_moebench({"history", "add", a, b, "--db", db}, dir.path(), "add").exit_code == 0);
  Finished machines = run_moebench({"history", "machines", "--db", db}, dir.path(), "machines");
  INFO(machines.err);
  REQUIRE(machines.exit_code == 0);
  CHECK(machines.out.find("| dgx-spark | 1 | 2 |") != std::string::npos);
  CHECK(machines.out.find("2 machine(s) in") != std::string::npos);
  CHECK(machines.out.find("# Fleet: sweep fleet") != std::string::npos);
  CHECK(machines.out.find("| # | point | dgx-spark | ryzen-9900x-ddr5-6000 |") != std::string::npos);
  // The buying plan: both machines measured the tiny card in mxfp4, so they
  // rank first, on their measured rate, marked; the catalog follows, predicted.
  Finished plan = run_moebench({"plan", "--model", "tiny-moe", "--quant", "mxfp4", "--min-decode-tok-s", "1",
                                "--measured-db", db},
                               dir.path(), "plan");
  INFO(plan.err);
  REQUIRE(plan.exit_code == 0);
  CHECK(plan.err.find("2 of ") != std::string::npos);
  // The ranked lines: "| RANK | MACHINE | BASIS | ...".
  auto ranked = [&](int rank) {
    const std::string head = "| " + std::to_string(rank) + " | ";
    const std::size_t at = plan.out.find("\n" + head);
    return at == std::string::npos ? std::string() : plan.out.substr(at + 1, plan.out.find('\n', at + 1) - at - 1);
  };
  for (int rank : {1, 2}) {
    INFO(plan.out);
    CHECK(ranked(rank).find(" | measured | yes | ") != std::string::npos);
    CHECK(ranked(rank).find(" (measured) | ") != std::string::npos);
  }
  CHECK((ranked(1) + ranked(2)).find("dgx-spark") != std::string::npos);
  CHECK((ranked(1) + ranked(2)).find("ryzen-9900x-ddr5-6000") != std::string::npos);
  CHECK(ranked(3).find(" | predicted | ") != std::string::npos);
  Finished none = run_moebench({"history", "machines", "--db", db, "--sweep", "other"}, dir.path(), "none");
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("no run of sweep \"other\"") != std::string::npos);
}
