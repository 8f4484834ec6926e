// registry.h — the explicit table of engines (in the spirit of fio's engine
// table): name, one-line summary, capability flags, the option table and a
// factory. Adding an engine = adding a row here. The engines here measure;
// the predicting row (caps.predicts: the analytic engine, made with the
// machine it predicts through EngineContext) lives with the model it adapts,
// in model/analytic_engine.h, one layer up, and sweeps cannot name it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "engines/engine_options.h"
#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/sweep_spec.h"

namespace moebench {

// What an engine does, as flags the core asks (fio's FIO_DISKLESSIO style),
// never the engine's name.
struct EngineCaps {
  bool uses_drives = false;            // reads containers from drive directories: points need drive_dirs
  bool reads_drives_decoding = false;  // reads drives for every decoded token: an I/O throttle applies
  bool measures = true;                // false: its numbers are synthetic (a test double) or predicted
  bool predicts = false;               // models a profiled machine instead of running the point (made with
                                       // EngineContext::machine); not an engine a sweep names
  bool rows8_containers = false;       // computes on experts as stored in the container: unless its `kernels`
                                       // option is "float", its containers hold them in the 8-row layout
};

// What a factory may need beyond the point's engine spec.
struct EngineContext {
  const MachineProfile* machine = nullptr;  // caps.predicts: the machine whose engines it predicts
};

struct EngineInfo {
  std::string name;
  std::string summary;
  EngineCaps caps;
  const OptionTable& (*options)();  // declared as data; checked and read through it
  std::function<std::unique_ptr<Engine>(const EngineSpec&)> make;  // engines that need only their spec
  // caps.predicts engines: made for a machine (the second factory form; `make` is empty).
  std::function<std::unique_ptr<Engine>(const EngineSpec&, const MachineProfile&)> make_for_machine = nullptr;

  // Either factory, as the row declares; an error when the context lacks what it needs.
  Expected<std::unique_ptr<Engine>> create(const EngineSpec& spec, const EngineContext& ctx = {}) const;

  std::string check_options(const EngineSpec& spec) const { return check_engine_options(name, options(), spec); }
  std::string options_help() const { return engine_options_help(options()); }
};

const std::vector<EngineInfo>& engine_table();
const EngineInfo* find_engine(const std::string& name);
// A flag option of a point's engine, read through the engine's option table
// (its default when the spec does not set it); `undeclared` when the engine
// is unknown or does not declare the option.
bool engine_flag(const EngineSpec& spec, std::string_view option, bool undeclared);
// Whether the point's container holds its experts in the 8-row layout of
// kernels_q8.h: an engine with caps.rows8_containers, kernels not "float",
// and a quant that has the layout (q4_0, q8_0, mxfp4, q4_k).
bool wants_rows8_experts(const EngineSpec& spec, const std::string& quant);

// Fills the engine part of a SweepContext: the engines a sweep may name
// (every row but the predicting one).
void add_engines_to_context(SweepContext& ctx);

}  // namespace moebench
