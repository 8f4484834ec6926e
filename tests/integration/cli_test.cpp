// cli_test.cpp — the moebench binary end to end: kill -9 and --resume, the
// hard timeout watchdog, SIGINT, validate on every broken config, schema,
// and a run that prints the markdown table.
#include <catch2/catch.hpp>

#include <fcntl.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "../unit/test_support.h"
#include "engines/container/gguf.h"
#include "vocab/columns.h"
#include "harness/journal.h"
#include "process.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

// 24 points, each about 2 repetitions × 4 tokens × 15 ms of real sleep.
const char* kSlowSweep = R"({"name": "slow", "repetitions": 2, "warmup": 0, "seed": 7,
  "axes": {"engine": ["ENGINE"], "model": ["tiny-moe"],
           "quant": ["mxfp4", "q8_0"], "ram_budget": ["1MiB", "2MiB", "4MiB"],
           "drives": [1, 2], "context_tokens": [0, 128], "gen_tokens": [4]}})";

std::string write_sweep(const TempDir& dir, const std::string& engine, const std::string& name = "sweep.json") {
  std::string s = kSlowSweep;
  s.replace(s.find("ENGINE"), 6, engine);
  REQUIRE(write_file_atomic(dir.file(name), s).ok());
  return dir.file(name);
}


Json results_json(const std::string& out_dir) {
  return Json::parse(read_file(out_dir + "/results.json").value());
}

}  // namespace

TEST_CASE("kill -9 mid-sweep, then --resume: every point exactly once", "[integration]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "null:sleep_ms=15");
  const std::string out = dir.file("out");
  const std::string journal = out + "/journal.jsonl";

  Spawned first = spawn_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path(), "first");
  REQUIRE(first.pid > 0);
  // Header line + at least 6 rows, then kill without warning.
  wait_until([&] { return count_lines(journal) >= 7; }, 60);
  REQUIRE(kill(first.pid, SIGKILL) == 0);
  Finished killed = wait_for(first);
  REQUIRE(killed.signal == SIGKILL);
  auto before = read_journal(journal);
  REQUIRE(before.ok());
  const std::size_t done_before = before->rows.size();
  INFO("rows before kill: " << done_before);
  REQUIRE(done_before >= 6);
  REQUIRE(done_before < 24);

  Finished resumed = run_moebench({"run", sweep, "--out", out, "--resume", "--quiet"}, dir.path(), "resume");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);

  const Json j = results_json(out);
  REQUIRE(j["rows"].size() == 24);
  std::set<std::string> ids;
  std::set<std::size_t> indexes;
  for (const Json& row : j["rows"]) {
    ids.insert(row["point_id"].get<std::string>());
    indexes.insert(row["index"].get<std::size_t>());
    CHECK(row["status"] == "ok");
  }
  CHECK(ids.size() == 24);
  CHECK(indexes.size() == 24);
  CHECK(*indexes.rbegin() == 23);
  // Rows finished before the kill are kept as they were (first run's id).
  REQUIRE(j["environments"].size() == 2);
  const std::string first_run = j["environments"][0]["run_id"];
  std::size_t from_first = 0;
  for (const Json& row : j["rows"]) from_first += row["run_id"] == first_run ? 1 : 0;
  CHECK(from_first == done_before);
  // The journal itself holds each point once.
  auto after = read_journal(journal);
  REQUIRE(after.ok());
  CHECK(after->rows.size() == 24);
  CHECK(count_lines(journal) == 1 + 1 + 24);  // header, resume segment, rows
}

