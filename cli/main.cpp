// main.cpp — the moebench command line: parses arguments with CLI11 and
// dispatches to the subcommands in cmd_*.cpp. Exit codes (commands.h): 0
// done, 1 the answer is no (a regression, a file that fails validation), 2
// bad input or a command that could not do its work, 3 inconclusive, 124 a
// point's engine ignored its timeout, 130 interrupted (results so far are
// saved; --resume continues).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "cli/commands.h"
#include "vocab/build_info.h"
#include "vocab/text.h"

namespace {

// A command line none of whose words is a subcommand, and the word that
// stands where one should (its first word that is not an option or
// --configs' value; --configs takes several): named with the closest
// subcommand and the list. False when some word is a subcommand, or there
// is no word at all (CLI11 then says what is missing).
bool unknown_command(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs) names.push_back(sub->get_name());
  std::string word;
  bool after_configs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    for (const CLI::App* sub : subs) {
      if (sub->check_name(a)) return false;
    }
    if (a == "--configs") {
      after_configs = true;
      continue;
    }
    if (!a.empty() && a[0] == '-') {
      after_configs = false;
      continue;
    }
    if (word.empty() && !after_configs) word = a;
    after_configs = false;  // --configs DIR: one value is its own; a second word is the command
  }
  if (word.empty()) return false;
  moebench::say("moebench: \"{}\" is not a command{}\ncommands: {}\n(moebench --help says what each does)",
             word, moebench::did_you_mean(word, names), moebench::join(names, ", "));
  return true;
}

// A standard descriptor the caller closed (`moebench run … >&-`) would be
// the number the next open() returns — a journal or a results file — and
// every later print would land inside it. /dev/null takes the place first.
void fill_closed_std_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) {
      dup2(got, fd);
      close(got);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  fill_closed_std_fds();
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
  app.set_version_flag("--version", fmt::format("moebench {} (commit {}, {}, {} build)", moebench::build_info::kVersion,
                                                moebench::build_info::kGitCommit, moebench::build_info::kCompiler,
                                                moebench::build_info::kBuildType));
  app.add_option("--configs", state.config_dirs,
                 "extra config directory searched before ./configs and the embedded configs "
                 "(holds models/, hardware/, sweeps/, claims/)")
      ->check(CLI::ExistingDirectory);
  moebench::add_run_command(app, state);
  moebench::add_predict_command(app, state);
  moebench::add_merge_command(app, state);
  moebench::add_calibrate_command(app, state);
  moebench::add_claims_command(app, state);
  moebench::add_validate_model_command(app, state);
  moebench::add_plan_command(app, state);
  moebench::add_compare_command(app, state);
  moebench::add_compare_builds_command(app, state);
  moebench::add_history_command(app, state);
  moebench::add_report_command(app, state);
  moebench::add_probe_command(app, state);
  moebench::add_card_command(app, state);
  moebench::add_machine_command(app, state);
  moebench::add_container_command(app, state);
  moebench::add_bench_command(app, state);
  moebench::add_reproduce_command(app, state);
  moebench::add_export_command(app, state);
  moebench::add_bench_peer_command(app, state);
  moebench::add_validate_command(app, state);
  moebench::add_schema_command(app, state);
  moebench::add_manual_commands(app, state);
  const bool asks_version_or_help = [&] {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--version" || a == "--help" || a == "-h") return true;
    }
    return false;
  }();
  if (!asks_version_or_help && unknown_command(app, argc, argv)) return moebench::kExitBadInput;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed command line is bad input,
    // 2 like any other (CLI11's own codes, 105-109, are not documented).
    const int code = app.exit(e);
    return code == 0 ? moebench::kExitOk : moebench::kExitBadInput;
  } catch (const std::exception& e) {
    // Every expected failure is an error value with its own message; this is
    // the last guard, so that a defect still ends in words and exit 2.
    // fwrite, not fmt::print: the last guard must not throw (fmt::print does
    // when the write fails, e.g. on a closed stdout/stderr).
    const std::string msg =
        fmt::format("moebench: internal error: {} (a defect: please report it with the command line)\n", e.what());
    std::fwrite(msg.data(), 1, msg.size(), stderr);
    return moebench::kExitBadInput;
  }
  return state.exit_code;
}
