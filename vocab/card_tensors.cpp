// card_tensors.cpp — see card_tensors.h. Layer kinds and widths come from
// the card; the names follow llama.cpp (deepseek2 for MLA, qwen for GQA);
// tensors llama.cpp has no name for (K3's MLA output gate, linear-attention
// gates, the latent MoE projections) get moebench names in the same style.
#include "vocab/card_tensors.h"

#include "vocab/quant_format.h"
#include "vocab/model_card.h"

namespace moebench {

std::string card_small_quant(const ModelCard& c) {
  const auto trunk = find_quant(c.trunk_quant);
  return trunk && trunk->block_weights == 1 ? c.trunk_quant : "bf16";
}

namespace {

using u64 = std::uint64_t;
using From = std::array<const char*, 4>;

// Every width is widened to 64 bits before any sum or product: card fields
// go up to 2^30, so a sum of two ints could overflow an int, and rows (at
// most a product of two fields plus a field) always fit in 64 bits.
u64 w(int v) { return static_cast<u64>(v); }

// One layer's tensors, appended in the file's order.
struct LayerTensors {
  std::vector<CardTensor>& out;
  int layer;
  u64 h;  // the hidden size
  void add(const char* suffix, TensorRole role, bool small, u64 rows, u64 row_len, From from) {
    out.push_back({"blk." + std::to_string(layer) + "." + suffix, role, small, rows, row_len, layer, from});
  }

  void mla(const MlaParams& m) {
    const u64 heads = w(m.heads);
    const u64 qk = w(m.qk_nope_head_dim) + w(m.qk_rope_head_dim);
    const u64 kv = w(m.kv_lora_rank);
    if (m.q_lora_rank > 0) {
      const u64 q = w(m.q_lora_rank);
      add("attn_q_a.weight", TensorRole::kMla, false, q, h, {"/mla/q_lora_rank", "/hidden_size"});
      add("attn_q_a_norm.weight", TensorRole::kMla, true, 1, q, {"/mla/q_lora_rank"});
      add("attn_q_b.weight", TensorRole::kMla, false, heads * qk, q,
          {"/mla/heads", "/mla/qk_nope_head_dim", "/mla/qk_rope_head_dim", "/mla/q_lora_rank"});
    } else {
      add("attn_q.weight", TensorRole::kMla, false, heads * qk, h,
          {"/mla/heads", "/mla/qk_nope_head_dim", "/mla/qk_rope_head_dim", "/hidden_size"});
    }
    add("attn_kv_a_mqa.weight", TensorRole::kMla, false, kv + w(m.qk_rope_head_dim), h,
        {"/mla/kv_lora_rank", "/mla/qk_rope_head_dim", "/hidden_size"});
    add("attn_kv_a_norm.weight", TensorRole::kMla, true, 1, kv, {"/mla/kv_lora_rank"});
    add("attn_kv_b.weight", TensorRole::kMla, false, heads * (w(m.qk_nope_head_dim) + w(m.v_head_dim)), kv,
        {"/mla/heads", "/mla/qk_nope_head_dim", "/mla/v_head_dim", "/mla/kv_lora_rank"});
    const u64 o = heads * w(m.v_head_dim);
    add("attn_output.weight", TensorRole::kMla, false, h, o, {"/hidden_size", "/mla/heads", "/mla/v_head_dim"});
    if (m.output_gate) {
      add("attn_gate.weight", TensorRole::kMla, false, o, h, {"/mla/heads", "/mla/v_head_dim", "/hidden_size"});
    }
  }

  void gqa(const GqaParams& q) {
    const u64 hd = w(q.head_dim);
    add("attn_q.weight", TensorRole::kGqa, false, w(q.heads) * hd, h, {"/gqa/heads", "/gqa/head_dim", "/hidden_size"});
    add("attn_k.weight", TensorRole::kGqa, false, w(q.kv_heads) * hd, h, {"/gqa/kv_heads", "/gqa/head_dim", "/hidden_size"});
    add("attn_v.weight", TensorRole::kGqa, false, w(q.kv_heads) * hd, h, {"/gqa/kv_heads", "/gqa/head_dim", "/hidden_size"});
    add("attn_output.weight", TensorRole::kGqa, false, h, w(q.heads) * hd, {"/hidden_size", "/gqa/heads", "/gqa/head_dim"});
  }

  // A linear-attention gate is absent, full rank (0) or low rank r (two
  // matrices through r).
  void gate(const std::optional<int>& rank, u64 width, const char* full, const char* a, const char* b,
            const char* rank_path, const char* dim_path) {
    if (!rank) return;
    if (*rank == 0) {
      add(full, TensorRole::kLinear, false, width, h, {"/linear/heads", dim_path, "/hidden_size"});
    } else {
      add(a, TensorRole::kLinear, false, w(*rank), h, {rank_path, "/hidden_size"});
      add(b, TensorRole::kLinear, false, width, w(*rank), {"/linear/heads", dim_path, rank_path});
    }
  }

