// container.h — moebench containers: GGUF v3 files holding a (scaled) model
// card's weights, synthetic but real (seeded values through the real
// quantizers), laid out so an engine can read every expert with O_DIRECT.
//
// Layout: general.alignment 4096; llama.cpp tensor names; routed experts as
// blk.N.ffn_{gate,up,down}_exps.weight with the expert as the slowest
// dimension (one expert's slice of a tensor is one contiguous range), or,
// with `packed`, blk.N.ffn_exps_packed.weight (type I8, [record, experts])
// holding each expert's gate‖up‖down as one aligned record: one read per
// expert. Drive layouts: `replicate` (every drive holds a full copy) and
// `stripe` (expert e lives on drive e mod D; the trunk on drive 0).
//
// moebench.* metadata: the card (JSON), scale, quant, seed, layout, drive
// index and count, the experts held, and an XXH64 per tensor (expert
// tensors: over their per-expert slice hashes, padding excluded) and per
// expert record (over its gate, up and down slice hashes). Files are written under a temporary name, fsynced, then renamed:
// an interrupted make never leaves a file that looks valid.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/model_card.h"
#include "vocab/progress.h"

namespace moebench {

struct ContainerSpec {
  std::string card_name;
  ModelCard card;      // already scaled
  Scale scale;
  std::string quant;   // routed experts; the trunk uses card.trunk_quant
  std::uint64_t seed = 42;
  std::vector<std::string> drive_dirs;
  std::string drive_layout = "replicate";  // or "stripe"
  bool packed = false;
  // "fast" (single-pass k-quant scales, default: quantizing keeps up with
  // the disk) or "ggml" (ggml's reference search, byte-identical to
  // llama.cpp's quantizer, 20-70x slower for the k-quants). Identical bytes
  // for formats whose ggml quantizer is single-pass.
  std::string quantizer = "fast";
};

// File name of drive `drive`'s part (the same for every drive in replicate).
std::string container_file_name(const ContainerSpec& spec, int drive);

struct ContainerFile {
  std::string path;
  std::uint64_t bytes = 0;
  int drive = 0;
  bool reused = false;      // an identical, verified-at-open file was already there
  std::string hard_link_of;  // replicate: drive 0's file this one is a hard link to (one filesystem)
  double write_s = 0;
};

Expected<std::vector<ContainerFile>> make_container(const ContainerSpec& spec, Progress& progress);

struct VerifyReport {
  std::uint64_t bytes_verified = 0;
  int tensors = 0;
  int expert_records = 0;
  std::vector<std::string> mismatches;  // "tensor blk.1.ffn_down_exps.weight", "expert 7 of layer 1"
  bool ok() const { return mismatches.empty(); }
};

struct GgufFile;

// The checksum tables of a container's header: moebench.checksums (tensor
// name → 16 hex digits) and moebench.expert_checksums (layer → one per held
// expert). An error names the key and entry of the wrong type or shape.
struct ContainerChecksums {
  std::map<std::string, std::string> tensors;
  std::map<int, std::vector<std::string>> records;
};
Expected<ContainerChecksums> read_container_checksums(const GgufFile& file);

// Recomputes every checksum of one container file.
Expected<VerifyReport> verify_container(const std::string& path, Progress& progress);

}  // namespace moebench
