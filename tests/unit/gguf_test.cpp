// gguf_test.cpp — the GGUF reader on files llama.cpp wrote, the writer's
// round trip, and hostile headers: each gives a precise error, none
// crashes or allocates without bound.
#include <catch2/catch.hpp>

#include <cstring>

#include "engines/container/ggml_types.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_writer.h"
#include "vocab/file_io.h"

using namespace moebench;

namespace {

// A raw little-endian builder for headers the writer would never produce.
struct Raw {
  std::string b;
  template <typename T>
  Raw& put(T v) {
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    b.append(buf, sizeof(T));
    return *this;
  }
  Raw& str(const std::string& s) {
    put<std::uint64_t>(s.size());
    b += s;
    return *this;
  }
  Raw& header(std::uint64_t tensors, std::uint64_t kvs, std::uint32_t version = 3) {
    return put<std::uint32_t>(kGgufMagic).put<std::uint32_t>(version).put<std::uint64_t>(tensors).put<std::uint64_t>(kvs);
  }
  Raw& tensor(const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type, std::uint64_t offset) {
    str(name).put<std::uint32_t>(static_cast<std::uint32_t>(ne.size()));
    for (std::uint64_t d : ne) put<std::uint64_t>(d);
    return put<std::uint32_t>(type).put<std::uint64_t>(offset);
  }
  Raw& pad_to(std::size_t n) {
    b.resize(n, '\0');
    return *this;
  }
  Expected<GgufFile> parse() const {
    return parse_gguf(reinterpret_cast<const std::uint8_t*>(b.data()), b.size(), "mem.gguf");
  }
};

std::string error_of(const Expected<GgufFile>& r) { return r.ok() ? "(parsed)" : r.error().message; }

}  // namespace

TEST_CASE("reads every reference file llama.cpp wrote", "[gguf]") {
  const std::string dir = std::string(MOEBENCH_TEST_DATA) + "/gguf/";
  auto manifest = read_json_file(dir + "MANIFEST.json");
  REQUIRE(manifest.ok());
  for (const Json& m : (*manifest)["files"]) {
    INFO(m["file"].get<std::string>());
    auto f = read_gguf(dir + m["file"].get<std::string>());
    if (!f) FAIL(f.error().message);
    CHECK(f->version == 3);
    CHECK(f->file_bytes == m["bytes"].get<std::uint64_t>());
    CHECK(f->get_string("general.architecture").value_or("") == "qwen3moe");
    CHECK(f->get_uint("qwen3moe.expert_count").value_or(0) == 8);
    const GgufTensorInfo* t = f->tensor(m["tensor"].get<std::string>());
    REQUIRE(t != nullptr);
    CHECK(f->data_offset + t->offset == m["data_offset_in_file"].get<std::uint64_t>());
    CHECK(t->ne == m["ne"].get<std::vector<std::uint64_t>>());
    CHECK(t->ggml_type == m["ggml_type_id"].get<std::uint32_t>());
    CHECK(t->bytes == m["tensor_bytes"].get<std::uint64_t>());
    CHECK(f->tensors.size() > 10);
    const GgufKv* tokens = f->find("tokenizer.ggml.tokens");
    if (tokens != nullptr) CHECK(tokens->array_type == GgufType::kString);
  }
}

TEST_CASE("writer and reader round-trip every value type, tensors 4096-aligned", "[gguf]") {
  std::vector<GgufKv> kvs = {
      gguf_kv("general.architecture", GgufType::kString, "moebench-test"),
      gguf_kv("t.u8", GgufType::kU8, 200),          gguf_kv("t.i8", GgufType::kI8, -5),
      gguf_kv("t.u16", GgufType::kU16, 60000),      gguf_kv("t.i16", GgufType::kI16, -30000),
      gguf_kv("t.u32", GgufType::kU32, 4000000000u), gguf_kv("t.i32", GgufType::kI32, -2000000000),
      gguf_kv("t.u64", GgufType::kU64, 1ull << 40), gguf_kv("t.i64", GgufType::kI64, -(1ll << 40)),
      gguf_kv("t.f32", GgufType::kF32, 0.5),        gguf_kv("t.f64", GgufType::kF64, 1.0 / 3.0),
      gguf_kv("t.bool", GgufType::kBool, true),
      gguf_kv("t.strings", GgufType::kArray, Json::array({"a", "bc", ""}), GgufType::kString),
      gguf_kv("t.u32s", GgufType::kArray, Json::array({1, 2, 3}), GgufType::kU32),
  };
  std::vector<GgufTensorInfo> tensors(3);
  tensors[0] = {"blk.0.ffn_gate_exps.weight", {256, 64, 4}, 39, 0, 0};
  tensors[1] = {"token_embd.weight", {256, 10}, 30, 0, 0};
  tensors[2] = {"output_norm.weight", {256}, 0, 0, 0};
  auto layout = gguf_layout(kvs, tensors, 4096);
  REQUIRE(layout.ok());
  CHECK(layout->data_offset % 4096 == 0);
  std::string image = layout->header + std::string(layout->data_bytes, '\0');
  auto f = parse_gguf(reinterpret_cast<const std::uint8_t*>(image.data()), image.size(), "rt.gguf");
  if (!f) FAIL(f.error().message);
  CHECK(f->alignment == 4096);
  CHECK(f->data_offset == layout->data_offset);
  REQUIRE(f->kvs.size() == kvs.size() + 1);  // + general.alignment
  for (std::size_t i = 0; i < kvs.size(); ++i) {
    INFO(kvs[i].key);
    CHECK(f->kvs[i].key == kvs[i].key);
    CHECK(f->kvs[i].type == kvs[i].type);
    CHECK(f->kvs[i].value == kvs[i].value);
  }
  REQUIRE(f->tensors.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(f->tensors[i].name == tensors[i].name);
    CHECK(f->tensors[i].offset == tensors[i].offset);
    CHECK(f->tensors[i].offset % 4096 == 0);
    CHECK(f->tensors[i].bytes == tensors[i].bytes);
  }
  CHECK(tensors[0].bytes == 256u * 64 * 4 / 32 * 17);  // MXFP4
}

