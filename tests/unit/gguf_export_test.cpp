// gguf_export_test.cpp — `moebench export`: a container written as the GGUF
// llama.cpp loads. The file reads back through moebench's own GGUF reader
// with llama.cpp's architecture keys, tensor names, shapes and types (the
// ones llama.cpp's qwen3moe and deepseek2 loaders ask for); its quantized
// matrices are the container's bytes; card from-gguf derives the source
// card's geometry from it; cards llama.cpp has no architecture for are
// refused with the reason; a second call reuses the export.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include "engines/container/card_from_gguf.h"
#include "engines/container/container.h"
#include "engines/container/gguf.h"
#include "engines/container/gguf_export.h"
#include "test_support.h"
#include "vocab/json_reader.h"
#include "vocab/model_card.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

ModelCard card_from_text(const std::string& text) {
  auto c = load_config_text<ModelCard>(text, "test card", load_model_card);
  if (!c) FAIL(c.error().message);
  return *c;
}

// A qwen3moe-shaped card small enough for a unit test.
const char* kGqaCard = R"({"name": "t-qwen3moe", "description": "test", "geometry": "exact",
  "hidden_size": 256, "vocab_size": 512, "tied_embeddings": false,
  "layers": [{"count": 2, "attention": "gqa", "ffn": "moe"}],
  "gqa": {"heads": 4, "kv_heads": 2, "head_dim": 64},
  "moe": {"experts": 8, "active": 2, "shared": 0, "expert_dim": 256, "expert_intermediate": 128},
  "expert_quant": "q4_0", "trunk_quant": "q4_0", "kv_dtype": "f16"})";

// A deepseek2-shaped one: MLA with q_lora, a leading dense layer, a shared expert.
const char* kMlaCard = R"({"name": "t-deepseek2", "description": "test", "geometry": "exact",
  "hidden_size": 256, "vocab_size": 512, "tied_embeddings": false,
  "layers": [{"count": 1, "attention": "mla", "ffn": "dense"}, {"count": 2, "attention": "mla", "ffn": "moe"}],
  "mla": {"heads": 4, "q_lora_rank": 128, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 32, "v_head_dim": 32},
  "moe": {"experts": 8, "active": 2, "shared": 1, "expert_dim": 256, "expert_intermediate": 128, "shared_intermediate": 128},
  "dense_ffn": {"intermediate": 256},
  "expert_quant": "q8_0", "trunk_quant": "q8_0", "kv_dtype": "f16"})";

ContainerSpec spec_for(const ModelCard& card, const std::string& quant, const std::string& dir) {
  ContainerSpec s;
  s.card_name = card.name;
  s.card = card;
  s.quant = quant;
  s.seed = 3;
  s.drive_dirs = {dir};
  return s;
}

std::string bytes_at(const std::string& path, std::uint64_t offset, std::uint64_t n) {
  std::string b(n, '\0');
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pread(fd, b.data(), n, static_cast<off_t>(offset)) == static_cast<ssize_t>(n));
  ::close(fd);
  return b;
}

std::string tensor_bytes(const GgufFile& f, const std::string& name) {
  const GgufTensorInfo* t = f.tensor(name);
  REQUIRE(t != nullptr);
  return bytes_at(f.label, f.data_offset + t->offset, t->bytes);
}

void check_tensor(const GgufFile& f, const std::string& name, std::vector<std::uint64_t> ne, std::uint32_t type) {
  INFO(name);
  const GgufTensorInfo* t = f.tensor(name);
  REQUIRE(t != nullptr);
  CHECK(t->ne == ne);
  CHECK(t->ggml_type == type);
}

}  // namespace

