// dequantize_test.cpp — our dequantizers reproduce, bit for bit, the floats
// llama.cpp's reference dequantizer gives for expert 3 of
// blk.1.ffn_down_exps.weight in files llama.cpp wrote and quantized itself
// (tests/data/gguf, copied from ../shared/reference/gguf; MANIFEST.json
// gives each tensor's offset and size).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "engines/quant/dequantize.h"
#include "vocab/quant_format.h"
#include "vocab/file_io.h"
#include "vocab/json_reader.h"

using namespace moebench;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<char> read_range(const std::string& path, std::uint64_t offset, std::uint64_t n) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::vector<char> buf(n);
  in.read(buf.data(), static_cast<std::streamsize>(n));
  REQUIRE(static_cast<std::uint64_t>(in.gcount()) == n);
  return buf;
}

}  // namespace

TEST_CASE("dequantizers reproduce llama.cpp's reference floats exactly", "[quant]") {
  const std::string dir = std::string(MOEBENCH_TEST_DATA) + "/gguf/";
  auto manifest = read_json_file(dir + "MANIFEST.json");
  REQUIRE(manifest.ok());
  int checked = 0;
  for (const Json& f : (*manifest)["files"]) {
    const std::string quant = lower(f["ggml_type"].get<std::string>());
    INFO(f["file"].get<std::string>() << " as " << quant);
    const auto fmt = find_quant(quant);
    REQUIRE(fmt.has_value());
    CHECK(fmt->ggml_type == f["ggml_type_id"].get<std::uint32_t>());
    const std::uint64_t experts = f["ne"][2].get<std::uint64_t>();
    const std::uint64_t rows = f["ne"][1].get<std::uint64_t>();
    const std::uint64_t cols = f["ne"][0].get<std::uint64_t>();
    const std::uint64_t expert_bytes = f["tensor_bytes"].get<std::uint64_t>() / experts;
    CHECK(expert_bytes == fmt->bytes_for(rows * cols));  // our block table agrees with the file
    const std::uint64_t expert = f["expert"].get<std::uint64_t>();
    const auto raw = read_range(dir + f["file"].get<std::string>(),
                                f["data_offset_in_file"].get<std::uint64_t>() + expert * expert_bytes, expert_bytes);
    std::vector<float> got(rows * cols);
    REQUIRE(dequantize(quant, raw.data(), got.data(), got.size()).ok());
    auto ref_bytes = read_file(dir + f["reference"].get<std::string>());
    REQUIRE(ref_bytes.ok());
    REQUIRE(ref_bytes->size() == got.size() * 4);
    std::vector<float> ref(got.size());
    std::memcpy(ref.data(), ref_bytes->data(), ref_bytes->size());
    std::size_t mismatches = 0;
    std::size_t first_bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::memcmp(&got[i], &ref[i], 4) != 0) {
        if (mismatches++ == 0) first_bad = i;
      }
    }
    INFO("first mismatch at " << first_bad << ": got " << got[first_bad] << ", reference " << ref[first_bad]);
    CHECK(mismatches == 0);
    double sum = 0;
    for (float v : got) sum += v;
    CHECK(sum == Approx(f["reference_sum"].get<double>()).epsilon(1e-9));
    ++checked;
  }
  CHECK(checked == 7);
}

TEST_CASE("scalar conversions", "[quant]") {
  CHECK(fp16_to_fp32(0x3c00) == 1.0f);
  CHECK(fp16_to_fp32(0xc000) == -2.0f);
  CHECK(fp16_to_fp32(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(std::isinf(fp16_to_fp32(0x7c00)));
  CHECK(bf16_to_fp32(0x3f80) == 1.0f);
  CHECK(e8m0_to_fp32_half(128) == 1.0f);
  CHECK(e8m0_to_fp32_half(127) == 0.5f);
  CHECK(e8m0_to_fp32_half(0) == std::ldexp(1.0f, -128));
  float one = 0;
  CHECK_FALSE(dequantize("q4_k", nullptr, &one, 100).ok());  // not a whole block
  CHECK_FALSE(dequantize("q5_k", nullptr, &one, 256).ok());
}