TEST_CASE("an engine that ignores its timeout is recorded as failed and --resume goes on", "[integration]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "null:hang_hard_at=2");
  const std::string out = dir.file("out");
  // The watchdog must fire at point 2 (it ignores cancellation); points 0
  // and 1 (null engine, microseconds of work) must not time out first. The
  // limits leave seconds of slack for a loaded machine: a timeout that
  // fires is what is tested, not how fast anything runs.
  Finished f = run_moebench({"run", sweep, "--out", out, "--quiet", "--timeout", "2", "--hard-grace", "1"},
                            dir.path(), "hang");
  INFO(f.err);
  CHECK(f.exit_code == 124);
  CHECK(f.err.find("--resume") != std::string::npos);
  auto j = read_journal(out + "/journal.jsonl");
  REQUIRE(j.ok());
  REQUIRE(j->rows.size() == 3);
  CHECK(j->rows[0].status == RowStatus::kOk);
  CHECK(j->rows[1].status == RowStatus::kOk);
  CHECK(j->rows[2].status == RowStatus::kFailed);
  CHECK(j->rows[2].reason.find("engine did not stop") != std::string::npos);

  Finished r = run_moebench({"run", sweep, "--out", out, "--quiet", "--resume"}, dir.path(), "resume");
  CHECK(r.exit_code == 0);
  const Json res = results_json(out);
  REQUIRE(res["rows"].size() == 24);
  CHECK(res["rows"][2]["status"] == "failed");
  CHECK(res["rows"][3]["status"] == "ok");
}

TEST_CASE("SIGINT stops after saving finished points, --resume completes", "[integration]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "null:sleep_ms=15");
  const std::string out = dir.file("out");
  Spawned s = spawn_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path(), "int");
  wait_until([&] { return count_lines(out + "/journal.jsonl") >= 3; }, 60);
  kill(s.pid, SIGINT);
  Finished f = wait_for(s);
  CHECK(f.exit_code == 130);
  CHECK(f.err.find("--resume") != std::string::npos);
  CHECK(std::filesystem::exists(out + "/results.md"));
  Finished r = run_moebench({"run", sweep, "--out", out, "--quiet", "--resume"}, dir.path(), "resume");
  CHECK(r.exit_code == 0);
  CHECK(results_json(out)["rows"].size() == 24);
}

TEST_CASE("resuming with a changed sweep is refused, an existing run needs --resume or --fresh", "[integration]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir, "null");
  const std::string out = dir.file("out");
  REQUIRE(run_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path()).exit_code == 0);
  Finished again = run_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path(), "again");
  CHECK(again.exit_code == 2);
  CHECK(again.err.find("pass --resume to continue it, --fresh to discard it") != std::string::npos);
  const std::string changed = write_sweep(dir, "null:sleep_ms=1", "changed.json");
  Finished mixed = run_moebench({"run", changed, "--out", out, "--quiet", "--resume"}, dir.path(), "mixed");
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("different sweep") != std::string::npos);
  CHECK(run_moebench({"run", changed, "--out", out, "--quiet", "--fresh"}, dir.path()).exit_code == 0);
}

TEST_CASE("run prints the markdown table and writes every format", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("out");
  // The null-engine sweep the embedded default was before the real engines
  // landed (the real one takes minutes and ~36 GB of containers).
  Finished f = run_moebench({"run", std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json", "--out", out, "--quiet"},
                            dir.path(), "quick");
  INFO(f.err);
  REQUIRE(f.exit_code == 0);
  CHECK(f.out.find("# moebench results: quick") != std::string::npos);
  CHECK(f.out.find("SYNTHETIC DATA") != std::string::npos);
  CHECK(f.out.find("| engine | model |") != std::string::npos);
  CHECK(f.out.find("Status: 24 ok") != std::string::npos);
  for (const char* name : {"results.md", "results.csv", "results.json", "results.jsonl", "journal.jsonl"}) {
    CHECK(std::filesystem::exists(out + "/" + name));
  }
  CHECK(count_lines(out + "/results.csv") == 25);
  CHECK(count_lines(out + "/results.jsonl") == 24);
}

TEST_CASE("validate: every broken config fails cleanly with its file and path", "[integration]") {
  TempDir dir;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(MOEBENCH_TEST_DATA) + "/broken")) {
    if (e.is_regular_file()) files.push_back(e.path().string());
  }
  REQUIRE(files.size() >= 10);
  for (const std::string& file : files) {
    Finished f = run_moebench({"validate", file}, dir.path());
    INFO(file << "\n" << f.out << f.err);
    CHECK(f.signal == 0);
    CHECK(f.exit_code == 1);
    CHECK(f.out.find(file + ":") == 0);
  }
  Finished good = run_moebench({"validate", std::string(MOEBENCH_SOURCE_DIR) + "/configs/sweeps/quick.json"},
                               dir.path(), "good");
  CHECK(good.exit_code == 0);
  CHECK(good.out.find("36 points") != std::string::npos);
}

