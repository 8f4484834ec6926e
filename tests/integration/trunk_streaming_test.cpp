// trunk_streaming_test.cpp — the streaming engine streams the per-layer
// trunk: at 0 % hits a decode token reads exactly the card's
// "everything streamed" bytes (plus the stated alignment padding), a budget
// below the trunk runs and stays within its RSS, the split policy moves
// pinned trunk bytes as declared, and the trunk_quant axis makes a container
// whose trunk matrices have that ggml type. Counts, never speed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>

#include "../unit/test_support.h"
#include "process.h"
#include "engines/container/container.h"
#include "engines/container/gguf.h"
#include "engines/streaming/streaming_engine.h"
#include "engines/resident/resident_engine.h"
#include "vocab/card_tensors.h"
#include "vocab/clock.h"
#include "vocab/progress.h"
#include "vocab/quant_format.h"

using namespace moebench;
using moebench::testing::Finished;
using moebench::testing::run_moebench;
using moebench::testing::TempDir;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;

struct TrunkRig {
  TempDir dir;
  std::vector<std::string> drives;
  SteadyClock clock;
  QuietProgress progress;
  ModelCard card;
  TrunkRig() {
    drives.push_back(dir.file("d0"));
    std::filesystem::create_directories(drives.back());
    auto c = load_model_card_file(std::string(MOEBENCH_TEST_DATA) + "/cards/tiny-trunk.json");
    REQUIRE(c);
    card = *c;
  }
  Point point(const std::string& engine, std::uint64_t budget) const {
    Point p;
    p.engine = *parse_engine_spec(engine);
    p.model = card.name;
    p.quant = "q4_0";
    p.trunk_quant = card.trunk_quant;
    p.prompt_tokens = 2;
    p.gen_tokens = 4;
    p.threads = 1;
    p.ram_budget_bytes = budget;
    p.routing = "trace:" + trace();
    return p;
  }
  // Token t uses experts 2t, 2t+1 (mod 16) in every layer: each (layer,
  // expert) pair comes back only after all 128 were used, so an LRU cache
  // with fewer than 128 slots never hits.
  std::string trace() const {
    const std::string path = dir.file("cyclic.trace");
    if (std::filesystem::exists(path)) return path;
    std::ofstream out(path);
    out << "moebench-trace v1 layers=8 experts=16 k=2\n";
    for (int t = 0; t < 64; ++t) {
      for (int l = 0; l < 8; ++l) out << (l ? " | " : "") << (2 * t) % 16 << "," << (2 * t + 1) % 16;
      out << "\n";
    }
    return path;
  }
  Expected<Measurement> run(Engine& e, const Point& p) {
    auto c = point_card(card, p);
    REQUIRE(c);
    RunContext ctx{clock, progress, *c, drives, 42, 0, false, clock.now_s() + 300, nullptr};
    return e.run(p, ctx);
  }
};

double decode_tokens(const Measurement& m) { return static_cast<double>(m.token_times_s.size() - 1); }

// Bytes a streamed layer costs: each of its tensors rounded up to 4096 (the
// trunk file aligns every tensor to 4096; the engine reads a layer's span,
// first tensor to last, as one read).
std::uint64_t padded_layer_bytes(const ModelCard& c) {
  const std::string small = card_small_quant(c);
  std::uint64_t sum = 0;
  for (const CardTensor& t : card_trunk_tensors(c)) {
    if (t.layer < 0) continue;
    const std::uint64_t b = t.rows * find_quant(t.small ? small : c.trunk_quant)->bytes_for(t.row_len);
    sum += (b + 4095) / 4096 * 4096;
  }
  return sum;
}

}  // namespace

