// gguf.h — GGUF v3 files: the header (metadata key/values and tensor table)
// as moebench reads and writes it.
//
// The reader trusts nothing: every count and length is checked against the
// bytes that remain before anything is allocated, tensor types and shapes
// are validated, tensor data must be aligned, inside the file and not
// overlapping. Each failure names the file, the byte offset and the field.
// Tensor data is not read here (the engines read what they need, with
// O_DIRECT); `data_offset + tensor.offset` is where a tensor starts.
//
// Strings are kept as the file's bytes, which need not be valid UTF-8: print
// them through gguf_printable() / gguf_value_text(), never Json::dump()
// (nlohmann throws on invalid UTF-8). Error messages already do this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

enum class GgufType : std::uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};
const char* to_string(GgufType t);

inline constexpr std::uint32_t kGgufMagic = 0x46554747;  // "GGUF" little-endian
inline constexpr std::uint64_t kGgufDefaultAlignment = 32;

struct GgufKv {
  std::string key;
  GgufType type = GgufType::kU32;
  GgufType array_type = GgufType::kU8;  // element type when type == kArray
  Json value;                           // numbers, bool, string, or array of those
};

struct GgufTensorInfo {
  std::string name;
  std::vector<std::uint64_t> ne;  // ggml order: ne[0] is the row length
  std::uint32_t ggml_type = 0;
  std::uint64_t offset = 0;       // relative to the data section
  std::uint64_t bytes = 0;        // derived from type and shape
  std::uint64_t elements() const;
};

struct GgufFile {
  std::string label;  // path (or a label for in-memory data)
  std::uint32_t version = 3;
  std::uint64_t file_bytes = 0;
  std::uint64_t alignment = kGgufDefaultAlignment;
  std::uint64_t data_offset = 0;  // start of the tensor data section
  std::vector<GgufKv> kvs;
  std::vector<GgufTensorInfo> tensors;

  const GgufKv* find(std::string_view key) const;
  const GgufTensorInfo* tensor(std::string_view name) const;
  std::optional<std::uint64_t> get_uint(std::string_view key) const;  // any integer type
  std::optional<std::string> get_string(std::string_view key) const;
};

// Limits that keep a hostile header from allocating unbounded memory.
struct GgufLimits {
  std::uint64_t max_tensors = 1u << 20;
  std::uint64_t max_kvs = 1u << 20;
  std::uint64_t max_string_bytes = 16u << 20;
  std::uint64_t max_array_elements = 1u << 26;
  int max_array_depth = 4;
};

Expected<GgufFile> read_gguf(const std::string& path, const GgufLimits& limits = {});

// `s` with every byte that is not part of valid UTF-8, and every control
// character, written as \xNN: safe for messages, terminals and JSON.
std::string gguf_printable(std::string_view s);
// A metadata value as JSON text; invalid UTF-8 inside strings becomes U+FFFD.
// Never throws.
std::string gguf_value_text(const Json& value);
// Parses a complete file image in memory (tests and the fuzz target).
Expected<GgufFile> parse_gguf(const std::uint8_t* data, std::size_t size, const std::string& label,
                              const GgufLimits& limits = {});

}  // namespace moebench