TEST_CASE("schema lists every column with its unit", "[integration]") {
  TempDir dir;
  Finished f = run_moebench({"schema"}, dir.path());
  REQUIRE(f.exit_code == 0);
  for (const Column& c : result_columns()) {
    INFO(c.name);
    CHECK(f.out.find("| `" + c.name + "` | " + (c.unit.empty() ? "-" : c.unit) + " |") != std::string::npos);
  }
}

TEST_CASE("probe writes a valid profile even when parts cannot be measured", "[integration][probe]") {
  TempDir dir;
  const std::string drive = dir.file("drive");
  std::filesystem::create_directories(drive);
  const std::string out = dir.file("m.json");
  Finished f = run_moebench({"probe", "--quick", "--quiet", "--drive", "/nonexistent/moebench-drive", "--drive", drive,
                             "--file-size", "32MiB", "--max-touch", "256MiB", "--no-fio", "--out", out},
                            dir.path(), "probe");
  INFO(f.err << f.out);
  REQUIRE(f.exit_code == 0);
  CHECK(f.err.find("expected to take about") != std::string::npos);
  CHECK(f.out.find("Machine profile") != std::string::npos);
  CHECK(f.out.find("/nonexistent/moebench-drive: drive directory does not exist") != std::string::npos);
  CHECK(f.out.find("not run (--no-fio)") != std::string::npos);
  Finished v = run_moebench({"validate", "--kind", "machine", out}, dir.path(), "validate");
  CHECK(v.exit_code == 0);
  const Json j = Json::parse(read_file(out).value());
  REQUIRE(j["drives"].size() == 1);
  CHECK(j["drives"][0]["path"] == drive);
  CHECK(j["drives"][0]["read_curve"].size() == 5);
  CHECK(j["memory_usable"]["provenance"] == "estimate");  // capped by --max-touch: a range, said so
  CHECK(j["memory_limits"]["touchable"].get<std::uint64_t>() <= (256u << 20));
  CHECK(j["memory_bandwidth"]["cells"].size() >= 3);
  CHECK(j["probe"]["notes"].size() >= 2);
}

TEST_CASE("probe rejects bad sizes with a clear message", "[integration]") {
  TempDir dir;
  Finished f = run_moebench({"probe", "--quick", "--file-size", "lots"}, dir.path(), "bad");
  CHECK(f.exit_code == 2);
  CHECK(f.err.find("--file-size: expected a size like") != std::string::npos);
}

