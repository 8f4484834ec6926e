// claim.h — Claim: a published speed figure with the conditions it was
// stated under, the source sentence, and the conditions the source leaves
// out. A claim must account for every condition: each one is either given or
// named in `missing`, because a tok/s figure whose conditions were lost is
// the problem moebench exists to fix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json_reader.h"

namespace moebench {

// A reported figure: a value, or a range when the source gives one.
struct Reported {
  double low = 0;
  double high = 0;
  bool is_range() const { return low != high; }
};

struct Claim {
  std::string id;
  std::string title;
  std::string model;                 // model as the source names it
  std::optional<std::string> card;   // configs/models card, when one matches
  std::optional<std::string> quant;  // as stated ("UD-IQ1_S", "mxfp4", "3-bit VQ")
  std::optional<std::string> engine;
  std::optional<std::string> machine;   // as stated
  std::optional<std::string> hardware;  // configs/hardware profile, when one matches
  std::optional<std::uint64_t> ram_budget_bytes;
  std::optional<int> drives;
  std::optional<std::int64_t> context_tokens;
  std::optional<Reported> decode_tok_s;
  std::optional<Reported> s_per_token;
  std::optional<Reported> ttft_s;
  std::optional<Reported> prefill_tok_s;
  std::optional<std::uint64_t> rss_bytes;
  std::string source_document;
  std::string source_quote;
  std::vector<std::string> missing;  // condition names the source leaves out
};

// Condition names that must be either given or listed in `missing`.
const std::vector<std::string>& claim_condition_names();

// A claims file holds {"claims": [ ... ]}.
std::optional<std::vector<Claim>> load_claims(const Json& j, Diagnostics& d);
Expected<std::vector<Claim>> load_claims_file(const std::string& path);

}  // namespace moebench
