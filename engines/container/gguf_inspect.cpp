// gguf_inspect.cpp — the text of `moebench container inspect` (see
// gguf_inspect.h).
#include "engines/container/gguf_inspect.h"

#include <algorithm>

#include <fmt/format.h>

#include "engines/container/ggml_types.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// The first `keep` bytes of valid UTF-8 `s` and "...", when it is longer
// than `max`; never cuts a character in two.
std::string shorten(std::string s, std::size_t max, std::size_t keep) {
  if (s.size() <= max) return s;
  while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
  return s.substr(0, keep) + "...";
}

// Values go through gguf_value_text: a file's strings need not be valid
// UTF-8 (Json::dump would throw), they are shown with U+FFFD instead.
std::string short_value(const GgufKv& kv) {
  if (kv.type != GgufType::kArray || !kv.value.is_array()) return shorten(gguf_value_text(kv.value), 100, 97);
  std::string s = "[";
  const std::size_t shown = std::min<std::size_t>(kv.value.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    s += (i ? ", " : "") + shorten(gguf_value_text(kv.value[i]), 24, 21);
  }
  if (kv.value.size() > shown) s += ", ... (" + std::to_string(kv.value.size()) + " in all)";
  return s + "]";
}

std::string type_label(const GgufKv& kv) {
  if (kv.type != GgufType::kArray) return to_string(kv.type);
  return std::string("array<") + to_string(kv.array_type) + ">[" + std::to_string(kv.value.size()) + "]";
}

std::string shape(const GgufTensorInfo& t) {
  std::vector<std::string> dims;
  for (std::uint64_t d : t.ne) dims.push_back(std::to_string(d));
  return join(dims, " x ");
}

}  // namespace

std::string inspect_gguf(const GgufFile& f) {
  std::string out = f.label + ": GGUF v" + std::to_string(f.version) + ", " + std::to_string(f.file_bytes) +
                    " bytes (" + format_bytes(static_cast<double>(f.file_bytes)) + "), alignment " +
                    std::to_string(f.alignment) + ", tensor data at byte " + std::to_string(f.data_offset) + "\n";
  if (const auto part = f.get_string("moebench.part"); part == "trunk") {
    out += "moebench trunk file: every non-routed-expert tensor, shared by every quant of its card, scale and seed\n";
  } else if (part == "experts") {
    out += "moebench expert file: routed experts only; pairs with the trunk file " +
           gguf_printable(f.get_string("moebench.trunk_file").value_or("(not named)")) + " (on drive 0)\n";
  }
  out += "\nmetadata (" + std::to_string(f.kvs.size()) + " entries):\n";
  std::size_t key_width = 0;
  for (const GgufKv& kv : f.kvs) key_width = std::max(key_width, gguf_printable(kv.key).size());
  for (const GgufKv& kv : f.kvs) {
    const std::string key = gguf_printable(kv.key);
    std::string line = "  " + key + std::string(key_width - key.size() + 2, ' ');
    // The type column is ASCII, so fmt's width (code points) is its byte width: at
    // least 22 wide, at least one space after it.
    line += fmt::format("{:<21} ", type_label(kv)) + short_value(kv);
    out += line + "\n";
  }
  out += "\ntensors (" + std::to_string(f.tensors.size()) + "):\n";
  std::size_t name_width = 4;
  for (const GgufTensorInfo& t : f.tensors) name_width = std::max(name_width, gguf_printable(t.name).size());
  out += "  name" + std::string(name_width - 4 + 2, ' ') + "type     shape                 file offset      bytes\n";
  std::uint64_t total = 0;
  for (const GgufTensorInfo& t : f.tensors) {
    const std::string name = gguf_printable(t.name);
    const auto type = find_ggml_type(t.ggml_type);
    // Names are padded by bytes, as their width was measured (they may be UTF-8);
    // type, shape and offset are ASCII: fmt widths, each at least one space apart.
    out += "  " + name + std::string(name_width - name.size() + 2, ' ') +
           fmt::format("{:<8} {:<21} {:<16} {}\n", type ? type->name : "?", shape(t), f.data_offset + t.offset, t.bytes);
    total += t.bytes;
  }
  out += "  total tensor bytes: " + std::to_string(total) + " (" + format_bytes(static_cast<double>(total)) + ")\n";
  return out;
}


}  // namespace moebench
