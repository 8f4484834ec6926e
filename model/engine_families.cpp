// engine_families.cpp — the engine-family facts table (see engine_families.h).
#include "model/engine_families.h"

#include <array>
#include <cctype>
#include <string_view>
#include <utility>

namespace moebench {
namespace {

struct FamilyFacts {
  std::string_view family;
  std::string_view processor;  // default when a claim leaves it out; empty: the machine's GPU where it has one
  Residency residency;
  std::string_view source;
  int prefill_chunk = 0;  // tokens one prefill pass computes by default (0: not known)
  std::string_view prefill_source = "";
  std::string_view tensor_parallel = "";  // the source saying it splits every layer across its GPUs (empty: it does not)
  OffloadRule offload = OffloadRule::kFaster;  // where a hybrid prefill computes the CPU-held experts
  std::string_view offload_source = "";
};

// One row per family the published figures name. Forks that stream experts
// themselves name their own family, so only these page through mmap.
constexpr std::string_view kUbatch = "ggml-org/llama.cpp common/arg.cpp: -ub, --ubatch-size N, physical maximum batch size (default: 512)";
constexpr std::string_view kOffloadMain =
    "ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu ggml_backend_cuda_device_offload_op: 'return get_op_batch_size(op) >= "
    "dev_ctx->op_offload_min_batch_size' (32 unless GGML_OP_OFFLOAD_MIN_BATCH is set; MUL_MAT_ID counts the pass's tokens, "
    "ne[2]); the Vulkan backend the same";
constexpr int kMinOffloadBatch = 32;
constexpr std::array<FamilyFacts, 10> kFamilies{{
    {"kimi-k3-in-c", "cpu", Residency::kStream,
     "Speedstu/kimi-k3-in-c README.md @ 01a7334a: portable C99, CPU-only; an O_DIRECT trunk ring and expert cache"},
    {"waste", "cpu", Residency::kStream,
     "sqliteai/waste docs/BACKENDS.md @ d9b919a: the CPU path (NEON, AVX2, AVX-512) is the default; Metal is 'correct, "
     "off by default, 22% slower'; experts are read into its own cache"},
    {"ktransformers", "hybrid", Residency::kStream,
     "kvcache-ai/ktransformers README.md: 'CPU-GPU Hybrid Inference' — routed experts computed on the CPU from host RAM, "
     "attention and the dense part on the GPU"},
    {"llama.cpp", "", Residency::kMmap, "ggml-org/llama.cpp: the model file is memory-mapped by default (--no-mmap turns it off)",
     512, kUbatch, "", OffloadRule::kMinBatch, kOffloadMain},
    {"ik_llama.cpp", "", Residency::kMmap, "ikawrakow/ik_llama.cpp: a llama.cpp fork; mmap by default as llama.cpp", 512,
     kUbatch},
    {"ollama", "", Residency::kMmap, "ollama/ollama: runs llama.cpp's loader, which maps the model file", 512, kUbatch, "",
     OffloadRule::kMinBatch, kOffloadMain},
    {"lm-studio", "", Residency::kMmap, "LM Studio: runs llama.cpp's loader, which maps the model file", 512, kUbatch, "",
     OffloadRule::kMinBatch, kOffloadMain},
    {"mlx-lm", "", Residency::kStream, "ml-explore/mlx-lm: computes on the Apple GPU", 2048,
     "ml-explore/mlx-lm mlx_lm/generate.py generate_step: prefill_step_size: int = 2048"},
    {"vllm", "", Residency::kStream, "vllm-project/vllm: weights held in GPU memory", 0, "",
     "vllm-project/vllm docs serving/distributed_serving: --tensor-parallel-size splits each layer's matrices across "
     "the GPUs, which all-reduce their partial results every layer"},
    {"sglang", "", Residency::kStream, "sgl-project/sglang: weights held in GPU memory", 0, "",
     "sgl-project/sglang server arguments: --tp-size, tensor parallelism over the GPUs (an all-reduce per layer)"},
}};

const FamilyFacts* find(const std::string& family) {
  for (const FamilyFacts& f : kFamilies) {
    if (f.family == family) return &f;
  }
  return nullptr;
}

}  // namespace

std::string engine_family(const std::string& engine) {
  // The first word: letters, digits, '.', '-', '_' (so "llama.cpp's", a
  // non-breaking space or "WASTE:" end it), lowercased.
  std::string w;
  for (char ch : engine) {
    const auto u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || ch == '.' || ch == '-' || ch == '_')) {
      if (w.empty()) continue;  // leading punctuation or spaces
      break;
    }
    w += static_cast<char>(std::tolower(u));
  }
  while (!w.empty() && (w.back() == '.' || w.back() == '-')) w.pop_back();
  if (w.empty()) return "any";
  // Other spellings of one family's first word (a fork keeps its own name).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kAliases{{
      {"mlx", "mlx-lm"},           // "MLX 0.32.0 / mlx-lm 0.31.3": the framework, run through mlx-lm
      {"mlx_lm", "mlx-lm"},        // the Python module's name
      {"llamacpp", "llama.cpp"},   {"llama-cpp", "llama.cpp"},
      {"llama-bench", "llama.cpp"},  // llama.cpp's benchmark binary
      {"ik-llama.cpp", "ik_llama.cpp"}, {"lmstudio", "lm-studio"},
  }};
  for (const auto& [alias, family] : kAliases) {
    if (w == alias) return std::string(family);
  }
  return w;
}

std::optional<ProcessorDefault> family_processor(const std::string& family) {
  const FamilyFacts* f = find(family);
  if (!f || f->processor.empty()) return std::nullopt;
  return ProcessorDefault{std::string(f->processor), std::string(f->source)};
}

Residency family_residency(const std::string& family) {
  const FamilyFacts* f = find(family);
  return f ? f->residency : Residency::kStream;
}

std::optional<PrefillChunk> family_prefill_chunk(const std::string& family) {
  const FamilyFacts* f = find(family);
  if (!f || f->prefill_chunk <= 0) return std::nullopt;
  return PrefillChunk{f->prefill_chunk, std::string(f->prefill_source)};
}

bool family_tensor_parallel(const std::string& family) {
  const FamilyFacts* f = find(family);
  return f && !f->tensor_parallel.empty();
}

OffloadPolicy family_offload(const std::string& family) {
  const FamilyFacts* f = find(family);
  if (!f || f->offload == OffloadRule::kFaster) return {};
  return {f->offload, kMinOffloadBatch, std::string(f->offload_source)};
}

std::optional<bool> offload_copies(const OffloadPolicy& p, int batch) {
  if (p.rule == OffloadRule::kFaster) return std::nullopt;
  return batch >= p.min_batch;
}

bool family_on_cpu(const std::string& family) {
  const auto p = family_processor(family);
  return p && p->processor == "cpu";
}

}  // namespace moebench
