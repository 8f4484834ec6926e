// ggml_types.h — every ggml tensor type a GGUF file may name (id, name,
// block size, block bytes), so `container inspect` can list any llama.cpp
// model, including formats moebench does not compute with (IQ*, Q5_K, ...).
// Ids and sizes follow ggml.h / ggml.c type_traits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace moebench {

struct GgmlType {
  std::uint32_t id;
  const char* name;       // as ggml prints it: "Q4_K"
  std::uint32_t block_weights;
  std::uint32_t block_bytes;
};

std::optional<GgmlType> find_ggml_type(std::uint32_t id);

// moebench's quant name ("q4_k") for a ggml type id, when moebench supports it.
std::optional<std::string> moebench_quant_for_ggml(std::uint32_t id);

}  // namespace moebench
