// full_model_test.cpp — a scaled run carried to a deeper card
// (harness/full_model.h): the arithmetic on measurements whose every second
// is known.
#include <catch2/catch.hpp>

#include <map>

#include "harness/full_model.h"
#include "test_support.h"

using namespace moebench;

namespace {

ModelCard scaled_k3(const std::string& scale) {
  auto k3 = testing::shipped_store().card("kimi-k3");
  REQUIRE(k3);
  if (scale.empty()) return *k3;
  auto s = apply_scale(*k3, *parse_scale(scale));
  REQUIRE(s);
  return *s;
}

// A run of `card`: `decode_tokens` decode steps, each spending `head` in the
// head, `per_layer[kind index]` in each layer and `outside` outside the
// forward pass; a prefill window of the same shape once.
Measurement timed_run(const ModelCard& card, int decode_tokens, double head, double linear_layer, double mla_layer,
                      double outside) {
  Measurement m;
  double token = head + outside;
  for (const LayerGroup& g : card.layers) {
    const double t = g.attention == AttentionKind::kLinear ? linear_layer : mla_layer;
    for (int i = 0; i < g.count; ++i) {
      m.layer_s_decode.push_back(t * decode_tokens);
      m.layer_s_prefill.push_back(t);
      token += t;
    }
  }
  m.head_s_decode = head * decode_tokens;
  m.head_s_prefill = head;
  m.prefill_s = token;
  m.prompt_tokens = 1;
  for (int i = 0; i <= decode_tokens; ++i) m.token_times_s.push_back(m.prefill_s + i * token);
  return m;
}

Point point_for(const std::string& scale) {
  Point p;
  p.model = "kimi-k3";
  p.scale = scale.empty() ? Scale{} : *parse_scale(scale);
  p.prompt_tokens = 4;
  p.gen_tokens = 9;
  return p;
}

}  // namespace

TEST_CASE("a run carried to its own card is what was measured", "[full_model]") {
  const ModelCard ran = scaled_k3("layers=2,experts=64");
  const Measurement m = timed_run(ran, 8, 0.05, 0.2, 0.3, 0.01);
  auto f = full_model_figures(ran, ran, m, point_for("layers=2,experts=64"));
  REQUIRE(f);
  CHECK(f->decode_s_per_token == Approx(0.05 + 0.2 + 0.3 + 0.01));
  CHECK(f->ttft_s == Approx(m.prefill_s));
}

TEST_CASE("deeper: each layer costs what a layer of its kind cost, the head stays", "[full_model]") {
  const ModelCard ran = scaled_k3("layers=2,experts=64");
  const ModelCard deep = scaled_k3("layers=8,experts=64");
  const Measurement m = timed_run(ran, 8, 0.05, 0.2, 0.3, 0.01);
  auto f = full_model_figures(ran, deep, m, point_for("layers=2,experts=64"));
  REQUIRE(f);
  double layers = 0;
  for (const LayerGroup& g : deep.layers) layers += g.count * (g.attention == AttentionKind::kLinear ? 0.2 : 0.3);
  CHECK(f->decode_s_per_token == Approx(0.05 + 0.01 + layers));
  CHECK(f->ttft_s == Approx(0.05 + 0.01 + layers));
  CHECK(f->decode_miss_ratio == 1);  // no expert cache in this run
}

TEST_CASE("the full model: a kind the scaled card lacks takes a layer with its attention, and says so", "[full_model]") {
  const ModelCard ran = scaled_k3("layers=2,experts=64");
  const ModelCard full = scaled_k3("");
  const Measurement m = timed_run(ran, 8, 0.05, 0.2, 0.3, 0.0);
  auto f = full_model_figures(ran, full, m, point_for("layers=2,experts=64"));
  REQUIRE(f);
  // K3: 1 linear/dense + 68 linear/moe + 24 mla/moe; the dense layer runs as a linear one.
  CHECK(f->decode_s_per_token == Approx(0.05 + 69 * 0.2 + 24 * 0.3));
  bool said = false;
  for (const std::string& s : f->steps) said = said || s.find("not in the scaled card") != std::string::npos;
  CHECK(said);
}

TEST_CASE("expert-read waits scale with the target cache's replayed reads per layer", "[full_model]") {
  const ModelCard ran = scaled_k3("layers=2,experts=64");
  const ModelCard deep = scaled_k3("layers=8,experts=64");
  Measurement m = timed_run(ran, 8, 0.05, 0.2, 0.3, 0.0);
  m.io_wait_s_decode = 8 * 2 * 0.1;  // 0.1 s per MoE layer per token, inside the layer times
  m.io_wait_s_prefill = 2 * 0.1;
  m.cache_slots = 40;
  const Point p = point_for("layers=2,experts=64");
  auto f = full_model_figures(ran, deep, m, p);
  REQUIRE(f);
  CHECK(f->decode_miss_ratio > 0);
  double layers = 0;
  for (const LayerGroup& g : deep.layers) {
    layers += g.count * ((g.attention == AttentionKind::kLinear ? 0.2 : 0.3) - 0.1 + 0.1 * f->decode_miss_ratio);
  }
  CHECK(f->decode_s_per_token == Approx(0.05 + layers));
  // The same cache over the same expert pool per layer: the same reads per layer.
  auto same = full_model_figures(ran, ran, m, p);
  REQUIRE(same);
  CHECK(same->decode_miss_ratio == Approx(1));
  // The full K3 (896 experts, 92 MoE layers), its cache grown with the pool.
  auto full = full_model_figures(ran, scaled_k3(""), m, p);
  REQUIRE(full);
  CHECK(full->decode_miss_ratio > 0);
  CHECK(full->prefill_miss_ratio > 0);
}

TEST_CASE("a measurement without per-layer timings is refused with the reason", "[full_model]") {
  const ModelCard ran = scaled_k3("layers=2,experts=64");
  Measurement m = timed_run(ran, 8, 0.05, 0.2, 0.3, 0.0);
  m.layer_s_decode.clear();
  auto f = full_model_figures(ran, scaled_k3(""), m, point_for("layers=2,experts=64"));
  REQUIRE_FALSE(f);
  CHECK(f.error().message.find("per-layer timings") != std::string::npos);
}
