// cmd_validate.cpp — `moebench validate FILE...`: checks config files
// against their schemas and prints every problem with file and JSON path.
// Exit code 1 if any file has a problem.
#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/claim_review.h"
#include "vocab/claim.h"
#include "vocab/validate.h"

namespace moebench {

void add_validate_command(CLI::App& app, CliState& state) {
  struct Args {
    std::vector<std::string> files;
    std::string kind;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("validate", "Check config files against their schemas; report every problem with file and JSON path.");
  cmd->footer("Check config files (model cards, machine profiles, sweeps, claims) against their schemas. "
      "Every problem is reported with the file, the JSON path and what to do; sweeps are also "
      "expanded, so their point count is shown.\n\n"
      "Example:\n"
      "  moebench validate configs/sweeps/quick.json configs/models/*.json\n"
      "  moebench validate --kind sweep my-sweep.json");
  cmd->add_option("files", args->files, "config files")->required();
  cmd->add_option("--kind", args->kind,
                  "model | machine | machine-spec | sweep | claims | efficiency | specs | regime-fit | scale-fit (default: from the directory, then the keys)")
      ->check(CLI::IsMember({"model", "machine", "machine-spec", "sweep", "claims", "efficiency", "specs", "regime-fit", "scale-fit"}));
  cmd->callback([args, &state] {
    const ConfigStore store = state.store();
    const SweepContext ctx = state.sweep_context(store);
    int bad = 0;
    for (const std::string& f : args->files) {
      std::optional<ConfigKind> kind;
      if (!args->kind.empty()) kind = parse_config_kind(args->kind);
      auto r = validate_config_file(f, kind, ctx);
      // A claims file is also checked against the store: a card or hardware
      // name that resolves to nothing would stop `claims` later.
      if (r && r->rfind("claims file", 0) == 0) {
        auto claims = load_claims_file(f);
        if (claims) {
          std::optional<SpecTables> specs;
          for (const Claim& c : *claims) {
            auto setup = resolve_claim_setup(store, c, f, &specs);
            if (!setup) {
              r = setup.error();
              break;
            }
            // A machine_spec the tables cannot build leaves the claim
            // without a machine: say which part, here rather than later.
            if (!setup->machine_error.empty()) {
              r = make_error(f + ": claim " + c.id + ": " + setup->machine_error);
              break;
            }
          }
        }
      }
      if (r) {
        fmt::print("ok: {} — {}\n", f, *r);
      } else {
        ++bad;
        fmt::print("{}\n", r.error().message);
      }
    }
    if (args->files.size() > 1) {
      fmt::print("{} file(s) checked, {} with problems\n", args->files.size(), bad);
    }
    state.exit_code = bad == 0 ? kExitOk : kExitNo;
  });
}

}  // namespace moebench
