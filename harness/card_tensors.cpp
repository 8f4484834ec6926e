// card_tensors.cpp — see card_tensors.h. Layer kinds and widths come from
// the card; the names follow llama.cpp (deepseek2 for MLA, qwen for GQA);
// tensors llama.cpp has no name for (K3's MLA output gate, linear-attention
// gates, the latent MoE projections) get moebench names in the same style.
#include "harness/card_tensors.h"

#include "engines/quant/quant_format.h"
#include "harness/model_card.h"

namespace moebench {

std::string card_small_quant(const ModelCard& c) {
  const auto trunk = find_quant(c.trunk_quant);
  return trunk && trunk->block_weights == 1 ? c.trunk_quant : "bf16";
}

std::vector<CardTensor> card_trunk_tensors(const ModelCard& c) {
  using u64 = std::uint64_t;
  std::vector<CardTensor> out;
  const u64 h = static_cast<u64>(c.hidden_size);
  int layer = 0;
  auto add = [&out, &layer](const char* suffix, TensorRole role, bool small, u64 rows, u64 row_len) {
    out.push_back({"blk." + std::to_string(layer) + "." + suffix, role, small, rows, row_len, layer});
  };
  for (const LayerGroup& g : c.layers) {
    for (int k = 0; k < g.count; ++k, ++layer) {
      add("attn_norm.weight", TensorRole::kNorm, true, 1, h);
      add("ffn_norm.weight", TensorRole::kNorm, true, 1, h);
      if (g.attention == AttentionKind::kMla && c.mla) {
        const MlaParams& m = *c.mla;
        const u64 heads = static_cast<u64>(m.heads);
        const u64 qk = static_cast<u64>(m.qk_nope_head_dim + m.qk_rope_head_dim);
        const u64 kv = static_cast<u64>(m.kv_lora_rank);
        if (m.q_lora_rank > 0) {
          const u64 q = static_cast<u64>(m.q_lora_rank);
          add("attn_q_a.weight", TensorRole::kMla, false, q, h);
          add("attn_q_a_norm.weight", TensorRole::kMla, true, 1, q);
          add("attn_q_b.weight", TensorRole::kMla, false, heads * qk, q);
        } else {
          add("attn_q.weight", TensorRole::kMla, false, heads * qk, h);
        }
        add("attn_kv_a_mqa.weight", TensorRole::kMla, false, kv + static_cast<u64>(m.qk_rope_head_dim), h);
        add("attn_kv_a_norm.weight", TensorRole::kMla, true, 1, kv);
        add("attn_kv_b.weight", TensorRole::kMla, false, heads * static_cast<u64>(m.qk_nope_head_dim + m.v_head_dim), kv);
        const u64 o = heads * static_cast<u64>(m.v_head_dim);
        add("attn_output.weight", TensorRole::kMla, false, h, o);
        if (m.output_gate) add("attn_gate.weight", TensorRole::kMla, false, o, h);
      } else if (g.attention == AttentionKind::kGqa && c.gqa) {
        const GqaParams& q = *c.gqa;
        const u64 hd = static_cast<u64>(q.head_dim);
        add("attn_q.weight", TensorRole::kGqa, false, static_cast<u64>(q.heads) * hd, h);
        add("attn_k.weight", TensorRole::kGqa, false, static_cast<u64>(q.kv_heads) * hd, h);
        add("attn_v.weight", TensorRole::kGqa, false, static_cast<u64>(q.kv_heads) * hd, h);
        add("attn_output.weight", TensorRole::kGqa, false, h, static_cast<u64>(q.heads) * hd);
      } else if (g.attention == AttentionKind::kLinear && c.linear) {
        const LinearParams& l = *c.linear;
        const u64 heads = static_cast<u64>(l.heads);
        const u64 hk = heads * static_cast<u64>(l.key_head_dim);
        const u64 hv = heads * static_cast<u64>(l.value_head_dim);
        add("attn_q.weight", TensorRole::kLinear, false, hk, h);
        add("attn_k.weight", TensorRole::kLinear, false, hk, h);
        add("attn_v.weight", TensorRole::kLinear, false, hv, h);
        add("attn_output.weight", TensorRole::kLinear, false, h, hv);
        add("attn_beta.weight", TensorRole::kLinear, false, heads, h);
        // A gate is absent, full rank (0) or low rank r (two matrices through r).
        auto gate = [&](const std::optional<int>& rank, u64 width, const char* full, const char* a, const char* b) {
          if (!rank) return;
          if (*rank == 0) {
            add(full, TensorRole::kLinear, false, width, h);
          } else {
            add(a, TensorRole::kLinear, false, static_cast<u64>(*rank), h);
            add(b, TensorRole::kLinear, false, width, static_cast<u64>(*rank));
          }
        };
        gate(l.decay_gate_rank, hk, "attn_decay.weight", "attn_decay_a.weight", "attn_decay_b.weight");
        if (l.decay_gate_rank) add("attn_decay_bias.weight", TensorRole::kLinear, true, 1, heads + hk);  // A_log, dt_bias
        gate(l.output_gate_rank, hv, "attn_gate.weight", "attn_gate_a.weight", "attn_gate_b.weight");
        if (l.conv_kernel > 0) {
          add("ssm_conv1d.weight", TensorRole::kLinear, true, 2 * hk + hv, static_cast<u64>(l.conv_kernel));
        }
        add("attn_output_norm.weight", TensorRole::kLinear, true, 1, static_cast<u64>(l.value_head_dim));
      }
      if (g.ffn == FfnKind::kDense && c.dense_ffn) {
        const u64 i = static_cast<u64>(c.dense_ffn->intermediate);
        add("ffn_gate.weight", TensorRole::kDense, false, i, h);
        add("ffn_up.weight", TensorRole::kDense, false, i, h);
        add("ffn_down.weight", TensorRole::kDense, false, h, i);
      } else if (g.ffn == FfnKind::kMoe) {
        const u64 ed = static_cast<u64>(c.moe.expert_dim);
        add("ffn_gate_inp.weight", TensorRole::kRouter, true, static_cast<u64>(c.moe.experts), h);
        if (ed != h) {  // latent MoE: experts work in a narrower space
          add("ffn_latent_in.weight", TensorRole::kLatent, false, ed, h);
          add("ffn_latent_out.weight", TensorRole::kLatent, false, h, ed);
          add("ffn_latent_norm.weight", TensorRole::kLatent, true, 1, ed);
        }
        if (c.moe.shared > 0) {
          const u64 si = static_cast<u64>(c.moe.shared) * static_cast<u64>(c.moe.shared_intermediate);
          add("ffn_gate_shexp.weight", TensorRole::kShared, false, si, h);
          add("ffn_up_shexp.weight", TensorRole::kShared, false, si, h);
          add("ffn_down_shexp.weight", TensorRole::kShared, false, h, si);
        }
      }
    }
  }
  const u64 v = static_cast<u64>(c.vocab_size);
  out.push_back({"token_embd.weight", TensorRole::kEmbedding, false, v, h, -1});
  if (!c.tied_embeddings) out.push_back({"output.weight", TensorRole::kLmHead, false, v, h, -1});
  out.push_back({"output_norm.weight", TensorRole::kOutputNorm, true, 1, h, -1});
  return out;
}

}  // namespace moebench
