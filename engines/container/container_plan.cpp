// container_plan.cpp — see container_plan.h.
#include "engines/container/container_plan.h"

#include "engines/quant/quant_format.h"
#include "harness/card_tensors.h"

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
  return (r + kContainerAlignment - 1) / kContainerAlignment * kContainerAlignment;
}

std::vector<PlannedTensor> plan_container(const ContainerSpec& spec, int drive) {
  std::vector<PlannedTensor> out;
  const ModelCard& c = spec.card;
  const bool trunk_here = spec.drive_layout != "stripe" || drive == 0;
  const std::string small = card_small_quant(c);
  if (trunk_here) {
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

}  // namespace moebench
