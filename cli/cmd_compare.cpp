// cmd_compare.cpp — `moebench compare BASE NEW`: reads two results files
// (or --out directories), refuses different machines unless --cross-machine,
// judges every matched row and metric (reports/compare.h: two-sided
// Mann-Whitney U test AND a minimum change of the medians), prints markdown
// or JSON, and exits 1 when anything regressed — the CI gate.
//
// Exit codes: 0 nothing regressed; 1 something regressed (stdout says
// REGRESSED, stderr "moebench compare: regression: ...") or the new file lacks
// metrics the base measured; 2 the command could not compare (stderr
// "moebench compare: error: ...", nothing on stdout); 3 inconclusive (a
// regression only with disturbed repetitions counted).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>

#include <fmt/format.h>

#include "cli/commands.h"
#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/compare.h"
#include "reports/results_reader.h"

namespace moebench {
namespace {

struct CompareArgs {
  std::string base, now;
  std::string threshold = "5%";
  double alpha = 0.01;
  std::string format = "md";
  bool cross_machine = false;
  std::uint64_t seed = 1;
  int resamples = 2000;
  std::string out;
};

Expected<int> compare_command(const CompareArgs& a) {
  auto error = [](const std::string& m) {
    return Error{m + "\n(exit 2: nothing was compared; this is not a regression verdict)"};
  };
  auto threshold = parse_relative_change(a.threshold, "--threshold");
  if (!threshold) return error(threshold.error().message);
  const std::string base_path = results_file_path(a.base), new_path = results_file_path(a.now);
  // The two files are read side by side (a reader uses one core).
  auto reading_base = std::async(std::launch::async, [&base_path] { return load_results_file(base_path); });
  auto now = load_results_file(new_path);
  auto base = reading_base.get();
  if (!base) return error("BASE " + base.error().message);
  if (!now) return error("NEW " + now.error().message);

  CompareOptions o;
  o.threshold = *threshold;
  o.alpha = a.alpha;
  o.cross_machine = a.cross_machine;
  o.seed = a.seed;
  o.resamples = a.resamples;
  auto c = compare_results(*base, *now, o, base_path, new_path);
  if (!c) return error(c.error().message);

  // Printed and, with --out, written as it is made (markdown of 10^5 rows is 240 MB).
  bool printed = false;
  auto produce = [&](const TextSink& emit) {
    printed = true;
    const TextSink both = [&emit](std::string_view piece) {
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      if (emit) emit(piece);
    };
    if (a.format == "json") {
      both(comparison_to_json(*c));
    } else {
      comparison_to_markdown_to(*c, both);
    }
  };
  if (a.out.empty()) {
    produce(TextSink{});
  } else if (Status st = write_files_atomic({FileContent{a.out, "", produce}}); !st) {
    if (!printed) produce(TextSink{});  // the file could not even be created: the report still goes to the screen
    std::fflush(stdout);
    return error(st.error().message);
  }
  std::fflush(stdout);
  if (c->regressed()) {
    const std::string changes = escape_control_bytes(status_changes_phrase(*c));  // labels come from the files
    say("moebench compare: regression: {} of {} rows regressed ({} metrics regressed; {} rows changed "
               "status{}); exit 1", c->rows_regressed, c->rows.size(), c->metrics_regressed,
               c->status_regressed + c->status_improved, changes.empty() ? "" : ": " + changes);
    return kExitNo;
  }
  if (c->incomplete()) {
    say("moebench compare: incomplete: the new file lacks {} metric(s) the base measured (first: {}); "
               "missing is not unchanged; exit 1", c->metrics_missing, escape_control_bytes(c->missing.front()));
    return kExitNo;
  }
  if (c->inconclusive()) {
    say("moebench compare: inconclusive: {} of {} rows regressed only with repetitions disturbed by other "
               "work on the machine counted; run both again on a quiet machine; exit 3",
               c->rows_inconclusive, c->rows.size());
    return kExitInconclusive;
  }
  say("moebench compare: no regression in {} rows ({} improved, {} insufficient samples)",
             c->rows.size(), c->rows_improved, c->rows_insufficient);
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "Compare two results files: improved / regressed / unchanged per "
                                                "row and metric; exit 1 on a regression.");
  cmd->footer(
      "Rows are matched by point id (every axis value). Per metric (decode_tok_s, prefill_tok_s, ttft_s, "
      "expert_hit_rate, read_bytes_per_token, io_wait_frac, peak_rss_bytes; each knows which way is better) a "
      "verdict needs BOTH a two-sided Mann-Whitney U test on the raw repetition samples with p < alpha AND a "
      "change of the medians of at least the threshold (and at least 1 point of hit rate, 5 points of I/O wait, 16 MiB of "
      "peak RSS); too few repetitions to ever reach p < alpha give "
      "\"insufficient samples\" (at alpha 0.01: at least 5 on each side). A status change is judged too "
      "(ok -> failed is a regression). The interval is a bootstrap of median(new)/median(base): exact when both sides have at most 4 samples, else seeded draws. Results "
      "of different machines (row machine, host, CPU, CPU count, memory) are refused unless --cross-machine.\n\n"
      "Exit codes: 0 no regression; 1 a regression (stdout says REGRESSED) or metrics missing from the new file; 2 an "
      "input error (stderr says \"error:\", stdout stays empty); 3 inconclusive: a regression shows only when the repetitions disturbed by "
      "other work on the machine (the rows' disturbed marks) are counted.\n\n"
      "Example:\n"
      "  moebench run ci --out results/base && moebench run ci --out results/new\n"
      "  moebench compare results/base results/new                 # directories or results.json files\n"
      "  moebench compare base.json new.json --threshold 10% --alpha 0.05 --format json --out cmp.json");
  cmd->add_option("base", args->base, "baseline: results.json, or the --out directory of a run")->required();
  cmd->add_option("new", args->now, "candidate: results.json, or the --out directory of a run")->required();
  cmd->add_option("--threshold", args->threshold,
                  "minimum relative change of the medians for a verdict: 5% (default) or 0.05");
  cmd->add_option("--alpha", args->alpha, "significance level of the two-sided U test (default 0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--format", args->format, "md (default) or json")->check(CLI::IsMember({"md", "json"}));
  cmd->add_flag("--cross-machine", args->cross_machine,
                "compare results of different machines anyway (the differences are printed)");
  cmd->add_option("--seed", args->seed, "bootstrap seed (default 1; the same seed gives the same intervals)");
  cmd->add_option("--resamples", args->resamples, "bootstrap resamples (default 2000)")->check(CLI::Range(100, 1000000));
  cmd->add_option("--out", args->out, "also write the report to this file");
  cmd->callback([args, &state] { finish(state, "compare", compare_command(*args)); });
}

}  // namespace moebench
