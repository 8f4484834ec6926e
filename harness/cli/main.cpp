// main.cpp — the moebench command line: parses arguments with CLI11 and
// dispatches to the subcommands in cmd_*.cpp. Exit codes: 0 success, 1 bad
// input or a failed command, 124 a point's engine ignored its timeout,
// 130 interrupted (results so far are saved; --resume continues).
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engines/registry.h"
#include "harness/cli/commands.h"

namespace moebench {

ConfigStore CliState::store() const {
  std::vector<std::string> dirs = config_dirs;
  std::error_code ec;
  if (std::filesystem::is_directory("configs", ec)) dirs.push_back("configs");
  return ConfigStore(dirs);
}

SweepContext CliState::sweep_context(const ConfigStore& store) const {
  SweepContext ctx;
  add_engines_to_context(ctx);
  ctx.card_names = store.names("models");
  ctx.find_card = [store](const std::string& name) { return store.card(name); };
  return ctx;
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);  // locale-independent, like units.cpp
        if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
          return "expected a number > 0, got \"" + text + "\"";
        }
        return {};
      },
      "NUMBER>0", "positive_number");
}

}  // namespace moebench

int main(int argc, char** argv) {
  std::setlocale(LC_ALL, "");
  std::setlocale(LC_NUMERIC, "C");  // numbers in every output use '.' decimals
  moebench::CliState state;
  for (int i = 0; i < argc; ++i) state.command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{
      "moebench — benchmark and characterize giant Mixture-of-Experts inference, resident in RAM "
      "or streaming experts from NVMe, and report every number with its conditions.\n\n"
      "Start with:  moebench run            (the embedded quick sweep)\n"
      "             moebench schema         (what each results column means)\n"
      "             moebench validate FILE  (check a config before a long run)"};
  app.require_subcommand(1);
  app.add_option("--configs", state.config_dirs,
                 "extra config directory searched before ./configs and the embedded configs "
                 "(holds models/, hardware/, sweeps/, claims/)")
      ->check(CLI::ExistingDirectory);
  moebench::add_run_command(app, state);
  moebench::add_predict_command(app, state);
  moebench::add_calibrate_command(app, state);
  moebench::add_claims_command(app, state);
  moebench::add_plan_command(app, state);
  moebench::add_compare_command(app, state);
  moebench::add_history_command(app, state);
  moebench::add_report_command(app, state);
  moebench::add_probe_command(app, state);
  moebench::add_card_command(app, state);
  moebench::add_container_command(app, state);
  moebench::add_bench_command(app, state);
  moebench::add_validate_command(app, state);
  moebench::add_schema_command(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed command line exits 1 like
    // any other bad input (CLI11's own codes, 105-109, are not documented).
    return app.exit(e) == 0 ? 0 : 1;
  }
  return state.exit_code;
}
