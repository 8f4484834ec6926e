// machine_spec.h — MachineSpec: a machine as a buyer describes it, in the
// few facts on an order form: the CPU model and sockets; memory kind,
// channels, transfer rate and size; GPU models and counts; drives by model
// or by a measured read rate; the OS. model/spec_machine.h turns one into a
// MachineProfile through the cited spec tables (configs/specs/), every
// derived figure naming its spec row, and every fact the spec leaves out
// filled by a stated assumption.
//
// It is read from a `machine_spec` object (inside a claim or a published
// figure, or a file of its own passed where a profile is accepted):
//   {"cpu": "AMD EPYC 9654", "sockets": 2,
//    "memory": {"kind": "DDR5", "mt_s": 4800, "channels": 24, "size": "1536GB"},
//    "gpus": [{"model": "RTX 3090", "count": 2}],
//    "drives": [{"model": "Samsung 990 PRO", "count": 1}, {"read_gb_s": 6.5}],
//    "os": "linux"}
// `channels` counts the whole machine (all sockets), and so does `dimms`
// (optional: with it, a population that leaves channels unequal costs the
// bandwidth it costs, model/spec_machine.cpp). Only `cpu` is
// required (or `gpus` alone, for a GPU box whose host the source does not
// state: then only what the GPUs hold is judged); a memory without `size` is an assumption the built machine
// states (enough for the run: paging is not judged).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/json_reader.h"

namespace moebench {

struct MachineSpecMemory {
  std::optional<std::string> kind;     // "DDR5", "LPDDR5X", ...
  std::optional<int> mt_s;             // transfers per second, millions
  std::optional<int> channels;         // 64-bit channels in the whole machine
  std::optional<int> dimms;            // DIMMs in the whole machine (how the channels are populated)
  std::uint64_t size_bytes = 0;        // as written ("1536GB" decimal, "512GiB" binary); 0: not stated
  std::string size_text;               // the size as written, for messages
};

struct MachineSpecPart {
  std::string model;  // as the buyer names it; matched against the table's names and aliases
  int count = 1;
};

struct MachineSpecDrive {
  std::optional<std::string> model;          // a drives.json row
  std::optional<double> read_bytes_s;        // or a measured sequential read rate ("read_gb_s", GB/s decimal)
  std::optional<std::string> enclosure;      // an enclosures.json row the drive sits in (caps its rate)
  // The source names the drive but no rate for it is known (no cited row, no
  // measurement): it is left out of the built machine, which says so, and a
  // case that must read from it is not judged. A resident run does not need it.
  bool unrated = false;
  int count = 1;
};

struct MachineSpec {
  std::string cpu;
  int sockets = 1;
  MachineSpecMemory memory;
  std::vector<MachineSpecPart> gpus;
  std::vector<MachineSpecDrive> drives;
  std::optional<std::string> os;  // linux | macos | windows | android
};

// Strict: unknown keys, neither cpu nor gpus, a bad size, counts out of
// range are errors at their JSON Pointer.
std::optional<MachineSpec> load_machine_spec(const Json& j, const std::string& path, Diagnostics& d);
// Whether a document is a machine spec rather than a MachineProfile:
// {"machine_spec": …}, or a cpu or gpus without the profile's memory_total.
bool is_machine_spec_document(const Json& j);
// The file form: {"machine_spec": {...}} or the object itself.
std::optional<MachineSpec> load_machine_spec_document(const Json& j, Diagnostics& d);

// One line: "2 × AMD EPYC 9654, DDR5-4800 × 24, 1536GB, 2 × RTX 3090, linux".
std::string describe_machine_spec(const MachineSpec& s);
nlohmann::ordered_json machine_spec_to_json(const MachineSpec& s);

}  // namespace moebench
