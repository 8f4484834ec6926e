// gguf_strings_test.cpp — GGUF strings that are not valid UTF-8 and
// checksum tables of the wrong type: printing never throws (nlohmann's dump
// would, type_error 316), `card from-gguf` derives a card that dumps and
// loads, and `container verify` gives an error naming the key instead of an
// uncaught JSON exception.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <functional>

#include "engines/container/card_from_gguf.h"
#include "engines/container/container.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_writer.h"
#include "vocab/file_io.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

const std::string kBad = "\xff\xfe" "Qwen\xc3";  // stray bytes and a truncated sequence

std::string reference_file() { return std::string(MOEBENCH_TEST_DATA) + "/gguf/tiny-qwen3moe-Q4_0.gguf"; }

void set_kv(GgufFile& f, const std::string& key, GgufType type, Json value) {
  for (GgufKv& kv : f.kvs) {
    if (kv.key == key) {
      kv.type = type;
      kv.value = std::move(value);
      return;
    }
  }
  f.kvs.push_back(gguf_kv(key, type, std::move(value)));
}

// A tiny container with its header rewritten after `edit`; the header must
// keep its size (the data section stays where it was).
std::string edited_container(const TempDir& dir, const std::function<void(std::vector<GgufKv>&)>& edit) {
  ContainerSpec s;
  s.card_name = "tiny-moe";
  Scale scale;
  scale.experts = 2;
  s.card = apply_scale(testing::shipped_store().card("tiny-moe").value(), scale).value();
  s.scale = scale;
  s.quant = "q4_0";
  s.drive_dirs = {dir.path()};
  QuietProgress quiet;
  auto made = make_container(s, quiet);
  REQUIRE(made.ok());
  const std::string path = made->experts[0].path;
  auto g = read_gguf(path);
  REQUIRE(g.ok());
  std::vector<GgufKv> kvs = g->kvs;
  std::vector<GgufTensorInfo> tensors = g->tensors;
  edit(kvs);
  auto layout = gguf_layout(kvs, tensors, 4096);
  REQUIRE(layout.ok());
  REQUIRE(layout->data_offset == g->data_offset);
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  CHECK(::pwrite(fd, layout->header.data(), layout->header.size(), 0) == static_cast<ssize_t>(layout->header.size()));
  ::close(fd);
  return path;
}

std::string verify_error(const std::string& path) {
  QuietProgress quiet;
  auto r = verify_container(path, quiet);
  if (r) return r->ok() ? "(ok)" : "(mismatches)";
  return r.error().message;
}

}  // namespace

TEST_CASE("gguf_printable escapes what is not printable UTF-8 and keeps the rest", "[gguf]") {
  CHECK(gguf_printable("blk.0.attn_q.weight") == "blk.0.attn_q.weight");
  CHECK(gguf_printable("\xc4\xa0hello \xe6\x97\xa5\xf0\x9f\x98\x80") == "\xc4\xa0hello \xe6\x97\xa5\xf0\x9f\x98\x80");
  CHECK(gguf_printable(kBad) == "\\xFF\\xFEQwen\\xC3");
  CHECK(gguf_printable("\xc0\x80") == "\\xC0\\x80");          // overlong NUL
  CHECK(gguf_printable("\xed\xa0\x80") == "\\xED\\xA0\\x80");  // surrogate
  CHECK(gguf_printable("\xf4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");  // above U+10FFFF
  CHECK(gguf_printable(std::string("a\tb\0c", 5)) == "a\\x09b\\x00c");
  // The escaped text is valid UTF-8: nlohmann dumps it strictly.
  CHECK_NOTHROW(Json(gguf_printable(kBad)).dump());
}

TEST_CASE("metadata values with invalid UTF-8 print without throwing", "[gguf]") {
  const Json s = kBad;
  CHECK_THROWS(s.dump());  // why gguf_value_text exists
  std::string text;
  REQUIRE_NOTHROW(text = gguf_value_text(s));
  CHECK(text == "\"\xef\xbf\xbd\xef\xbf\xbdQwen\xef\xbf\xbd\"");
  CHECK_NOTHROW(gguf_value_text(Json::array({"ok", kBad, 3})));
  CHECK(gguf_value_text(Json(42)) == "42");
}

TEST_CASE("reader errors name keys and tensors printably", "[gguf]") {
  std::vector<GgufKv> kvs = {gguf_kv("general.architecture", GgufType::kString, "x")};
  std::vector<GgufTensorInfo> tensors(2);
  tensors[0] = {"w\xff", {32}, 0, 0, 0};
  tensors[1] = {"w\xff", {32}, 0, 0, 0};
  auto layout = gguf_layout(kvs, tensors, 32);
  REQUIRE(layout.ok());
  const std::string image = layout->header + std::string(layout->data_bytes, '\0');
  auto f = parse_gguf(reinterpret_cast<const std::uint8_t*>(image.data()), image.size(), "dup.gguf");
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message.find("tensor \"w\\xFF\"") != std::string::npos);
  CHECK(f.error().message.find("duplicate tensor name") != std::string::npos);
  CHECK_NOTHROW(Json(f.error().message).dump());
}

