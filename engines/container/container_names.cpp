// container_names.cpp — naming and identifying containers (see container.h):
// file names and paths of the trunk and expert files, the identity each file
// records (everything its bytes depend on), the header a file is planned
// with, its planned size, and whether a file on disk is already the one to
// make. container_make.cpp writes the files.
#include <filesystem>
#include <optional>

#include "engines/container/container.h"
#include "engines/container/container_make_internal.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf_writer.h"
#include "vocab/hash.h"
#include "vocab/text.h"

namespace moebench {
namespace {

std::string zero_hash() { return std::string(16, '0'); }

// Replicas are byte-identical: their identity carries no drive index.
int identity_drive(const ContainerSpec& spec, int drive) { return spec.drive_layout == "stripe" ? drive : 0; }

// Drives a file's identity names: a stripe part depends on the stripe's
// width; a replica is a whole copy, the same file for one drive or many.
std::uint64_t identity_drive_count(const ContainerSpec& spec) {
  return spec.drive_layout == "stripe" ? spec.drive_dirs.size() : 1;
}

// XXH64 over a planned tensor table (names, ggml types, shapes): with the
// seed, quant and quantizer it fixes every byte, so two cards that differ in
// geometry never share a file, and editing a card's prose remakes nothing.
std::string tensor_table_digest(const std::vector<PlannedTensor>& plan) {
  Xxh64 h;
  for (const PlannedTensor& p : plan) {
    h.update(p.info.name.data(), p.info.name.size() + 1);
    h.update(&p.info.ggml_type, sizeof p.info.ggml_type);
    for (std::uint64_t n : p.info.ne) h.update(&n, sizeof n);
  }
  return hex64(h.digest());
}

std::string scale_text(const ContainerSpec& spec) { return spec.scale.to_string(); }

// An expert file's identity: everything its bytes depend on, and the trunk
// it pairs with (by identity).
std::string expert_identity(const ContainerSpec& spec, int drive) {
  drive = identity_drive(spec, drive);
  Json id = Json{{"part", "experts"}, {"card", spec.card.name}, {"scale", scale_text(spec)}, {"quant", spec.quant},
              {"seed", spec.seed},      {"layout", spec.packed ? "packed" : "split"},
              {"drive_layout", spec.drive_layout}, {"drive", drive}, {"quantizer", spec.quantizer},
              {"drives", identity_drive_count(spec)}, {"tensors", tensor_table_digest(plan_experts(spec, drive))}};
  if (spec.rows8) id["expert_rows"] = "rows8";  // absent for the row layout: older files keep their identity
  return id.dump();
}

std::string part_identity(const ContainerSpec& spec, ContainerPart part, int drive) {
  return part == ContainerPart::kTrunk ? trunk_identity(spec) : expert_identity(spec, drive);
}

}  // namespace

namespace container_internal {

// An expert record's checksum: XXH64 over the XXH64 of its gate, up and
// down slices (8 bytes each), so `verify` can check records while reading
// each tensor once, front to back, in either layout.
std::string record_checksum(const std::uint64_t slices[3]) { return hex64(xxh64(slices, 3 * sizeof(std::uint64_t))); }

}  // namespace container_internal

namespace {

// The trunk checksum an expert file of `spec` must record: that of the trunk
// file now in drive 0's directory, or "" when there is no such trunk.
std::string current_trunk_checksum(const ContainerSpec& spec) {
  auto trunk = read_gguf(trunk_file_path(spec));
  if (!trunk || !check_tensor_table(*trunk, spec, ContainerPart::kTrunk, 0)) return "";
  return trunk_checksum_of(*trunk);
}

}  // namespace

namespace container_internal {

// An existing file with this identity and size, whose tensor table is the
// plan's (and, for an expert file, that records `trunk_checksum`), is the
// same file (a hand-edited table is remade, not trusted).
bool already_made(const std::string& path, std::uint64_t bytes, const ContainerSpec& spec, ContainerPart part,
                  int drive, const std::string& trunk_checksum) {
  auto existing = read_gguf(path);
  if (!existing || existing->file_bytes != bytes ||
      existing->get_string("moebench.identity") != std::optional<std::string>(part_identity(spec, part, drive)) ||
      !check_tensor_table(*existing, spec, part, drive)) {
    return false;
  }
  return part == ContainerPart::kTrunk ||
         existing->get_string("moebench.trunk_checksum") == std::optional<std::string>(trunk_checksum);
}

// The header of a trunk file, or of drive `drive`'s expert file (which names
// its trunk: file name, identity, checksum; a placeholder of the same length
// while planning).
std::vector<GgufKv> metadata(const ContainerSpec& spec, ContainerPart part, int drive, const Checksums& sums,
                             const std::string& trunk_checksum) {
  std::vector<GgufKv> kv = {gguf_kv("general.architecture", GgufType::kString, "moebench"),
                            gguf_kv("general.name", GgufType::kString, spec.card.name),
                            gguf_kv("moebench.part", GgufType::kString, to_string(part)),
                            gguf_kv("moebench.identity", GgufType::kString, part_identity(spec, part, drive)),
                            gguf_kv("moebench.card", GgufType::kString, spec.card.name),
                            gguf_kv("moebench.scale", GgufType::kString, scale_text(spec))};
  if (part == ContainerPart::kTrunk) {
    kv.push_back(gguf_kv("moebench.trunk_quant", GgufType::kString, spec.card.trunk_quant));
    kv.push_back(gguf_kv("moebench.seed", GgufType::kU64, spec.seed));
    kv.push_back(gguf_kv("moebench.quantizer", GgufType::kString, spec.quantizer));
  } else {
    Json experts = Json::array();
    for (int e : experts_on_drive(spec, drive)) experts.push_back(e);
    kv.push_back(gguf_kv("moebench.quant", GgufType::kString, spec.quant));
    kv.push_back(gguf_kv("moebench.seed", GgufType::kU64, spec.seed));
    kv.push_back(gguf_kv("moebench.layout", GgufType::kString, spec.packed ? "packed" : "split"));
    if (spec.rows8) kv.push_back(gguf_kv("moebench.expert_rows", GgufType::kString, "rows8"));
    kv.push_back(gguf_kv("moebench.quantizer", GgufType::kString, spec.quantizer));
    kv.push_back(gguf_kv("moebench.drive_layout", GgufType::kString, spec.drive_layout));
    kv.push_back(gguf_kv("moebench.drive_index", GgufType::kU32, identity_drive(spec, drive)));
    kv.push_back(gguf_kv("moebench.drive_count", GgufType::kU32, identity_drive_count(spec)));
    kv.push_back(gguf_kv("moebench.experts_held", GgufType::kArray, experts, GgufType::kU32));
    kv.push_back(gguf_kv("moebench.expert_record_bytes", GgufType::kU64, expert_record_bytes(spec)));
    kv.push_back(gguf_kv("moebench.trunk_file", GgufType::kString, trunk_file_name(spec)));
    kv.push_back(gguf_kv("moebench.trunk_identity", GgufType::kString, trunk_identity(spec)));
    kv.push_back(gguf_kv("moebench.trunk_checksum", GgufType::kString,
                         trunk_checksum.empty() ? zero_hash() : trunk_checksum));
  }
  kv.push_back(gguf_kv("moebench.checksums", GgufType::kString, sums.tensors.dump()));
  kv.push_back(gguf_kv("moebench.expert_checksums", GgufType::kString, sums.records.dump()));
  return kv;
}

// The placeholder checksum tables of a plan (same length as the real ones).
Checksums placeholder_sums(const std::vector<PlannedTensor>& plan, std::size_t held) {
  Checksums sums;
  for (const PlannedTensor& p : plan) {
    sums.tensors[p.info.name] = zero_hash();
    if (p.kind == PlannedTensor::Kind::kPacked || (p.kind == PlannedTensor::Kind::kExperts && p.matrix == 0)) {
      sums.records[std::to_string(p.layer)] = Json(std::vector<std::string>(held, zero_hash()));
    }
  }
  return sums;
}

// The file's layout (header with placeholder checksums, tensor offsets).
// `infos` receives the tensors with their offsets.
Expected<GgufLayout> plan_layout(const ContainerSpec& spec, ContainerPart part, int drive,
                                 const std::vector<PlannedTensor>& plan, std::vector<GgufTensorInfo>& infos) {
  const std::size_t held = part == ContainerPart::kTrunk ? 0 : experts_on_drive(spec, drive).size();
  infos.clear();
  for (const PlannedTensor& p : plan) infos.push_back(p.info);
  return gguf_layout(metadata(spec, part, drive, placeholder_sums(plan, held), ""), infos, kContainerAlignment);
}

}  // namespace container_internal

using container_internal::already_made;
using container_internal::plan_layout;

// A card's name as one file-name component: letters, digits, '-', '_' and
// '.' kept, anything else (a '/' of a card given by path among them) '-',
// no leading '.', at most 64 characters. Never a path: a container lives in
// its drive directory whatever the card's name or location.
std::string file_name_component(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.';
    out += keep ? c : '-';
    if (out.size() == 64) break;
  }
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out.empty() ? "card" : out;
}

