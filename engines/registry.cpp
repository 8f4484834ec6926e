// registry.cpp — see registry.h.
#include "engines/registry.h"

#include <algorithm>

#include "engines/llamacpp/llama_bench_engine.h"
#include "engines/null/null_engine.h"
#include "engines/quant/kernels_q8.h"
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
       EngineCaps{true, false, true, false, true}, resident_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_resident_engine(spec); }},
      {"streaming",
       "trunk in RAM, routed experts read on demand with O_DIRECT (io_uring, registered buffers) from the drive "
       "set into an expert cache sized by the RAM budget; real compute as the resident engine",
       EngineCaps{true, true, true, false, true}, streaming_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_streaming_engine(spec); }},
      {"llama-bench",
       "llama.cpp as the peer: the point's container exported as a GGUF llama.cpp loads, llama-bench run on it with "
       "the point's threads, prompt, generation, context depth (-d) and RAM budget (memory cgroup), its JSON turned "
       "into the row; option path= names the llama-bench binary",
       EngineCaps{true, false, true}, llama_bench_engine_options,
       [](const EngineSpec& spec) -> std::unique_ptr<Engine> { return make_llama_bench_engine(spec); }},
  };
  return kTable;
}

const EngineInfo* find_engine(const std::string& name) {
  for (const EngineInfo& e : engine_table()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

bool engine_flag(const EngineSpec& spec, std::string_view option, bool undeclared) {
  const EngineInfo* e = find_engine(spec.name);
  if (e == nullptr) return undeclared;
  const OptionTable& table = e->options();
  const bool declared = std::any_of(table.begin(), table.end(), [option](const EngineOption& o) {
    return o.name == option && o.kind == OptionKind::kFlag;
  });
  return declared ? EngineOptions(table, spec).flag(option) : undeclared;
}

bool wants_rows8_experts(const EngineSpec& spec, const std::string& quant) {
  const EngineInfo* e = find_engine(spec.name);
  if (e == nullptr || !e->caps.rows8_containers || !has_rows8_layout(quant, kRows8, 256)) return false;
  const OptionTable& table = e->options();
  const bool declared = std::any_of(table.begin(), table.end(), [](const EngineOption& o) { return o.name == "kernels"; });
  return !declared || EngineOptions(table, spec).text("kernels") != "float";
}

Expected<std::unique_ptr<Engine>> EngineInfo::create(const EngineSpec& spec, const EngineContext& ctx) const {
  if (make_for_machine) {
    if (ctx.machine == nullptr) return make_error("the " + name + " engine needs a machine profile");
    return make_for_machine(spec, *ctx.machine);
  }
  return make(spec);
}

namespace {
// An engine a sweep may name: every row but the predicting one.
const EngineInfo* sweep_engine(const std::string& name) {
  const EngineInfo* e = find_engine(name);
  return e != nullptr && !e->caps.predicts ? e : nullptr;
}
}  // namespace

void add_engines_to_context(SweepContext& ctx) {
  ctx.engine_names.clear();
  for (const EngineInfo& e : engine_table()) {
    if (!e.caps.predicts) ctx.engine_names.push_back(e.name);
  }
  ctx.check_engine_options = [](const EngineSpec& spec) -> std::string {
    const EngineInfo* e = sweep_engine(spec.name);
    return e == nullptr ? "unknown engine \"" + spec.name + "\"" : e->check_options(spec);
  };
  ctx.engine_uses_drives = [](const std::string& name) {
    const EngineInfo* e = sweep_engine(name);
    return e != nullptr && e->caps.uses_drives;
  };
}

}  // namespace moebench
