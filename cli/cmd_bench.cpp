// cmd_bench.cpp — `moebench bench-engines`: the engines' five speed
// benchmarks (harness/engine_bench.h says what each measures), each side by
// side with its reference in one run. Options → run_engine_benchmarks → the
// table on stdout (and the JSON record with --out); exits 1 only when a
// benchmark could not be measured.
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/engine_bench.h"
#include "harness/terminal_progress.h"
#include "vocab/clock.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/progress.h"
#include "engines/quant/kernels.h"

namespace moebench {
namespace {

struct BenchArgs {
  std::vector<std::string> drive_dirs = {"moebench-drives/d0", "moebench-drives/d1", "moebench-drives/d2",
                                         "moebench-drives/d3"};
  std::string model = "kimi-k3";
  std::string scale = "layers=2,experts=64";
  std::string quant = "mxfp4";
  std::string overlap_scale = "layers=6,experts=32";
  int tokens = 9;
  int reps = 3;
  bool skip_scaling = false;
  std::string out;
  std::string scale_fit;  // --write-scale-fit: line 6 appended to this fit
};

// The options as the library's typed setup: the card and both scales
// resolved.
Expected<EngineBenchSetup> setup_of(const BenchArgs& a, const CliState& state) {
  auto card = state.store().card(a.model);
  if (!card) return card.error();
  auto scale = parse_scale(a.scale);
  if (!scale) return make_error("--scale: " + scale.error().message);
  auto scaled = apply_scale(*card, *scale);
  if (!scaled) return scaled.error();
  auto oscale = parse_scale(a.overlap_scale);
  if (!oscale) return make_error("--overlap-scale: " + oscale.error().message);
  auto oscaled = apply_scale(*card, *oscale);
  if (!oscaled) return oscaled.error();
  EngineBenchSetup s;
  s.drive_dirs = a.drive_dirs;
  s.model = a.model;
  s.scale_text = a.scale;
  s.overlap_scale_text = a.overlap_scale;
  s.card = *scaled;
  s.overlap_card = *oscaled;
  s.scale = *scale;
  s.overlap_scale = *oscale;
  s.quant = a.quant;
  s.tokens = a.tokens;
  s.reps = a.reps;
  s.skip_scaling = a.skip_scaling;
  return s;
}

Expected<int> bench_command(const BenchArgs& a, const CliState& state) {
  auto setup = setup_of(a, state);
  if (!setup) return fail(setup.error().message);
  SteadyClock clock;
  StderrProgress shown(clock, false);
  Progress& progress = shown.get();
  auto results = run_engine_benchmarks(*setup, progress);
  if (!results) return fail(results.error().message);

  const Environment env = capture_environment("", state.command_line);
  fmt::print("{}", write_engine_bench_table(*setup, *results, env.build_label()));
  if (!a.out.empty()) {
    const Json record = engine_bench_record(*setup, *results, env.build_label());
    if (Status st = write_file_atomic(a.out, record.dump(2) + "\n"); !st) return fail(st.error().message);
  }
  if (!a.scale_fit.empty()) {
    auto check = scale_check_of(*setup, *results, env.started_at, env.hostname,
                                env.cpu_model + ", moebench kernels " + simd_description());
    if (!check) return fail("--write-scale-fit: line 6 measured nothing: nothing to append");
    if (Status st = append_scale_check(a.scale_fit, *check); !st) return fail("--write-scale-fit: " + st.error().message);
    fmt::print("line 6 appended to {}\n", a.scale_fit);
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench-engines", "Measure the engines' speed against fio and memory bandwidth, side by side.");
  cmd->footer(
      "Runs the resident and streaming engines on a scaled card and, in the same run, fio random reads on the "
      "same container and the memory read bandwidth; prints each ratio against its target. Containers are made "
      "on first use in the drive directories (four for the drive-scaling part).\n\n"
      "Example:\n"
      "  moebench bench-engines\n"
      "  moebench bench-engines --quant q4_k --skip-scaling --out bench.json");
  cmd->add_option("--drive-dir", args->drive_dirs, "drive directories (4 for scaling; default moebench-drives/d0..d3)");
  cmd->add_option("--model", args->model, "model card (default kimi-k3)");
  cmd->add_option("--scale", args->scale, "card scale (default layers=2,experts=64)");
  cmd->add_option("--overlap-scale", args->overlap_scale,
                  "card scale for the overlap benchmark (default layers=6,experts=32: enough layers that the "
                  "lm_head does not dominate the trunk)");
  cmd->add_option("--reps", args->reps, "repetitions of benchmarks 1-3, each beside its reference (default 3)")
      ->check(CLI::Range(1, 50));
  cmd->add_option("--quant", args->quant, "expert quant (default mxfp4)");
  cmd->add_option("--tokens", args->tokens, "generated tokens per run (default 9)")->check(CLI::Range(3, 1000));
  cmd->add_flag("--skip-scaling", args->skip_scaling, "skip the throttled drive-scaling benchmark");
  cmd->add_option("--out", args->out, "also write the figures as JSON");
  cmd->add_option("--write-scale-fit", args->scale_fit,
                  "append line 6 (the full-model arithmetic's measured error) to this fit, e.g. configs/fits/scale.json: "
                  "the full-model columns' bands");
  cmd->callback([args, &state] { finish(state, "bench-engines", bench_command(*args, state)); });
}

}  // namespace moebench