const char* to_string(ContainerPart part) { return part == ContainerPart::kTrunk ? "trunk" : "experts"; }

namespace {
// "<card>.<scale>": the start of every file name of the spec.
std::string name_stem(const ContainerSpec& spec) {
  std::string scale = spec.scale.is_identity() ? "full" : spec.scale.to_string();
  for (char& c : scale) {
    if (c == '=') c = '-';
    if (c == ',') c = '_';
  }
  return file_name_component(spec.card.name.empty() ? spec.card_name : spec.card.name) + "." + scale;
}
}  // namespace

std::string container_file_name(const ContainerSpec& spec, int drive) {
  std::string name = name_stem(spec) + "." + spec.quant + ".s" + std::to_string(spec.seed) +
                     (spec.packed ? ".packed" : ".split") + (spec.rows8 ? ".rows8" : "");
  if (spec.drive_layout == "stripe") {
    name += ".stripe" + std::to_string(drive) + "of" + std::to_string(spec.drive_dirs.size());
  }
  return name + ".gguf";
}

std::string trunk_file_name(const ContainerSpec& spec) {
  return name_stem(spec) + ".trunk-" + file_name_component(spec.card.trunk_quant) + ".s" + std::to_string(spec.seed) +
         ".gguf";
}

std::string expert_file_path(const ContainerSpec& spec, int drive) {
  return (std::filesystem::path(spec.drive_dirs[static_cast<std::size_t>(drive)]) / container_file_name(spec, drive))
      .string();
}

