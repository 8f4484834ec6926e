// registry.h — the explicit table of engines (in the spirit of fio's engine
// table): name, one-line summary, capability flags, the option table and a
// factory. Adding an engine = adding a row here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "engines/engine_options.h"
#include "vocab/sweep_spec.h"

namespace moebench {

// What an engine does, as flags the core asks (fio's FIO_DISKLESSIO style),
// never the engine's name.
struct EngineCaps {
  bool uses_drives = false;            // reads containers from drive directories: points need drive_dirs
  bool reads_drives_decoding = false;  // reads drives for every decoded token: an I/O throttle applies
  bool measures = true;                // false: its numbers are synthetic (a test double)
};

struct EngineInfo {
  std::string name;
  std::string summary;
  EngineCaps caps;
  const OptionTable& (*options)();  // declared as data; checked and read through it
  std::function<std::unique_ptr<Engine>(const EngineSpec&)> make;

  std::string check_options(const EngineSpec& spec) const { return check_engine_options(name, options(), spec); }
  std::string options_help() const { return engine_options_help(options()); }
};

const std::vector<EngineInfo>& engine_table();
const EngineInfo* find_engine(const std::string& name);

// Fills the engine part of a SweepContext.
void add_engines_to_context(SweepContext& ctx);

}  // namespace moebench
