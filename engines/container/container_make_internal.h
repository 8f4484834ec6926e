// container_make_internal.h — what container_make.cpp (writing the files)
// takes from container_names.cpp (file names, identities, planned headers):
// the checksum tables of a header, the header's metadata and layout, and the
// test whether a file already on disk is the one to make. Internal to
// engines/container/; callers use container.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf_writer.h"

namespace moebench::container_internal {


struct Checksums {
  Json tensors = Json::object();  // name → hex
  Json records = Json::object();  // layer → [hex per held expert]
};

// An expert record's checksum over its gate, up and down slice checksums.
std::string record_checksum(const std::uint64_t slices[3]);

// Whether the file at `path` is already the one to make (identity, size,
// tensor table and, for an expert file, `trunk_checksum`).
bool already_made(const std::string& path, std::uint64_t bytes, const ContainerSpec& spec, ContainerPart part,
                  int drive, const std::string& trunk_checksum);

// The header of a trunk file, or of drive `drive`'s expert file.
std::vector<GgufKv> metadata(const ContainerSpec& spec, ContainerPart part, int drive, const Checksums& sums,
                             const std::string& trunk_checksum);

// The placeholder checksum tables of a plan (same length as the real ones).
Checksums placeholder_sums(const std::vector<PlannedTensor>& plan, std::size_t held);

// The file's layout (header with placeholder checksums, tensor offsets).
Expected<GgufLayout> plan_layout(const ContainerSpec& spec, ContainerPart part, int drive,
                                 const std::vector<PlannedTensor>& plan, std::vector<GgufTensorInfo>& infos);

}  // namespace moebench::container_internal
