// peer_budget_test.cpp — llama.cpp below the model's size: the buffers its
// load log names (mapped weights page, repacked copies do not), the words a
// run the memory cgroup killed gets, the budgets bench-peer accepts, the
// storage bytes a child process read (wait4), and the report's budget table
// (golden).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engines/llamacpp/llama_bench.h"
#include "harness/peer_bench.h"
#include "test_support.h"
#include "vocab/file_io.h"
#include "vocab/subprocess.h"

using namespace moebench;

TEST_CASE("llama.cpp's load log: mapped weights, repacked copies and working buffers", "[llama-bench][budget]") {
  // The lines as llama.cpp's loader and context print them (-v), with
  // repeats for a second context: the largest size of each buffer counts.
  const std::string log =
      "load_tensors: loading model tensors, this can take a while... (mmap = true, direct_io = false)\n"
      "load_tensors:   CPU_Mapped model buffer size =   334.25 MiB\n"
      "load_tensors:   CPU_REPACK model buffer size =  1000.00 MiB\n"
      "llama_kv_cache:        CPU KV buffer size =     6.00 MiB\n"
      "llama_context:        CPU compute buffer size =   300.50 MiB\n"
      "llama_kv_cache:        CPU KV buffer size =    12.00 MiB\n"
      "llama_context:  CPU  output buffer size =     0.58 MiB\n"
      "garbage: buffer size = lots\n";
  const auto buffers = parse_llama_buffers(log);
  REQUIRE(buffers.size() == 4);
  CHECK(buffers[0].kind == "model");
  CHECK(buffers[0].backend == "CPU_Mapped");
  CHECK(buffers[0].bytes == 350486528);  // 334.25 MiB
  CHECK(buffers[2].kind == "KV");
  CHECK(buffers[2].bytes == 12 * 1048576ull);  // the larger of the two contexts
  const LlamaMemory mem = llama_memory(buffers);
  CHECK(mem.mapped_weights == 350486528);
  CHECK(mem.copied_weights == 1000 * 1048576ull);
  CHECK(mem.copied_backends == "CPU_REPACK");
  CHECK(mem.working == 12 * 1048576ull + 315097088);  // KV + 300.5 MiB compute
}

TEST_CASE("a run the memory cgroup killed says what held the memory", "[llama-bench][budget]") {
  const std::uint64_t limit = 512 * 1048576ull;
  SECTION("repacked weights cannot page") {
    LlamaMemory mem{100 * 1048576ull, 1200 * 1048576ull, 50 * 1048576ull, "CPU_REPACK"};
    const std::string s = explain_llama_kill(mem, limit, limit, 1);
    CHECK(s.find("OOM killer") != std::string::npos);
    CHECK(s.find("limit 512.00 MiB") != std::string::npos);
    CHECK(s.find("peak charged 512.00 MiB") != std::string::npos);
    CHECK(s.find("1.17 GiB of weights into CPU_REPACK") != std::string::npos);
    CHECK(s.find("-DGGML_CPU_REPACK=OFF") != std::string::npos);
  }
  SECTION("working memory above the limit") {
    LlamaMemory mem{1200 * 1048576ull, 0, 600 * 1048576ull, ""};
    const std::string s = explain_llama_kill(mem, limit, std::nullopt, 1);
    CHECK(s.find("KV cache and compute buffers") != std::string::npos);
    CHECK(s.find("peak") == std::string::npos);
  }
  SECTION("a kill the cgroup did not record is not blamed on it") {
    const std::string s = explain_llama_kill(LlamaMemory{}, limit, std::nullopt, 0);
    CHECK(s.find("no OOM kill") != std::string::npos);
  }
}

TEST_CASE("bench-peer budgets: a share of the model or a size", "[llama-bench][budget]") {
  auto q = parse_peer_budget("25%");
  REQUIRE(q);
  CHECK(q->share == 0.25);
  CHECK(q->bytes == 0);
  auto g = parse_peer_budget("1.5GiB");
  REQUIRE(g);
  CHECK(g->bytes == 1610612736);
  for (const char* bad : {"0%", "%", "-5%", "x%", "lots", "0"}) {
    INFO(bad);
    auto b = parse_peer_budget(bad);
    REQUIRE_FALSE(b);
    CHECK(b.error().message.find(std::string("--budget ") + bad) != std::string::npos);
  }
}

TEST_CASE("a child's storage reads come back from wait4", "[subprocess][budget]") {
  // A file written and flushed, its pages dropped: cat must read it from the
  // drive, and wait4's ru_inblock says how much.
  const std::string path = "peer_budget_test.bin";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 8; ++i) out << block;
  }
  auto fs = filesystem_kind(".");
  if (fs && fs->in_ram) {
    std::remove(path.c_str());
    WARN("the build directory is in RAM: no storage reads to count");
    return;
  }
  REQUIRE(drop_file_cache(path));
  auto r = run_process({"/bin/sh", "-c", "cat \"$0\" > /dev/null", path}, ProcessOptions{});
  std::remove(path.c_str());
  REQUIRE(r);
  REQUIRE(r->ok());
  REQUIRE(r->read_bytes);
  CHECK(*r->read_bytes >= 8u << 20);
  REQUIRE(r->max_rss_bytes);
  CHECK(*r->max_rss_bytes > 0);
}

TEST_CASE("bench-peer report below the model's size: TTFT, reads and why a side failed", "[llama-bench][golden]") {
  PeerReport r;
  r.llama_build = "llama.cpp b7100 (abc1234) (/opt/llama-bench, Release, GGML_CPU_REPACK=OFF, GGML_NATIVE=ON)";
  r.cpu = "Test CPU, moebench kernels avx2";
  r.prompt_tokens = 64;
  r.gen_tokens = 32;
  r.repetitions = 2;
  PeerCase c;
  c.card = "peer-qwen3moe";
  c.quant = "q4_0";
  c.threads = 2;
  c.model_bytes = 2000000000;
  c.budget_bytes = 500000000;
  c.budget_text = "25%";
  c.llama.decode_tok_s = {4.0, 5.0};
  c.llama.prefill_tok_s = {20, 22};
  c.llama.ttft_s = {3.5, 3.2};
  c.llama.read_bytes_per_token = {150e6, 140e6};
  c.moebench.decode_tok_s = {11.0, 12.0};
  c.moebench.prefill_tok_s = {60, 62};
  c.moebench.ttft_s = {1.1, 1.0};
  c.moebench.read_bytes_per_token = {60e6, 62e6};
  c.decode_ratio = {2.75, 2.4};
  c.prefill_ratio = {3.0, 2.82};
  c.moebench.engine = "streaming:chunk=512";
  c.llama.notes = {"engine llama.cpp b7100", "weights: 1.86 GiB mapped (CPU_Mapped, pageable); KV and compute buffers 300 MiB"};
  r.cases.push_back(c);
  PeerCase k = c;
  k.threads = 1;
  k.llama = PeerSide{};
  k.llama.failure = "llama-bench was killed by the kernel's OOM killer inside its memory cgroup (limit 476.8 MiB)";
  k.decode_ratio.clear();
  k.prefill_ratio.clear();
  r.cases.push_back(k);
  testing::check_golden("bench_peer_budget.md", peer_report_markdown(r));
}
