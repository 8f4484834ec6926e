// fleet_test.cpp — many machines in one view:
//   1. build_fleet_view sets one sweep's points side by side per machine
//      (decode, TTFT, bytes per token, price per tok/s), shows a machine's
//      latest run, and refuses runs of different sweeps;
//   2. a stored run comes back from the history database as the results it
//      was (HistoryDb::load_run), and `history machines` lists who ran what;
//   3. `plan --measured-db`: machines measured with the planned model rank
//      first on their measured rate, marked, and predictions follow.
#include <catch2/catch.hpp>

#include "harness/machine_plan.h"
#include "reports/fleet_view.h"
#include "reports/history_db.h"
#include "vocab/metrics.h"
#include "vocab/stats.h"

#include "test_support.h"

using namespace moebench;

namespace {

Environment env_at(const std::string& run_id, const std::string& started_at) {
  Environment e = testing::fixed_environment(run_id);
  e.git_commit = "abc";
  e.hostname = "h-" + run_id;
  e.started_at = started_at;
  return e;
}

ResultRow row_on(std::size_t index, const std::string& machine, const Environment& env, double tok_s,
                 const std::string& model = "tiny-moe", Scale scale = {2, 4}, const std::string& metric_name = "") {
  ResultRow r;
  r.point.index = index;
  r.point.engine.name = "resident";
  r.point.model = model;
  r.point.scale = scale;
  r.point.quant = "mxfp4";
  r.point.context_tokens = static_cast<std::int64_t>(index) * 1024;
  r.provenance = "measured";
  r.run_id = env.run_id;
  r.machine = machine;
  r.build = env.build_label();
  r.repetitions = 2;
  r.metrics[metric::kDecodeTokS] = summarize({tok_s, tok_s * 1.01});
  r.samples[metric::kDecodeTokS] = {tok_s, tok_s * 1.01};
  r.metrics[metric::kTtftS] = summarize({0.5, 0.52});
  r.metrics[metric::kReadBytesPerToken] = summarize({2e9, 2e9});
  if (!metric_name.empty()) r.metrics[metric_name] = summarize({tok_s / 10, tok_s / 10});
  return r;
}

RunResults run_on(const std::string& machine, const std::string& run_id, const std::string& started_at, double scale_tok_s,
                  const std::string& digest = "d1") {
  RunResults r;
  r.sweep.name = "fleet";
  r.sweep.digest = digest;
  r.sweep.points_total = 2;
  r.sweep.repetitions = 2;
  r.environments = {env_at(run_id, started_at)};
  r.rows = {row_on(0, machine, r.environments[0], 10 * scale_tok_s), row_on(1, machine, r.environments[0], 5 * scale_tok_s)};
  return r;
}

}  // namespace

TEST_CASE("fleet view: one sweep, machines side by side, with price per tok/s", "[fleet]") {
  const std::vector<RunResults> runs = {run_on("box-a", "ra1", "2026-12-01T10:00:00Z", 1.0),
                                        run_on("box-b", "rb1", "2026-12-01T11:00:00Z", 2.0),
                                        run_on("box-a", "ra2", "2026-12-02T10:00:00Z", 1.5)};
  const std::map<std::string, FleetPrice> prices = {{"box-b", FleetPrice{4000, "purchase", "configs/hardware/box-b.json"}}};
  auto v = build_fleet_view(runs, prices);
  REQUIRE(v);
  CHECK(v->machines == std::vector<std::string>{"box-a", "box-b"});
  REQUIRE(v->rows.size() == 2);
  // box-a's latest run (ra2) is the one shown.
  CHECK(v->rows[0].cells.at("box-a").run_id == "ra2");
  CHECK(*v->rows[0].cells.at("box-a").decode_tok_s == Approx(15 * 1.005));
  // Price per tok/s: $4000 / 20.1 tok/s.
  CHECK(*v->rows[0].cells.at("box-b").usd_per_tok_s == Approx(4000 / (20 * 1.005)));
  CHECK_FALSE(v->rows[0].cells.at("box-a").usd_per_tok_s);
  const std::string md = write_fleet_markdown(*v);
  CHECK(md.find("| # | point | box-a | box-b |") != std::string::npos);
  CHECK(md.find("$199 per tok/s") != std::string::npos);
  CHECK(md.find("box-a: 2 runs; each point shows its latest") != std::string::npos);
  CHECK(md.find("box-a: no price in its profile") != std::string::npos);
  const std::string html = write_fleet_html(*v, "fleet <test>");
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("fleet &lt;test&gt;") != std::string::npos);

  std::vector<RunResults> mixed = runs;
  mixed.push_back(run_on("box-c", "rc1", "2026-12-01T12:00:00Z", 1.0, "d2"));
  auto refused = build_fleet_view(mixed, prices);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("run the same sweep on every machine") != std::string::npos);
}