TEST_CASE("export: a GQA card becomes a qwen3moe GGUF with llama.cpp's names, shapes and the container's bytes", "[export]") {
  TempDir dir;
  QuietProgress quiet;
  const ModelCard card = card_from_text(kGqaCard);
  const ContainerSpec spec = spec_for(card, "q4_0", dir.path());
  REQUIRE(llama_architecture_for(card).value() == "qwen3moe");
  auto made = make_container(spec, quiet);
  if (!made) FAIL(made.error().message);
  auto exp = ensure_llama_export(spec);
  if (!exp) FAIL(exp.error().message);
  CHECK(!exp->reused);
  CHECK(exp->report.architecture == "qwen3moe");
  auto g = read_gguf(exp->path);
  if (!g) FAIL(g.error().message);
  CHECK(g->get_string("general.architecture").value() == "qwen3moe");
  CHECK(g->get_uint("qwen3moe.block_count").value() == 2);
  CHECK(g->get_uint("qwen3moe.embedding_length").value() == 256);
  CHECK(g->get_uint("qwen3moe.attention.head_count").value() == 4);
  CHECK(g->get_uint("qwen3moe.attention.head_count_kv").value() == 2);
  CHECK(g->get_uint("qwen3moe.attention.key_length").value() == 64);
  CHECK(g->get_uint("qwen3moe.expert_count").value() == 8);
  CHECK(g->get_uint("qwen3moe.expert_used_count").value() == 2);
  CHECK(g->get_uint("qwen3moe.expert_feed_forward_length").value() == 128);
  CHECK(g->get_uint("general.file_type").value() == 2);  // LLAMA_FTYPE_MOSTLY_Q4_0
  CHECK(g->get_string("tokenizer.ggml.model").value() == "llama");
  const GgufKv* tokens = g->find("tokenizer.ggml.tokens");
  REQUIRE(tokens != nullptr);
  CHECK(tokens->value.size() == 512);
  CHECK(tokens->value[1] == "<s>");
  CHECK(tokens->value[3] == "<0x00>");
  // The tensors llama.cpp's qwen3moe loader creates, in ggml order (ne[0] = row length).
  constexpr std::uint32_t kQ4_0 = 2, kF32 = 0;
  check_tensor(*g, "token_embd.weight", {256, 512}, kQ4_0);
  check_tensor(*g, "output.weight", {256, 512}, kQ4_0);
  check_tensor(*g, "output_norm.weight", {256}, kF32);
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    check_tensor(*g, b + "attn_norm.weight", {256}, kF32);
    check_tensor(*g, b + "attn_q.weight", {256, 256}, kQ4_0);
    check_tensor(*g, b + "attn_k.weight", {256, 128}, kQ4_0);
    check_tensor(*g, b + "attn_v.weight", {256, 128}, kQ4_0);
    check_tensor(*g, b + "attn_output.weight", {256, 256}, kQ4_0);
    check_tensor(*g, b + "attn_q_norm.weight", {64}, kF32);
    check_tensor(*g, b + "attn_k_norm.weight", {64}, kF32);
    check_tensor(*g, b + "ffn_norm.weight", {256}, kF32);
    check_tensor(*g, b + "ffn_gate_inp.weight", {256, 8}, 30);  // bf16, as in the container
    check_tensor(*g, b + "ffn_gate_exps.weight", {256, 128, 8}, kQ4_0);
    check_tensor(*g, b + "ffn_up_exps.weight", {256, 128, 8}, kQ4_0);
    check_tensor(*g, b + "ffn_down_exps.weight", {128, 256, 8}, kQ4_0);
  }
  CHECK(g->tensors.size() == 3 + 2 * 12);
  // Quantized matrices are the container's bytes.
  auto trunk = read_gguf(trunk_file_path(spec)).value();
  auto experts = read_gguf(expert_file_path(spec, 0)).value();
  CHECK(tensor_bytes(*g, "blk.1.attn_q.weight") == tensor_bytes(trunk, "blk.1.attn_q.weight"));
  CHECK(tensor_bytes(*g, "blk.0.ffn_down_exps.weight") == tensor_bytes(experts, "blk.0.ffn_down_exps.weight"));
  // card from-gguf reads the source geometry back.
  auto derived = card_from_gguf(*g);
  if (!derived) FAIL(derived.error().message);
  CHECK(derived->card.hidden_size == 256);
  CHECK(derived->card.vocab_size == 512);
  CHECK(derived->card.total_layers() == 2);
  CHECK(derived->card.gqa->heads == 4);
  CHECK(derived->card.gqa->kv_heads == 2);
  CHECK(derived->card.moe.experts == 8);
  CHECK(derived->card.moe.expert_intermediate == 128);
  CHECK(derived->card.expert_quant == "q4_0");
  // Reused the second time.
  auto again = ensure_llama_export(spec);
  REQUIRE(again);
  CHECK(again->reused);
  CHECK(again->path == exp->path);
}

