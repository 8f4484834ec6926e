// container_check_test.cpp — a reused container whose trunk file or expert
// file was edited by hand (a renamed tensor, a wrong shape or type, offsets
// past the end, edited expert metadata, an expert file pointing at another
// trunk) is refused by check_tensor_table / check_trunk_pairing with the
// tensor's name and the way out, remade by make_container, and the engines
// give that error instead of crashing; `container verify` walks packed
// records of every quant (the padded ones too) and names a flipped byte in a
// packed q2_k file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_writer.h"
#include "vocab/quant_format.h"
#include "engines/streaming/streaming_engine.h"
#include "vocab/clock.h"
#include "vocab/point.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::flip_byte;
using moebench::testing::TempDir;

namespace {

ContainerSpec small_spec(const std::string& dir, const std::string& quant, bool packed, int experts = 16) {
  ContainerSpec s;
  s.card_name = "tiny-moe";
  const ModelCard card = testing::shipped_store().card("tiny-moe").value();
  Scale scale;
  if (experts != card.moe.experts) scale.experts = experts;
  s.card = apply_scale(card, scale).value();
  s.scale = scale;
  s.quant = quant;
  s.seed = 42;  // the seed the engine test's RunContext passes
  s.drive_dirs = {dir};
  s.packed = packed;
  return s;
}

struct Made {
  std::string trunk, experts;
};

Made make_one(const ContainerSpec& spec) {
  QuietProgress quiet;
  auto made = make_container(spec, quiet);
  if (!made) FAIL(made.error().message);
  REQUIRE(made->experts.size() == 1);
  return {made->trunk.path, made->experts[0].path};
}

// Rewrites the header of `path` through the project's writer after `edit`
// changed its metadata or tensor table; the header must keep its size, so
// the tensor data stays where it was.
void rewrite_header(const std::string& path,
                    const std::function<void(std::vector<GgufKv>&, std::vector<GgufTensorInfo>&)>& edit) {
  auto g = read_gguf(path);
  REQUIRE(g.ok());
  std::vector<GgufKv> kvs = g->kvs;
  std::vector<GgufTensorInfo> tensors = g->tensors;
  edit(kvs, tensors);
  auto layout = gguf_layout(kvs, tensors, 4096);
  REQUIRE(layout.ok());
  REQUIRE(layout->data_offset == g->data_offset);
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  CHECK(::pwrite(fd, layout->header.data(), layout->header.size(), 0) == static_cast<ssize_t>(layout->header.size()));
  ::close(fd);
}

GgufTensorInfo& tensor_named(std::vector<GgufTensorInfo>& tensors, const std::string& name) {
  for (GgufTensorInfo& t : tensors) {
    if (t.name == name) return t;
  }
  FAIL("no tensor " << name);
  return tensors.front();
}

std::string check_error(const std::string& path, const ContainerSpec& spec,
                        ContainerPart part = ContainerPart::kExperts) {
  auto g = read_gguf(path);
  if (!g) return "read_gguf: " + g.error().message;
  Status st = check_tensor_table(*g, spec, part, 0);
  return st ? "(accepted)" : st.error().message;
}

}  // namespace

TEST_CASE("an intact container passes the tensor-table check in both layouts", "[container]") {
  for (bool packed : {false, true}) {
    INFO((packed ? "packed" : "split"));
    TempDir dir;
    const ContainerSpec spec = small_spec(dir.path(), "q4_0", packed, 4);
    const Made made = make_one(spec);
    CHECK(check_error(made.experts, spec) == "(accepted)");
    CHECK(check_error(made.trunk, spec, ContainerPart::kTrunk) == "(accepted)");
    // Checked against another card's plan (more experts), the same files are refused.
    const ContainerSpec other = small_spec(dir.path(), "q4_0", packed, 8);
    CHECK(check_error(made.experts, other) != "(accepted)");
    CHECK(check_error(made.trunk, other, ContainerPart::kTrunk) != "(accepted)");
    // Each kind of file is refused as the other.
    CHECK(check_error(made.trunk, spec).find("is missing") != std::string::npos);
    CHECK(check_error(made.experts, spec, ContainerPart::kTrunk).find("is missing") != std::string::npos);
  }
}

