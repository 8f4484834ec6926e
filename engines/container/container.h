// container.h — moebench containers: GGUF v3 files holding a (scaled) model
// card's weights, synthetic but real (seeded values through the real
// quantizers), laid out so an engine can read every expert with O_DIRECT.
//
// A container is two kinds of file. The trunk file holds every tensor that
// is not a routed expert (embedding and lm_head, attention, norms, routers,
// shared experts) in card.trunk_quant; its bytes depend on the card, scale,
// trunk quant, seed and quantizer only, so every quant of one card, scale and
// seed shares it: `<card>.<scale>.trunk-<trunk_quant>.s<seed>.gguf`, on drive
// 0 only. The expert files (one per drive) hold the routed experts in the
// quant under test and name the trunk file they pair with (its file name,
// identity and the XXH64 of its checksum table).
//
// Layout: general.alignment 4096; llama.cpp tensor names; routed experts as
// blk.N.ffn_{gate,up,down}_exps.weight with the expert as the slowest
// dimension (one expert's slice of a tensor is one contiguous range), or,
// with `packed`, blk.N.ffn_exps_packed.weight (type I8, [record, experts])
// holding each expert's gate‖up‖down as one aligned record: one read per
// expert. Drive layouts: `replicate` (every drive holds a full copy of the
// experts) and `stripe` (expert e lives on drive e mod D). The trunk is on
// drive 0 in both: the engines read it from there only.
//
// moebench.* metadata: moebench.part ("trunk" or "experts"), the card,
// scale, quant, seed, layout, drive index and count, the experts held, and an
// XXH64 per tensor (expert tensors: over their per-expert slice hashes,
// padding excluded) and per expert record (over its gate, up and down slice
// hashes). Files are written under a temporary name, fsynced, then renamed:
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
  // Experts in the 8-row interleaved layout of kernels_q8.h (q4_0, q8_0,
  // mxfp4 matrices whose rows are a multiple of 8): what an engine reading
  // experts into RAM as stored wants for its integer kernels. The same
  // values and byte counts; `.rows8` in the file name, moebench.expert_rows
  // "rows8" in the metadata, and the checksums over the stored bytes.
  bool rows8 = false;
  // "fast" (single-pass k-quant scales, default: quantizing keeps up with
  // the disk) or "ggml" (ggml's reference search, byte-identical to
  // llama.cpp's quantizer, 20-70x slower for the k-quants). Identical bytes
  // for formats whose ggml quantizer is single-pass.
  std::string quantizer = "fast";
};

enum class ContainerPart { kTrunk, kExperts };
const char* to_string(ContainerPart part);  // "trunk", "experts"

// File name of drive `drive`'s expert file (the same for every drive in
// replicate), and of the trunk file (drive 0 only; no routed-expert quant in
// its name: every quant of the card, scale and seed shares it).
std::string container_file_name(const ContainerSpec& spec, int drive);
std::string trunk_file_name(const ContainerSpec& spec);
// Their paths in the spec's drive directories (the trunk's in drive 0's).
std::string expert_file_path(const ContainerSpec& spec, int drive);
std::string trunk_file_path(const ContainerSpec& spec);

// The trunk file's identity (moebench.identity), which every expert file
// records as moebench.trunk_identity: card, scale, trunk quant, seed,
// quantizer and the XXH64 of the planned trunk tensor table.
std::string trunk_identity(const ContainerSpec& spec);

struct ContainerFile {
  std::string path;
  std::uint64_t bytes = 0;
  int drive = 0;
  ContainerPart part = ContainerPart::kExperts;
  bool reused = false;      // an identical, verified-at-open file was already there
  std::string hard_link_of;  // replicate: drive 0's file this one is a hard link to (one filesystem)
  double write_s = 0;
};

// What make_container made or reused: the trunk file (drive 0) and one
// expert file per drive directory.
struct ContainerFiles {
  ContainerFile trunk;
  std::vector<ContainerFile> experts;
};

Expected<ContainerFiles> make_container(const ContainerSpec& spec, Progress& progress);

// Exact sizes of the files make_container writes (header included), from
// the plan: nothing is read or written.
Expected<std::uint64_t> planned_trunk_file_bytes(const ContainerSpec& spec);
Expected<std::uint64_t> planned_expert_file_bytes(const ContainerSpec& spec, int drive);

// Whether `path` already holds the named part, identical to what
// make_container would write (size, identity, tensor table; for an expert
// file also the trunk it pairs with): make_container would reuse it.
bool container_part_present(const std::string& path, const ContainerSpec& spec, ContainerPart part, int drive);

// The disk a set of containers needs (a sweep's, before it writes
// anything): every distinct file once, a trunk file shared by several quants
// once, a replica on the filesystem of drive 0's file as a hard link (no
// bytes). Per filesystem: the bytes still to write (files not already
// present and identical) against its free space.
struct DiskNeed {
  struct Filesystem {
    std::string dir;                 // the first drive directory on it
    std::uint64_t total_bytes = 0;   // what the containers occupy there
    std::uint64_t to_write_bytes = 0;
    std::uint64_t free_bytes = 0;
  };
  std::uint64_t total_bytes = 0;     // all filesystems, each byte once
  std::uint64_t to_write_bytes = 0;
  std::uint64_t trunk_bytes = 0;     // of total: trunk files
  std::uint64_t expert_bytes = 0;    // of total: expert files (hard links excluded)
  int trunk_files = 0, expert_files = 0, hard_links = 0;
  std::vector<Filesystem> filesystems;
  std::string summary() const;       // one line for the run's notes
  // An error naming the first filesystem where to_write + headroom exceeds
  // free space, with the need and what to do; success when all fit.
  Status check_fits() const;
};
inline constexpr std::uint64_t kContainerHeadroomBytes = 256ull << 20;  // kept free beyond a container
Expected<DiskNeed> container_disk_need(const std::vector<ContainerSpec>& specs);

struct VerifyReport {
  std::uint64_t bytes_verified = 0;
  int tensors = 0;
  int expert_records = 0;
  std::vector<std::string> mismatches;  // "tensor blk.1.ffn_down_exps.weight", "expert 7 of layer 1"
  std::vector<std::string> notes;       // the part, and the trunk an expert file pairs with
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

// Recomputes every checksum of one container file (a trunk or an expert
// file). An expert file whose trunk file lies beside it (one drive
// directory) also has its pairing checked: the trunk's identity and
// checksum table are the ones it records (a mismatch otherwise; a note when
// the trunk is not there to check).
Expected<VerifyReport> verify_container(const std::string& path, Progress& progress);

}  // namespace moebench
