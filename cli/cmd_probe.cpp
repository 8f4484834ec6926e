// cmd_probe.cpp — `moebench probe`: measure this machine, write its
// MachineProfile (the configs/hardware schema) and print a summary. The
// profile is re-read through the strict loader before it is written, so
// what lands on disk always validates.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/terminal_progress.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
#include "vocab/units.h"
#include "probes/machine_probe.h"

namespace moebench {

namespace {

struct ProbeArgs {
  std::vector<std::string> drives;
  bool quick = false;
  std::string out;
  std::string file_size = "4GiB";
  std::string name;
  bool no_fio = false;
  bool fio_search = false;
  int pairs = 0;
  std::string max_touch;
  bool quiet = false;
  bool kernels_only = false;
};

// The probe: options checked, the machine measured, the profile validated
// and written, its summary printed.
Expected<int> probe_command(const ProbeArgs& a, const CliState& state) {
  if (a.kernels_only) {
    QuietProgress quiet;
    auto table = run_kernel_table(a.quick, quiet);
    if (!table) return Error{table.error().message};
    std::fputs(table->c_str(), stdout);
    return kExitOk;
  }
  if (Status st = probe_allowed(); !st) return Error{st.error().message};
  auto size = parse_size_bytes(a.file_size);
  if (!size) return Error{"--file-size: " + size.error().message};
  ProbeOptions o;
  if (!a.max_touch.empty()) {
    auto cap = parse_size_bytes(a.max_touch);
    if (!cap) return Error{"--max-touch: " + cap.error().message};
    o.max_touch_bytes = *cap;
  }
  o.drive_dirs = a.drives;
  if (o.drive_dirs.empty()) {
    o.drive_dirs = {"/var/tmp/moebench"};
    std::error_code ec;
    std::filesystem::create_directories(o.drive_dirs[0], ec);
  }
  o.quick = a.quick;
  o.file_bytes = *size;
  o.use_fio = !a.no_fio;
  if (a.fio_search) o.fio_search = true;
  o.pairs = a.pairs;
  o.profile_name = a.name;
  const Environment env = capture_environment("", state.command_line);
  o.build_label = env.build_label();
  const ConfigStore store = state.store();
  for (const std::string& card_name : store.names("models")) {
    auto card = store.card(card_name);
    if (card) o.record_bytes.push_back(card->expert_bytes(card->expert_quant));
  }
  const std::string out = a.out.empty() ? "results/probe-" + env.hostname + ".json" : a.out;
  const std::string out_dir = std::filesystem::path(out).parent_path().string();
  if (!out_dir.empty()) {
    if (Status st = ensure_directory(out_dir); !st) return Error{st.error().message};
  }
  // A symlink or device as the profile path is refused now, not after the probe.
  if (Status st = check_output_path(out); !st) return Error{"--out: " + st.error().message};
  o.scratch_dir = std::filesystem::temp_directory_path().string();
  if (!env.build_warning().empty()) say("\n*** WARNING: {} ***\n", env.build_warning());
  say("moebench probe: {} probe of {} drive director{}, expected to take about {}",
      o.quick ? "quick" : "full", o.drive_dirs.size(), o.drive_dirs.size() == 1 ? "y" : "ies",
      format_duration_s(estimated_probe_seconds(o)));
  SteadyClock clock;
  StderrProgress shown(clock, a.quiet);
  Progress& progress = shown.get();
  progress.sweep_started(1, 0);
  progress.point_started(1, "probe");
  auto profile = run_probe(o, progress);
  progress.sweep_finished();
  if (!profile) return Error{profile.error().message};
  const std::string text = machine_profile_to_json(*profile).dump(2) + "\n";
  auto check = load_config_text<MachineProfile>(text, out, load_machine_profile);
  if (!check) return Error{"internal error, the profile does not validate:\n" + check.error().message};
  if (Status st = write_file_atomic(out, text); !st) return Error{st.error().message};
  std::fputs(profile_summary(*profile).c_str(), stdout);
  say("moebench probe: profile written to {}", out);
  return kExitOk;
}

}  // namespace

void add_probe_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand("probe", "Measure this machine (storage, memory, topology) and write its profile.");
  cmd->footer(
      "What can this machine really do? Reads each drive directory with O_DIRECT at the block sizes and queue "
      "depths an engine uses (built-in io_uring path and fio in interleaved pairs, each cell repeated), streams memory with 1..N pinned "
      "threads, finds how much memory a process can really hold (in a child process), and maps the topology "
      "with hwloc. Every figure is marked measured, with its method.\n\n"
      "Example:\n"
      "  moebench probe --quick --drive /mnt/nvme0/moebench --out m.json\n"
      "  moebench probe --drive /mnt/nvme0/mb --drive /mnt/nvme1/mb --file-size 8GiB\n"
      "  moebench validate m.json && moebench run --machine m.json");
  cmd->add_option("--drive", args->drives,
                  "directory on a drive to probe (repeatable; default /var/tmp/moebench); a test file is written there");
  cmd->add_flag("--quick", args->quick, "a documented subset of cells, about a minute");
  cmd->add_option("--out", args->out, "profile file to write (default results/probe-<host>.json)");
  cmd->add_option("--file-size", args->file_size, "test file size per drive (default 4GiB; reused when valid)");
  cmd->add_option("--name", args->name, "profile name (default probed-<host>)");
  cmd->add_flag("--no-fio", args->no_fio, "skip the fio cross-check");
  cmd->add_flag("--fio-search", args->fio_search,
                "with --quick too: judge each cell against fio's best job over io_uring (with and without registered "
                "buffers), libaio and psync, found by short runs before the pairs (the full probe always does; adds about "
                "4 s per cell)");
  cmd->add_option("--pairs", args->pairs,
                  "built-in/fio pairs per storage cell, order alternating (default 3 with --quick, 5 full); "
                  "each cell reports medians, ranges and the median per-pair ratio")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--max-touch", args->max_touch,
                  "cap the usable-memory probe at this size (on shared machines); the figure is then a range");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress line");
  cmd->add_flag("--kernels-only", args->kernels_only,
                "only the kernel phase: every format's float and integer-dot kernels at this CPU's SIMD level, "
                "printed as a table naming the kernels that ran (labelled when emulated); writes no profile");
  cmd->callback([args, &state] { finish(state, "probe", probe_command(*args, state)); });
}

}  // namespace moebench
