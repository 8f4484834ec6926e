// container_test.cpp — containers of the tiny card: both expert layouts, one
// and two drives, replicate and stripe; verify passes on what make wrote, a
// flipped byte is caught and named, replicas are byte-identical, the packed
// and split layouts hold the same expert bytes, and the header's sizes are
// the card's derived numbers. The trunk is a file of its own, shared by
// every quant, and the disk need of a set of containers counts it once.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "engines/quant/kernels_q8.h"
#include "vocab/quant_format.h"
#include "vocab/file_io.h"
#include "vocab/units.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::flip_byte;
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

}  // namespace

TEST_CASE("make then verify, split and packed, and a flipped byte is named", "[container]") {
  QuietProgress quiet;
  for (bool packed : {false, true}) {
    INFO((packed ? "packed" : "split"));
    TempDir dir;
    const ContainerSpec spec = tiny_spec({dir.path()}, "replicate", packed);
    auto made = make_container(spec, quiet);
    if (!made) FAIL(made.error().message);
    REQUIRE(made->experts.size() == 1);
    const std::string path = made->experts[0].path;
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
  auto gs = read_gguf(split->experts[0].path);
  auto gp = read_gguf(packed->experts[0].path);
  REQUIRE((gs.ok() && gp.ok()));
  CHECK(gs->get_string("moebench.expert_checksums") == gp->get_string("moebench.expert_checksums"));
}

TEST_CASE("rows8 containers hold the row layout's experts interleaved by 8 rows", "[container][rows8]") {
  QuietProgress quiet;
  for (const char* quant : {"mxfp4", "q8_0", "q4_0"}) {
    INFO(quant);
    TempDir a, b, c;
    ContainerSpec rows = tiny_spec({a.path()}, "replicate", false, quant);
    ContainerSpec rows8 = tiny_spec({b.path()}, "replicate", false, quant);
    rows8.rows8 = true;
    ContainerSpec packed8 = tiny_spec({c.path()}, "replicate", true, quant);
    packed8.rows8 = true;
    CHECK(container_file_name(rows8, 0).find(".split.rows8.gguf") != std::string::npos);
    CHECK(container_file_name(rows, 0).find("rows8") == std::string::npos);
    auto mr = make_container(rows, quiet);
    auto m8 = make_container(rows8, quiet);
    auto mp = make_container(packed8, quiet);
    REQUIRE((mr.ok() && m8.ok() && mp.ok()));
    auto report = verify_container(m8->experts[0].path, quiet);  // checksums over the stored bytes
    REQUIRE(report.ok());
    CHECK(report->ok());
    auto gr = read_gguf(mr->experts[0].path);
    auto g8 = read_gguf(m8->experts[0].path);
    auto gp = read_gguf(mp->experts[0].path);
    REQUIRE((gr.ok() && g8.ok() && gp.ok()));
    CHECK(g8->get_string("moebench.expert_rows") == std::optional<std::string>("rows8"));
    CHECK_FALSE(gr->get_string("moebench.expert_rows").has_value());
    CHECK(g8->get_string("moebench.expert_checksums") == gp->get_string("moebench.expert_checksums"));
    CHECK(g8->get_string("moebench.expert_checksums") != gr->get_string("moebench.expert_checksums"));
    // Expert 3's down matrix: the row file's bytes, interleaved, are the rows8 file's.
    const GgufTensorInfo* tr = gr->tensor("blk.1.ffn_down_exps.weight");
    const GgufTensorInfo* t8 = g8->tensor("blk.1.ffn_down_exps.weight");
    REQUIRE((tr != nullptr && t8 != nullptr));
    const std::size_t rows_n = static_cast<std::size_t>(tr->ne[1]), cols = static_cast<std::size_t>(tr->ne[0]);
    REQUIRE(has_rows8_layout(quant, rows_n, cols));
    const std::uint64_t slice = tr->bytes / tr->ne.back();
    std::vector<unsigned char> want(slice), got(slice);
    auto read_at = [](const std::string& path, std::uint64_t off, std::vector<unsigned char>& out) {
      const int fd = ::open(path.c_str(), O_RDONLY);
      REQUIRE(fd >= 0);
      REQUIRE(::pread(fd, out.data(), out.size(), static_cast<off_t>(off)) == static_cast<ssize_t>(out.size()));
      ::close(fd);
    };
    read_at(mr->experts[0].path, gr->data_offset + tr->offset + 3 * slice, want);
    read_at(m8->experts[0].path, g8->data_offset + t8->offset + 3 * slice, got);
    REQUIRE(interleave_rows8(quant, want.data(), rows_n, cols).ok());
    CHECK(want == got);
  }
}

TEST_CASE("replicate copies are byte-identical, stripe spreads experts", "[container]") {
  QuietProgress quiet;
  TempDir d0, d1;
  auto rep = make_container(tiny_spec({d0.path(), d1.path()}, "replicate", false), quiet);
  if (!rep) FAIL(rep.error().message);
  REQUIRE(rep->experts.size() == 2);
  CHECK(read_file(rep->experts[0].path).value() == read_file(rep->experts[1].path).value());
  auto again = make_container(tiny_spec({d0.path(), d1.path()}, "replicate", false), quiet);
  REQUIRE(again.ok());
  CHECK(again->trunk.reused);
  CHECK(again->experts[0].reused);
  CHECK(again->experts[1].reused);

  TempDir s0, s1;
  const ContainerSpec spec = tiny_spec({s0.path(), s1.path()}, "stripe", true);
  auto st = make_container(spec, quiet);
  if (!st) FAIL(st.error().message);
  auto g0 = read_gguf(st->experts[0].path);
  auto g1 = read_gguf(st->experts[1].path);
  auto gt = read_gguf(st->trunk.path);
  REQUIRE((g0.ok() && g1.ok() && gt.ok()));
  CHECK(g0->find("moebench.experts_held")->value == Json::array({0, 2, 4, 6, 8, 10, 12, 14}));
  CHECK(g1->find("moebench.experts_held")->value == Json::array({1, 3, 5, 7, 9, 11, 13, 15}));
  CHECK(gt->tensor("token_embd.weight") != nullptr);  // the trunk file, on drive 0
  CHECK(std::filesystem::path(st->trunk.path).parent_path() == std::filesystem::path(s0.path()));
  CHECK(g0->tensor("token_embd.weight") == nullptr);
  CHECK(g1->tensor("token_embd.weight") == nullptr);
  CHECK(verify_container(st->trunk.path, quiet)->ok());
  for (const ContainerFile& f : st->experts) CHECK(verify_container(f.path, quiet)->ok());
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

TEST_CASE("two quants share one trunk file, expert files hold only routed experts and name their trunk", "[container]") {
  QuietProgress quiet;
  TempDir dir;
  const ContainerSpec a = tiny_spec({dir.path()}, "replicate", false, "mxfp4");
  const ContainerSpec b = tiny_spec({dir.path()}, "replicate", false, "q4_k");
  auto ma = make_container(a, quiet);
  if (!ma) FAIL(ma.error().message);
  auto mb = make_container(b, quiet);
  if (!mb) FAIL(mb.error().message);
  CHECK_FALSE(ma->trunk.reused);
  CHECK(mb->trunk.reused);  // the same bytes: written once
  CHECK(ma->trunk.path == mb->trunk.path);
  CHECK(std::filesystem::path(ma->trunk.path).filename() == "tiny-moe.full.trunk-" + a.card.trunk_quant + ".s7.gguf");
  CHECK(ma->trunk.part == ContainerPart::kTrunk);
  CHECK(ma->experts[0].part == ContainerPart::kExperts);
  auto trunk = read_gguf(ma->trunk.path);
  REQUIRE(trunk.ok());
  CHECK(trunk->get_string("moebench.part") == std::optional<std::string>("trunk"));
  for (const GgufTensorInfo& t : trunk->tensors) CHECK(t.name.find("_exps") == std::string::npos);
  CHECK(trunk->tensors.size() == plan_trunk(a).size());
  for (const ContainerFiles* m : {&*ma, &*mb}) {
    auto g = read_gguf(m->experts[0].path);
    REQUIRE(g.ok());
    CHECK(g->get_string("moebench.part") == std::optional<std::string>("experts"));
    CHECK(g->get_string("moebench.trunk_file") == std::optional<std::string>(trunk_file_name(a)));
    CHECK(g->get_string("moebench.trunk_identity") == std::optional<std::string>(trunk_identity(a)));
    CHECK(check_trunk_pairing(*g, *trunk).ok());
    for (const GgufTensorInfo& t : g->tensors) CHECK(t.name.find("_exps") != std::string::npos);
    auto report = verify_container(m->experts[0].path, quiet);
    REQUIRE(report.ok());
    CHECK(report->ok());
    std::string notes;
    for (const std::string& n : report->notes) notes += n;
    CHECK(notes.find("pairs with the trunk file " + trunk_file_name(a)) != std::string::npos);
  }
  // The planned sizes are the written ones.
  CHECK(planned_trunk_file_bytes(a).value() == ma->trunk.bytes);
  CHECK(planned_expert_file_bytes(a, 0).value() == ma->experts[0].bytes);
  CHECK(planned_expert_file_bytes(b, 0).value() == mb->experts[0].bytes);
  CHECK(std::filesystem::file_size(ma->trunk.path) == ma->trunk.bytes);
  // A different seed is a different trunk.
  ContainerSpec c = a;
  c.seed = 8;
  CHECK(trunk_file_name(c) != trunk_file_name(a));
  CHECK(trunk_identity(c) != trunk_identity(a));
}

TEST_CASE("the disk need counts a shared trunk and hard-linked replicas once", "[container]") {
  QuietProgress quiet;
  TempDir d0, d1;
  Scale scale;
  scale.experts = 4;
  const ModelCard card = apply_scale(testing::shipped_store().card("tiny-moe").value(), scale).value();
  std::vector<ContainerSpec> specs;
  for (const char* q : {"mxfp4", "q4_k"}) {
    for (int drives : {1, 2}) {
      ContainerSpec s = tiny_spec({d0.path(), d1.path()}, "replicate", false, q);
      s.card = card;
      s.scale = scale;
      s.drive_dirs.resize(static_cast<std::size_t>(drives));
      specs.push_back(s);
    }
  }
  const std::uint64_t trunk = planned_trunk_file_bytes(specs[0]).value();
  const std::uint64_t mx = planned_expert_file_bytes(specs[0], 0).value();
  const std::uint64_t q4 = planned_expert_file_bytes(specs[2], 0).value();
  // Planned bytes are the card's: tensor bytes rounded up to 4096, plus the header.
  std::uint64_t trunk_tensors = 0;
  for (const PlannedTensor& p : plan_trunk(specs[0])) {
    const QuantFormat f = *find_quant(p.quant);
    trunk_tensors += (p.rows * f.bytes_for(p.row_len) + 4095) / 4096 * 4096;
  }
  CHECK(trunk > trunk_tensors);
  CHECK(trunk - trunk_tensors < (1u << 20));  // the header
  const std::uint64_t experts_mx = expert_record_bytes(specs[0]) * 4 * static_cast<std::uint64_t>(card.moe_layers());
  CHECK(mx >= experts_mx);
  CHECK(mx - experts_mx < (1u << 20));

  auto need = container_disk_need(specs);
  if (!need) FAIL(need.error().message);
  // d0 and d1 share one filesystem (both TempDirs): the replicas are links.
  CHECK(need->trunk_files == 1);
  CHECK(need->expert_files == 2);
  CHECK(need->hard_links == 2);
  CHECK(need->trunk_bytes == trunk);
  CHECK(need->expert_bytes == mx + q4);
  CHECK(need->total_bytes == trunk + mx + q4);
  CHECK(need->to_write_bytes == need->total_bytes);
  REQUIRE(need->filesystems.size() == 1);
  CHECK(need->filesystems[0].to_write_bytes == need->total_bytes);
  CHECK(need->check_fits().ok());
  CHECK(need->summary().find("1 trunk file") != std::string::npos);
  CHECK(need->summary().find("2 replicas hard-linked") != std::string::npos);

  // Once made, nothing is left to write; the files on disk are the need.
  for (const ContainerSpec& s : specs) REQUIRE(make_container(s, quiet).ok());
  auto after = container_disk_need(specs);
  REQUIRE(after.ok());
  CHECK(after->total_bytes == need->total_bytes);
  CHECK(after->to_write_bytes == 0);
  std::uint64_t on_disk = 0;
  for (const TempDir* d : {&d0, &d1}) {
    for (const auto& e : std::filesystem::directory_iterator(d->path())) {
      if (e.path().extension() == ".gguf" && std::filesystem::hard_link_count(e.path()) == 1) on_disk += e.file_size();
    }
  }
  // Files with one name each are the trunk; the expert files have two (d0 + d1).
  CHECK(on_disk == trunk);
  CHECK(std::filesystem::file_size(d1.path() + "/" + container_file_name(specs[3], 1)) == q4);

  // A filesystem too small is refused, naming the directory and the need.
  DiskNeed tight = *need;
  tight.filesystems[0].free_bytes = need->to_write_bytes;
  Status st = tight.check_fits();
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find(d0.path()) != std::string::npos);
  CHECK(st.error().message.find(format_bytes(static_cast<double>(need->to_write_bytes))) != std::string::npos);
  CHECK(st.error().message.find("free space") != std::string::npos);
}

TEST_CASE("a drive directory that refuses the make lock but holds every file is used as it is", "[container]") {
  QuietProgress quiet;
  TempDir dir;
  const ContainerSpec spec = tiny_spec({dir.path()}, "replicate", false);
  {
    auto made = make_container(spec, quiet);
    if (!made) FAIL(made.error().message);
  }
  // The lock file cannot be opened (as on a read-only mount, which root's
  // tests cannot make): its path is a directory.
  const std::string lock = dir.file(".moebench-make.lock");
  std::filesystem::remove(lock);
  REQUIRE(std::filesystem::create_directory(lock));
  auto reused = make_container(spec, quiet);
  if (!reused) FAIL(reused.error().message);
  CHECK(reused->trunk.reused);
  REQUIRE(reused->experts.size() == 1);
  CHECK(reused->experts[0].reused);
  // With a file missing there is something to make: the lock is needed, and its refusal is the error.
  std::filesystem::remove(reused->experts[0].path);
  auto missing = make_container(spec, quiet);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::StartsWith("container make: "));
}
