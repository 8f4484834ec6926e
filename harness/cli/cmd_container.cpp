// cmd_container.cpp — `moebench container`: GGUF containers. `inspect`
// prints the header of any GGUF file (moebench's or llama.cpp's): version,
// alignment, every metadata entry with its type, and the tensor table.
#include <cstdio>

#include "engines/container/ggml_types.h"
#include "engines/container/gguf.h"
#include "harness/cli/commands.h"
#include "harness/text.h"
#include "harness/units.h"

namespace moebench {
namespace {

std::string short_value(const GgufKv& kv) {
  if (kv.type != GgufType::kArray) {
    std::string s = kv.value.dump();
    return s.size() > 100 ? s.substr(0, 97) + "..." : s;
  }
  std::string s = "[";
  const std::size_t shown = std::min<std::size_t>(kv.value.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    std::string e = kv.value[i].dump();
    if (e.size() > 24) e = e.substr(0, 21) + "...";
    s += (i ? ", " : "") + e;
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
  out += "\nmetadata (" + std::to_string(f.kvs.size()) + " entries):\n";
  std::size_t key_width = 0;
  for (const GgufKv& kv : f.kvs) key_width = std::max(key_width, kv.key.size());
  for (const GgufKv& kv : f.kvs) {
    std::string line = "  " + kv.key + std::string(key_width - kv.key.size() + 2, ' ');
    std::string t = type_label(kv);
    line += t + std::string(t.size() < 22 ? 22 - t.size() : 1, ' ') + short_value(kv);
    out += line + "\n";
  }
  out += "\ntensors (" + std::to_string(f.tensors.size()) + "):\n";
  std::size_t name_width = 4;
  for (const GgufTensorInfo& t : f.tensors) name_width = std::max(name_width, t.name.size());
  out += "  name" + std::string(name_width - 4 + 2, ' ') + "type     shape                 file offset      bytes\n";
  std::uint64_t total = 0;
  for (const GgufTensorInfo& t : f.tensors) {
    const auto type = find_ggml_type(t.ggml_type);
    std::string tn = type ? type->name : "?";
    std::string sh = shape(t);
    std::string off = std::to_string(f.data_offset + t.offset);
    out += "  " + t.name + std::string(name_width - t.name.size() + 2, ' ') + tn +
           std::string(tn.size() < 9 ? 9 - tn.size() : 1, ' ') + sh +
           std::string(sh.size() < 22 ? 22 - sh.size() : 1, ' ') + off +
           std::string(off.size() < 17 ? 17 - off.size() : 1, ' ') + std::to_string(t.bytes) + "\n";
    total += t.bytes;
  }
  out += "  total tensor bytes: " + std::to_string(total) + " (" + format_bytes(static_cast<double>(total)) + ")\n";
  return out;
}

void add_container_command(CLI::App& app, CliState& state) {
  CLI::App* cmd = app.add_subcommand("container", "GGUF containers: inspect any GGUF file.");
  cmd->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* inspect = cmd->add_subcommand("inspect", "Print a GGUF file's header, metadata and tensor table.");
  inspect->footer(
      "Reads only the header (no tensor data), checking every count, type, offset and alignment; a broken or "
      "hostile file gets an error naming the byte offset and field.\n\n"
      "Example:\n"
      "  moebench container inspect model.gguf\n"
      "  moebench container inspect tests/data/gguf/tiny-qwen3moe-Q4_K.gguf");
  inspect->add_option("files", *files, "GGUF files")->required();
  inspect->callback([files, &state] {
    state.exit_code = 0;
    for (const std::string& path : *files) {
      auto f = read_gguf(path);
      if (!f) {
        std::fprintf(stderr, "%s\n", f.error().message.c_str());
        state.exit_code = 1;
        continue;
      }
      std::fputs(inspect_gguf(*f).c_str(), stdout);
    }
  });
}

}  // namespace moebench
