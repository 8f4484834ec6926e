// gguf_export.h — a moebench container as a GGUF file llama.cpp loads and
// runs: the peer engine measured on the same weights.
//
// The export reads a container (trunk file + one replicate expert file, split
// layout) and writes one GGUF with llama.cpp's architecture metadata:
// `qwen3moe` for cards whose every layer is GQA attention + routed experts
// (no shared experts, no dense layers), `deepseek2` for MLA cards (shared
// experts, leading dense layers). Tensor bytes are the container's own —
// every quantized matrix is copied, not re-quantized — except where
// llama.cpp's layout differs:
//   - norms (bf16 in a container) are written as f32 (exact);
//   - qwen3moe's per-head q/k RMSNorm gains (which moebench's GQA has no
//     counterpart for) are written as ones;
//   - deepseek2's attn_kv_b is split into attn_k_b (each head's key rows,
//     transposed: dequantized and re-quantized, in the trunk quant when its
//     block divides the nope width, else q8_0) and attn_v_b (the value
//     rows, copied).
// A SentencePiece-style vocabulary ("llama" tokenizer: <unk>, <s>, </s>,
// 256 byte tokens, then synthetic pieces) gives llama.cpp the tokenizer
// metadata it needs.
//
// Cards llama.cpp has no architecture for are refused with the reason:
// linear / delta attention (Kimi Delta Attention), a latent MoE, MLA with an
// output gate, GQA with shared experts or dense layers, mixed attention.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/container/container.h"
#include "vocab/expected.h"
#include "vocab/model_card.h"

namespace moebench {

// The llama.cpp architecture a card exports as ("qwen3moe", "deepseek2"),
// or an error naming what llama.cpp has no architecture for.
Expected<std::string> llama_architecture_for(const ModelCard& card);

struct ExportReport {
  std::string path;
  std::string architecture;
  std::uint64_t file_bytes = 0;
  int tensors = 0;
  std::uint64_t copied_bytes = 0;     // tensor bytes copied from the container as they are
  std::uint64_t converted_bytes = 0;  // tensor bytes written after a conversion (norms, k_b, q/k norms)
  std::vector<std::string> notes;     // every conversion, once
};

// Writes `out_path` (atomically: a temporary renamed into place) from the
// container `spec` names, which must exist (make_container first) with one
// drive directory, the replicate layout and split expert tensors.
Expected<ExportReport> export_llama_gguf(const ContainerSpec& spec, const std::string& out_path);

// The export beside the container (<container expert file stem>.llama.gguf
// in its drive directory), written unless a file there already is this
// container's export (its moebench.export_of and moebench.quant match).
struct LlamaExport {
  std::string path;
  bool reused = false;
  ExportReport report;  // empty when reused
};
Expected<LlamaExport> ensure_llama_export(const ContainerSpec& spec);

// llama.cpp's general.file_type for a moebench expert quant (LLAMA_FTYPE_*).
std::uint32_t llama_file_type_for(const std::string& quant);

}  // namespace moebench
