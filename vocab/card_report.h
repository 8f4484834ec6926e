// card_report.h — the derived-numbers report of a model card, as printed by
// `moebench card show`: parameters (total, active per token, by component),
// bytes per expert, trunk, container/checkpoint, weight bytes per decode
// token in three regimes (all resident; trunk resident and experts streamed;
// everything streamed), KV bytes per token and at chosen contexts, the fixed
// linear-attention state, container size for every quant that fits, and the
// card's geometry provenance. Every number comes from ModelCard's derived
// functions; card_report.cpp only lays them out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/model_card.h"

namespace moebench {

struct CardReportOptions {
  Scale scale;        // already applied to the card; shown in the header
  std::string quant;  // routed-expert quant for the per-token numbers ("" = native)
  std::vector<std::uint64_t> contexts = {4096, 8192, 131072, 1048576};
};

// The report text. Errors: an unknown quant, or one whose block size does
// not divide the card's expert rows.
Expected<std::string> render_card_report(const ModelCard& card, const CardReportOptions& options);

// The same numbers as JSON (`card show --json`), bytes as exact integers,
// under the same errors.
Expected<Json> card_report_json(const ModelCard& card, const CardReportOptions& options);

// A context length in tokens: "8192", "8K", "128k", "1M" (K = 1024 and
// M = 1,048,576 tokens, as "1M context" is used for 1,048,576 tokens).
Expected<std::uint64_t> parse_context_tokens(const std::string& text);

}  // namespace moebench