TEST_CASE("trunk streaming at 0 % hits reads the card's everything-streamed bytes per decode token, within a budget below the trunk",
          "[engines][trunk]") {
  TrunkRig rig;
  const TrunkBytes tb = rig.card.trunk();
  REQUIRE(tb.layers > 120 * MiB);  // the per-layer trunk alone
  const std::uint64_t budget = 100 * MiB;
  REQUIRE(budget < tb.layers);
  for (const char* engine : {"streaming:trunk=stream", "streaming:trunk=stream,io=pread"}) {
    INFO(engine);
    Point p = rig.point(engine, budget);
    auto e = make_streaming_engine(p.engine);
    auto m = rig.run(*e, p);
    REQUIRE(m);
    INFO(m->reason);
    REQUIRE(m->status == RowStatus::kOk);  // (b) feasible below the trunk
    CHECK(m->expert_hits_decode == 0);
    CHECK(m->expert_misses_decode == static_cast<std::uint64_t>(16 * decode_tokens(*m)));
    // (a) The card's figure: per-layer trunk + top-k experts of every layer
    // from storage. The engine reads each tensor padded to 4096 (the rule
    // above); this card's expert slices and matrices are whole pages, so the
    // only padding is the norms'.
    const std::uint64_t card_bytes = rig.card.decode_bytes("q4_0").all_streamed.storage;
    const std::uint64_t padding = padded_layer_bytes(rig.card) - tb.layers;
    CHECK(padding == 8 * 2 * 2048);  // two 2 KiB bf16 norms per layer
    CHECK(static_cast<double>(m->read_bytes_decode) / decode_tokens(*m) ==
          Approx(static_cast<double>(card_bytes + padding)).epsilon(1e-12));
    REQUIRE(m->trunk_read_bytes_decode.has_value());
    CHECK(static_cast<double>(*m->trunk_read_bytes_decode) / decode_tokens(*m) ==
          Approx(static_cast<double>(padded_layer_bytes(rig.card))).epsilon(1e-12));
    CHECK(m->trunk_pinned_bytes == std::optional<std::uint64_t>(0));
    REQUIRE(m->proc_read_bytes_decode.has_value());
    CHECK(static_cast<double>(*m->proc_read_bytes_decode) ==
          Approx(static_cast<double>(m->read_bytes_decode)).epsilon(0.02));
    // Prefill (one chunk) read every layer's trunk once too.
    CHECK(m->read_bytes_prefill >= padded_layer_bytes(rig.card));
    // (c) Peak RSS within the budget.
    CHECK(m->peak_rss_bytes > 0);
    CHECK(m->peak_rss_bytes <= budget);
    CHECK(m->budget_enforced);
  }
}

TEST_CASE("trunk=resident at a budget below the trunk is infeasible, and auto streams what does not fit", "[engines][trunk]") {
  TrunkRig rig;
  const std::uint64_t budget = 100 * MiB;
  Point r = rig.point("streaming:trunk=resident", budget);
  auto er = make_streaming_engine(r.engine);
  auto mr = rig.run(*er, r);
  REQUIRE(mr);
  CHECK(mr->status == RowStatus::kInfeasible);
  CHECK_THAT(mr->reason, Catch::Contains("minimum budget") && Catch::Contains("trunk=resident"));
  REQUIRE(mr->min_budget_bytes);
  CHECK(*mr->min_budget_bytes > rig.card.trunk().layers);

  Point a = rig.point("streaming", budget);  // trunk=auto, split=trunk-first
  auto ea = make_streaming_engine(a.engine);
  auto ma = rig.run(*ea, a);
  REQUIRE(ma);
  INFO(ma->reason);
  REQUIRE(ma->status == RowStatus::kOk);
  REQUIRE(ma->trunk_pinned_bytes);
  CHECK(*ma->trunk_pinned_bytes < rig.card.trunk().layers);
  CHECK(ma->peak_rss_bytes <= budget);
  // Pinned + streamed per token is the whole padded per-layer trunk.
  CHECK(*ma->trunk_pinned_bytes + static_cast<std::uint64_t>(*ma->trunk_read_bytes_decode / decode_tokens(*ma)) ==
        padded_layer_bytes(rig.card));
}

TEST_CASE("the split policy moves pinned trunk bytes as declared", "[engines][trunk]") {
  TrunkRig rig;
  const std::uint64_t budget = 150 * MiB;
  const std::uint64_t layer = padded_layer_bytes(rig.card) / 8;
  auto pinned = [&](const std::string& engine) {
    Point p = rig.point(engine, budget);
    auto e = make_streaming_engine(p.engine);
    auto m = rig.run(*e, p);
    REQUIRE(m);
    INFO(engine << ": " << m->reason);
    REQUIRE(m->status == RowStatus::kOk);
    CHECK(m->peak_rss_bytes <= budget);
    REQUIRE(m->trunk_pinned_bytes);
    CHECK(*m->trunk_pinned_bytes % layer == 0);  // whole layers
    return *m->trunk_pinned_bytes;
  };
  const std::uint64_t trunk_first = pinned("streaming:split=trunk-first");
  const std::uint64_t quarter = pinned("streaming:split=0.25");
  const std::uint64_t experts_first = pinned("streaming:split=experts-first");
  // trunk-first pins the most; experts-first gives the cache every expert
  // (128 slots) first, leaving room for fewer pinned layers; a quarter of
  // what the fixed memory leaves (~100 MiB) holds at most one 17 MB layer.
  CHECK(trunk_first > experts_first);
  CHECK(trunk_first >= quarter);
  CHECK(quarter <= 2 * layer);
  CHECK(trunk_first >= 3 * layer);
}

