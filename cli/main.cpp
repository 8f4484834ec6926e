// main.cpp — the moebench command line: parses arguments with CLI11 and
// dispatches to the subcommands in cmd_*.cpp. Exit codes: 0 success, 1 bad
// input or a failed command, 124 a point's engine ignored its timeout,
// 130 interrupted (results so far are saved; --resume continues).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "cli/commands.h"

namespace {

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed command line exits 1 like
    // any other bad input (CLI11's own codes, 105-109, are not documented).
    // compare-builds keeps 1 for "regressed": its bad input exits 2.
    const int code = app.exit(e);
    if (code == 0) return 0;
    for (const CLI::App* sub : app.get_subcommands()) {
      if (sub->get_name() == "compare-builds") return 2;
    }
    return 1;
  } catch (const std::exception& e) {
    // Every expected failure is an error value with its own message; this is
    // the last guard, so that a defect still ends in words and exit 1.
    // fwrite, not fmt::print: the last guard must not throw (fmt::print does
    // when the write fails, e.g. on a closed stdout/stderr).
    const std::string msg =
        fmt::format("moebench: internal error: {} (a defect: please report it with the command line)\n", e.what());
    std::fwrite(msg.data(), 1, msg.size(), stderr);
    return 1;
  }
  return state.exit_code;
}
