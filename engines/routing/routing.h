// routing.h — which routed experts each token uses, per MoE layer.
//
// The synthetic weights' own router scores carry no meaning, so the experts a
// token visits come from an explicit, seeded routing model — the one thing
// that decides expert-cache behaviour, hence a sweep axis and part of every
// row. Generators:
//   uniform     every layer picks k distinct experts uniformly at random;
//   zipf:S      expert popularity follows a Zipf law with exponent S over a
//               per-layer seeded permutation of the experts (rank r has weight
//               1/r^S); k distinct experts drawn without replacement;
//   sticky:P    each of the k slots repeats the previous token's expert in
//               that slot with probability P, otherwise draws uniformly
//               (k stay distinct);
//   locality:P,S  temporal reuse over popularity skew: each of the k slots
//               reuses, with probability P, one of the experts the previous
//               token used in that layer (Markov stickiness); the others draw
//               from Zipf(S) over a per-layer seeded permutation (S = 0:
//               uniform), without replacement, so the k stay distinct. The
//               default for predicting real models (model/
//               routing_fit.h: default_real_routing(), fitted to published
//               hit rates); uniform stays the pessimistic bound;
//   trace:FILE  replays recorded routing (format below), wrapping around at
//               the end of the file.
// All generators are deterministic functions of (seed, token sequence): the
// same seed gives the same experts. Tokens are drawn in order, one call per
// token (prefill and decode alike).
//
// Trace format (text, UTF-8):
//   line 1:   moebench-trace v1 layers=L experts=E k=K
//   then one line per token: L groups separated by " | ", each group the K
//   distinct expert ids (0-based, < E) of one MoE layer, comma-separated.
//   Blank lines and lines starting with '#' are ignored.
//   Example (L=2, K=2):  3,17 | 0,5
// A trace's L, E and K must match the (scaled) card, or loading fails with
// the file, line and what to change.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

struct RoutingShape {
  int moe_layers = 0;
  int experts = 0;  // per MoE layer
  int k = 0;        // active experts per token per MoE layer
};

class RoutingGenerator {
 public:
  virtual ~RoutingGenerator() = default;
  // The experts of the next token: ids[l * k + j] for MoE layer l and slot j,
  // each layer's k ids distinct and in [0, experts). Resizes `ids`; nothing
  // is allocated once `ids` has its size (pass the same vector every token).
  virtual void next_token(std::vector<int>& ids) = 0;
  // Canonical name ("uniform", "zipf:1.1", "sticky:0.6", "locality:0.3,0.8",
  // "trace:FILE"): numbers in shortest form ("zipf:1.10" -> "zipf:1.1"),
  // FILE as given.
  virtual std::string describe() const = 0;
  // Tokens replayed past the end of a trace (0 for generators).
  virtual std::uint64_t wrapped_tokens() const { return 0; }
};

// `spec` as in a sweep's routing axis; relative trace paths are taken from
// `base_dir` (the sweep file's directory; "" = current directory). Fails on a
// bad spec (check_routing's wording), k < 1 or k > experts, and on a trace
// that cannot be read, is malformed (file:line: what is wrong) or was
// recorded for another shape. A trace is read fully here; `seed` is unused.
Expected<std::unique_ptr<RoutingGenerator>> make_routing(const std::string& spec, const RoutingShape& shape,
                                                         std::uint64_t seed, const std::string& base_dir = "");

// The locality:P,S spec. check_locality_routing returns "" when `spec` is a
// valid one (storing P and S when asked), else the problem in the wording of
// the sweep validator's check_routing (vocab/sweep_spec.h), which knows the
// other kinds; make_routing accepts locality specs before asking it.
bool is_locality_routing(const std::string& spec);
std::string check_locality_routing(const std::string& spec, double* reuse = nullptr, double* exponent = nullptr);
// "locality:P,S" with both numbers in shortest form.
std::string canonical_locality_routing(double reuse, double exponent);

// Writes `tokens` tokens of `gen` as a trace file (the format above), under a
// temporary name then renamed.
Status write_routing_trace(const std::string& path, RoutingGenerator& gen, const RoutingShape& shape,
                           std::int64_t tokens);

}  // namespace moebench