TEST_CASE("history: a stored run comes back as it was, and its machines are listed", "[fleet][history]") {
  testing::TempDir dir;
  auto db = HistoryDb::open(dir.file("h.sqlite"), HistoryDb::Mode::kReadWrite);
  REQUIRE(db);
  const RunResults a = run_on("box-a", "ra1", "2026-12-01T10:00:00Z", 1.0);
  REQUIRE(db->add(a, "/a/results.json"));
  REQUIRE(db->add(run_on("box-b", "rb1", "2026-12-01T11:00:00Z", 2.0), "/b/results.json"));
  auto back = db->load_run("ra1");
  REQUIRE(back);
  CHECK(back->sweep.digest == a.sweep.digest);
  CHECK(back->environments.size() == 1);
  CHECK(back->environments[0].hostname == "h-ra1");
  REQUIRE(back->rows.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back->rows[i].point.id() == a.rows[i].point.id());
    CHECK(back->rows[i].point.index == i);
    CHECK(back->rows[i].metrics.at(metric::kDecodeTokS).median == a.rows[i].metrics.at(metric::kDecodeTokS).median);
    CHECK(back->rows[i].samples.at(metric::kDecodeTokS) == a.rows[i].samples.at(metric::kDecodeTokS));
  }
  auto missing = db->load_run("nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("run nope is not stored") != std::string::npos);
  auto machines = db->machines();
  REQUIRE(machines);
  REQUIRE(machines->size() == 2);
  CHECK((*machines)[0].machine == "box-a");
  CHECK((*machines)[0].runs == 1);
  CHECK((*machines)[0].rows == 2);
  CHECK((*machines)[0].sweeps == std::vector<std::string>{"fleet"});
}

TEST_CASE("plan --measured-db: measured machines first, marked, on their measured rate", "[fleet][plan]") {
  testing::TempDir dir;
  auto db = HistoryDb::open(dir.file("h.sqlite"), HistoryDb::Mode::kReadWrite);
  REQUIRE(db);
  // dgx-spark measured kimi-k3 at a reduced scale: its full-model figure counts.
  RunResults spark;
  spark.sweep.name = "k3";
  spark.sweep.digest = "k3d";
  spark.sweep.points_total = 1;
  spark.environments = {env_at("rs", "2026-12-02T09:00:00Z")};
  spark.rows = {row_on(0, "dgx-spark", spark.environments[0], 8.0, "kimi-k3", {2, 64}, metric::kFullDecodeTokS)};
  REQUIRE(db->add(spark, "/spark/results.json"));

  const ConfigStore& store = testing::shipped_store();
  auto card = store.card("kimi-k3");
  REQUIRE(card);
  PlanRequest req{"kimi-k3", "mxfp4", 0.5, 4096, 1000, 0};
  auto rows = plan_machines(store, *card, req, {"dgx-spark", "apple-m5-24gb", "epyc-9965-1s-768gb"}, "");
  REQUIRE(rows);
  auto measured = measured_from_history(*db, req, *rows);
  REQUIRE(measured);
  REQUIRE(measured->size() == 1);
  CHECK(measured->at("dgx-spark").metric == metric::kFullDecodeTokS);
  CHECK(measured->at("dgx-spark").tok_s == Approx(0.8));
  rank_measured_first(*rows, *measured, req);
  CHECK(rows->front().profile == "dgx-spark");
  CHECK(rows->front().meets);
  CHECK(rows->front().reason.find("measured 0.800 tok/s (full_decode_tok_s of run rs") != std::string::npos);
  const std::string table = write_plan_table(req, *rows);
  CHECK(table.find("| 1 | dgx-spark | measured | yes | 0.800 (measured) |") != std::string::npos);
  CHECK(table.find("| predicted |") != std::string::npos);
  // Without a measured row the table keeps its usual columns.
  auto plain = plan_machines(store, *card, req, {"dgx-spark"}, "");
  REQUIRE(plain);
  CHECK(write_plan_table(req, *plain).find("basis") == std::string::npos);
}
