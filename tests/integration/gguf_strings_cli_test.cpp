// gguf_strings_cli_test.cpp — the moebench binary on GGUF files with
// invalid UTF-8 in general.name and in tokens, and on a container whose
// checksum table holds a number: `container inspect`, `card from-gguf` and
// `container verify` exit with a result or a clear error, never an uncaught
// nlohmann exception (which aborts with SIGABRT).
#include <catch2/catch.hpp>

#include <functional>

#include "../unit/test_support.h"
#include "engines/container/container.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_writer.h"
#include "process.h"

using namespace moebench;
using moebench::testing::Finished;
using moebench::testing::run_moebench;
using moebench::testing::TempDir;

namespace {

// Copies GGUF `src` to `dst` with its metadata edited; tensor data is moved
// to wherever the new header puts it.
void copy_with_metadata(const std::string& src, const std::string& dst,
                        const std::function<void(std::vector<GgufKv>&)>& edit) {
  auto bytes = read_file(src);
  REQUIRE(bytes.ok());
  auto f = parse_gguf(reinterpret_cast<const std::uint8_t*>(bytes->data()), bytes->size(), src);
  REQUIRE(f.ok());
  std::vector<GgufKv> kvs = f->kvs;
  edit(kvs);
  std::vector<GgufTensorInfo> tensors = f->tensors;
  auto layout = gguf_layout(kvs, tensors, f->alignment);
  REQUIRE(layout.ok());
  std::string out = layout->header + std::string(layout->data_bytes, '\0');
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    out.replace(layout->data_offset + tensors[i].offset, tensors[i].bytes,
                bytes->substr(f->data_offset + f->tensors[i].offset, f->tensors[i].bytes));
  }
  REQUIRE(write_file_atomic(dst, out).ok());
}

void set_string(std::vector<GgufKv>& kvs, const std::string& key, const std::string& value) {
  for (GgufKv& kv : kvs) {
    if (kv.key == key) {
      kv.type = GgufType::kString;
      kv.value = value;
      return;
    }
  }
  kvs.push_back(gguf_kv(key, GgufType::kString, value));
}

}  // namespace

TEST_CASE("inspect and card from-gguf survive invalid UTF-8 in general.name and tokens", "[integration]") {
  TempDir dir;
  const std::string src = std::string(MOEBENCH_TEST_DATA) + "/gguf/tiny-qwen3moe-Q4_0.gguf";
  const std::string odd = dir.file("odd.gguf");
  copy_with_metadata(src, odd, [](std::vector<GgufKv>& kvs) {
    set_string(kvs, "general.name", "Qwen\xff\xfe");
    bool token = false;
    for (GgufKv& kv : kvs) {
      if (kv.key == "tokenizer.ggml.tokens" && kv.value.is_array() && !kv.value.empty()) {
        kv.value[0] = "tok\xc3";
        token = true;
      }
    }
    if (!token) kvs.push_back(gguf_kv("tokenizer.ggml.tokens", GgufType::kArray, Json::array({"tok\xc3", "b"}),
                                      GgufType::kString));
  });
  Finished inspect = run_moebench({"container", "inspect", odd}, dir.path(), "inspect");
  INFO(inspect.err);
  CHECK(inspect.signal == 0);
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.find("\"Qwen\xef\xbf\xbd\xef\xbf\xbd\"") != std::string::npos);  // U+FFFD for each odd byte
  CHECK(inspect.out.find("\"tok\xef\xbf\xbd\"") != std::string::npos);
  CHECK(inspect.out.find("token_embd.weight") != std::string::npos);

  const std::string card = dir.file("odd-card.json");
  Finished derive = run_moebench({"card", "from-gguf", odd, "--out", card}, dir.path(), "derive");
  INFO(derive.err);
  CHECK(derive.signal == 0);
  REQUIRE(derive.exit_code == 0);
  auto loaded = load_model_card_file(card);
  if (!loaded) FAIL(loaded.error().message);
  CHECK(loaded->name == "Qwen\\xFF\\xFE");
  CHECK(derive.err.find("note: general.name is not printable UTF-8 text") != std::string::npos);
}

TEST_CASE("container verify reports a numeric checksum by key and exits 2", "[integration]") {
  TempDir dir;
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
  const std::string bad = dir.file("numeric.gguf");
  copy_with_metadata(made->experts[0].path, bad, [](std::vector<GgufKv>& kvs) {
    for (GgufKv& kv : kvs) {
      if (kv.key != "moebench.expert_checksums") continue;
      Json table = Json::parse(kv.value.get<std::string>());
      table["1"][0] = 7;
      kv.value = table.dump();
    }
  });
  Finished f = run_moebench({"container", "verify", bad}, dir.path(), "verify");
  INFO(f.err);
  CHECK(f.signal == 0);
  CHECK(f.exit_code == 2);  // the index cannot be read: nothing verified
  CHECK(f.err.find("moebench.expert_checksums[\"1\"][0] is a number, expected a string of 16 hex digits") !=
        std::string::npos);
  CHECK(f.err.find("moebench container make") != std::string::npos);
  Finished inspect = run_moebench({"container", "inspect", bad}, dir.path(), "inspect");
  CHECK(inspect.exit_code == 0);
}
