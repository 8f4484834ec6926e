// shard_merge.h — `moebench merge`: the shards of one sweep (`run --shard
// K/N`, harness/shard_plan.h), run on one machine or many, joined into one
// results set.
//
//   read_merge_input  a shard's results directory (its journal.jsonl, the
//                     durable record, else its results.json) or either file
//   merge_runs        the join, a pure function: refuses runs of different
//                     sweeps (digest) or builds (the build decides the
//                     partition and the engines), or one shard given twice;
//                     reports shards not given, points a shard has not
//                     finished, and points measured twice (the row kept: an
//                     ok row over a failed one, else the first given; the
//                     same row reached twice — an earlier merge given with
//                     its shards — is one row)
//   write_merged_journal  the merged set as a journal (header without a
//                     shard, every run segment, every row), piece by piece,
//                     so that `run SWEEP --out MERGED --resume` runs exactly
//                     the points still missing; merged_journal_text, the same
//                     as one string
// Rows keep their own machine, build and run id; the merged set lists every
// shard's run segments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/file_io.h"
#include "vocab/run_results.h"

namespace moebench {

struct MergeInput {
  std::string label;  // the directory or file, for messages
  RunResults results;
};

Expected<MergeInput> read_merge_input(const std::string& path);

struct MergeInputStatus {
  std::string label;
  std::optional<ShardInfo> shard;
  std::size_t rows = 0;                      // rows it holds
  std::vector<std::string> unfinished_ids;   // its shard's points without a row
};

struct DuplicatePoint {
  std::string point_id;
  std::size_t point_index = 0;
  std::vector<std::string> labels;  // every input holding it; the first is the row kept
};

struct MergeReport {
  RunResults merged;
  std::vector<MergeInputStatus> inputs;
  int shard_count = 0;              // 0: no input was a shard
  std::vector<int> absent_shards;   // 1-based indices not given
  std::vector<DuplicatePoint> duplicates;
  std::size_t missing_points = 0;   // points_total − rows merged

  bool complete() const { return missing_points == 0 && duplicates.empty(); }
};

// `merge_env`, when given, is the merge's own run segment, put first: the
// merged set is then a run of its own (its run id files it in `history`
// apart from the shards' runs); rows keep pointing at the shards' segments.
// The kept rows are moved out of `inputs` (10^5 rows are not copied).
Expected<MergeReport> merge_runs(std::vector<MergeInput> inputs,
                                 const std::optional<Environment>& merge_env = std::nullopt);

// Lines for the terminal: one per input, then the gaps and duplicates.
std::vector<std::string> merge_summary(const MergeReport& report);

void write_merged_journal(const RunResults& merged, const TextSink& emit);
std::string merged_journal_text(const RunResults& merged);

}  // namespace moebench
