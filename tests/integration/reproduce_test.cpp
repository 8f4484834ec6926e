// reproduce_test.cpp — `moebench reproduce` on a fabricated claim whose plan
// is known by hand (tests/data/reproduce): the stream-moe test card on the
// fabricated machine fab-laptop, whose mxfp4 matvec runs at 5 GB/s and whose
// two drives read 50 MB/s each, emulated on a probe profile whose mxfp4
// matvec runs at 2 GB/s (2 threads). So the dilation is 2.5 and each of the
// two drive directories is throttled to 100 MB/s ÷ 2.5 ÷ 2 = 20 MB/s. The run
// is real (containers, O_DIRECT reads, kernels); the verdict is then checked
// against claims placed at known distances from what the run measured.
// And the refusals: GPUs, linked nodes, speculative decoding, drives this
// machine cannot keep up with, a profile without kernel figures.
#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>

#include "../unit/test_support.h"
#include "process.h"
#include "model/cost_model.h"
#include "model/engine_families.h"
#include "harness/claim_review.h"
#include "harness/reproduce.h"
#include "reports/results_reader.h"
#include "vocab/claim.h"
#include "vocab/config_store.h"
#include "vocab/metrics.h"

using namespace moebench;
using moebench::testing::run_moebench;
using moebench::testing::TempDir;

