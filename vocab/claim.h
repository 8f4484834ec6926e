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

#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/machine_spec.h"
#include "vocab/model_card.h"

namespace moebench {

// A reported figure: a value, or a range when the source gives one. A bound
// the source states loosely ("20+ t/s", ">120 tok/s", "~0.6") is stored as the
// stated number; the claim's `notes` say which way it leans.
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
  // The machine by its parts (vocab/machine_spec.h), built through the spec
  // tables when no `hardware` profile is named.
  std::optional<MachineSpec> machine_spec;
  std::optional<std::uint64_t> ram_budget_bytes;
  std::optional<int> drives;
  std::optional<std::int64_t> context_tokens;  // tokens in the KV cache while the figure was measured
  // The context the run was configured for (-c 131072, --cache_lens 32768,
  // "full 1M context"): a bound on context_tokens, not what decode read.
  std::optional<std::int64_t> context_window_tokens;
  // Run shape, when the source says how long the run was. Without
  // context_tokens, a stated prompt puts prompt + gen/2 tokens in the KV
  // cache on average over the decode.
  std::optional<std::int64_t> prompt_tokens;
  std::optional<std::int64_t> gen_tokens;
  // What was loaded: the on-disk size of the file/container the source names
  // (a GGUF build, a converted container, or only the routed experts: `notes`
  // says which), and the bits per routed-expert weight when the quant allows
  // stating it (MXFP4 4.25, Q4_K 4.5; `notes` gives the reasoning).
  std::optional<std::uint64_t> container_bytes;
  std::optional<double> expert_bits_per_weight;
  // A build that changes the card: pruned experts ("experts=242", as
  // `card show --scale`) and the trunk's bits per weight when it is not the
  // card's (Q8 non-experts: 8.5).
  std::optional<Scale> scale;
  std::optional<double> trunk_bits_per_weight;
  // Linked setups: machines joined for one model; GPUs holding weights.
  std::optional<int> nodes;
  std::optional<int> gpus;
  // Concurrent requests / batch size the figure was measured at, when given.
  // A figure summed over streams goes in aggregate_tok_s, never decode_tok_s.
  std::optional<int> concurrency;
  // How the engine ran, when stated: CPU threads; llama.cpp's -ngl (layers
  // on the GPU) and --n-cpu-moe (layers whose routed experts stay on the CPU).
  std::optional<int> threads;
  std::optional<int> gpu_layers;
  std::optional<int> cpu_moe_layers;
  // Tokens one prefill pass computes (llama.cpp's -ub, --ubatch-size), when
  // stated: a prefill figure's unit of work.
  std::optional<int> ubatch;
  // The GPU backend the engine ran on, when stated (claim_backends()): a
  // condition to compare like with like (one llama.cpp build on one AMD GPU
  // runs a prompt at depth ×4 apart under ROCm, RADV and AMDVLK). Recorded,
  // not priced: a per-backend efficiency did not hold out of sample
  // (docs/measurements/2026-12-07b-amd-backends.md).
  std::optional<std::string> backend;
  // The KV cache's element types, when stated (llama.cpp's -ctk / -ctv,
  // --cache-type-k/-v; claim_cache_types()): what a token's attention reads
  // per cached position, and on CPU cores whether its query-key products
  // run as int8 dot products. One stated alone leaves the other at the
  // engine's default (f16 in llama.cpp and its forks). Unstated: the card's.
  std::optional<std::string> cache_type_k, cache_type_v;
  // Reported figures. decode_tok_s, s_per_token, ttft_s and prefill_tok_s are
  // per stream; aggregate_tok_s is throughput summed over concurrent streams
  // (a serving figure, not what one user sees).
  std::optional<Reported> decode_tok_s;
  std::optional<Reported> s_per_token;
  std::optional<Reported> ttft_s;
  std::optional<Reported> prefill_tok_s;
  std::optional<Reported> aggregate_tok_s;
  std::optional<std::uint64_t> rss_bytes;
  std::string source_document;
  std::string source_quote;  // the exact sentence, copied from the source
  std::vector<std::string> missing;  // condition names the source leaves out
  // Anything a verdict must know that has no field: speculative decoding,
  // pruning, a half-width quant, the trunk streamed too, an inferred value.
  std::optional<std::string> notes;

  // Structured conditions the verdicts and the model read (never keywords
  // in `notes`): the trunk's quant ("bf16", "q8_0", "q4_k", ...) and where
  // it lived; whether a draft model / MTP / lookahead decoding made more
  // than one token per weight pass.
  std::optional<std::string> trunk_quant;
  std::optional<std::string> trunk_placement;  // resident | streamed | partial
  // Where the engine computed, as the source states it: cpu (CPU cores only,
  // GPUs hold no weights), gpu (the GPU computes and its memory holds weights
  // first), hybrid (the GPU holds the trunk and the KV cache, the routed
  // experts stay in host RAM and run on the CPU: llama.cpp -ot exps=CPU).
  std::optional<std::string> processor;
  std::optional<bool> speculative;
  // What the decode figure averages: steady decode (first token and prefill
  // excluded), a whole-run average that includes them, or not said.
  std::string figure = "unknown";  // steady_decode | run_average | unknown
  // A measured expert-cache hit rate, and the cache it was measured with.
  std::optional<double> hit_rate;
  std::optional<std::uint64_t> cache_bytes;
  std::optional<std::string> measured_by;  // engine authors | third party | user report
  // Where the figure comes from: a reference document, a repository file
  // (optionally at a commit) or a web page — exactly one of them.
  std::string source_repository, source_path, source_commit, source_page;
  // "repository/path@commit", the page, or the document: for tables.
  std::string source_label() const;
  // The single-stream decode figure in tok/s (the geometric middle of a
  // reported range; from s_per_token when that is what was reported), 0
  // when the claim reports no decode figure.
  double decode_figure_tok_s() const;
  // The prefill figure in prompt tok/s (prefill_tok_s, else the prompt ÷ the
  // TTFT, which then counts the first token too), 0 when there is none.
  double prefill_figure_tok_s() const;
};

// Condition names that must be either given or listed in `missing`:
// quant, engine, machine, ram_budget, drives, context_tokens, trunk_quant,
// speculative.
const std::vector<std::string>& claim_condition_names();

// The GPU backends a claim can name: cuda, rocm, vulkan-radv and
// vulkan-amdvlk (Mesa's and AMD's Vulkan drivers: one GPU's attention at
// depth differs ×4 between them), vulkan (the driver not stated), metal, sycl.
const std::vector<std::string>& claim_backends();

// The KV cache element types a claim can name (llama.cpp's and
// ik_llama.cpp's cache types, vLLM's fp8): f32, f16, bf16, fp8, q8_0, q6_0,
// q5_1, q5_0, q4_1, q4_0, iq4_nl.
const std::vector<std::string>& claim_cache_types();

// A claims file holds {"claims": [ ... ]}.
std::optional<std::vector<Claim>> load_claims(const Json& j, Diagnostics& d);
Expected<std::vector<Claim>> load_claims_file(const std::string& path);

}  // namespace moebench