TEST_CASE("card from-gguf with invalid UTF-8 in general.name derives a card that dumps and loads", "[gguf][card]") {
  auto f = read_gguf(reference_file());
  REQUIRE(f.ok());
  set_kv(*f, "general.name", GgufType::kString, kBad);
  f->label = "odd\xff.gguf";
  auto d = card_from_gguf(*f);
  if (!d) FAIL(d.error().message);
  CHECK(d->card.name == "\\xFF\\xFEQwen\\xC3");
  bool noted = false;
  for (const std::string& n : d->notes) noted = noted || n.find("general.name") != std::string::npos;
  CHECK(noted);
  std::string text;
  REQUIRE_NOTHROW(text = model_card_to_json(d->card).dump(2));
  auto back = load_config_text<ModelCard>(text, "derived.json", load_model_card);
  if (!back) FAIL(back.error().message);
  CHECK(back->name == d->card.name);
}

TEST_CASE("card from-gguf refuses out-of-range metadata and dimensions cleanly", "[gguf][card]") {
  auto f = read_gguf(reference_file());
  REQUIRE(f.ok());
  const std::string arch = f->get_string("general.architecture").value();
  GgufFile huge_layers = *f;
  set_kv(huge_layers, arch + ".block_count", GgufType::kU32, 1u << 30);
  auto d = card_from_gguf(huge_layers);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find(arch + ".block_count\" is 1073741824 but the file has only") != std::string::npos);
  GgufFile huge_heads = *f;
  set_kv(huge_heads, arch + ".attention.head_count_kv", GgufType::kU64, 1ull << 40);
  d = card_from_gguf(huge_heads);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find(arch + ".attention.head_count_kv\" is above 2^30") != std::string::npos);
  GgufFile wide = *f;
  for (GgufTensorInfo& t : wide.tensors) {
    if (t.name == "token_embd.weight") t.ne[1] = 1ull << 31;
  }
  d = card_from_gguf(wide);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("tensor token_embd.weight dimension 1 is 2147483648") != std::string::npos);
}