TEST_CASE("the trunk_quant axis makes a container whose trunk matrices have that ggml type", "[engines][trunk]") {
  TrunkRig rig;
  Point p = rig.point("streaming:trunk=stream", 100 * MiB);
  p.trunk_quant = "q8_0";
  p.trunk_quant_is_card = false;
  auto e = make_streaming_engine(p.engine);
  auto m = rig.run(*e, p);
  REQUIRE(m);
  INFO(m->reason);
  REQUIRE(m->status == RowStatus::kOk);
  ModelCard q8 = rig.card;
  q8.trunk_quant = "q8_0";
  // The trunk file is the q8_0 one, its matrices q8_0, its norms 16-bit.
  ContainerSpec spec;
  spec.card_name = rig.card.name;
  spec.card = q8;
  spec.quant = "q4_0";
  spec.seed = 42;
  spec.drive_dirs = rig.drives;
  const std::string path = trunk_file_path(spec);
  CHECK_THAT(path, Catch::Contains("trunk-q8_0"));
  auto g = read_gguf(path);
  REQUIRE(g);
  const GgufTensorInfo* q = g->tensor("blk.0.attn_q.weight");
  REQUIRE(q);
  CHECK(q->ggml_type == find_quant("q8_0")->ggml_type);
  const GgufTensorInfo* emb = g->tensor("token_embd.weight");
  REQUIRE(emb);
  CHECK(emb->ggml_type == find_quant("q8_0")->ggml_type);
  const GgufTensorInfo* norm = g->tensor("blk.0.attn_norm.weight");
  REQUIRE(norm);
  CHECK(norm->ggml_type == find_quant("bf16")->ggml_type);
  // Bytes per token follow the q8_0 trunk.
  const std::uint64_t card_bytes = q8.decode_bytes("q4_0").all_streamed.storage;
  const std::uint64_t padding = padded_layer_bytes(q8) - q8.trunk().layers;
  CHECK(static_cast<double>(m->read_bytes_decode) / decode_tokens(*m) ==
        Approx(static_cast<double>(card_bytes + padding)).epsilon(1e-12));
}

TEST_CASE("a sweep's trunk_quant axis reaches the resident engine's container and the rows", "[engines][trunk]") {
  TempDir dir;
  const std::string sweep = dir.file("s.json");
  {
    std::ofstream out(sweep);
    out << R"({"name": "tq", "repetitions": 1, "warmup": 0, "drive_dirs": [")" << dir.file("d0") << R"("],
      "axes": {"engine": ["resident"], "model": ["tiny-moe"], "quant": ["q4_0"],
               "trunk_quant": ["native", "q8_0"], "prompt_tokens": [2], "gen_tokens": [3], "threads": [1]}})";
  }
  std::filesystem::create_directories(dir.file("d0"));
  const std::string out = dir.file("out");
  const Finished f = run_moebench({"run", sweep, "--out", out, "--quiet"}, dir.path());
  INFO(f.out << f.err);
  REQUIRE(f.exit_code == 0);
  std::ifstream rows(out + "/results.jsonl");
  std::string line;
  std::vector<std::string> tq;
  while (std::getline(rows, line)) {
    const Json j = Json::parse(line);
    CHECK(j.at("status") == "ok");
    tq.push_back(j.at("trunk_quant").get<std::string>());
  }
  CHECK(tq == std::vector<std::string>{"bf16", "q8_0"});
  bool bf16 = false, q8 = false;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("d0"))) {
    const std::string n = e.path().filename().string();
    bf16 = bf16 || n.find("trunk-bf16") != std::string::npos;
    q8 = q8 || n.find("trunk-q8_0") != std::string::npos;
  }
  CHECK(bf16);
  CHECK(q8);
}
