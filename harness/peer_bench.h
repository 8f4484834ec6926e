// peer_bench.h — moebench's resident engine beside llama.cpp on the same
// weights (`moebench bench-peer`): for each card, quant and thread count the
// card's container is made (or reused) and exported as a GGUF llama.cpp
// loads; then llama-bench and the resident engine run the same point
// (threads, prompt and generation lengths, one batch of up to 512 prompt
// tokens on both sides) in interleaved repetitions, after one unrecorded
// warm-up each, and every repetition pair gives a ratio. Both sides run as
// moebench engines (llama_bench_engine.h, resident_engine.h), so their
// windows are read the same way: prefill = prompt ÷ prefill time, decode =
// steady decode (llama-bench's tg rate).
//
// Below the model's size (--budget): each budget (a share of the exported
// GGUF, or bytes) runs llama-bench with its weights mmap'd under a memory
// cgroup of that size (page cache charged; the file's cached pages dropped
// before each run) beside moebench's streaming engine held to the same
// budget, reading its container with O_DIRECT. Both report TTFT, steady
// decode and the storage bytes each decode token read (llama.cpp: the
// difference between runs of n and 2n generated tokens, from wait4's
// ru_inblock; moebench: its I/O counters). A llama.cpp run the cgroup
// kills is a row that says why (llama_bench.h: explain_llama_kill) — the
// moebench side still runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/progress.h"
#include "vocab/stats.h"

namespace moebench {

struct PeerBenchRequest {
  std::string llama_bench;                          // the llama-bench binary
  std::vector<std::string> cards = {"peer-qwen3moe"};
  std::vector<std::string> quants = {"q4_0"};
  std::vector<int> threads;                         // empty: 1 and all hardware threads
  std::int64_t prompt_tokens = 64, gen_tokens = 32;
  int repetitions = 5;
  std::string dir = "moebench-drives/peer";         // containers and exports
  std::uint64_t seed = 42;
  std::string moebench_engine = "resident:chunk=512";  // chunk = llama-bench's ubatch
  // Below the model's size: each "25%" (of the exported GGUF) or size
  // ("1GiB"); empty = no budget (the resident comparison above).
  std::vector<std::string> budgets;
  std::string streaming_engine = "streaming:chunk=512";
};

// "25%" → 0.25 of the model; "1.5GiB" → bytes. An error names the text.
struct PeerBudget {
  double share = 0;         // of the model file, when given as a percentage
  std::uint64_t bytes = 0;  // when given as a size
  std::string text;
};
Expected<PeerBudget> parse_peer_budget(const std::string& text);

struct PeerSide {
  std::vector<double> prefill_tok_s, decode_tok_s;  // one per repetition
  std::vector<double> ttft_s, read_bytes_per_token; // one per repetition (reads: where measured)
  std::string failure;                              // why this side has no repetitions (budget runs)
  std::string engine;                               // spec, as a sweep names it
  std::vector<std::string> notes;                   // the last repetition's (kernels, build, ...)
};

struct PeerCase {
  std::string card, quant;
  int threads = 0;
  std::uint64_t budget_bytes = 0;  // 0: no budget
  std::string budget_text;         // as asked ("25%")
  std::uint64_t model_bytes = 0;   // the exported GGUF's size (budget runs)
  PeerSide llama, moebench;
  std::vector<double> prefill_ratio, decode_ratio;  // moebench ÷ llama.cpp, per repetition pair
};

struct PeerReport {
  std::vector<PeerCase> cases;
  std::string llama_build;  // "llama.cpp b1234 (abc)" and its flags
  std::string cpu;          // /proc/cpuinfo model and SIMD level
  std::int64_t prompt_tokens = 0, gen_tokens = 0;
  int repetitions = 0;
};

// Runs every case; `on_case` is called after each (to print as it goes).
Expected<PeerReport> run_peer_bench(const PeerBenchRequest& req, const ConfigStore& store, Progress& progress,
                                    const std::function<void(const PeerCase&)>& on_case = {});

// The report as markdown: one table for prefill, one for decode — medians
// with [min – max] over the repetitions, and the ratio's median and range
// over repetition pairs. Pure.
std::string peer_report_markdown(const PeerReport& r);

}  // namespace moebench
