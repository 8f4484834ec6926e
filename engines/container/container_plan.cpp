// container_plan.cpp — see container_plan.h.
#include "engines/container/container_plan.h"

#include <set>

#include "engines/container/ggml_types.h"
#include "vocab/quant_format.h"
#include "vocab/card_tensors.h"
#include "vocab/hash.h"
#include "vocab/text.h"

namespace moebench {

std::string expert_tensor_name(int layer, int matrix) {
  static const char* kNames[] = {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};
  return "blk." + std::to_string(layer) + "." + kNames[matrix] + ".weight";
}

std::vector<int> experts_on_drive(const ContainerSpec& spec, int drive) {
  std::vector<int> out;
  const int drives = static_cast<int>(spec.drive_dirs.size());
  for (int e = 0; e < spec.card.moe.experts; ++e) {
    if (spec.drive_layout != "stripe" || e % drives == drive) out.push_back(e);
  }
  return out;
}

std::uint64_t expert_record_bytes(const ContainerSpec& spec) { return spec.card.expert_bytes(spec.quant); }

std::uint64_t padded_record_bytes(const ContainerSpec& spec) {
  const std::uint64_t r = expert_record_bytes(spec);
  // Saturating: a card that did not come through the loader may be absurd.
  return r % kContainerAlignment == 0 ? r : sat_add(r / kContainerAlignment * kContainerAlignment, kContainerAlignment);
}

std::vector<PlannedTensor> plan_trunk(const ContainerSpec& spec) {
  std::vector<PlannedTensor> out;
  const ModelCard& c = spec.card;
  const std::string small = card_small_quant(c);
  {
    for (const CardTensor& t : card_trunk_tensors(c)) {
      PlannedTensor p;
      p.quant = t.small ? small : c.trunk_quant;
      p.info.name = t.name;
      p.info.ne = t.rows == 1 ? std::vector<std::uint64_t>{t.row_len} : std::vector<std::uint64_t>{t.row_len, t.rows};
      p.info.ggml_type = find_quant(p.quant)->ggml_type;
      const bool norm = t.role == TensorRole::kNorm || t.role == TensorRole::kOutputNorm ||
                        t.name.find("norm") != std::string::npos;
      p.kind = norm ? PlannedTensor::Kind::kNorm : PlannedTensor::Kind::kTrunk;
      p.layer = t.layer;
      p.rows = t.rows;
      p.row_len = t.row_len;
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::vector<PlannedTensor> plan_experts(const ContainerSpec& spec, int drive) {
  std::vector<PlannedTensor> out;
  const ModelCard& c = spec.card;
  const std::uint64_t held = experts_on_drive(spec, drive).size();
  if (held == 0) return out;
  const std::uint64_t ed = static_cast<std::uint64_t>(c.moe.expert_dim);
  const std::uint64_t inter = static_cast<std::uint64_t>(c.moe.expert_intermediate);
  int layer = 0;
  for (const LayerGroup& g : c.layers) {
    for (int k = 0; k < g.count; ++k, ++layer) {
      if (g.ffn != FfnKind::kMoe) continue;
      if (spec.packed) {
        PlannedTensor p;
        p.kind = PlannedTensor::Kind::kPacked;
        p.quant = spec.quant;
        p.info.name = "blk." + std::to_string(layer) + ".ffn_exps_packed.weight";
        p.info.ne = {padded_record_bytes(spec), held};
        p.info.ggml_type = kGgmlTypeI8;
        p.layer = layer;
        out.push_back(std::move(p));
        continue;
      }
      for (int m = 0; m < 3; ++m) {
        PlannedTensor p;
        p.kind = PlannedTensor::Kind::kExperts;
        p.quant = spec.quant;
        p.info.name = expert_tensor_name(layer, m);
        p.row_len = m == 2 ? inter : ed;  // down maps intermediate → expert_dim
        p.rows = m == 2 ? ed : inter;
        p.info.ne = {p.row_len, p.rows, held};
        p.info.ggml_type = find_quant(spec.quant)->ggml_type;
        p.layer = layer;
        p.matrix = m;
        out.push_back(std::move(p));
      }
    }
  }
  return out;
}

std::vector<PlannedTensor> plan_part(const ContainerSpec& spec, ContainerPart part, int drive) {
  return part == ContainerPart::kTrunk ? plan_trunk(spec) : plan_experts(spec, drive);
}

namespace {

std::string shape_text(const std::vector<std::uint64_t>& ne) {
  std::string s;
  for (std::size_t i = 0; i < ne.size(); ++i) s += (i ? " x " : "") + std::to_string(ne[i]);
  return s;
}

std::string type_text(std::uint32_t id) {
  const auto t = find_ggml_type(id);
  return t ? std::string(t->name) : "type " + std::to_string(id);
}

// Bytes of a planned tensor, from the quant table.
std::uint64_t planned_bytes(const PlannedTensor& p) {
  if (p.kind == PlannedTensor::Kind::kPacked) return sat_mul(p.info.ne[0], p.info.ne[1]);  // I8
  const QuantFormat f = *find_quant(p.quant);
  const std::uint64_t per = sat_mul(p.rows, f.bytes_for(p.row_len));
  return p.kind == PlannedTensor::Kind::kExperts ? sat_mul(per, p.info.ne[2]) : per;
}

}  // namespace

Status check_tensor_table(const GgufFile& file, const ContainerSpec& spec, ContainerPart part, int drive) {
  auto fail = [&](const std::string& what) -> Status {
    return make_error(file.label + ": " + what + "; the container's " + to_string(part) +
                      " file does not match the card \"" + spec.card_name +
                      "\" (its header was edited, or it was made for another card or by another moebench): "
                      "remake it with `moebench container make` (or delete the file)");
  };
  if (drive < 0 || static_cast<std::size_t>(drive) >= spec.drive_dirs.size()) {
    return fail("drive " + std::to_string(drive) + " is not one of the spec's " +
                std::to_string(spec.drive_dirs.size()) + " drives");
  }
  // plan_container needs known quants.
  for (const std::string& q : {spec.quant, spec.card.trunk_quant}) {
    if (!find_quant(q)) return fail("unknown quant \"" + q + "\"");
  }
  const std::vector<PlannedTensor> plan = plan_part(spec, part, drive);
  std::set<std::string> planned;
  for (const PlannedTensor& p : plan) {
    const std::string& name = p.info.name;
    planned.insert(name);
    const GgufTensorInfo* t = file.tensor(name);
    if (t == nullptr) return fail("tensor " + name + " is missing");
    if (t->ggml_type != p.info.ggml_type) {
      return fail("tensor " + name + " has type " + type_text(t->ggml_type) + ", expected " +
                  type_text(p.info.ggml_type));
    }
    if (t->ne != p.info.ne) {
      return fail("tensor " + name + " has shape " + shape_text(t->ne) + ", expected " + shape_text(p.info.ne));
    }
    const std::uint64_t bytes = planned_bytes(p);
    if (t->bytes != bytes) {
      return fail("tensor " + name + " holds " + std::to_string(t->bytes) + " bytes, expected " +
                  std::to_string(bytes));
    }
    if (t->offset % kContainerAlignment != 0) {
      return fail("tensor " + name + " starts at data offset " + std::to_string(t->offset) +
                  ", not a multiple of " + std::to_string(kContainerAlignment));
    }
    if (file.data_offset > file.file_bytes || t->offset > file.file_bytes - file.data_offset ||
        t->bytes > file.file_bytes - file.data_offset - t->offset) {
      return fail("tensor " + name + " (" + std::to_string(t->bytes) + " bytes at data offset " +
                  std::to_string(t->offset) + ") runs past the end of the file (" + std::to_string(file.file_bytes) +
                  " bytes)");
    }
  }
  for (const GgufTensorInfo& t : file.tensors) {
    if (planned.count(t.name) == 0) return fail("tensor " + gguf_printable(t.name) + " is not one the card has");
  }
  // Metadata the engines and verify read.
  if (file.get_string("moebench.part") != std::optional<std::string>(to_string(part))) {
    return fail(std::string("metadata moebench.part is not \"") + to_string(part) + "\"");
  }
  if (part == ContainerPart::kTrunk) {
    if (file.get_string("moebench.identity") != std::optional<std::string>(trunk_identity(spec))) {
      return fail("metadata moebench.identity is not this card's trunk (card, scale, trunk quant, seed, quantizer)");
    }
    return Status::success();
  }
  if (file.get_string("moebench.trunk_identity") != std::optional<std::string>(trunk_identity(spec))) {
    return fail("metadata moebench.trunk_identity does not name this card's trunk file " + trunk_file_name(spec));
  }
  if (file.get_string("moebench.quant") != spec.quant) {
    return fail("metadata moebench.quant is not \"" + spec.quant + "\"");
  }
  const std::string layout = spec.packed ? "packed" : "split";
  if (file.get_string("moebench.layout") != layout) return fail("metadata moebench.layout is not \"" + layout + "\"");
  const std::optional<std::string> rows = spec.rows8 ? std::optional<std::string>("rows8") : std::nullopt;
  if (file.get_string("moebench.expert_rows") != rows) {
    return fail(spec.rows8 ? "metadata moebench.expert_rows is not \"rows8\" (experts in the row layout)"
                           : "metadata moebench.expert_rows says the experts are interleaved by 8 rows");
  }
  const std::vector<int> held = experts_on_drive(spec, drive);
  const GgufKv* kv = file.find("moebench.experts_held");
  bool held_ok = kv != nullptr && kv->value.is_array() && kv->value.size() == held.size();
  for (std::size_t i = 0; held_ok && i < held.size(); ++i) {
    const Json& e = kv->value[i];
    held_ok = (e.is_number_unsigned() || e.is_number_integer()) && e.get<std::int64_t>() == held[i];
  }
  if (!held_ok) {
    return fail("metadata moebench.experts_held is not the " + std::to_string(held.size()) +
                " experts drive " + std::to_string(drive) + " holds");
  }
  if (file.get_uint("moebench.expert_record_bytes") != std::optional<std::uint64_t>(expert_record_bytes(spec))) {
    return fail("metadata moebench.expert_record_bytes is not " + std::to_string(expert_record_bytes(spec)));
  }
  return Status::success();
}

}  // namespace moebench

namespace moebench {

std::string trunk_checksum_of(const GgufFile& trunk) {
  const auto sums = trunk.get_string("moebench.checksums");
  return sums ? hex64(xxh64(sums->data(), sums->size())) : std::string();
}

Status check_trunk_pairing(const GgufFile& experts, const GgufFile& trunk) {
  const std::string remake = "; remake the container with `moebench container make` (it remakes the expert file "
                             "against the trunk file there)";
  const auto want_id = experts.get_string("moebench.trunk_identity");
  if (!want_id || trunk.get_string("moebench.identity") != want_id) {
    return make_error(experts.label + ": pairs with another trunk than " + trunk.label +
                      " (moebench.trunk_identity differs from the trunk's moebench.identity)" + remake);
  }
  const std::string sum = trunk_checksum_of(trunk);
  if (sum.empty() || experts.get_string("moebench.trunk_checksum") != std::optional<std::string>(sum)) {
    return make_error(experts.label + ": moebench.trunk_checksum is not the XXH64 of " + trunk.label +
                      "'s checksum table (the trunk file was remade or edited since)" + remake);
  }
  return Status::success();
}

}  // namespace moebench
