// cmd_merge.cpp — `moebench merge DIR… --out OUT`: the shards of one sweep
// joined into one results set (harness/shard_merge.h), written as a journal
// plus the results files, so that `run SWEEP --out OUT --resume` runs only
// what is still missing and every report and history command reads OUT as
// it reads one run.
//
// Exit codes: 0 every point merged once; 1 merged, but points are missing
// or were measured twice (stderr says which; the files are written): the
// answer to "did every shard finish?" is no; 2 not merged (different sweeps
// or builds, unreadable input, a write failed).
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/shard_merge.h"
#include "reports/results_files.h"
#include "reports/writers.h"
#include "vocab/dir_lock.h"
#include "vocab/file_io.h"
#include "vocab/environment.h"
#include "vocab/journal_format.h"

namespace moebench {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out;
  bool replace = false;
  std::vector<std::string> formats = {"md", "csv", "json", "jsonl"};
  std::string print = "none";
};

bool same_path(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

Expected<int> merge_command(const MergeArgs& args, const CliState& state) {
  std::vector<MergeInput> inputs;
  bool out_is_input = false;
  for (const std::string& path : args.inputs) {
    auto in = read_merge_input(path);
    if (!in) return fail(in.error().message);
    out_is_input = out_is_input || same_path(path, args.out);
    inputs.push_back(std::move(*in));
  }
  const std::string journal = (std::filesystem::path(args.out) / "journal.jsonl").string();
  std::error_code ec;
  if (!args.replace && !out_is_input && std::filesystem::exists(journal, ec)) {
    return fail(args.out + " already holds results (journal.jsonl): name it among the inputs to keep its rows, "
                           "pass --replace to overwrite it, or choose another --out");
  }
  // The merge is a run segment of its own: its run id files the merged set
  // in `history` apart from the shards' runs.
  auto report = merge_runs(std::move(inputs), capture_environment("", state.command_line));
  if (!report) return fail(report.error().message);
  for (const std::string& line : merge_summary(*report)) say("moebench merge: {}", line);

  if (Status st = ensure_directory(args.out); !st) return fail(st.error().message);
  auto lock = DirLock::acquire(args.out, state.command_line.empty() ? "moebench merge" : state.command_line);
  if (!lock) return fail(lock.error().message);
  if (Status st = check_results_paths(args.out, args.formats); !st) return fail(st.error().message);
  if (Status st = check_output_path(journal); !st) return fail(st.error().message);
  const RunResults& merged = report->merged;
  if (Status st = write_files_atomic({{journal, {}, [&merged](const TextSink& emit) { write_merged_journal(merged, emit); }}});
      !st) {
    return fail(st.error().message + " (nothing was replaced; free space and merge again)");
  }
  if (Status st = write_results_files(report->merged, args.out, args.formats, "merge again"); !st) {
    return fail(st.error().message);
  }
  if (args.print == "md") fmt::print("{}", write_markdown(report->merged));
  say("moebench merge: wrote {} (journal.jsonl + results.{{{}}})", args.out,
             fmt::join(args.formats, ","));
  if (!report->complete()) {
    say("moebench merge: incomplete: {} missing, {} measured twice", report->missing_points,
               report->duplicates.size());
    return kExitNo;
  }
  return 0;
}

}  // namespace

void add_merge_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand("merge", "Join the shards of one sweep (run --shard K/N) into one results set.");
  cmd->footer(
      "Reads each shard's results directory (its journal.jsonl, else results.json), refuses shards of different "
      "sweeps or builds, reports shards not given, points a shard has not finished and points measured twice, and "
      "writes OUT/journal.jsonl and OUT/results.{md,csv,json,jsonl}. Rows keep their machine, build and run id. "
      "`moebench run SWEEP --out OUT --resume` then runs only the points still missing.\n\n"
      "Exit codes: 0 every point once; 1 written but incomplete or with duplicates; 2 not merged.\n\n"
      "Example:\n"
      "  moebench run ci --shard 1/2 & moebench run ci --shard 2/2; wait\n"
      "  moebench merge results/ci/shards/* --out results/ci");
  cmd->add_option("inputs", args->inputs, "shard results directories (or their journal.jsonl / results.json)")
      ->required();
  cmd->add_option("--out", args->out, "the merged results directory")->required();
  cmd->add_flag("--replace", args->replace, "overwrite results already in --out");
  cmd->add_option("--format", args->formats, "result files to write (default: md csv json jsonl)")
      ->check(CLI::IsMember({"md", "csv", "json", "jsonl"}))
      ->delimiter(',');
  cmd->add_option("--print", args->print, "what to print on stdout: md or none (default)")
      ->check(CLI::IsMember({"md", "none"}));
  cmd->callback([args, &state] { finish(state, "merge", merge_command(*args, state)); });
}

}  // namespace moebench
