// card_from_gguf.h — a ModelCard derived from a real GGUF file's metadata
// and tensor shapes (llama.cpp conventions: <arch>.block_count,
// <arch>.expert_count, blk.N.ffn_gate_exps.weight, ...). Supports the MoE
// architectures llama.cpp writes with those keys (qwen2moe, qwen3moe,
// deepseek2 with MLA, and others that follow the same naming); what the
// file does not state is reported, never guessed silently.
#pragma once

#include <string>
#include <vector>

#include "engines/container/gguf.h"
#include "vocab/model_card.h"

namespace moebench {

struct DerivedCard {
  ModelCard card;
  std::vector<std::string> notes;  // what was inferred and from where
};

Expected<DerivedCard> card_from_gguf(const GgufFile& file);

// The card as config JSON (the configs/models schema), ready to save.
nlohmann::ordered_json model_card_to_json(const ModelCard& card);

}  // namespace moebench
