// peer_test.cpp — llama.cpp as the peer, end to end with a real llama-bench:
// `moebench export` writes a GGUF llama-bench loads and runs, a sweep with
// both the resident engine and the llama-bench engine puts their rows in
// one table, and `moebench bench-peer` prints both sides with the ratio.
// Runs when MOEBENCH_LLAMA_BENCH names a llama-bench binary (build one from
// llama.cpp: docs/llama-cpp.md); says plainly that it was
// skipped otherwise.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "process.h"
#include "../unit/test_support.h"
#include "vocab/file_io.h"
#include "vocab/json_reader.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

const char* kCard = R"J({"name": "t-peer", "description": "integration test card (qwen3moe-shaped)", "geometry": "exact",
  "hidden_size": 256, "vocab_size": 512, "tied_embeddings": false,
  "layers": [{"count": 2, "attention": "gqa", "ffn": "moe"}],
  "gqa": {"heads": 4, "kv_heads": 2, "head_dim": 64},
  "moe": {"experts": 16, "active": 4, "shared": 0, "expert_dim": 256, "expert_intermediate": 256},
  "expert_quant": "q4_0", "trunk_quant": "q4_0", "kv_dtype": "f16"})J";

// The llama-bench binary the peer tests run, or null (the test then says it
// checked nothing).
const char* peer_binary() {
  const char* bin = std::getenv("MOEBENCH_LLAMA_BENCH");
  if (bin != nullptr && *bin != '\0') return bin;
  WARN("SKIPPED: set MOEBENCH_LLAMA_BENCH=/path/to/llama-bench to run the llama.cpp peer test (nothing was checked)");
  return nullptr;
}

// A configs directory in `dir` holding the t-peer card.
std::string peer_configs(const TempDir& dir) {
  REQUIRE(ensure_directory(dir.file("configs/models")).ok());
  REQUIRE(write_file_atomic(dir.file("configs/models/t-peer.json"), kCard).ok());
  return dir.file("configs");
}

}  // namespace

TEST_CASE("llama.cpp peer: export, a sweep with the llama-bench engine, bench-peer", "[peer]") {
  const char* bin = peer_binary();
  if (bin == nullptr) return;
  TempDir dir;
  const std::string configs = peer_configs(dir);

  auto exp = run_moebench({"--configs", configs, "export", "t-peer", "--quant", "q4_0", "--out", dir.file("t.gguf")},
                          dir.path(), "export");
  INFO(exp.err);
  REQUIRE(exp.exit_code == 0);
  CHECK(exp.out.find("qwen3moe for llama.cpp") != std::string::npos);

  const std::string sweep = std::string(R"({"name": "peer", "repetitions": 2, "warmup": 0, "seed": 1,
    "drive_dirs": [")") + dir.file("d0") + R"("],
    "axes": {"engine": ["resident", "llama-bench:path=)" + bin + R"("], "model": ["t-peer"], "quant": ["q4_0"],
             "threads": [1], "context_tokens": [0, 64], "prompt_tokens": [16], "gen_tokens": [4]}})";
  REQUIRE(write_file_atomic(dir.file("sweep.json"), sweep).ok());
  auto run = run_moebench({"--configs", configs, "run", dir.file("sweep.json"), "--out", dir.file("out"), "-q"},
                          dir.path(), "run");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  auto j = read_json_file(dir.file("out/results.json"));
  REQUIRE(j);
  const Json& rows = (*j)["rows"];
  REQUIRE(rows.size() == 4);
  int llama_rows = 0;
  for (const Json& r : rows) {
    INFO(r.dump());
    CHECK(r["status"] == "ok");
    CHECK(r["provenance"] == "measured");
    CHECK(r["metrics"]["decode_tok_s"]["median"].get<double>() > 0);
    CHECK(r["metrics"]["prefill_tok_s"]["median"].get<double>() > 0);
    if (r["point"]["engine"].get<std::string>().rfind("llama-bench", 0) == 0) {
      ++llama_rows;
      bool named = false;
      for (const Json& n : r["notes"]) named = named || n.get<std::string>().find("llama.cpp") != std::string::npos;
      CHECK(named);
    }
  }
  CHECK(llama_rows == 2);

  auto peer = run_moebench({"--configs", configs, "bench-peer", "--llama-bench", bin, "--card", "t-peer", "--threads",
                            "1", "--reps", "2", "-p", "16", "-n", "4", "--dir", dir.file("peer"), "-q"},
                           dir.path(), "peer");
  INFO(peer.err);
  REQUIRE(peer.exit_code == 0);
  CHECK(peer.out.find("## prefill (pp16) tok/s") != std::string::npos);
  CHECK(peer.out.find("| t-peer | q4_0 | 1 |") != std::string::npos);
}

TEST_CASE("llama.cpp peer below the model's size: the budget table, each side measured or saying why", "[peer]") {
  const char* bin = peer_binary();
  if (bin == nullptr) return;
  TempDir dir;
  auto peer = run_moebench({"--configs", peer_configs(dir), "bench-peer", "--llama-bench", bin, "--card", "t-peer",
                            "--threads", "1", "--reps", "1", "-p", "16", "-n", "4", "--budget", "50%", "--dir",
                            dir.file("peer"), "-q"},
                           dir.path(), "peer");
  INFO(peer.out << peer.err);
  REQUIRE(peer.exit_code == 0);
  CHECK(peer.out.find("## below the model's size: steady decode (tg4)") != std::string::npos);
  CHECK(peer.out.find("(50 % of ") != std::string::npos);
  // The moebench side always runs; llama.cpp's either ran (reads per token
  // in bytes) or its reason names the memory cgroup (a tiny model's compute
  // buffers, or repacked weights, can exceed half its size).
  if (peer.out.find("failed (1)") != std::string::npos) {
    CHECK(peer.out.find("(1) llama-bench was killed") != std::string::npos);
    CHECK(peer.out.find("memory cgroup") != std::string::npos);
  } else {
    CHECK(peer.out.find("llama.cpp weights: ") != std::string::npos);
  }
}
