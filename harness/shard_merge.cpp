// shard_merge.cpp — see shard_merge.h.
#include "harness/shard_merge.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/results_reader.h"
#include "vocab/journal_format.h"
#include "vocab/text.h"

namespace moebench {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Every build that wrote a run: its segments' build labels.
std::set<std::string> builds_of(const RunResults& r) {
  std::set<std::string> out;
  for (const Environment& e : r.environments) out.insert(e.build_label());
  return out;
}

// An ok row is kept over any other.
bool better(const ResultRow& a, const ResultRow& b) {
  return a.status == RowStatus::kOk && b.status != RowStatus::kOk;
}

}  // namespace

Expected<MergeInput> read_merge_input(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) {
    const auto journal = std::filesystem::path(path) / "journal.jsonl";
    const auto results = std::filesystem::path(path) / "results.json";
    if (std::filesystem::exists(journal, ec)) {
      file = journal.string();
    } else if (std::filesystem::exists(results, ec)) {
      file = results.string();
    } else {
      return make_error(path + ": neither journal.jsonl nor results.json; pass the --out directory of a "
                               "`moebench run --shard K/N`");
    }
  } else if (!std::filesystem::exists(path, ec)) {
    return make_error(path + ": no such file or directory");
  }
  auto results = ends_with(file, ".jsonl") ? read_journal(file) : load_results_file(file);
  if (!results) return results.error();
  return MergeInput{path, std::move(*results)};
}

namespace {

// The inputs are shards of one sweep, one build and one partition, each
// shard given once; the shards the partition has but nobody gave.
Status check_shards(const std::vector<MergeInput>& inputs, MergeReport& rep) {
  const MergeInput& first = inputs.front();
  const std::set<std::string> build = builds_of(first.results);
  std::map<int, std::string> shard_given;  // index → label
  std::string partition, partition_label;
  for (const MergeInput& in : inputs) {
    const SweepInfo& s = in.results.sweep;
    if (s.digest != first.results.sweep.digest) {
      return make_error(fmt::format("{} holds sweep \"{}\" (digest {}) but {} holds \"{}\" (digest {}): shards "
                                    "of different sweeps do not merge",
                                    in.label, s.name, s.digest, first.label, first.results.sweep.name,
                                    first.results.sweep.digest));
    }
    if (const auto b = builds_of(in.results); b != build) {
      return make_error(fmt::format("{} was run by {} but {} by {}: the build decides the partition and the "
                                    "engines, so shards of different builds do not merge; rerun them with one build",
                                    in.label, join(std::vector<std::string>(b.begin(), b.end()), " + "), first.label,
                                    join(std::vector<std::string>(build.begin(), build.end()), " + ")));
    }
    if (!s.shard) continue;
    if (rep.shard_count != 0 && s.shard->count != rep.shard_count) {
      return make_error(fmt::format("{} is shard {} but an earlier input is one of {} shards: merge the shards "
                                    "of one partition",
                                    in.label, s.shard->label(), rep.shard_count));
    }
    if (!partition.empty() && s.shard->partition_digest != partition) {
      return make_error(fmt::format("{} (shard {}) was cut from another partition of the sweep than {} (digest {} "
                                    "against {}): the machines read different configs (--configs, or the working "
                                    "directory's configs/), so points would be lost or run twice; run every shard "
                                    "with the same configs",
                                    in.label, s.shard->label(), partition_label, s.shard->partition_digest,
                                    partition));
    }
    partition = s.shard->partition_digest;
    partition_label = in.label;
    rep.shard_count = s.shard->count;
    auto [it, fresh] = shard_given.emplace(s.shard->index, in.label);
    if (!fresh) {
      return make_error(fmt::format("shard {} is given twice: {} and {}", s.shard->label(), it->second, in.label));
    }
  }
  for (int k = 1; k <= rep.shard_count; ++k) {
    if (shard_given.count(k) == 0) rep.absent_shards.push_back(k);
  }
  return Status::success();
}

// A point's kept row (in `inputs`, moved out at the end) and every input
// that holds it.
struct Held {
  ResultRow* row;
  std::vector<std::string> labels;
};

// One input's rows into `by_id` (the better of two measurements of a point
// kept), its unfinished shard points and its environments.
Status take_rows(MergeInput& in, std::map<std::string, Held>& by_id, std::set<std::string>& env_ids, MergeReport& rep) {
  MergeInputStatus st{in.label, in.results.sweep.shard, in.results.rows.size(), {}};
  std::set<std::string> here;
  const std::set<std::string> shard_ids =
      st.shard ? std::set<std::string>(st.shard->point_ids.begin(), st.shard->point_ids.end()) : std::set<std::string>();
  for (ResultRow& row : in.results.rows) {
    const std::string id = row.point.id();
    // A results.json is not checked line by line as a journal is: a row of
    // another sweep is refused here, before it is counted.
    if (row.point.index >= in.results.sweep.points_total || (st.shard && shard_ids.count(id) == 0)) {
      return make_error(fmt::format("{}: row of point {} (#{}) is not one of {} (\"{}\", {} points): rows of "
                                    "another sweep were added to it; remove them and merge again",
                                    in.label, id, row.point.index + 1,
                                    st.shard ? "shard " + st.shard->label() + " of sweep" : std::string("sweep"),
                                    in.results.sweep.name, in.results.sweep.points_total));
    }
    here.insert(id);
    auto [it, fresh] = by_id.emplace(id, Held{&row, {in.label}});
    if (fresh) continue;
    // The same measurement reached twice (an earlier merge given with its shards) is one row.
    if (it->second.row->run_id == row.run_id) continue;
    it->second.labels.push_back(in.label);
    if (better(row, *it->second.row)) {
      it->second.row = &row;
      std::rotate(it->second.labels.begin(), it->second.labels.end() - 1, it->second.labels.end());
    }
  }
  if (st.shard) {
    for (const std::string& id : st.shard->point_ids) {
      if (here.count(id) == 0) st.unfinished_ids.push_back(id);
    }
  }
  for (const Environment& e : in.results.environments) {
    if (env_ids.insert(e.run_id).second) rep.merged.environments.push_back(e);
  }
  rep.inputs.push_back(std::move(st));
  return Status::success();
}

}  // namespace

