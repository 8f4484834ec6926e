// container_test.cpp — containers of the tiny card: both expert layouts, one
// and two drives, replicate and stripe; verify passes on what make wrote, a
// flipped byte is caught and named, replicas are byte-identical, the packed
// and split layouts hold the same expert bytes, and the header's sizes are
// the card's derived numbers.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "vocab/file_io.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

ContainerSpec tiny_spec(const std::vector<std::string>& dirs, const std::string& layout, bool packed,
                        const std::string& quant = "q4_k") {
  ContainerSpec s;
  s.card_name = "tiny-moe";
  s.card = testing::shipped_store().card("tiny-moe").value();
  s.quant = quant;
  s.seed = 7;
  s.drive_dirs = dirs;
  s.drive_layout = layout;
  s.packed = packed;
  return s;
}

void flip_byte(const std::string& path, std::uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  unsigned char b = 0;
  REQUIRE(::pread(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  b ^= 0x5a;
  REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

}  // namespace

TEST_CASE("make then verify, split and packed, and a flipped byte is named", "[container]") {
  QuietProgress quiet;
  for (bool packed : {false, true}) {
    INFO((packed ? "packed" : "split"));
    TempDir dir;
    const ContainerSpec spec = tiny_spec({dir.path()}, "replicate", packed);
    auto made = make_container(spec, quiet);
    if (!made) FAIL(made.error().message);
    REQUIRE(made->size() == 1);
    const std::string path = (*made)[0].path;
    CHECK_FALSE(std::filesystem::exists(path + ".partial"));
    auto report = verify_container(path, quiet);
    if (!report) FAIL(report.error().message);
    CHECK(report->ok());
    CHECK(report->bytes_verified > 0);
    CHECK(report->expert_records == spec.card.moe.experts * spec.card.moe_layers());
    auto g = read_gguf(path);
    REQUIRE(g.ok());
    CHECK(g->alignment == 4096);
    // Routed-expert bytes in the file are the card's (plus record padding when packed).
    std::uint64_t expert_bytes = 0;
    for (const GgufTensorInfo& t : g->tensors) {
      CHECK(t.offset % 4096 == 0);
      if (t.name.find("_exps") != std::string::npos) expert_bytes += t.bytes;
    }
    const std::uint64_t per_record = packed ? padded_record_bytes(spec) : expert_record_bytes(spec);
    CHECK(expert_bytes == per_record * static_cast<std::uint64_t>(spec.card.moe.experts * spec.card.moe_layers()));
    // Flip one byte inside expert 5 of the first MoE layer: verify names it.
    const GgufTensorInfo* t = nullptr;
    for (const GgufTensorInfo& x : g->tensors) {
      if (t == nullptr && x.name.find(packed ? "ffn_exps_packed" : "ffn_down_exps") != std::string::npos) t = &x;
    }
    REQUIRE(t != nullptr);
    const std::uint64_t slice = t->bytes / t->ne.back();
    flip_byte(path, g->data_offset + t->offset + 5 * slice + 100);
    auto bad = verify_container(path, quiet);
    REQUIRE(bad.ok());
    CHECK_FALSE(bad->ok());
    std::string all;
    for (const std::string& m : bad->mismatches) all += m + "; ";
    INFO(all);
    CHECK(all.find("tensor " + t->name) != std::string::npos);
    CHECK(all.find("expert 5 of layer") != std::string::npos);
    // A second make sees a file that is no longer identical? It checks identity and size only:
    // verify is the byte-level check, so the damaged file is reported above, not silently reused.
  }
}

TEST_CASE("split and packed layouts hold the same expert bytes", "[container]") {
  QuietProgress quiet;
  TempDir a, b;
  auto split = make_container(tiny_spec({a.path()}, "replicate", false, "mxfp4"), quiet);
  auto packed = make_container(tiny_spec({b.path()}, "replicate", true, "mxfp4"), quiet);
  REQUIRE((split.ok() && packed.ok()));
  auto gs = read_gguf((*split)[0].path);
  auto gp = read_gguf((*packed)[0].path);
  REQUIRE((gs.ok() && gp.ok()));
  CHECK(gs->get_string("moebench.expert_checksums") == gp->get_string("moebench.expert_checksums"));
}

TEST_CASE("replicate copies are byte-identical, stripe spreads experts", "[container]") {
  QuietProgress quiet;
  TempDir d0, d1;
  auto rep = make_container(tiny_spec({d0.path(), d1.path()}, "replicate", false), quiet);
  if (!rep) FAIL(rep.error().message);
  REQUIRE(rep->size() == 2);
  CHECK(read_file((*rep)[0].path).value() == read_file((*rep)[1].path).value());
  auto again = make_container(tiny_spec({d0.path(), d1.path()}, "replicate", false), quiet);
  REQUIRE(again.ok());
  CHECK((*again)[0].reused);
  CHECK((*again)[1].reused);

  TempDir s0, s1;
  const ContainerSpec spec = tiny_spec({s0.path(), s1.path()}, "stripe", true);
  auto st = make_container(spec, quiet);
  if (!st) FAIL(st.error().message);
  auto g0 = read_gguf((*st)[0].path);
  auto g1 = read_gguf((*st)[1].path);
  REQUIRE((g0.ok() && g1.ok()));
  CHECK(g0->find("moebench.experts_held")->value == Json::array({0, 2, 4, 6, 8, 10, 12, 14}));
  CHECK(g1->find("moebench.experts_held")->value == Json::array({1, 3, 5, 7, 9, 11, 13, 15}));
  CHECK(g0->tensor("token_embd.weight") != nullptr);  // trunk on drive 0
  CHECK(g1->tensor("token_embd.weight") == nullptr);
  for (const ContainerFile& f : *st) CHECK(verify_container(f.path, quiet)->ok());
}

TEST_CASE("container make refuses bad requests clearly", "[container]") {
  QuietProgress quiet;
  TempDir dir;
  auto missing = make_container(tiny_spec({dir.path() + "/nope"}, "replicate", false), quiet);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("drive directory does not exist") != std::string::npos);
  auto layout = make_container(tiny_spec({dir.path()}, "mirror", false), quiet);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().message.find("unknown layout \"mirror\"") != std::string::npos);
  auto not_ours = verify_container(std::string(MOEBENCH_TEST_DATA) + "/gguf/tiny-qwen3moe-Q4_K.gguf", quiet);
  REQUIRE_FALSE(not_ours.ok());
  CHECK(not_ours.error().message.find("not a moebench container") != std::string::npos);
}