TEST_CASE("export: an MLA card becomes deepseek2 with attn_kv_b split into k_b and v_b", "[export]") {
  TempDir dir;
  QuietProgress quiet;
  const ModelCard card = card_from_text(kMlaCard);
  const ContainerSpec spec = spec_for(card, "q8_0", dir.path());
  REQUIRE(llama_architecture_for(card).value() == "deepseek2");
  auto made = make_container(spec, quiet);
  if (!made) FAIL(made.error().message);
  auto exp = ensure_llama_export(spec);
  if (!exp) FAIL(exp.error().message);
  auto g = read_gguf(exp->path).value();
  CHECK(g.get_string("general.architecture").value() == "deepseek2");
  CHECK(g.get_uint("deepseek2.leading_dense_block_count").value() == 1);
  CHECK(g.get_uint("deepseek2.attention.kv_lora_rank").value() == 64);
  CHECK(g.get_uint("deepseek2.attention.head_count").value() == 4);
  CHECK(g.get_uint("deepseek2.attention.head_count_kv").value() == 1);  // MLA as MQA, as llama.cpp's converter writes it
  CHECK(g.get_uint("deepseek2.attention.key_length").value() == 64 + 32);
  CHECK(g.get_uint("deepseek2.attention.value_length").value() == 64);
  CHECK(g.get_uint("deepseek2.attention.key_length_mla").value() == 32 + 32);
  CHECK(g.get_uint("deepseek2.attention.value_length_mla").value() == 32);
  CHECK(g.get_uint("deepseek2.rope.dimension_count").value() == 32);
  CHECK(g.get_uint("deepseek2.expert_shared_count").value() == 1);
  constexpr std::uint32_t kQ8_0 = 8, kF32 = 0;
  check_tensor(g, "blk.0.ffn_gate.weight", {256, 256}, kQ8_0);
  check_tensor(g, "blk.1.attn_q_a.weight", {256, 128}, kQ8_0);
  check_tensor(g, "blk.1.attn_q_a_norm.weight", {128}, kF32);
  check_tensor(g, "blk.1.attn_q_b.weight", {128, 4 * 64}, kQ8_0);
  check_tensor(g, "blk.1.attn_kv_a_mqa.weight", {256, 64 + 32}, kQ8_0);
  check_tensor(g, "blk.1.attn_kv_a_norm.weight", {64}, kF32);
  check_tensor(g, "blk.1.attn_k_b.weight", {32, 64, 4}, kQ8_0);
  check_tensor(g, "blk.1.attn_v_b.weight", {64, 32, 4}, kQ8_0);
  check_tensor(g, "blk.1.attn_output.weight", {4 * 32, 256}, kQ8_0);
  check_tensor(g, "blk.1.ffn_gate_shexp.weight", {256, 128}, kQ8_0);
  check_tensor(g, "blk.2.ffn_down_exps.weight", {128, 256, 8}, kQ8_0);
  CHECK(g.tensor("blk.1.attn_kv_b.weight") == nullptr);
  // v_b is head h's value rows of kv_b, byte for byte: head 1's rows start
  // after head 0's (32 nope + 32 v) and head 1's 32 nope rows.
  auto trunk = read_gguf(trunk_file_path(spec)).value();
  const GgufTensorInfo* kvb = trunk.tensor("blk.1.attn_kv_b.weight");
  const GgufTensorInfo* vb = g.tensor("blk.1.attn_v_b.weight");
  const std::uint64_t row = 34 * 64 / 32;  // q8_0 bytes of a 64-wide row
  CHECK(bytes_at(g.label, g.data_offset + vb->offset + 32 * row, 32 * row) ==
        bytes_at(trunk.label, trunk.data_offset + kvb->offset + (64 + 32) * row, 32 * row));
}

TEST_CASE("export refuses what llama.cpp has no architecture for, saying why", "[export]") {
  auto k3 = testing::shipped_store().card("kimi-k3");
  REQUIRE(k3);
  auto why = llama_architecture_for(*k3);
  REQUIRE(!why);
  CHECK(why.error().message.find("Kimi Delta Attention") != std::string::npos);
  ModelCard shared = card_from_text(kGqaCard);
  shared.moe.shared = 1;
  shared.moe.shared_intermediate = 128;
  auto no = llama_architecture_for(shared);
  REQUIRE(!no);
  CHECK(no.error().message.find("no shared experts") != std::string::npos);
  ModelCard small = card_from_text(kGqaCard);
  small.vocab_size = 100;
  REQUIRE(!llama_architecture_for(small));
  // An export without its container names the missing file.
  TempDir dir;
  auto missing = export_llama_gguf(spec_for(card_from_text(kGqaCard), "q4_0", dir.path()), dir.file("x.gguf"));
  REQUIRE(!missing);
  CHECK(missing.error().message.find(dir.path()) != std::string::npos);
}
