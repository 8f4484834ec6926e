// gguf_writer.h — the GGUF v3 header for a set of metadata and tensors.
//
// The writer lays tensors out in the order given, each at a multiple of
// `alignment` (moebench uses 4096 so every tensor — and every expert slice
// of a tensor whose expert dimension is slowest — can be read with
// O_DIRECT), fills in their offsets, and returns the header bytes padded to
// the start of the data section. The caller streams the tensor data after it.
#pragma once

#include <string>
#include <vector>

#include "engines/container/gguf.h"

namespace moebench {

// A metadata entry from a value and its GGUF type (arrays: element type).
GgufKv gguf_kv(std::string key, GgufType type, Json value, GgufType array_type = GgufType::kU8);

struct GgufLayout {
  std::string header;             // header bytes, padded to data_offset
  std::uint64_t data_offset = 0;  // == header.size()
  std::uint64_t data_bytes = 0;   // data section size (last tensor end, aligned)
};

// Computes tensor sizes and offsets (written into `tensors`) and encodes the
// header. Adds general.alignment if `kvs` lacks it.
Expected<GgufLayout> gguf_layout(std::vector<GgufKv> kvs, std::vector<GgufTensorInfo>& tensors,
                                 std::uint64_t alignment);

}  // namespace moebench
