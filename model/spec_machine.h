// spec_machine.h — a MachineProfile built from a MachineSpec (a few buyer
// facts, vocab/machine_spec.h) and the cited spec tables (spec_tables.h).
//
// What is derived, each Figure's `source` naming its rows:
//   cores          CPU row cores × sockets;
//   memory peak    unified SoCs: the row's bandwidth; otherwise channels ×
//                  MT/s × the memory kind's bus bits ÷ 8 — channels and MT/s
//                  as the spec states them, else every channel of every
//                  socket at the CPU's rated speed (an assumption, stated,
//                  with the range down to 3/4 of it: fewer DIMMs or slower
//                  ones are common); with the DIMMs stated, × the share an
//                  unequal population leaves (the busiest channel holds
//                  ceil(n/c) of a socket's n DIMMs: n ÷ (c × ceil(n/c)));
//   FLOP/s         cores × all-core clock (else midway between base and
//                  boost, else base) × FMA pipes × lanes ×
//                  2; int8 with a dot-product ISA at 4 MACs per 32-bit lane;
//                  the integrated GPU's FP16 peak for unified SoCs;
//   usable memory  the OS row (Linux: total less a reserve; macOS: the GPU
//                  wired limit's fraction as the low end);
//   GPUs           one model per machine: memory, bandwidth, BF16 dense peak,
//                  host link (one direction), NVLink peer rate;
//   drives         sequential read, 4 KiB QD1 and QD32 random reads as a
//                  read curve, capped by an enclosure; or a measured rate.
// Nothing here is fitted: efficiencies belong to the model (regimes), not to
// the machine.
#pragma once

#include "vocab/spec_tables.h"
#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/machine_spec.h"

namespace moebench {

Expected<MachineProfile> build_machine(const MachineSpec& spec, const SpecTables& tables);

}  // namespace moebench

namespace moebench {

// A machine file as found in the store ("hardware" kind, or a path): a
// MachineProfile, or a machine spec ({"machine_spec": {...}} or an object
// with "cpu" and no "memory_total") built through the store's spec tables.
Expected<MachineProfile> load_machine_source(const ConfigStore& store, const ConfigSource& src);

// A machine as a command names it: a configs/hardware name or a file path
// (the store's "hardware" lookup), loaded by load_machine_source. `name` is
// the profile's own name, `source` where it came from (the file's path, or
// "embedded:configs/hardware/NAME.json"): two fields, never one label to
// parse back.
struct ResolvedMachine {
  MachineProfile profile;
  std::string name;
  std::string source;
  bool from_spec = false;  // built from a machine spec, not a profile file
  std::string label() const { return name + " (" + source + ")"; }
};
// `if_missing` is appended to the error when nothing has that name or path
// (what to do, e.g. "run `moebench probe` first").
Expected<ResolvedMachine> resolve_machine(const ConfigStore& store, const std::string& name_or_path,
                                          const std::string& if_missing = "");
// The same where a missing machine is no error (a list of candidates to
// try): nullopt when nothing has that name or path; an error when one does
// and does not load.
Expected<std::optional<ResolvedMachine>> find_machine(const ConfigStore& store, const std::string& name_or_path);

}  // namespace moebench

namespace moebench {

// Markdown: one row per figure the model reads (cores, memory, bandwidth,
// FLOP/s, GPUs, drives) with its value, provenance and source.
std::string write_machine_figures(const MachineProfile& m);

}  // namespace moebench