TEST_CASE("every truncation of a valid file is an error, never a crash", "[gguf]") {
  std::vector<GgufTensorInfo> tensors(2);
  tensors[0] = {"a", {64, 2}, 8, 0, 0};
  tensors[1] = {"b", {32}, 0, 0, 0};
  auto layout = gguf_layout({gguf_kv("k", GgufType::kArray, Json::array({"x", "yz"}), GgufType::kString)}, tensors, 32);
  REQUIRE(layout.ok());
  const std::string image = layout->header + std::string(layout->data_bytes, '\0');
  REQUIRE(parse_gguf(reinterpret_cast<const std::uint8_t*>(image.data()), image.size(), "t").ok());
  for (std::size_t n = 0; n < image.size(); ++n) {
    auto r = parse_gguf(reinterpret_cast<const std::uint8_t*>(image.data()), n, "t");
    INFO("length " << n);
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("hostile and broken headers get precise errors", "[gguf]") {
  CHECK(error_of(Raw().put<std::uint32_t>(0x12345678).put<std::uint32_t>(3).pad_to(64).parse())
            .find("not a GGUF file") != std::string::npos);
  CHECK(error_of(Raw().header(0, 0, 2).parse()).find("GGUF version 2 is not supported") != std::string::npos);
  CHECK(error_of(Raw().header(1ull << 40, 0).parse()).find("tensor count 1099511627776 exceeds the limit") !=
        std::string::npos);
  CHECK(error_of(Raw().header(0, 1).put<std::uint64_t>(1ull << 60).parse()).find("string length") != std::string::npos);
  // An array that claims more elements than the file could hold.
  CHECK(error_of(Raw().header(0, 1).str("k").put<std::uint32_t>(9).put<std::uint32_t>(4).put<std::uint64_t>(1ull << 50).parse())
            .find("cannot fit in the file") != std::string::npos);
  CHECK(error_of(Raw().header(0, 1).str("k").put<std::uint32_t>(77).parse()).find("unknown value type 77") !=
        std::string::npos);
  CHECK(error_of(Raw().header(0, 2).str("k").put<std::uint32_t>(4).put<std::uint32_t>(1).str("k").put<std::uint32_t>(4)
                     .put<std::uint32_t>(1).parse())
            .find("duplicate metadata key") != std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor("w", {32}, 99, 0).pad_to(4096).parse()).find("unknown ggml type id 99") !=
        std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor("w", {1, 1, 1, 1, 1}, 0, 0).pad_to(4096).parse())
            .find("5 dimensions") != std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor("w", {31}, 8, 0).pad_to(4096).parse())
            .find("does not divide the row length 31") != std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor("w", {32}, 0, 7).pad_to(4096).parse())
            .find("is not a multiple of the alignment 32") != std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor("w", {1 << 20}, 0, 0).pad_to(4096).parse()).find("runs past the end") !=
        std::string::npos);
  CHECK(error_of(Raw().header(2, 0).tensor("a", {64}, 0, 0).tensor("b", {64}, 0, 128).pad_to(4096).parse())
            .find("tensor \"b\": data overlaps tensor \"a\"") != std::string::npos);
  CHECK(error_of(Raw().header(2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32).pad_to(4096).parse())
            .find("duplicate tensor name") != std::string::npos);
  CHECK(error_of(Raw().header(1, 0).tensor(std::string(70, 'n'), {8}, 0, 0).pad_to(4096).parse())
            .find("outside 1..63") != std::string::npos);
  auto missing = read_gguf("/nonexistent.gguf");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("/nonexistent.gguf: cannot open") != std::string::npos);
}

TEST_CASE("ggml type table covers moebench's formats", "[gguf]") {
  CHECK(find_ggml_type(39)->block_bytes == 17);
  CHECK(std::string(find_ggml_type(12)->name) == "Q4_K");
  CHECK(moebench_quant_for_ggml(39).value() == "mxfp4");
  CHECK_FALSE(moebench_quant_for_ggml(16).has_value());  // IQ2_XXS: listed, not computed
  CHECK_FALSE(find_ggml_type(4).has_value());             // removed Q4_2
}