TEST_CASE("container inspect lists every tensor of llama.cpp's files", "[integration]") {
  TempDir dir;
  const std::string gguf_dir = std::string(MOEBENCH_TEST_DATA) + "/gguf/";
  for (const char* name : {"tiny-qwen3moe-BF16.gguf", "tiny-qwen3moe-Q8_0.gguf", "tiny-qwen3moe-Q4_0.gguf",
                           "tiny-qwen3moe-Q4_K.gguf", "tiny-qwen3moe-MXFP4.gguf", "tiny-qwen3moe-Q3_K.gguf",
                           "tiny-qwen3moe-Q2_K.gguf"}) {
    INFO(name);
    Finished f = run_moebench({"container", "inspect", gguf_dir + name}, dir.path());
    REQUIRE(f.exit_code == 0);
    auto g = read_gguf(gguf_dir + name);
    REQUIRE(g.ok());
    for (const GgufTensorInfo& t : g->tensors) CHECK(f.out.find("  " + t.name + " ") != std::string::npos);
    CHECK(f.out.find("tensors (" + std::to_string(g->tensors.size()) + "):") != std::string::npos);
    CHECK(f.out.find("qwen3moe.expert_count") != std::string::npos);
  }
  REQUIRE(write_file_atomic(dir.file("broken.gguf"), std::string("GGUF\x03\0\0\0", 8)).ok());
  Finished bad = run_moebench({"container", "inspect", dir.file("broken.gguf")}, dir.path(), "bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("broken.gguf: at byte 8 (header): the file ends") != std::string::npos);
}

TEST_CASE("card from-gguf writes a card that validates, for every reference file", "[integration]") {
  TempDir dir;
  const std::string gguf_dir = std::string(MOEBENCH_TEST_DATA) + "/gguf/";
  for (const char* q : {"BF16", "Q8_0", "Q4_0", "Q4_K", "MXFP4", "Q3_K", "Q2_K"}) {
    const std::string out = dir.file(std::string("card-") + q + ".json");
    Finished f = run_moebench({"card", "from-gguf", gguf_dir + "tiny-qwen3moe-" + q + ".gguf", "--out", out},
                              dir.path(), q);
    INFO(q << ": " << f.err);
    REQUIRE(f.exit_code == 0);
    Finished v = run_moebench({"validate", "--kind", "model", out}, dir.path(), std::string("v") + q);
    CHECK(v.exit_code == 0);
    CHECK(v.out.find("2 layers (2 MoE), 8 experts, top-2") != std::string::npos);
  }
}

TEST_CASE("container make and verify from the command line, a flipped byte is named", "[integration]") {
  TempDir dir;
  const std::string d0 = dir.file("d0"), d1 = dir.file("d1");
  std::filesystem::create_directories(d0);
  std::filesystem::create_directories(d1);
  Finished make = run_moebench({"container", "make", "--model", "tiny-moe", "--quant", "mxfp4", "--drive", d0,
                                "--drive", d1, "--layout", "stripe", "--packed", "--quiet"},
                               dir.path(), "make");
  INFO(make.err);
  REQUIRE(make.exit_code == 0);
  std::vector<std::string> files;
  for (const auto& d : {d0, d1}) {
    for (const auto& e : std::filesystem::directory_iterator(d)) {
      if (e.path().filename() != ".moebench-make.lock") files.push_back(e.path().string());  // makers take turns on it
    }
  }
  // The trunk file on drive 0, an expert file per drive.
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return (a.find(".trunk-") != std::string::npos) < (b.find(".trunk-") != std::string::npos) ||
           ((a.find(".trunk-") != std::string::npos) == (b.find(".trunk-") != std::string::npos) && a < b);
  });
  REQUIRE(files.size() == 3);
  CHECK(files[2].find(d0 + "/tiny-moe.full.trunk-") == 0);
  CHECK(make.out.find("trunk, written") != std::string::npos);
  std::vector<std::string> args = {"container", "verify"};
  args.insert(args.end(), files.begin(), files.end());
  Finished ok = run_moebench(args, dir.path(), "verify");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("ok: ") != std::string::npos);
  CHECK(ok.out.find("pairs with the trunk file") != std::string::npos);   // drive 0's expert file
  CHECK(ok.out.find("is not beside it") != std::string::npos);            // drive 1's
  Finished again = run_moebench({"container", "make", "--model", "tiny-moe", "--quant", "mxfp4", "--drive", d0,
                                 "--drive", d1, "--layout", "stripe", "--packed", "--quiet"},
                                dir.path(), "again");
  CHECK(again.out.find("trunk, reused") != std::string::npos);
  Finished inspect = run_moebench({"container", "inspect", files[2], files[1]}, dir.path(), "inspect");
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("moebench trunk file") != std::string::npos);
  CHECK(inspect.out.find("moebench expert file") != std::string::npos);
  // Damage the second file's first packed record (expert 1 lives on drive 1).
  auto g = read_gguf(files[1]);
  REQUIRE(g.ok());
  const GgufTensorInfo* packed = nullptr;
  for (const GgufTensorInfo& t : g->tensors) {
    if (packed == nullptr && t.name.find("ffn_exps_packed") != std::string::npos) packed = &t;
  }
  REQUIRE(packed != nullptr);
  {
    std::string bytes = read_file(files[1]).value();
    bytes[g->data_offset + packed->offset + 64] ^= 0x11;
    REQUIRE(write_file_atomic(files[1], bytes).ok());
  }
  Finished bad = run_moebench({"container", "verify", files[1]}, dir.path(), "bad");
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("tensor " + packed->name) != std::string::npos);
  CHECK(bad.out.find("expert 1 of layer") != std::string::npos);
}