Expected<MergeReport> merge_runs(std::vector<MergeInput> inputs, const std::optional<Environment>& merge_env) {
  if (inputs.empty()) return make_error("nothing to merge: name the shards' results directories");
  MergeReport rep;
  if (Status st = check_shards(inputs, rep); !st) return st.error();
  // The rows: by point id, the kept one and every holder.
  std::map<std::string, Held> by_id;
  std::set<std::string> env_ids;
  rep.merged.sweep = inputs.front().results.sweep;
  rep.merged.sweep.shard.reset();
  if (merge_env) {
    rep.merged.environments.push_back(*merge_env);
    env_ids.insert(merge_env->run_id);
  }
  for (MergeInput& in : inputs) {
    if (Status st = take_rows(in, by_id, env_ids, rep); !st) return st.error();
  }
  rep.merged.rows.reserve(by_id.size());
  for (const auto& [id, held] : by_id) {
    if (held.labels.size() > 1) rep.duplicates.push_back(DuplicatePoint{id, held.row->point.index, held.labels});
    rep.merged.rows.push_back(std::move(*held.row));
  }
  std::sort(rep.merged.rows.begin(), rep.merged.rows.end(),
            [](const ResultRow& a, const ResultRow& b) { return a.point.index < b.point.index; });
  std::sort(rep.duplicates.begin(), rep.duplicates.end(),
            [](const DuplicatePoint& a, const DuplicatePoint& b) { return a.point_index < b.point_index; });
  const std::size_t total = rep.merged.sweep.points_total;
  rep.missing_points = total > rep.merged.rows.size() ? total - rep.merged.rows.size() : 0;
  return rep;
}

std::vector<std::string> merge_summary(const MergeReport& r) {
  std::vector<std::string> out;
  for (const MergeInputStatus& in : r.inputs) {
    const std::string what = in.shard ? "shard " + in.shard->label() : std::string("whole sweep");
    if (in.shard) {
      const std::size_t of = in.shard->point_ids.size();
      out.push_back(fmt::format("{}: {}, {} of its {} points{}", in.label, what, of - in.unfinished_ids.size(), of,
                                in.unfinished_ids.empty()
                                    ? ""
                                    : fmt::format(" — {} unfinished: rerun that shard's command with --resume",
                                                  in.unfinished_ids.size())));
    } else {
      out.push_back(fmt::format("{}: {}, {} rows", in.label, what, in.rows));
    }
  }
  for (int k : r.absent_shards) {
    out.push_back(fmt::format("shard {}/{}: not given (its points are missing; run it with --shard {}/{})", k,
                              r.shard_count, k, r.shard_count));
  }
  for (const DuplicatePoint& d : r.duplicates) {
    out.push_back(fmt::format("point {} (#{}) is in {}: kept the row of {}", d.point_id, d.point_index + 1,
                              join(d.labels, " and "), d.labels.front()));
  }
  out.push_back(fmt::format("{} of {} points merged{}", r.merged.rows.size(), r.merged.sweep.points_total,
                            r.missing_points > 0 ? fmt::format(", {} missing", r.missing_points) : std::string()));
  return out;
}

void write_merged_journal(const RunResults& merged, const TextSink& emit) {
  if (merged.environments.empty()) return;
  emit(journal_header_line(merged.sweep, merged.environments.front()));
  for (std::size_t i = 1; i < merged.environments.size(); ++i) emit(journal_segment_line(merged.environments[i]));
  for (const ResultRow& row : merged.rows) emit(journal_row_line(row));
}

std::string merged_journal_text(const RunResults& merged) {
  std::string text;
  write_merged_journal(merged, [&text](std::string_view piece) { text += piece; });
  return text;
}

}  // namespace moebench
