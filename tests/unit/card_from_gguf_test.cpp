// card_from_gguf_test.cpp — deriving a card from llama.cpp's files gives
// the geometry MANIFEST.json states, and the card it writes validates.
#include <catch2/catch.hpp>

#include "engines/container/card_from_gguf.h"

using namespace moebench;

TEST_CASE("card from-gguf derives the reference geometry", "[gguf][card]") {
  const std::string dir = std::string(MOEBENCH_TEST_DATA) + "/gguf/";
  auto manifest = read_json_file(dir + "MANIFEST.json");
  REQUIRE(manifest.ok());
  const Json& g = (*manifest)["geometry"];
  for (const Json& m : (*manifest)["files"]) {
    INFO(m["file"].get<std::string>());
    auto f = read_gguf(dir + m["file"].get<std::string>());
    REQUIRE(f.ok());
    auto d = card_from_gguf(*f);
    if (!d) FAIL(d.error().message);
    const ModelCard& c = d->card;
    CHECK(c.hidden_size == g["n_embd"].get<int>());
    CHECK(c.moe.expert_intermediate == g["expert_ff"].get<int>());
    CHECK(c.moe.experts == g["n_expert"].get<int>());
    CHECK(c.moe.active == g["expert_used"].get<int>());
    CHECK(c.total_layers() == g["layers"].get<int>());
    CHECK(c.moe_layers() == g["layers"].get<int>());
    REQUIRE(c.gqa.has_value());
    CHECK(c.gqa->heads == g["heads"].get<int>());
    CHECK(c.gqa->kv_heads == g["kv_heads"].get<int>());
    CHECK(c.vocab_size == g["vocab"].get<int>());
    std::string quant = m["ggml_type"].get<std::string>();
    for (char& ch : quant) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    CHECK(c.expert_quant == quant);
    // What it writes is a valid card.
    const Json written = Json::parse(model_card_to_json(c).dump());
    Diagnostics diag("derived.json");
    auto back = load_model_card(written, diag);
    INFO(diag.render());
    REQUIRE(back.has_value());
    CHECK(back->moe.experts == c.moe.experts);
  }
}

TEST_CASE("card from-gguf refuses files that are not MoE models", "[gguf][card]") {
  GgufFile f;
  f.label = "dense.gguf";
  f.kvs.push_back({"general.architecture", GgufType::kString, GgufType::kU8, "llama"});
  auto d = card_from_gguf(f);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("dense.gguf: metadata \"llama.block_count\" is missing") != std::string::npos);
}
