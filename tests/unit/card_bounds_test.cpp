// card_bounds_test.cpp — card fields near 2^30 whose derived sizes would
// overflow 64 bits (or pass the stated bound of 2^50 weights / 2^16 layers)
// are refused by the card loader and `validate`, naming the field's JSON
// path; derivations on a card that skipped the loader saturate instead of
// wrapping. Run under -fsanitize=undefined to see no signed overflow.
#include <catch2/catch.hpp>

#include <climits>
#include <fstream>
#include <functional>

#include "vocab/model_card.h"
#include "vocab/validate.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

Json tiny_json() {
  auto j = read_json_file(std::string(MOEBENCH_SOURCE_DIR) + "/configs/models/tiny-moe.json");
  REQUIRE(j.ok());
  return *j;
}

// Loads tiny-moe after `edit`; the error text, or "(loaded)".
std::string load_error(const std::function<void(Json&)>& edit) {
  Json j = tiny_json();
  edit(j);
  auto card = load_config_text<ModelCard>(j.dump(), "big.json", load_model_card);
  return card ? "(loaded)" : card.error().message;
}

constexpr int kTwo30 = 1 << 30;

}  // namespace

TEST_CASE("the unedited test card loads, so the edits below are what fails", "[card]") {
  CHECK(load_error([](Json&) {}) == "(loaded)");
}

TEST_CASE("a vocab and hidden size near 2^30 are refused at the vocab's path", "[card]") {
  const std::string err = load_error([](Json& j) {
    j["hidden_size"] = kTwo30;
    j["vocab_size"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("big.json: /vocab_size: 1073741824 makes tensor token_embd.weight 1073741824 x 1073741824 = "
                 "1152921504606846976 weights, above moebench's bound of 2^50") != std::string::npos);
}

TEST_CASE("routed experts whose size overflows 64 bits are refused at the largest field", "[card]") {
  const std::string err = load_error([](Json& j) {
    j["moe"]["experts"] = kTwo30;
    j["moe"]["expert_intermediate"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("/moe/expert_intermediate: 1073741824 makes the routed experts 3 x expert_dim x expert_intermediate x "
                 "experts x MoE layers = more than 2^64 weights") != std::string::npos);
}

TEST_CASE("layer counts near 2^30 are refused without int overflow", "[card]") {
  const std::string err = load_error([](Json& j) {
    for (Json& g : j["layers"]) g["count"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("/layers/0/count: the layer groups add up to 3221225472 layers, above moebench's bound of 65536") !=
        std::string::npos);
}

TEST_CASE("attention widths near 2^30 are refused at their block's path", "[card]") {
  std::string err = load_error([](Json& j) {
    j["gqa"]["heads"] = kTwo30;
    j["gqa"]["kv_heads"] = kTwo30;
    j["gqa"]["head_dim"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("/gqa/heads: 1073741824 makes tensor blk.0.attn_q.weight") != std::string::npos);
  err = load_error([](Json& j) {
    j["mla"]["qk_nope_head_dim"] = kTwo30;  // nope + rope once overflowed an int
    j["mla"]["qk_rope_head_dim"] = kTwo30;
    j["mla"]["heads"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("/mla/heads: 1073741824 makes tensor blk.3.attn_q.weight") != std::string::npos);
  // The linear-attention state is the product, each tensor alone is in bounds.
  err = load_error([](Json& j) {
    j["linear"]["heads"] = 1;
    j["linear"]["key_head_dim"] = 1 << 20;
    j["linear"]["value_head_dim"] = kTwo30;
  });
  INFO(err);
  CHECK(err.find("/linear/value_head_dim: 1073741824 makes the linear-attention state") != std::string::npos);
}

TEST_CASE("moebench validate refuses an overflowing card with its path", "[card]") {
  TempDir dir;
  Json j = tiny_json();
  j["dense_ffn"]["intermediate"] = kTwo30;
  j["hidden_size"] = kTwo30;
  const std::string path = dir.file("big-card.json");
  std::ofstream(path) << j.dump(2);
  auto r = validate_config_file(path, ConfigKind::kModel, SweepContext{});
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK(r.error().message.find(path + ": /dense_ffn/intermediate: 1073741824 makes tensor blk.0.ffn_gate.weight") !=
        std::string::npos);
}

TEST_CASE("derived sizes of a card that skipped the loader saturate instead of wrapping", "[card]") {
  ModelCard c = testing::shipped_store().card("tiny-moe").value();
  c.hidden_size = INT_MAX;
  c.vocab_size = INT_MAX;
  c.moe.experts = INT_MAX;
  c.moe.expert_dim = INT_MAX;
  c.moe.expert_intermediate = INT_MAX;
  c.mla->qk_nope_head_dim = INT_MAX;
  c.mla->qk_rope_head_dim = INT_MAX;
  c.mla->kv_lora_rank = INT_MAX;
  CHECK(c.parameter_counts().total() == UINT64_MAX);
  CHECK(c.expert_bytes("f32") == UINT64_MAX);
  CHECK(c.container_bytes("q4_0") == UINT64_MAX);
  CHECK(c.routed_bytes_per_token("q4_0") == UINT64_MAX);
  CHECK(c.cache_bytes(1ull << 40) == UINT64_MAX);
  CHECK(c.decode_bytes("q4_0").all_resident.total() == UINT64_MAX);
  // Layer counts add up without int overflow (no tensor list is built here).
  ModelCard many = testing::shipped_store().card("tiny-moe").value();
  many.layers.assign(3, {INT_MAX, AttentionKind::kGqa, FfnKind::kMoe});
  CHECK(many.total_layers() == INT_MAX);
  CHECK(many.moe_layers() == INT_MAX);
  CHECK(checked_mul(1ull << 32, 1ull << 32) == std::nullopt);
  CHECK(checked_mul(1ull << 31, 1ull << 32) == std::optional<std::uint64_t>(1ull << 63));
  CHECK(sat_add(UINT64_MAX - 1, 5) == UINT64_MAX);
}