std::string trunk_file_path(const ContainerSpec& spec) {
  return (std::filesystem::path(spec.drive_dirs.front()) / trunk_file_name(spec)).string();
}

std::string trunk_identity(const ContainerSpec& spec) {
  return Json{{"part", "trunk"},
              {"card", spec.card.name},
              {"scale", scale_text(spec)},
              {"trunk_quant", spec.card.trunk_quant},
              {"seed", spec.seed},
              {"quantizer", spec.quantizer},
              {"tensors", tensor_table_digest(plan_trunk(spec))}}
      .dump();
}

Expected<std::uint64_t> planned_trunk_file_bytes(const ContainerSpec& spec) {
  std::vector<GgufTensorInfo> infos;
  auto layout = plan_layout(spec, ContainerPart::kTrunk, 0, plan_trunk(spec), infos);
  if (!layout) return layout.error();
  return layout->data_offset + layout->data_bytes;
}

Expected<std::uint64_t> planned_expert_file_bytes(const ContainerSpec& spec, int drive) {
  std::vector<GgufTensorInfo> infos;
  auto layout = plan_layout(spec, ContainerPart::kExperts, drive, plan_experts(spec, drive), infos);
  if (!layout) return layout.error();
  return layout->data_offset + layout->data_bytes;
}

bool container_part_present(const std::string& path, const ContainerSpec& spec, ContainerPart part, int drive) {
  auto bytes = part == ContainerPart::kTrunk ? planned_trunk_file_bytes(spec) : planned_expert_file_bytes(spec, drive);
  if (!bytes) return false;
  const std::string trunk_sum = part == ContainerPart::kTrunk ? "" : current_trunk_checksum(spec);
  if (part == ContainerPart::kExperts && trunk_sum.empty()) return false;  // its trunk is remade first
  return already_made(path, *bytes, spec, part, drive, trunk_sum);
}

}  // namespace moebench
