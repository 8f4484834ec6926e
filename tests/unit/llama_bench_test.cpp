// llama_bench_test.cpp — llama.cpp's llama-bench as a peer: its captured
// JSON output (tests/data/llama-bench, written by llama-bench built from
// llama.cpp with native flags on this project's CI machine kind) is read
// strictly, becomes a Measurement whose windows give llama-bench's own
// rates back, and a broken output names the JSON path; the command line
// carries every condition; the peer report is pure markdown (golden).
#include <catch2/catch.hpp>

#include "engines/llamacpp/llama_bench.h"
#include "harness/peer_bench.h"
#include "test_support.h"
#include "vocab/file_io.h"
#include "vocab/metrics.h"
#include "vocab/subprocess.h"

using namespace moebench;

namespace {
std::string data(const std::string& name) {
  auto t = read_file(std::string(MOEBENCH_TEST_DATA) + "/llama-bench/" + name);
  REQUIRE(t);
  return *t;
}
}  // namespace

TEST_CASE("llama-bench JSON: tests, rates and conditions read back", "[llama-bench]") {
  auto tests = parse_llama_bench_json(data("qwen3moe-q4_0-t2-p64-n32.json"), "captured");
  if (!tests) FAIL(tests.error().message);
  REQUIRE(tests->size() == 2);
  const LlamaBenchTest& pp = (*tests)[0];
  const LlamaBenchTest& tg = (*tests)[1];
  CHECK(pp.n_prompt == 64);
  CHECK(pp.n_gen == 0);
  CHECK(tg.n_gen == 32);
  CHECK(pp.n_threads == 2);
  CHECK(pp.samples_ts.size() == 3);
  CHECK(pp.model_type == "qwen3moe ?B Q4_0");
  CHECK(pp.load_mode == "mmap");
  CHECK(llama_build_label(pp) == "llama.cpp (build unknown)");
  LlamaBenchTest named = pp;
  named.build_number = 7100;
  named.build_commit = "abc1234";
  CHECK(llama_build_label(named) == "llama.cpp b7100 (abc1234)");

  // The windows give the rates back: prefill = pp sample, decode = tg sample.
  for (std::size_t rep = 0; rep < 3; ++rep) {
    auto m = measurement_from_llama_bench(*tests, 64, 32, rep);
    if (!m) FAIL(m.error().message);
    REQUIRE(!check_measurement(*m));
    const RepMetrics r = derive_metrics(*m);
    CHECK(r.at(metric::kPrefillTokS) == Approx(pp.samples_ts[rep]).epsilon(1e-9));
    CHECK(r.at(metric::kDecodeTokS) == Approx(tg.samples_ts[rep]).epsilon(1e-9));
    CHECK(r.at(metric::kTtftS) == Approx(64.0 / pp.samples_ts[rep] + 1.0 / tg.samples_ts[rep]).epsilon(1e-9));
    CHECK(m->token_times_s.size() == 32);
  }
  // A point whose lengths the output does not have.
  auto missing = measurement_from_llama_bench(*tests, 128, 32);
  REQUIRE(!missing);
  CHECK(missing.error().message.find("pp128") != std::string::npos);
}

TEST_CASE("llama-bench JSON: depth and load mode of a -d -lm dio run", "[llama-bench]") {
  auto tests = parse_llama_bench_json(data("qwen3moe-q4_0-t1-d256-dio.json"), "captured");
  if (!tests) FAIL(tests.error().message);
  for (const LlamaBenchTest& t : *tests) {
    CHECK(t.n_depth == 256);
    CHECK(t.load_mode == "dio");
    CHECK(t.n_threads == 1);
  }
  auto m = measurement_from_llama_bench(*tests, 32, 16);
  REQUIRE(m);
  bool noted = false;
  for (const std::string& n : m->notes) noted = noted || n.find("depth 256") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("llama-bench JSON: broken output names the path and what is wrong", "[llama-bench]") {
  auto not_array = parse_llama_bench_json("{\"a\": 1}", "out");
  REQUIRE(!not_array);
  CHECK(not_array.error().message.find("array of tests") != std::string::npos);
  CHECK(!parse_llama_bench_json("[]", "out"));
  CHECK(!parse_llama_bench_json("not json", "out"));
  auto no_rate = parse_llama_bench_json(
      R"([{"build_commit": "x", "build_number": 1, "model_type": "m", "model_size": 1, "n_threads": 2,
           "n_prompt": 8, "n_gen": 0, "samples_ts": [1.0]}])",
      "out");
  REQUIRE(!no_rate);
  CHECK(no_rate.error().message.find("/0/avg_ts") != std::string::npos);
  auto zero = parse_llama_bench_json(
      R"([{"build_commit": "x", "build_number": 1, "model_type": "m", "model_size": 1, "n_threads": 2,
           "n_prompt": 8, "n_gen": 0, "avg_ts": 0, "samples_ts": [0.0]}])",
      "out");
  REQUIRE(!zero);
  CHECK(zero.error().message.find("> 0") != std::string::npos);
}

TEST_CASE("llama-bench command line carries the point's conditions", "[llama-bench]") {
  LlamaBenchRequest r;
  r.binary = "/opt/llama/llama-bench";
  r.model = "/d/m.gguf";
  r.threads = 4;
  r.prompt_tokens = 64;
  r.gen_tokens = 32;
  r.depth = 8192;
  r.load_mode = "dio";
  r.warmup = false;
  CHECK(command_line(llama_bench_argv(r)) ==
        "/opt/llama/llama-bench -m /d/m.gguf -t 4 -p 64 -n 32 -d 8192 -r 1 -ub 512 -lm dio -o json --no-warmup");
}

TEST_CASE("bench-peer report: medians, ranges and per-pair ratios as markdown", "[llama-bench][golden]") {
  PeerReport r;
  r.llama_build = "llama.cpp b7100 (abc1234) (/opt/llama-bench, Release, GGML_NATIVE=ON)";
  r.cpu = "Test CPU, moebench kernels avx2";
  r.prompt_tokens = 64;
  r.gen_tokens = 32;
  r.repetitions = 3;
  PeerCase c;
  c.card = "peer-qwen3moe";
  c.quant = "q4_0";
  c.threads = 2;
  c.llama.prefill_tok_s = {300, 320, 310};
  c.moebench.prefill_tok_s = {330, 320, 341};
  c.llama.decode_tok_s = {120, 130, 125};
  c.moebench.decode_tok_s = {150, 140, 160};
  c.prefill_ratio = {1.1, 1.0, 1.1};
  c.decode_ratio = {1.25, 140.0 / 130, 1.28};
  c.moebench.engine = "resident:chunk=512";
  c.moebench.notes = {"routing uniform, 2 threads, kernels avx2: integer-dot avx2 for q4_0"};
  r.cases.push_back(c);
  testing::check_golden("bench_peer.md", peer_report_markdown(r));
}
