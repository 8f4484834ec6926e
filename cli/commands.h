// commands.h — the subcommands of the moebench CLI. Each file cmd_*.cpp adds
// one subcommand with its options, help text and a worked example; the
// callback hands its outcome to finish(), which stores the exit code in
// CliState (CLI11 callbacks return void) and prints an error once.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "vocab/config_store.h"
#include "vocab/sweep_spec.h"

namespace moebench {

// Exit codes: one meaning each, whatever the command (README "Exit codes").
inline constexpr int kExitOk = 0;
// The command's answer is "no": a regression (compare, compare-builds), a new
// file missing metrics the base measured, a config that fails validation, a
// container whose bytes do not match its index.
inline constexpr int kExitNo = 1;
// Nothing was judged: bad input (a command line, a file, a config), or the
// command could not do its work; the message names which.
inline constexpr int kExitBadInput = 2;
// A judgement that rests on repetitions other work disturbed: run it again.
inline constexpr int kExitInconclusive = 3;

struct CliState {
  std::vector<std::string> config_dirs;  // --configs, then ./configs
  int exit_code = 0;
  std::string command_line;

  ConfigStore store() const;
  // A card by name with --scale applied: the card as stored, the scale and
  // the scaled card; errors name --scale when the scale is at fault.
  struct ScaledCard {
    ModelCard card;
    Scale scale;
    ModelCard scaled;
  };
  Expected<ScaledCard> scaled_card(const std::string& name, const std::string& scale_text) const;
  SweepContext sweep_context(const ConfigStore& store) const;
};

// The one printer of the command line's stderr (printer.cpp): a status
// line, and a command's outcome. Commands return Expected<int>: an exit code,
// or an error that finish() prints once as "moebench COMMAND: error: MESSAGE"
// and turns into kExitBadInput.
void say(const std::string& line);
template <typename... T>
void say(fmt::format_string<T...> format, T&&... args) {
  say(fmt::format(format, std::forward<T>(args)...));
}
void finish(CliState& state, const std::string& command, const Expected<int>& outcome);
// A command's error with its message as written (multi-line kept: finish()
// prints it); say_error() prints one in finish()'s format for a command that
// goes on (one bad file among several).
Error fail(std::string message);
void say_error(const std::string& command, const std::string& message);

// Where `moebench probe` writes this machine's profile by default:
// results/probe-<host>.json.
std::string default_probe_path();

// A CLI11 check for options that take a number > 0, with a message that
// names what was given (CLI::PositiveNumber prints DBL_MAX as the range).
CLI::Validator positive_number();

void add_run_command(CLI::App& app, CliState& state);
void add_merge_command(CLI::App& app, CliState& state);
void add_predict_command(CLI::App& app, CliState& state);
void add_calibrate_command(CLI::App& app, CliState& state);
void add_claims_command(CLI::App& app, CliState& state);
void add_validate_model_command(CLI::App& app, CliState& state);
void add_plan_command(CLI::App& app, CliState& state);
void add_compare_command(CLI::App& app, CliState& state);
void add_compare_builds_command(CLI::App& app, CliState& state);
void add_history_command(CLI::App& app, CliState& state);
void add_report_command(CLI::App& app, CliState& state);
void add_validate_command(CLI::App& app, CliState& state);
void add_schema_command(CLI::App& app, CliState& state);
void add_probe_command(CLI::App& app, CliState& state);
void add_card_command(CLI::App& app, CliState& state);
void add_container_command(CLI::App& app, CliState& state);
void add_bench_command(CLI::App& app, CliState& state);
void add_reproduce_command(CLI::App& app, CliState& state);
void add_export_command(CLI::App& app, CliState& state);
void add_bench_peer_command(CLI::App& app, CliState& state);
void add_machine_command(CLI::App& app, CliState& state);
// `man` and `completion`: generated from `app` itself, so add them last.
void add_manual_commands(CLI::App& app, CliState& state);

}  // namespace moebench
