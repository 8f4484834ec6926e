// container_plan.h — which tensors a container's trunk file and each drive's
// expert file hold, in file order, and how their bytes are produced (shared
// by make and verify), and the check that an existing file's tensor table is
// that plan.
#pragma once

#include <string>
#include <vector>

#include "engines/container/container.h"
#include "engines/container/gguf.h"

namespace moebench {

struct PlannedTensor {
  enum class Kind { kTrunk, kNorm, kExperts, kPacked };
  GgufTensorInfo info;        // name, ne, ggml type (offset/bytes filled by the layout)
  Kind kind = Kind::kTrunk;
  std::string quant;          // moebench format name
  int layer = -1;             // MoE layer index for expert tensors
  int matrix = 0;             // 0 gate, 1 up, 2 down (split expert tensors)
  std::uint64_t rows = 0;     // rows per tensor (trunk) or per expert slice
  std::uint64_t row_len = 0;
};

// Experts drive `drive` holds, in file order (global expert ids).
std::vector<int> experts_on_drive(const ContainerSpec& spec, int drive);

// The trunk file's tensors (every non-routed-expert tensor of the card) and
// drive `drive`'s expert file's tensors; plan_part picks one.
std::vector<PlannedTensor> plan_trunk(const ContainerSpec& spec);
std::vector<PlannedTensor> plan_experts(const ContainerSpec& spec, int drive);
std::vector<PlannedTensor> plan_part(const ContainerSpec& spec, ContainerPart part, int drive);

// Bytes of one expert record (gate + up + down) before padding, and padded
// to 4096 in the packed layout.
std::uint64_t expert_record_bytes(const ContainerSpec& spec);
std::uint64_t padded_record_bytes(const ContainerSpec& spec);

inline constexpr std::uint64_t kContainerAlignment = 4096;
inline constexpr std::uint32_t kGgmlTypeI8 = 24;

// Names of the three matrices of a routed expert in layer `layer`.
std::string expert_tensor_name(int layer, int matrix);

// Checks that `file` — an existing trunk file of `spec`, or drive `drive`'s
// expert file — holds exactly the tensors plan_part(spec, part, drive)
// lists, each with the planned ggml type, shape and byte size, 4096-aligned
// and inside the file, and the metadata the engines read as planned:
// moebench.part for both; for an expert file also moebench.quant,
// moebench.layout, moebench.experts_held, moebench.expert_record_bytes and
// moebench.trunk_identity (the trunk it pairs with); for a trunk file
// moebench.identity. An identity that matches is not enough: a hand-edited
// tensor table would otherwise reach the executor (a renamed tensor or a
// wrong shape crashes it). The error names the file and the first offending
// tensor or key and says to remake the container.
Status check_tensor_table(const GgufFile& file, const ContainerSpec& spec, ContainerPart part, int drive);

// Checks that `experts` (an expert file that passed check_tensor_table)
// pairs with `trunk` (the trunk file that passed it): the trunk's
// moebench.identity is the expert file's moebench.trunk_identity and the
// XXH64 of the trunk's moebench.checksums is its moebench.trunk_checksum.
Status check_trunk_pairing(const GgufFile& experts, const GgufFile& trunk);

// XXH64 (16 hex digits) of a trunk file's moebench.checksums string, or ""
// when it has none: what an expert file records as moebench.trunk_checksum.
std::string trunk_checksum_of(const GgufFile& trunk);

}  // namespace moebench
