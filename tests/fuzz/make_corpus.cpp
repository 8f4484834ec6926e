// make_corpus.cpp — writes the seed corpus for gguf_fuzz (small valid GGUF
// images covering every value type, arrays, several tensor types and
// alignments) into the directory given as argv[1]. The seeds are committed;
// rerun after changing the writer: build-fuzz/tests/fuzz/make_corpus tests/fuzz/corpus
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "engines/container/gguf_writer.h"

using namespace moebench;

namespace {
void write(const std::string& dir, const std::string& name, std::vector<GgufKv> kvs, std::vector<GgufTensorInfo> t,
           std::uint64_t alignment) {
  auto layout = gguf_layout(std::move(kvs), t, alignment);
  if (!layout) {
    fmt::print(stderr, "{}\n", layout.error().message);
    return;
  }
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out << layout->header << std::string(layout->data_bytes, '\0');
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: make_corpus DIR\n");
    return 1;
  }
  const std::string dir = argv[1];
  write(dir, "empty.gguf", {}, {}, 32);
  write(dir, "all_types.gguf",
        {gguf_kv("general.architecture", GgufType::kString, "qwen3moe"), gguf_kv("a", GgufType::kU8, 1),
         gguf_kv("b", GgufType::kI16, -2), gguf_kv("c", GgufType::kU32, 3), gguf_kv("d", GgufType::kI64, -4),
         gguf_kv("e", GgufType::kF32, 0.5), gguf_kv("f", GgufType::kF64, 0.25), gguf_kv("g", GgufType::kBool, true),
         gguf_kv("h", GgufType::kArray, Json::array({"x", "yy"}), GgufType::kString),
         gguf_kv("i", GgufType::kArray, Json::array({1, 2}), GgufType::kI32)},
        {}, 32);
  std::vector<GgufTensorInfo> t(4);
  t[0] = {"blk.0.ffn_gate_exps.weight", {64, 4, 2}, 39, 0, 0};
  t[1] = {"blk.0.ffn_down_exps.weight", {256, 2, 2}, 12, 0, 0};
  t[2] = {"token_embd.weight", {32, 3}, 8, 0, 0};
  t[3] = {"output_norm.weight", {16}, 0, 0, 0};
  write(dir, "tensors_4096.gguf", {gguf_kv("general.architecture", GgufType::kString, "moebench")}, t, 4096);
  write(dir, "tensors_32.gguf", {gguf_kv("general.architecture", GgufType::kString, "moebench")}, t, 32);
  return 0;
}
