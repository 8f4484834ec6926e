// engine_families.h — what the model knows about an engine family before any
// fitting: where it computes when a claim does not say (`processor`) and how
// it holds what does not fit memory (its own expert cache or the OS page
// cache over a mapped file). Each fact is a row of one table with the public
// source it comes from, so `--explain` can cite it; the setup model
// (setup_model.h) asks these functions, never an engine's name.
#pragma once

#include <optional>
#include <string>

namespace moebench {

// How an engine holds what does not fit memory.
enum class Residency {
  kStream,  // an explicit expert cache filled by large reads (WASTE, kimi-k3-in-c, moebench)
  kMmap,    // the OS page cache over a mapped file: page-fault reads (llama.cpp beyond RAM)
};

// An engine family from the engine as a source names it: its first word,
// lowercased ("kimi-k3-in-c", "waste", "llama.cpp", ...), with other
// spellings of one family mapped to its name ("MLX" and "mlx_lm" are
// "mlx-lm", "llama-bench" is "llama.cpp"); a fork keeps its own name.
std::string engine_family(const std::string& engine);

// Where a family computes when a claim leaves `processor` out: "cpu" (every
// weight on the CPU cores, even beside a GPU), "hybrid" (routed experts on the
// CPU from host RAM, the rest on a discrete GPU) — with the source that says
// so. No entry: the family uses the machine's GPU where it has one.
struct ProcessorDefault {
  std::string processor;
  std::string source;
};
std::optional<ProcessorDefault> family_processor(const std::string& family);

// How the family holds what does not fit (llama.cpp and its forks map the
// file and page; the streaming engines read into their own cache).
Residency family_residency(const std::string& family);

// Tokens one prefill pass computes when a source does not state it
// (llama.cpp's -ub default), with the source that says so.
struct PrefillChunk {
  int tokens = 0;
  std::string source;
};
std::optional<PrefillChunk> family_prefill_chunk(const std::string& family);

// Whether the family splits every layer across its GPUs (tensor
// parallelism: vLLM, SGLang), so each layer ends in an all-reduce between
// them; llama.cpp's default split gives each GPU whole layers instead.
bool family_tensor_parallel(const std::string& family);

// Where a hybrid engine (routed experts in host RAM beside a discrete GPU)
// computes those experts during a prefill pass: on the CPU cores, or copied
// over the host link to the GPU. llama.cpp's backends copy by the pass's
// tokens alone; where a family's rule is not stated as a fact (ik_llama.cpp's
// depends on its version, -op and CPU-only repacked quants; ktransformers'
// on its version), the model takes whichever side is faster.
enum class OffloadRule {
  kFaster,    // not known: whichever side is faster
  kMinBatch,  // copied when the pass has at least `min_batch` tokens
};
struct OffloadPolicy {
  OffloadRule rule = OffloadRule::kFaster;
  int min_batch = 0;
  std::string source;
};
OffloadPolicy family_offload(const std::string& family);

// Whether a pass of `batch` tokens copies the CPU-held experts to the GPU
// under `p`; nullopt where the rule is not known.
std::optional<bool> offload_copies(const OffloadPolicy& p, int batch);

// Whether the family computes on the CPU cores where a GPU shares memory
// (its default processor is "cpu").
bool family_on_cpu(const std::string& family);

}  // namespace moebench