namespace {

const std::string kData = std::string(MOEBENCH_TEST_DATA) + "/reproduce";

struct Fixture {
  ConfigStore store{{kData + "/configs", std::string(MOEBENCH_SOURCE_DIR) + "/configs"}};
  Claim claim;
  ModelCard card;
  MachineProfile claimed, here;
  Fixture() {
    auto claims = load_claims_file(kData + "/configs/claims/fabricated.json");
    REQUIRE(claims);
    claim = claims->front();
    auto setup = resolve_claim_setup(store, claim, "test");
    REQUIRE(setup);
    REQUIRE(setup->card);
    REQUIRE(setup->machine);
    card = *setup->card;
    claimed = *setup->machine;
    auto h = store.find("hardware", kData + "/here.json");
    REQUIRE(h);
    auto p = load_config_text<MachineProfile>(h->text, h->label, load_machine_profile);
    REQUIRE(p);
    here = *p;
  }
  ReproduceOptions options() const {
    ReproduceOptions o;
    o.scale = *parse_scale("layers=2,experts=16");
    return o;
  }
  Expected<ReproductionPlan> plan(const Claim& c, const MachineProfile& there, const MachineProfile& mine) const {
    static const EngineEfficiency eff;
    return plan_reproduction(c, card, there, mine, eff, options());
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("reproduce: the plan of a fully stated streaming claim follows the arithmetic by hand", "[reproduce]") {
  Fixture f;
  auto plan = f.plan(f.claim, f.claimed, f.here);
  REQUIRE(plan);
  INFO(join(plan->skipped, "\n"));
  REQUIRE(plan->cannot.empty());
  REQUIRE(plan->cases.size() == 1);  // every condition stated: one case
  const EmulatedCase& c = plan->cases.front();
  CHECK(c.dilation == Approx(2.5));  // 5 GB/s there ÷ 2 GB/s here, 2 threads
  CHECK(c.threads == 2);
  CHECK(c.quant == "mxfp4");
  CHECK(c.trunk_quant == "bf16");
  CHECK(c.drives == 2);
  REQUIRE(c.throttle_bytes_s);
  CHECK(*c.throttle_bytes_s == Approx(20e6).epsilon(0.005));  // 2 × 50 MB/s ÷ 2.5 ÷ 2 directories
  REQUIRE(c.budget_bytes);
  CHECK(c.engine.rfind("streaming:", 0) == 0);
  CHECK(c.full_slots > 0);
  CHECK(c.full_slots < 256);  // the claimed case streams: its cache holds part of the 4 × 64 experts
  // The budget is the smallest that gives the scaled pool its slots on this machine's cost model.
  CHECK(has(plan->sweep_json, "\"include\""));
}

TEST_CASE("reproduce: a fabricated claim runs for real, lands as reproduced rows, and is judged on them", "[reproduce]") {
  Fixture f;
  TempDir dir;
  const std::string out = dir.file("out");
  auto r = run_moebench({"--configs", kData + "/configs", "reproduce", "fab-stream-2drives", "--machine",
                         kData + "/here.json", "--scale", "layers=2,experts=16", "--out", out, "--drive-dir",
                         dir.file("d0"), "--drive-dir", dir.file("d1"), "-q"},
                        dir.path());
  INFO(r.out + r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "verdict: "));
  CHECK(std::filesystem::exists(out + "/reproduce.md"));
  auto results = load_results_file(out + "/results.json");
  REQUIRE(results);
  REQUIRE(results->rows.size() == 1);
  const ResultRow& row = results->rows.front();
  CHECK(row.provenance == "reproduced");
  REQUIRE(row.status == RowStatus::kOk);
  CHECK(row.point.drives.count == 2);
  REQUIRE(row.point.drives.throttle_bytes_s);
  CHECK(*row.point.drives.throttle_bytes_s == Approx(20e6).epsilon(0.005));
  CHECK(row.point.threads == 2);
  // The work: the streaming engine read experts from the drives, and the row
  // carries the full card's figure.
  REQUIRE(row.metrics.count(metric::kReadBytesPerToken));
  CHECK(row.metrics.at(metric::kReadBytesPerToken).median > 0);
  REQUIRE(row.metrics.count(metric::kFullDecodeTokS));
  const double full_here = row.metrics.at(metric::kFullDecodeTokS).median;
  REQUIRE(full_here > 0);
  // The full-model columns carry the error the test configs' fits/scale.json
  // records for a streaming run: the larger streaming-decode check, ×1.3
  // (its TTFT: the larger of that and the resident TTFT's 1.2).
  REQUIRE(row.metrics.count(metric::kFullDecodeTokSLow));
  CHECK(row.metrics.at(metric::kFullDecodeTokSLow).median == Approx(full_here / 1.3));
  CHECK(row.metrics.at(metric::kFullDecodeTokSHigh).median == Approx(full_here * 1.3));
  REQUIRE(row.metrics.count(metric::kFullTtftSHigh));
  CHECK(row.metrics.at(metric::kFullTtftSHigh).median == Approx(row.metrics.at(metric::kFullTtftS).median * 1.3));
  CHECK(std::any_of(row.notes.begin(), row.notes.end(), [](const std::string& n) { return has(n, "band ×1.300 each way"); }));

  // The verdict on these rows, for claims at known distances from them.
  auto plan = f.plan(f.claim, f.claimed, f.here);
  REQUIRE(plan);
  const double reproduced = full_here * 2.5;
  Claim c = f.claim;
  c.decode_tok_s = Reported{reproduced * 1.1, reproduced * 1.1};
  ReproductionVerdict v = judge_reproduction(*plan, c, *results, 0.25);
  CHECK(v.verdict == "reproduced");
  REQUIRE(v.low_tok_s);
  CHECK(*v.low_tok_s == Approx(reproduced));
  CHECK(has(v.reason, "within 10 %"));
  c.decode_tok_s = Reported{reproduced * 2, reproduced * 2};
  v = judge_reproduction(*plan, c, *results, 0.25);
  CHECK(v.verdict == "not reproduced");
  CHECK(has(v.reason, "did better"));
  c.decode_tok_s = Reported{reproduced / 2, reproduced / 2};
  v = judge_reproduction(*plan, c, *results, 0.25);
  CHECK(v.verdict == "not reproduced");
  CHECK(has(v.reason, "slower"));
}

TEST_CASE("reproduce: --dry-run prints the plan and writes nothing", "[reproduce]") {
  TempDir dir;
  auto r = run_moebench({"--configs", kData + "/configs", "reproduce", "fab-stream-2drives", "--machine",
                         kData + "/here.json", "--dry-run", "--out", dir.file("out"), "--drive-dir", dir.file("d0"),
                         "--drive-dir", dir.file("d1")},
                        dir.path());
  INFO(r.out + r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "Dry run: 1 point(s)"));
  CHECK(has(r.out, "(1 trunk file(s), 1 expert file(s);"));
  CHECK(has(r.out, "dilation D = 2.500"));
  CHECK_FALSE(std::filesystem::exists(dir.file("d0")));
  CHECK_FALSE(std::filesystem::exists(dir.file("out")));
  // A --scale that names one part takes the default for the other.
  auto one = run_moebench({"--configs", kData + "/configs", "reproduce", "fab-stream-2drives", "--machine",
                           kData + "/here.json", "--dry-run", "--scale", "layers=1"},
                          dir.path());
  INFO(one.out + one.err);
  REQUIRE(one.exit_code == 0);
  CHECK(has(one.out, "Dry run: 1 point(s) of layers=1,experts=64"));
  // --json: the same plan, as data.
  auto js = run_moebench({"--configs", kData + "/configs", "reproduce", "fab-stream-2drives", "--machine",
                          kData + "/here.json", "--dry-run", "--json"},
                         dir.path());
  INFO(js.out + js.err);
  REQUIRE(js.exit_code == 0);
  const moebench::Json j = moebench::Json::parse(js.out);
  CHECK(j["claim"]["id"] == "fab-stream-2drives");
  CHECK(j["dry_run"] == true);
  CHECK(j["verdict"].is_null());
  CHECK(j["dry_run_plan"]["points"] == 1);
  // One point: one trunk file and one expert file to write.
  CHECK(j["dry_run_plan"]["trunk_files"] == 1);
  CHECK(j["dry_run_plan"]["expert_files"] == 1);
  CHECK(j["dry_run_plan"]["container_bytes"].get<double>() > 0);
  REQUIRE(j["cases"].size() == 1);
  CHECK(j["cases"][0]["dilation"].get<double>() == Approx(2.5));
  CHECK(j["cases"][0]["row"].is_null());
}

TEST_CASE("reproduce: claims this machine cannot emulate say why", "[reproduce]") {
  Fixture f;
  SECTION("drives faster than this machine's, even at one thread") {
    MachineProfile fast = f.claimed;
    for (DriveProfile& d : fast.drives) {
      d.seq_read_bytes_s.value *= 100;
      for (DriveReadPoint& p : d.read_curve) p.read_bytes_s.value *= 100;
    }
    auto plan = f.plan(f.claim, fast, f.here);
    REQUIRE(plan);
    CHECK(has(plan->cannot, "more than 90 % of this machine's"));
    CHECK(has(plan->cannot, "at 1 thread"));
  }
  SECTION("speculative decoding") {
    Claim c = f.claim;
    c.speculative = true;
    auto plan = f.plan(c, f.claimed, f.here);
    REQUIRE(plan);
    CHECK(has(plan->cannot, "speculative decoding"));
  }
  SECTION("an aggregate serving figure") {
    Claim c = f.claim;
    c.decode_tok_s.reset();
    c.aggregate_tok_s = Reported{50, 50};
    c.concurrency = 8;
    auto plan = f.plan(c, f.claimed, f.here);
    REQUIRE(plan);
    CHECK(has(plan->cannot, "aggregate"));
  }
  SECTION("a profile without kernel figures") {
    MachineProfile bare = f.here;
    bare.kernels.clear();
    auto plan = f.plan(f.claim, f.claimed, bare);
    REQUIRE(plan);
    CHECK(has(plan->cannot, "moebench probe"));
  }
  SECTION("stock claims on GPUs and on linked nodes, through the CLI") {
    TempDir dir;
    auto gpu = run_moebench({"reproduce", "feed-vllm-k3-8xb300-avg", "--machine", kData + "/here.json"}, dir.path());
    INFO(gpu.out + gpu.err);
    CHECK(gpu.exit_code == 0);
    CHECK(has(gpu.out, "verdict: cannot be emulated here"));
    CHECK(has(gpu.out, "discrete GPUs hold the weights"));
    auto nodes = run_moebench({"reproduce", "article-llamacpp-rpc-k3-half-width-3-sparks", "--machine", kData + "/here.json"},
                              dir.path());
    INFO(nodes.out + nodes.err);
    CHECK(nodes.exit_code == 0);
    CHECK(has(nodes.out, "linked nodes"));
  }
  SECTION("an unknown claim id names the closest") {
    TempDir dir;
    auto r = run_moebench({"reproduce", "feed-m5max-k3-2drive", "--machine", kData + "/here.json"}, dir.path());
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "did you mean \"feed-m5max-k3-"));
  }
}
