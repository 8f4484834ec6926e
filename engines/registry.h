// registry.h — the explicit table of engines (in the spirit of fio's engine
// table): name, one-line summary, whether it reads drive directories, an
// option checker and a factory. Adding an engine = adding a row here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.h"
#include "harness/sweep_spec.h"

namespace moebench {

struct EngineInfo {
  std::string name;
  std::string summary;
  std::string options_help;  // "" when the engine takes no options
  bool uses_drives = false;
  std::function<std::string(const EngineSpec&)> check_options;  // "" = ok
  std::function<std::unique_ptr<Engine>(const EngineSpec&)> make;
};

const std::vector<EngineInfo>& engine_table();
const EngineInfo* find_engine(const std::string& name);

// Fills the engine part of a SweepContext.
void add_engines_to_context(SweepContext& ctx);

}  // namespace moebench