TEST_CASE("a renamed shared-expert tensor is refused by name", "[container]") {
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", false, 4);
  const std::string path = make_one(spec).trunk;
  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.1.ffn_up_shexp.weight").name = "blk.1.ffn_up_shexq.weight";
  });
  const std::string err = check_error(path, spec, ContainerPart::kTrunk);
  INFO(err);
  CHECK(err.find(path) != std::string::npos);
  CHECK(err.find("tensor blk.1.ffn_up_shexp.weight is missing") != std::string::npos);
  CHECK(err.find("moebench container make") != std::string::npos);
  CHECK(err.find("delete the file") != std::string::npos);
}

TEST_CASE("a norm tensor of the wrong size or a tensor of the wrong type is refused by name", "[container]") {
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", false, 4);
  const std::string path = make_one(spec).trunk;
  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.2.attn_norm.weight").ne = {128};
  });
  std::string err = check_error(path, spec, ContainerPart::kTrunk);
  INFO(err);
  CHECK(err.find("tensor blk.2.attn_norm.weight has shape 128, expected 256") != std::string::npos);

  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.2.attn_norm.weight").ne = {256};
    tensor_named(t, "token_embd.weight").ggml_type = 1;  // F16 where the card says BF16
  });
  err = check_error(path, spec, ContainerPart::kTrunk);
  INFO(err);
  CHECK(err.find("tensor token_embd.weight has type F16, expected BF16") != std::string::npos);
}

TEST_CASE("an extra tensor or edited expert metadata is refused", "[container]") {
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", true, 4);
  const Made made = make_one(spec);
  const std::string path = made.experts;
  // A trunk tensor renamed to one the card does not have (same name length).
  rewrite_header(made.trunk, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "output_norm.weight").name = "output_nurm.weight";
  });
  CHECK(check_error(made.trunk, spec, ContainerPart::kTrunk).find("tensor output_norm.weight is missing") !=
        std::string::npos);
  rewrite_header(made.trunk, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "output_nurm.weight").name = "output_norm.weight";
  });
  REQUIRE(check_error(made.trunk, spec, ContainerPart::kTrunk) == "(accepted)");
  // An expert tensor renamed.
  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.1.ffn_exps_packed.weight").name = "blk.1.ffn_exps_pucked.weight";
  });
  CHECK(check_error(path, spec).find("tensor blk.1.ffn_exps_packed.weight is missing") != std::string::npos);
  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.1.ffn_exps_pucked.weight").name = "blk.1.ffn_exps_packed.weight";
  });
  REQUIRE(check_error(path, spec) == "(accepted)");
  // experts_held naming an expert the drive does not hold.
  rewrite_header(path, [](std::vector<GgufKv>& kvs, std::vector<GgufTensorInfo>&) {
    for (GgufKv& kv : kvs) {
      if (kv.key == "moebench.experts_held") kv.value[3] = 9;
    }
  });
  const std::string err = check_error(path, spec);
  INFO(err);
  CHECK(err.find("moebench.experts_held") != std::string::npos);

  // In memory: a table entry past the end of the file and an unplanned tensor.
  auto g = read_gguf(path);
  REQUIRE(g.ok());
  GgufFile past = *g;
  for (GgufKv& kv : past.kvs) {
    if (kv.key == "moebench.experts_held") kv.value = Json::array({0, 1, 2, 3});
  }
  REQUIRE(check_tensor_table(past, spec, ContainerPart::kExperts, 0).ok());
  past.tensors.back().offset = past.file_bytes;
  Status st = check_tensor_table(past, spec, ContainerPart::kExperts, 0);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("runs past the end of the file") != std::string::npos);
  GgufFile extra = *g;
  for (GgufKv& kv : extra.kvs) {
    if (kv.key == "moebench.experts_held") kv.value = Json::array({0, 1, 2, 3});
  }
  extra.tensors.push_back(extra.tensors.front());
  extra.tensors.back().name = "blk.0.attn_gate.weight";
  st = check_tensor_table(extra, spec, ContainerPart::kExperts, 0);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("tensor blk.0.attn_gate.weight is not one the card has") != std::string::npos);
}

