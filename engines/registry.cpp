// registry.cpp — see registry.h.
#include "engines/registry.h"

#include "engines/null/null_engine.h"
#include "engines/resident/resident_engine.h"
#include "engines/streaming/streaming_engine.h"

namespace moebench {

const std::vector<EngineInfo>& engine_table() {
  static const std::vector<EngineInfo> kTable = {
      {"null",
       "deterministic test double: synthetic numbers from a fixed formula, no hardware touched",
       EngineCaps{false, true, false}, null_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_null_engine(spec); }},
      {"resident",
       "every weight in RAM: loads the point's container once per set-up, then runs the real model (attention, "
       "router, shared and routed experts through the quant kernels) over it",
       EngineCaps{true, false, true}, resident_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_resident_engine(spec); }},
      {"streaming",
       "trunk in RAM, routed experts read on demand with O_DIRECT (io_uring, registered buffers) from the drive "
       "set into an expert cache sized by the RAM budget; real compute as the resident engine",
       EngineCaps{true, true, true}, streaming_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_streaming_engine(spec); }},
  };
  return kTable;
}

const EngineInfo* find_engine(const std::string& name) {
  for (const EngineInfo& e : engine_table()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void add_engines_to_context(SweepContext& ctx) {
  ctx.engine_names.clear();
  for (const EngineInfo& e : engine_table()) ctx.engine_names.push_back(e.name);
  ctx.check_engine_options = [](const EngineSpec& spec) -> std::string {
    const EngineInfo* e = find_engine(spec.name);
    return e == nullptr ? "unknown engine \"" + spec.name + "\"" : e->check_options(spec);
  };
  ctx.engine_uses_drives = [](const std::string& name) {
    const EngineInfo* e = find_engine(name);
    return e != nullptr && e->caps.uses_drives;
  };
}

}  // namespace moebench
