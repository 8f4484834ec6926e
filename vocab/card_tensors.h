// card_tensors.h — the tensor inventory of a model card: every trunk tensor
// (all weights but the routed experts) with its llama.cpp-style name, role,
// shape and storage class. It is the single source behind the card's
// derived numbers (parameter counts, trunk bytes) and the container layout,
// so a container always holds exactly the bytes `card show` states.
//
// Storage: matrices in the card's trunk_quant; small tensors (norms, router,
// conv taps, per-head scalars) at 16 bits (bf16, or trunk_quant itself when
// that is a float format). Routed experts are not listed here: they are
// moe.experts × (gate, up, down) of expert_dim × expert_intermediate per MoE
// layer, in the sweep's quant.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace moebench {

struct ModelCard;

enum class TensorRole {
  kMla, kGqa, kLinear, kShared, kDense, kLatent, kRouter, kNorm, kEmbedding, kLmHead, kOutputNorm
};

struct CardTensor {
  std::string name;       // "blk.3.attn_kv_a_mqa.weight", "token_embd.weight"
  TensorRole role;
  bool small = false;     // 16-bit small tensor, else a trunk_quant matrix
  std::uint64_t rows = 1;     // output features (ggml ne[1])
  std::uint64_t row_len = 1;  // input features (ggml ne[0]): what a quant block must divide
  int layer = -1;             // -1 for model-level tensors
  // JSON paths of the card fields the shape is made of ("/hidden_size",
  // "/mla/heads", ...; unused entries null): what the card validator names
  // when a tensor's size is out of range.
  std::array<const char*, 4> from{};
};

std::vector<CardTensor> card_trunk_tensors(const ModelCard& card);

// The format of small tensors: trunk_quant when it is a float format (block
// of 1), else bf16.
std::string card_small_quant(const ModelCard& card);

}  // namespace moebench
