// llama_bench.h — llama.cpp's llama-bench as a peer engine: its command
// line from a point's conditions, its JSON output read strictly, and the
// Measurement that output amounts to. Pure functions (no process is run
// here; llama_bench_engine.cpp runs it).
//
// llama-bench times a prompt test (pp: n_prompt tokens in one batch, empty
// cache, after a depth of -d tokens) and a generation test (tg: n_gen
// single-token decode steps after the same depth) separately and reports
// each as tokens per second. moebench's windows (vocab/measurement.h) are
// rebuilt from them: prefill_s = n_prompt / pp rate; the first token comes
// one tg step after prefill (llama-bench does not time a first token: TTFT
// is derived, and the row says so); later tokens one tg step apart, so the
// decode rate is the tg rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/expected.h"
#include "vocab/measurement.h"

namespace moebench {

// One test object of llama-bench's `-o json` array.
struct LlamaBenchTest {
  std::string build_commit;
  std::int64_t build_number = 0;
  std::string cpu_info, model_type, load_mode, type_k, type_v;
  std::int64_t model_size = 0, n_threads = 0, n_batch = 0, n_ubatch = 0;
  std::int64_t n_prompt = 0, n_gen = 0, n_depth = 0;
  double avg_ts = 0, stddev_ts = 0;
  std::vector<double> samples_ts;
};

// Parses llama-bench's JSON output; an error names `label` and the JSON
// path of the first missing or mistyped field.
Expected<std::vector<LlamaBenchTest>> parse_llama_bench_json(std::string_view text, const std::string& label);

// "llama.cpp b1234 (abcdef0)", or "llama.cpp (build unknown)".
std::string llama_build_label(const LlamaBenchTest& t);

// What moebench asks llama-bench to run.
struct LlamaBenchRequest {
  std::string binary;
  std::string model;
  int threads = 1;
  std::int64_t prompt_tokens = 0, gen_tokens = 0, depth = 0;
  int repetitions = 1;
  std::string load_mode = "mmap";  // none | mmap | mlock | mmap+mlock | dio
  std::int64_t ubatch = 512;       // llama-bench's default
  bool warmup = true;
};
std::vector<std::string> llama_bench_argv(const LlamaBenchRequest& r);

// The measurement a pp test and a tg test of `tests` make for a point of
// `prompt` and `gen` tokens (either may be 0: no pp / tg test then, and its
// window stays empty). Sample `rep` of each test's samples_ts (the average
// when out of range). An error when a test the point needs is missing.
Expected<Measurement> measurement_from_llama_bench(const std::vector<LlamaBenchTest>& tests, std::int64_t prompt,
                                                   std::int64_t gen, std::size_t rep = 0);

// The CMake options a llama.cpp build was configured with, from the
// CMakeCache.txt of the build directory holding `binary` (bin/..), e.g.
// "Release, GGML_NATIVE=ON"; nullopt when there is none to read.
std::optional<std::string> llama_build_flags(const std::string& binary);

}  // namespace moebench