  void linear(const LinearParams& l) {
    const u64 heads = w(l.heads);
    const u64 hk = heads * w(l.key_head_dim);
    const u64 hv = heads * w(l.value_head_dim);
    const From k_from{"/linear/heads", "/linear/key_head_dim", "/hidden_size"};
    const From v_from{"/linear/heads", "/linear/value_head_dim", "/hidden_size"};
    add("attn_q.weight", TensorRole::kLinear, false, hk, h, k_from);
    add("attn_k.weight", TensorRole::kLinear, false, hk, h, k_from);
    add("attn_v.weight", TensorRole::kLinear, false, hv, h, v_from);
    add("attn_output.weight", TensorRole::kLinear, false, h, hv, v_from);
    add("attn_beta.weight", TensorRole::kLinear, false, heads, h, {"/linear/heads", "/hidden_size"});
    gate(l.decay_gate_rank, hk, "attn_decay.weight", "attn_decay_a.weight", "attn_decay_b.weight",
         "/linear/decay_gate_rank", "/linear/key_head_dim");
    if (l.decay_gate_rank) {  // A_log, dt_bias
      add("attn_decay_bias.weight", TensorRole::kLinear, true, 1, heads + hk, {"/linear/heads", "/linear/key_head_dim"});
    }
    gate(l.output_gate_rank, hv, "attn_gate.weight", "attn_gate_a.weight", "attn_gate_b.weight",
         "/linear/output_gate_rank", "/linear/value_head_dim");
    if (l.conv_kernel > 0) {
      add("ssm_conv1d.weight", TensorRole::kLinear, true, 2 * hk + hv, w(l.conv_kernel),
          {"/linear/heads", "/linear/key_head_dim", "/linear/value_head_dim", "/linear/conv_kernel"});
    }
    add("attn_output_norm.weight", TensorRole::kLinear, true, 1, w(l.value_head_dim), {"/linear/value_head_dim"});
  }

  void dense_ffn(const DenseFfnParams& d) {
    const u64 i = w(d.intermediate);
    const From from{"/dense_ffn/intermediate", "/hidden_size"};
    add("ffn_gate.weight", TensorRole::kDense, false, i, h, from);
    add("ffn_up.weight", TensorRole::kDense, false, i, h, from);
    add("ffn_down.weight", TensorRole::kDense, false, h, i, from);
  }

  // The router, a latent MoE's projections and the shared experts (the
  // routed experts are not trunk tensors).
  void moe_trunk(const MoeParams& moe) {
    const u64 ed = w(moe.expert_dim);
    add("ffn_gate_inp.weight", TensorRole::kRouter, true, w(moe.experts), h, {"/moe/experts", "/hidden_size"});
    if (ed != h) {  // latent MoE: experts work in a narrower space
      const From from{"/moe/expert_dim", "/hidden_size"};
      add("ffn_latent_in.weight", TensorRole::kLatent, false, ed, h, from);
      add("ffn_latent_out.weight", TensorRole::kLatent, false, h, ed, from);
      add("ffn_latent_norm.weight", TensorRole::kLatent, true, 1, ed, {"/moe/expert_dim"});
    }
    if (moe.shared > 0) {
      const u64 si = w(moe.shared) * w(moe.shared_intermediate);
      const From from{"/moe/shared", "/moe/shared_intermediate", "/hidden_size"};
      add("ffn_gate_shexp.weight", TensorRole::kShared, false, si, h, from);
      add("ffn_up_shexp.weight", TensorRole::kShared, false, si, h, from);
      add("ffn_down_shexp.weight", TensorRole::kShared, false, h, si, from);
    }
  }
};

}  // namespace

std::vector<CardTensor> card_trunk_tensors(const ModelCard& c) {
  std::vector<CardTensor> out;
  const u64 h = w(c.hidden_size);
  int layer = 0;
  for (const LayerGroup& g : c.layers) {
    for (int k = 0; k < g.count; ++k, ++layer) {
      LayerTensors t{out, layer, h};
      t.add("attn_norm.weight", TensorRole::kNorm, true, 1, h, {"/hidden_size"});
      t.add("ffn_norm.weight", TensorRole::kNorm, true, 1, h, {"/hidden_size"});
      if (g.attention == AttentionKind::kMla && c.mla) t.mla(*c.mla);
      else if (g.attention == AttentionKind::kGqa && c.gqa) t.gqa(*c.gqa);
      else if (g.attention == AttentionKind::kLinear && c.linear) t.linear(*c.linear);
      if (g.ffn == FfnKind::kDense && c.dense_ffn) t.dense_ffn(*c.dense_ffn);
      else if (g.ffn == FfnKind::kMoe) t.moe_trunk(c.moe);
    }
  }
  const u64 v = w(c.vocab_size);
  out.push_back({"token_embd.weight", TensorRole::kEmbedding, false, v, h, -1, {"/vocab_size", "/hidden_size"}});
  if (!c.tied_embeddings) {
    out.push_back({"output.weight", TensorRole::kLmHead, false, v, h, -1, {"/vocab_size", "/hidden_size"}});
  }
  out.push_back({"output_norm.weight", TensorRole::kOutputNorm, true, 1, h, -1, {"/hidden_size"}});
  return out;
}

}  // namespace moebench
