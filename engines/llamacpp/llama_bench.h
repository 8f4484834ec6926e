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
  bool verbose = false;  // -v: llama.cpp's load log (its buffers) on stderr
};
std::vector<std::string> llama_bench_argv(const LlamaBenchRequest& r);

// The measurement a pp test and a tg test of `tests` make for a point of
// `prompt` and `gen` tokens (either may be 0: no pp / tg test then, and its
// window stays empty). Sample `rep` of each test's samples_ts (the average
// when out of range). An error when a test the point needs is missing.
Expected<Measurement> measurement_from_llama_bench(const std::vector<LlamaBenchTest>& tests, std::int64_t prompt,
                                                   std::int64_t gen, std::size_t rep = 0);

// A buffer llama.cpp reported while loading, from its -v log lines
// "<backend> model buffer size = X MiB" (also KV and compute buffers):
//   model CPU_Mapped   the weights in the mmap'd file: page cache, which a
//                      memory limit can evict and re-read;
//   model CPU_REPACK   weights converted at load into an interleaved layout
//   model AMX          (x86 Q4_0/Q4_K/IQ4_NL/MXFP4, Q2_K on AVX-512; AMX
//                      hosts more): anonymous memory, a copy the kernel
//                      cannot drop without swap;
//   model CPU          the weights read into anonymous memory (no mmap);
//   KV, compute        anonymous working memory.
// Repeated lines (one per context) keep the largest size per (kind, backend).
struct LlamaBuffer {
  std::string kind;     // "model", "KV", "compute"
  std::string backend;  // "CPU_Mapped", "CPU_REPACK", ...
  std::uint64_t bytes = 0;
};
std::vector<LlamaBuffer> parse_llama_buffers(std::string_view log);

// The bytes of anonymous memory the buffers hold (everything but CPU_Mapped
// weights), and of those the weight copies.
struct LlamaMemory {
  std::uint64_t mapped_weights = 0, copied_weights = 0, working = 0;  // working: KV + compute
  std::string copied_backends;  // "CPU_REPACK", comma-separated
};
LlamaMemory llama_memory(const std::vector<LlamaBuffer>& buffers);

// Why a llama-bench run under a memory limit of `limit` bytes was killed,
// in words: the OOM kill, the peak charged, and what held the memory (weight
// copies that cannot page, or working memory above the limit). `oom_kills`
// from the cgroup's events (absent where unreadable). Pure.
std::string explain_llama_kill(const LlamaMemory& mem, std::uint64_t limit, std::optional<std::uint64_t> peak,
                               std::optional<std::uint64_t> oom_kills);

// The CMake options a llama.cpp build was configured with, from the
// CMakeCache.txt of the build directory holding `binary` (bin/..), e.g.
// "Release, GGML_NATIVE=ON"; nullopt when there is none to read.
std::optional<std::string> llama_build_flags(const std::string& binary);

}  // namespace moebench