TEST_CASE("predict, calibrate, claims and plan end to end", "[integration]") {
  TempDir dir;
  const std::string sweep = dir.file("tiny.json");
  REQUIRE(write_file_atomic(sweep, R"({"name": "tiny", "repetitions": 1, "warmup": 0, "seed": 3,
    "axes": {"engine": ["resident", "streaming"], "model": ["tiny-moe"], "quant": ["mxfp4"],
             "ram_budget": ["1MiB", "1GiB"], "drives": [1, 2], "gen_tokens": [4]}})").ok());
  const std::string out = dir.file("pred");
  Finished p = run_moebench({"predict", sweep, "--machine", "macbook-pro-m5-pro-64gb", "--out", out, "--quiet"}, dir.path(), "predict");
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  const Json rows = results_json(out)["rows"];
  REQUIRE(rows.size() == 8);
  int infeasible = 0;
  for (const Json& r : rows) {
    CHECK(r["provenance"] == "predicted");
    if (r["status"] == "infeasible") ++infeasible;
  }
  CHECK(infeasible >= 2);  // 1 MiB holds neither the container nor the trunk
  // Predicted rows do not calibrate: the command says why.
  Finished c = run_moebench({"calibrate", out + "/results.json", "--machine", "macbook-pro-m5-pro-64gb"}, dir.path(), "calibrate");
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("usable measured rows") != std::string::npos);
  Finished e = run_moebench({"predict", sweep, "--machine", "macbook-pro-m5-pro-64gb", "--explain", "4"}, dir.path(), "explain");
  REQUIRE(e.exit_code == 0);
  CHECK(e.out.find("decode time / token") != std::string::npos);
  // Beside the row: what plan and claims answer for the same setup, and why the two differ.
  CHECK(e.out.find("regime model (as `plan` and `claims`, engine family any)") != std::string::npos);

  Finished cl = run_moebench({"claims"}, dir.path(), "claims");
  INFO(cl.err);
  REQUIRE(cl.exit_code == 0);
  CHECK(cl.out.find("| k3c-k3-epyc-laptop-preset-8gb |") != std::string::npos);
  CHECK(cl.out.find(", io) |") != std::string::npos);  // every judged claim names its regime beside its band ratio
  Finished ex = run_moebench({"claims", "--explain", "k3c-k3-epyc-laptop-preset-8gb"}, dir.path(), "explain-claim");
  REQUIRE(ex.exit_code == 0);
  CHECK(ex.out.find("implied storage rate") != std::string::npos);
  CHECK(ex.out.find("verdict: ") != std::string::npos);
  Finished bad = run_moebench({"claims", "--explain", "no-such-claim"}, dir.path(), "bad-claim");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("no claim \"no-such-claim\"") != std::string::npos);
  // validate resolves a claim's hardware: a name that resolves to nothing
  // is caught there, not by a later `claims`.
  std::string unknown = read_file(std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published/waste.json").value();
  const std::string from = "\"hardware\": \"macbook-pro-m5-pro-64gb\"";
  REQUIRE(unknown.find(from) != std::string::npos);
  unknown.replace(unknown.find(from), from.size(), "\"hardware\": \"no-such-machine\"");
  REQUIRE(write_file_atomic(dir.file("unknown-hw.json"), unknown).ok());
  Finished uv = run_moebench({"validate", "--kind", "claims", dir.file("unknown-hw.json")}, dir.path(), "validate-unknown-hw");
  CHECK(uv.exit_code == 1);
  CHECK(uv.out.find("no hardware config named \"no-such-machine\"") != std::string::npos);

  Finished pl = run_moebench({"plan", "--model", "kimi-k3", "--quant", "mxfp4", "--min-decode-tok-s", "1"}, dir.path(), "plan");
  INFO(pl.err);
  REQUIRE(pl.exit_code == 0);
  CHECK(pl.out.find("| 1 | ") != std::string::npos);
  // No machine "does not fit" K3: each streams, or (no drive listed) is unknown.
  CHECK(pl.out.find("does not fit") == std::string::npos);
  CHECK(pl.out.find("| unknown |") != std::string::npos);
  Finished pj = run_moebench({"plan", "--model", "kimi-k3", "--quant", "mxfp4", "--min-decode-tok-s", "1", "--json",
                              "--kwh-price", "0.3", "--api-price", "3/15"},
                             dir.path(), "plan-json");
  INFO(pj.err);
  REQUIRE(pj.exit_code == 0);
  const Json plan = Json::parse(pj.out);
  CHECK(plan["machines"].size() > 3);
  CHECK(plan["machines"][0]["rank"] == 1);
  CHECK(plan["cost"]["machines"].size() == plan["machines"].size());
  for (const char* bad_target : {"-1", "0", "abc", "1e999"}) {
    Finished bt = run_moebench({"plan", "--model", "kimi-k3", "--quant", "mxfp4", "--min-decode-tok-s", bad_target},
                               dir.path(), "plan-bad");
    CHECK(bt.exit_code == 2);
    CHECK(bt.out.empty());
    CHECK(bt.err.find(std::string("--min-decode-tok-s: expected a number > 0, got \"") + bad_target + "\"") !=
          std::string::npos);
  }
}

