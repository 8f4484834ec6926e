// cmd_machine.cpp — `moebench machine SPEC`: the machine a spec describes
// (a few buyer facts, vocab/machine_spec.h), built through the cited spec
// tables, printed figure by figure with each figure's source; --json prints
// the profile, which every --machine option also accepts as it is.
#include <cstdio>

#include "cli/commands.h"
#include "model/spec_machine.h"
#include "vocab/units.h"

namespace moebench {

namespace {

// A machine profile built from a spec (a file or the JSON text), printed as
// its figure table or as JSON.
Expected<int> machine_command(const std::string& spec, bool json, const CliState& state) {
  const ConfigStore store = state.store();
  std::optional<MachineProfile> m;
  if (!spec.empty() && spec.front() == '{') {
    auto built = load_machine_source(store, {"SPEC (command line)", spec, ""});
    if (!built) return built.error();
    m = std::move(*built);
  } else {
    auto found = resolve_machine(store, spec);
    if (!found) return found.error();
    m = std::move(found->profile);
  }
  const std::string out = json ? dump_untrusted(machine_profile_to_json(*m), 2) + "\n" : write_machine_figures(*m);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

void add_machine_command(CLI::App& app, CliState& state) {
  auto spec = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("machine", "Build a machine from its parts (CPU, memory, GPUs, drives, OS) and print its figures.");
  cmd->footer("SPEC is a file holding a machine spec, or the spec itself as JSON text. Only cpu is required (or gpus "
      "alone, for a GPU box whose host is not stated); every figure the model reads is derived from the cited rows of "
      "configs/specs/ and printed with its source, and every fact the spec leaves out is a stated assumption. The "
      "--machine options of predict and plan accept the same file.\n\n"
      "Example:\n"
      "  moebench machine '{\"cpu\": \"AMD EPYC 9654\", \"sockets\": 2, \"memory\": {\"kind\": \"DDR5\", \"mt_s\": 4800, "
      "\"size\": \"1536GB\"}, \"gpus\": [{\"model\": \"RTX 3090\"}], \"os\": \"linux\"}'\n"
      "  moebench machine my-box.json --json > configs/hardware/my-box.json");
  cmd->add_option("SPEC", *spec, "a machine spec file, or the JSON text itself")->required();
  cmd->add_flag("--json", *json, "print the built MachineProfile as JSON instead of the figure table");
  cmd->callback([spec, json, &state] { finish(state, "machine", machine_command(*spec, *json, state)); });
}

}  // namespace moebench