TEST_CASE("the streaming engine refuses an edited container with the tensor's name", "[container][engines]") {
  TempDir dir;
  const std::vector<std::string> drives = {dir.path()};
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", false, 4);
  const std::string path = make_one(spec).trunk;
  rewrite_header(path, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "blk.1.ffn_gate_shexp.weight").name = "blk.1.ffn_gate_shexq.weight";
  });
  Point p;
  p.engine = *parse_engine_spec("streaming:make=0,kernels=float");
  p.model = "tiny-moe";
  p.scale = spec.scale;
  p.quant = "q4_0";
  p.prompt_tokens = 4;
  p.gen_tokens = 3;
  p.threads = 1;
  SteadyClock clock;
  QuietProgress progress;
  RunContext ctx{clock, progress, spec.card, drives, 42, 0, false, clock.now_s() + 120, nullptr};
  auto engine = make_streaming_engine(p.engine);
  auto m = engine->run(p, ctx);
  REQUIRE_FALSE(m.ok());
  INFO(m.error().message);
  CHECK(m.error().message.find("tensor blk.1.ffn_gate_shexp.weight is missing") != std::string::npos);
  CHECK(m.error().message.find("moebench container make") != std::string::npos);
}

TEST_CASE("verify walks packed containers of every quant, padded records included", "[container]") {
  QuietProgress quiet;
  for (const QuantFormat& f : quant_formats()) {
    const std::string quant(f.name);
    INFO(quant);
    TempDir dir;
    const ContainerSpec spec = small_spec(dir.path(), quant, true, 4);
    if (!quant_fits_card(spec.card, quant).empty()) continue;
    const std::string path = make_one(spec).experts;
    auto report = verify_container(path, quiet);
    if (!report) FAIL(report.error().message);
    for (const std::string& m : report->mismatches) INFO(m);
    CHECK(report->ok());
    CHECK(report->expert_records == spec.card.moe.experts * spec.card.moe_layers());
    CHECK(check_error(path, spec) == "(accepted)");
  }
  // The quants whose records need padding are among them.
  int padded = 0;
  for (const char* q : {"q2_k", "q3_k"}) {
    ContainerSpec s = small_spec("/tmp", q, true, 4);
    padded += padded_record_bytes(s) > expert_record_bytes(s) ? 1 : 0;
  }
  CHECK(padded == 2);
}

TEST_CASE("verify names a flipped byte in a packed q2_k container", "[container]") {
  QuietProgress quiet;
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q2_k", true, 4);
  const std::string path = make_one(spec).experts;
  auto g = read_gguf(path);
  REQUIRE(g.ok());
  const GgufTensorInfo* t = g->tensor("blk.3.ffn_exps_packed.weight");
  REQUIRE(t != nullptr);
  const std::uint64_t record = padded_record_bytes(spec);
  const std::uint64_t matrix = expert_record_bytes(spec) / 3;
  // Expert 2's up matrix (the second slice of its record).
  flip_byte(path, g->data_offset + t->offset + 2 * record + matrix + 17);
  auto bad = verify_container(path, quiet);
  if (!bad) FAIL(bad.error().message);
  std::string all;
  for (const std::string& m : bad->mismatches) all += m + "; ";
  INFO(all);
  CHECK(bad->mismatches.size() == 2);
  CHECK(all.find("tensor blk.3.ffn_exps_packed.weight") != std::string::npos);
  CHECK(all.find("expert 2 of layer 3") != std::string::npos);
}

namespace {

void set_string(const std::string& path, const std::string& key, const std::string& value) {
  rewrite_header(path, [&](std::vector<GgufKv>& kvs, std::vector<GgufTensorInfo>&) {
    for (GgufKv& kv : kvs) {
      if (kv.key == key) kv.value = value;
    }
  });
}

Point tiny_point(const ContainerSpec& spec, const std::string& engine) {
  Point p;
  p.engine = *parse_engine_spec(engine);
  p.model = "tiny-moe";
  p.scale = spec.scale;
  p.quant = spec.quant;
  p.prompt_tokens = 4;
  p.gen_tokens = 3;
  p.threads = 1;
  return p;
}

}  // namespace