TEST_CASE("verify names a checksum stored as a number", "[container][gguf]") {
  TempDir dir;
  // Inside the table: one tensor's checksum a number of the same width.
  const std::string path = edited_container(dir, [](std::vector<GgufKv>& kvs) {
    for (GgufKv& kv : kvs) {
      if (kv.key != "moebench.checksums") continue;
      Json table = Json::parse(kv.value.get<std::string>());
      table["token_embd.weight"] = 123456789012345678ull;  // 18 characters, like "<16 hex digits>"
      kv.value = table.dump();
    }
  });
  std::string err = verify_error(path);
  INFO(err);
  CHECK(err.find("moebench.checksums[\"token_embd.weight\"] is a number, expected a string of 16 hex digits") !=
        std::string::npos);
  CHECK(err.find("moebench container make") != std::string::npos);

  // The table itself a number: a metadata entry of the wrong GGUF type.
  TempDir intact;
  auto g = read_gguf(edited_container(intact, [](std::vector<GgufKv>&) {}));
  REQUIRE(g.ok());
  GgufFile numeric = *g;
  set_kv(numeric, "moebench.checksums", GgufType::kU64, 42);
  auto sums = read_container_checksums(numeric);
  REQUIRE_FALSE(sums.ok());
  CHECK(sums.error().message.find("metadata moebench.checksums is u64, expected a string") != std::string::npos);
  // A record table whose layer holds a string, not an array.
  GgufFile records = *g;
  set_kv(records, "moebench.expert_checksums", GgufType::kString, R"({"1": "abc"})");
  sums = read_container_checksums(records);
  REQUIRE_FALSE(sums.ok());
  CHECK(sums.error().message.find("moebench.expert_checksums[\"1\"] is a string, expected an array") !=
        std::string::npos);
  // Invalid UTF-8 inside the JSON text.
  GgufFile utf = *g;
  set_kv(utf, "moebench.checksums", GgufType::kString, "{\"t\xff\": \"0000000000000000\"}");
  sums = read_container_checksums(utf);
  REQUIRE_FALSE(sums.ok());
  CHECK(sums.error().message.find("moebench.checksums is not a JSON object") != std::string::npos);
}

TEST_CASE("verify of an intact edited-then-restored header still passes", "[container][gguf]") {
  TempDir dir;
  const std::string path = edited_container(dir, [](std::vector<GgufKv>&) {});
  CHECK(verify_error(path) == "(ok)");
}

TEST_CASE("verify reads a small moebench file that is not 4096-aligned and reports its checksums", "[container][gguf]") {
  TempDir dir;
  std::vector<GgufKv> kvs = {
      gguf_kv("general.architecture", GgufType::kString, "moebench"),
      gguf_kv("moebench.expert_record_bytes", GgufType::kU64, 54),
      gguf_kv("moebench.checksums", GgufType::kString,
              R"({"blk.1.ffn_exps_packed.weight": "0000000000000000", "output_norm.weight": "0123456789abcdef"})"),
      gguf_kv("moebench.expert_checksums", GgufType::kString, R"({"1": ["0000000000000000", "1111111111111111"]})")};
  std::vector<GgufTensorInfo> tensors(2);
  tensors[0] = {"output_norm.weight", {32}, 0, 0, 0};
  tensors[1] = {"blk.1.ffn_exps_packed.weight", {64, 2}, 24, 0, 0};  // two 64-byte records of 54 bytes + padding
  auto layout = gguf_layout(kvs, tensors, 32);
  REQUIRE(layout.ok());
  const std::string path = dir.file("small.gguf");
  REQUIRE(write_file_atomic(path, layout->header + std::string(layout->data_bytes, '\0')).ok());
  QuietProgress quiet;
  auto r = verify_container(path, quiet);
  if (!r) FAIL(r.error().message);
  CHECK(r->tensors == 2);
  CHECK(r->expert_records == 2);
  CHECK(r->mismatches.size() == 4);  // both tensors and both records: the sums above are made up
  // A record size that is not three matrices inside the record is named.
  kvs[1] = gguf_kv("moebench.expert_record_bytes", GgufType::kU64, 65);
  layout = gguf_layout(kvs, tensors, 32);
  REQUIRE(layout.ok());
  REQUIRE(write_file_atomic(path, layout->header + std::string(layout->data_bytes, '\0')).ok());
  CHECK(verify_error(path).find("tensor \"blk.1.ffn_exps_packed.weight\": moebench.expert_record_bytes (65) is not "
                                "three equal matrices") != std::string::npos);
}