TEST_CASE("history add: unreadable files create no database, a good file is added once", "[integration]") {
  TempDir dir;
  const std::string sweep = dir.file("tiny.json");
  REQUIRE(write_file_atomic(sweep, R"({"name": "tiny", "repetitions": 1, "warmup": 0, "seed": 3,
    "axes": {"engine": ["streaming"], "model": ["tiny-moe"], "quant": ["mxfp4"], "gen_tokens": [4]}})").ok());
  const std::string out = dir.file("pred");
  Finished p = run_moebench({"predict", sweep, "--machine", "macbook-pro-m5-pro-64gb", "--out", out, "--quiet"},
                            dir.path(), "predict");
  INFO(p.err);
  REQUIRE(p.exit_code == 0);
  const std::string db = dir.file("h.sqlite");
  REQUIRE(write_file_atomic(dir.file("empty.json"), "{}").ok());
  Finished bad = run_moebench({"history", "add", dir.file("empty.json"), "--db", db}, dir.path(), "add-bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("empty.json") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(db));
  Finished good = run_moebench({"history", "add", dir.file("empty.json"), out + "/results.json", "--db", db},
                               dir.path(), "add-good");
  CHECK(good.exit_code == 2);  // one of the two files was bad
  CHECK(good.out.find("added run") != std::string::npos);
  Finished again = run_moebench({"history", "add", out + "/results.json", "--db", db}, dir.path(), "add-again");
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already in") != std::string::npos);
  Finished show = run_moebench({"history", "show", "--db", db}, dir.path(), "show");
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("1 runs") != std::string::npos);
}

TEST_CASE("the version names the build, a misspelt command gets the closest one and exit 2", "[integration]") {
  TempDir dir;
  Finished v = run_moebench({"--version"}, dir.path(), "version");
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.out, Catch::StartsWith("moebench ") && Catch::Contains("commit"));
  Finished typo = run_moebench({"rnu"}, dir.path(), "typo");
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("\"rnu\" is not a command") && Catch::Contains("did you mean \"run\"") &&
                           Catch::Contains("compare-builds"));
  CHECK(typo.out.empty());
  // --configs' value is not the command; a real command after it runs.
  Finished after = run_moebench({"--configs", dir.path(), "schema"}, dir.path(), "after");
  CHECK(after.exit_code == 0);
  Finished two = run_moebench({"--configs", dir.path(), dir.path(), "schema"}, dir.path(), "two");  // it takes several
  CHECK(two.exit_code == 0);
  Finished none = run_moebench({}, dir.path(), "none");
  CHECK(none.exit_code == 2);  // no command is a malformed command line
}