TEST_CASE("an expert file paired with another trunk is refused, and make remakes it", "[container]") {
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", false, 4);
  const Made made = make_one(spec);
  auto trunk = read_gguf(made.trunk);
  REQUIRE(trunk.ok());
  // Another trunk identity (same length: the header keeps its size).
  std::string other_id = trunk_identity(spec);
  other_id[other_id.find("\"seed\":42") + 8] = '7';
  set_string(made.experts, "moebench.trunk_identity", other_id);
  std::string err = check_error(made.experts, spec);
  INFO(err);
  CHECK(err.find("moebench.trunk_identity") != std::string::npos);
  CHECK(err.find(trunk_file_name(spec)) != std::string::npos);
  CHECK(err.find("moebench container make") != std::string::npos);
  // make sees the edit and remakes the expert file; the trunk is reused.
  QuietProgress quiet;
  auto again = make_container(spec, quiet);
  REQUIRE(again.ok());
  CHECK(again->trunk.reused);
  CHECK_FALSE(again->experts[0].reused);
  CHECK(check_error(made.experts, spec) == "(accepted)");

  // A trunk checksum that is not the trunk's: the pairing check names it.
  set_string(made.experts, "moebench.trunk_checksum", "0123456789abcdef");
  auto experts = read_gguf(made.experts);
  REQUIRE(experts.ok());
  CHECK(check_error(made.experts, spec) == "(accepted)");  // the table is intact
  Status st = check_trunk_pairing(*experts, *trunk);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("moebench.trunk_checksum") != std::string::npos);
  CHECK(st.error().message.find(made.trunk) != std::string::npos);
  // verify reports it as a mismatch of the pairing, not a crash.
  auto report = verify_container(made.experts, quiet);
  REQUIRE(report.ok());
  REQUIRE(report->mismatches.size() == 1);
  CHECK(report->mismatches[0].find("trunk pairing") != std::string::npos);
  // The streaming engine (make=0) refuses it with the same words.
  SteadyClock clock;
  const std::vector<std::string> drives = {dir.path()};
  RunContext ctx{clock, quiet, spec.card, drives, 42, 0, false, clock.now_s() + 120, nullptr};
  auto m = make_streaming_engine(*parse_engine_spec("streaming:make=0,kernels=float"))->run(tiny_point(spec, "streaming:make=0,kernels=float"), ctx);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("moebench.trunk_checksum") != std::string::npos);
  // make remakes the expert file against the trunk there.
  auto fixed = make_container(spec, quiet);
  REQUIRE(fixed.ok());
  CHECK_FALSE(fixed->experts[0].reused);
  experts = read_gguf(made.experts);
  REQUIRE(experts.ok());
  CHECK(check_trunk_pairing(*experts, *trunk).ok());
}

TEST_CASE("an edited trunk file is remade and a missing one is named", "[container]") {
  TempDir dir;
  const ContainerSpec spec = small_spec(dir.path(), "q4_0", false, 4);
  const Made made = make_one(spec);
  rewrite_header(made.trunk, [](std::vector<GgufKv>&, std::vector<GgufTensorInfo>& t) {
    tensor_named(t, "token_embd.weight").ne[0] -= 1;
  });
  CHECK(check_error(made.trunk, spec, ContainerPart::kTrunk).find("tensor token_embd.weight has shape") !=
        std::string::npos);
  QuietProgress quiet;
  auto again = make_container(spec, quiet);
  REQUIRE(again.ok());
  CHECK_FALSE(again->trunk.reused);
  CHECK(again->experts[0].reused);  // the remade trunk has the same bytes and checksums
  CHECK(check_error(made.trunk, spec, ContainerPart::kTrunk) == "(accepted)");
  // Without its trunk file the engine says which file is missing.
  std::filesystem::remove(made.trunk);
  SteadyClock clock;
  const std::vector<std::string> drives = {dir.path()};
  RunContext ctx{clock, quiet, spec.card, drives, 42, 0, false, clock.now_s() + 120, nullptr};
  auto m = make_streaming_engine(*parse_engine_spec("streaming:make=0,kernels=float"))->run(tiny_point(spec, "streaming:make=0,kernels=float"), ctx);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("no trunk file") != std::string::npos);
  CHECK(m.error().message.find(trunk_file_name(spec)) != std::string::npos);
}
