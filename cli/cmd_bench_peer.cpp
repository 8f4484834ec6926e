// cmd_bench_peer.cpp — `moebench bench-peer --llama-bench PATH`: moebench's
// resident engine and llama.cpp's llama-bench on the same exported weights,
// interleaved (harness/peer_bench.h). Options → run_peer_bench → the
// markdown tables on stdout (each case's line on stderr as it finishes),
// written to --out too.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/peer_bench.h"
#include "harness/terminal_progress.h"
#include "vocab/clock.h"
#include "vocab/file_io.h"
#include "vocab/progress.h"
#include "vocab/stats.h"
#include "vocab/text.h"

namespace moebench {
namespace {

Expected<int> bench_peer_command(const PeerBenchRequest& req, const std::string& out, bool quiet, const CliState& state) {
  SteadyClock clock;
  StderrProgress shown(clock, quiet);
  Progress& progress = shown.get();
  auto rep = run_peer_bench(req, state.store(), progress, [&](const PeerCase& c) {
    if (quiet) return;
    const std::string at = c.budget_bytes > 0 ? ", budget " + c.budget_text : "";
    if (c.decode_ratio.empty()) {
      say("{} {} {} thread(s){}: no pair ({})", c.card, c.quant, c.threads, at,
          !c.llama.failure.empty() ? "llama.cpp failed" : "moebench failed");
      return;
    }
    say("{} {} {} thread(s){}: prefill ratio {:.2f}, decode ratio {:.2f} (medians)", c.card, c.quant, c.threads, at,
        summarize(c.prefill_ratio).median, summarize(c.decode_ratio).median);
  });
  if (!rep) return fail(rep.error().message);
  const std::string md = peer_report_markdown(*rep);
  fmt::print("{}", md);
  if (!out.empty()) {
    if (Status st = write_file_atomic(out, md); !st) return fail(st.error().message);
  }
  return 0;
}

}  // namespace

void add_bench_peer_command(CLI::App& app, CliState& state) {
  auto req = std::make_shared<PeerBenchRequest>();
  auto out = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("bench-peer", "moebench's resident engine beside llama.cpp's llama-bench on the same weights.");
  cmd->footer(
      "Each card is made (or reused) as a container in --dir and exported as a GGUF llama.cpp loads (moebench "
      "export); llama-bench and the resident engine then run the same threads, prompt and generation lengths, one "
      "repetition each in turn (the order alternating), after one warm-up each. Prints prefill and steady-decode "
      "medians with their ranges and the per-pair ratio moebench / llama.cpp.\n\n"
      "Example:\n"
      "  moebench bench-peer --llama-bench ~/llama.cpp/build/bin/llama-bench\n"
      "  moebench bench-peer --llama-bench ~/llama.cpp/build/bin/llama-bench --card peer-deepseek2 "
      "--quant q4_0 --quant q8_0 --threads 1 --threads 2 --reps 5 --out peer.md\n"
      "  moebench bench-peer --llama-bench ~/llama.cpp/build-norepack/bin/llama-bench --budget 25% --budget 50% "
      "--budget 75% --threads 2\n\n"
      "With --budget the model does not fit: llama-bench mmaps it inside a memory cgroup of that size and moebench's "
      "streaming engine holds itself to the same budget; the table adds TTFT and storage reads per decode token. "
      "llama.cpp's CPU backend repacks Q4_0/Q4_K/IQ4_NL/MXFP4 weights into anonymous memory on x86, which the cgroup "
      "cannot page: build it with -DGGML_CPU_REPACK=OFF for those quants (a killed run says so).");
  cmd->add_option("--llama-bench", req->llama_bench, "the llama-bench binary (built from llama.cpp)")->required();
  cmd->add_option("--card", req->cards, "model card(s) (default peer-qwen3moe)");
  cmd->add_option("--quant", req->quants, "quant(s), one for every tensor (default q4_0)");
  cmd->add_option("--threads", req->threads, "thread count(s) (default 1 and all)")->check(CLI::PositiveNumber);
  cmd->add_option("-p,--prompt", req->prompt_tokens, "prompt tokens (default 64)")->check(CLI::Range(1, 512));
  cmd->add_option("-n,--gen", req->gen_tokens, "generated tokens (default 32)")->check(CLI::Range(2, 4096));
  cmd->add_option("--reps", req->repetitions, "interleaved repetitions (default 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--budget", req->budgets,
                  "RAM budget(s) below the model's size: a share of the exported GGUF (25%) or a size (1GiB); "
                  "runs the streaming engine beside llama.cpp under a memory cgroup");
  cmd->add_option("--streaming-engine", req->streaming_engine,
                  "moebench engine for budget runs (default streaming:chunk=512)");
  cmd->add_option("--dir", req->dir, "where containers and exports are made or reused (default moebench-drives/peer)");
  cmd->add_option("--out", *out, "also write the markdown here");
  cmd->add_flag("-q,--quiet", *quiet, "no progress on stderr");
  cmd->callback([req, out, quiet, &state] { finish(state, "bench-peer", bench_peer_command(*req, *out, *quiet, state)); });
}

}  // namespace moebench
