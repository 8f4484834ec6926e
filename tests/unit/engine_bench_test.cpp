// engine_bench_test.cpp — bench-engines' typed results and their writers on
// fixed figures (the benchmarks themselves need fio and real drives: they
// run as `moebench bench-engines`, not here).
#include <catch2/catch.hpp>

#include "harness/engine_bench.h"

using namespace moebench;

TEST_CASE("bench line: the median ratio against its target, the range over repetitions", "[engine_bench]") {
  BenchLine at_least{"1 reads", "", "", ">= 0.90", {0.95, 0.85, 0.92}, false, 0.90};
  CHECK(at_least.median_ratio() == Approx(0.92));
  CHECK(at_least.pass());
  CHECK(at_least.range() == "0.850–0.950");
  BenchLine at_most{"2a overlap", "", "", "<= 1.15", {1.2, 1.3, 1.1}, true, 1.15};
  CHECK_FALSE(at_most.pass());
  BenchLine once{"4 bytes", "", "", "within 2 %", {0.01}, true, 0.02};
  CHECK(once.pass());
  CHECK(once.range() == "");  // one measurement: no range
}

namespace {

EngineBenchResults fixed_results(bool scaling) {
  EngineBenchResults r;
  r.reads.line = {"1 streaming decode reads", "1.00 GB/s", "fio 1.10 GB/s", ">= 0.90", {0.9, 0.91}, false, 0.90};
  r.overlap.uniform = {"2a", "0.100 s/token", "I/O 0.090 s", "<= 1.15", {1.1}, true, 1.15};
  r.overlap.causal_bound = {"2a'", "0.100 s/token", "bound", "<= 1.15", {1.0}, true, 1.15};
  r.overlap.sticky_prefetch = {"2b", "m", "r", "<= 1.15", {1.2}, true, 1.15};
  r.overlap.more_slots = {"2c", "m", "r", "<= 1.15", {1.0}, true, 1.15};
  r.overlap.pregate = {"2d", "m", "r", "<= 1.15", {1.0}, true, 1.15};
  r.resident.line = {"3 resident", "m", "r", ">= 0.70", {0.5}, false, 0.70};
  r.zero_hits.line = {"4 bytes/token", "m", "card", "within 2 %", {0.001}, true, 0.02};
  r.scale.resident_decode = {"6a scale", "predicted 0.33 s/token", "measured 0.31 s/token", "<= 1.10", {1.06}, true, 1.10};
  r.scale.resident_ttft = {"6b scale", "predicted 0.40 s", "measured 0.60 s", "<= 1.10", {1.5}, true, 1.10};
  r.scale.streaming_decode = {"6c scale", "m", "r", "<= 1.10", {1.05, 1.01}, true, 1.10};
  if (scaling) {
    r.reads.replay_line = {"1' replay", "1.00 GB/s", "fio replay 0.95 GB/s", ">= 0.95", {0.9, 0.98}, false, 0.95};
    DriveScalingBench s;
    s.two = {"5 drive scaling 1 -> 2", "2.000 vs 1.000 tok/s", "", ">= 1.8", {2.0}, false, 1.8};
    s.four = {"5 drive scaling 1 -> 4", "3.000 vs 1.000 tok/s", "", ">= 3.2", {3.0}, false, 3.2};
    r.scaling = s;
  }
  return r;
}

EngineBenchSetup fixed_setup() {
  EngineBenchSetup s;
  s.model = "kimi-k3";
  s.scale_text = "layers=2,experts=64";
  s.overlap_scale_text = "layers=6,experts=32";
  s.quant = "mxfp4";
  s.reps = 2;
  return s;
}

}  // namespace

TEST_CASE("bench-engines table: header, one row per line in order, met or MISSED", "[engine_bench]") {
  const std::string t = write_engine_bench_table(fixed_setup(), fixed_results(true), "build-x");
  CHECK(t ==
        "moebench bench-engines: kimi-k3 layers=2,experts=64 (overlap: layers=6,experts=32), mxfp4; 2 repetitions "
        "(ratio: median, range); build-x\n"
        "| benchmark | measured (median) | reference (same run) | ratio | range | target | |\n"
        "|---|---|---|---:|---|---|---|\n"
        "| 1 streaming decode reads | 1.00 GB/s | fio 1.10 GB/s | 0.905 | 0.900–0.910 | >= 0.90 | met |\n"
        "| 1' replay | 1.00 GB/s | fio replay 0.95 GB/s | 0.940 | 0.900–0.980 | >= 0.95 | MISSED |\n"
        "| 2a | 0.100 s/token | I/O 0.090 s | 1.100 |  | <= 1.15 | met |\n"
        "| 2a' | 0.100 s/token | bound | 1.000 |  | <= 1.15 | met |\n"
        "| 2b | m | r | 1.200 |  | <= 1.15 | MISSED |\n"
        "| 2c | m | r | 1.000 |  | <= 1.15 | met |\n"
        "| 2d | m | r | 1.000 |  | <= 1.15 | met |\n"
        "| 3 resident | m | r | 0.500 |  | >= 0.70 | MISSED |\n"
        "| 4 bytes/token | m | card | 0.001 |  | within 2 % | met |\n"
        "| 6a scale | predicted 0.33 s/token | measured 0.31 s/token | 1.060 |  | <= 1.10 | met |\n"
        "| 6b scale | predicted 0.40 s | measured 0.60 s | 1.500 |  | <= 1.10 | MISSED |\n"
        "| 6c scale | m | r | 1.030 | 1.010–1.050 | <= 1.10 | met |\n"
        "| 5 drive scaling 1 -> 2 | 2.000 vs 1.000 tok/s |  | 2.000 |  | >= 1.8 | met |\n"
        "| 5 drive scaling 1 -> 4 | 3.000 vs 1.000 tok/s |  | 3.000 |  | >= 3.2 | MISSED |\n");
  // Without the scaling benchmark its two lines are absent, and without a
  // replay (fixed_results(false) has none) line 1' is.
  const std::string t2 = write_engine_bench_table(fixed_setup(), fixed_results(false), "build-x");
  CHECK(t2.find("drive scaling") == std::string::npos);
  CHECK(fixed_results(false).lines().size() == 11);
}

TEST_CASE("bench-engines record: every line with its ratios and verdict, and the run's labels", "[engine_bench]") {
  const Json j = engine_bench_record(fixed_setup(), fixed_results(false), "build-x");
  REQUIRE(j["benchmarks"].size() == 11);
  CHECK(j["benchmarks"][0]["name"] == "1 streaming decode reads");
  CHECK(j["benchmarks"][0]["ratios"] == Json::array({0.9, 0.91}));
  CHECK(j["benchmarks"][3]["met"] == false);
  CHECK(j["build"] == "build-x");
  CHECK(j["model"] == "kimi-k3 layers=2,experts=64 mxfp4");
  CHECK(j["overlap_model"] == "kimi-k3 layers=6,experts=32 mxfp4");
  CHECK(j["repetitions"] == 2);
}
