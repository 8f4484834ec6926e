// journal.cpp — see journal.h.
#include "harness/journal.h"

#include <algorithm>
#include <filesystem>

#include "reports/results_files.h"
#include "vocab/text.h"

namespace moebench {

Journal::Journal(Journal&& other) noexcept
    : appender_(std::move(other.appender_)),
      results_(std::move(other.results_)),
      ids_(std::move(other.ids_)),
      retry_ids_(std::move(other.retry_ids_)),
      loaded_rows_(other.loaded_rows_),
      failed_at_open_(other.failed_at_open_) {}

bool Journal::has(const std::string& point_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return ids_.count(point_id) != 0 && retry_ids_.count(point_id) == 0;
}

Expected<Journal> Journal::open(const std::string& path, const SweepInfo& sweep,
                                const Environment& env, Mode mode, bool retry_failed) {
  Journal jr;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  JournalPrefix parsed;
  if (exists && mode != Mode::kFresh) {
    auto text = read_file(path);
    if (!text) return text.error();
    auto p = parse_journal_prefix(path, *text);
    if (!p) return p.error();
    parsed = std::move(*p);
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  // Results without their journal (copied, or the journal deleted) are still
  // results: a plain run or a resume does not overwrite them.
  if (!exists && mode != Mode::kFresh) {
    const std::vector<std::string> held = existing_results_files(dir);
    if (!held.empty()) {
      return make_error(dir + " holds results (" + join(held, ", ") + ") but no journal.jsonl; a new run would "
                        "overwrite them: pass --fresh to discard them, or --out to write elsewhere");
    }
  }
  if (exists && mode == Mode::kCreate && !parsed.has_header) {
    return make_error(path + " exists but holds no sweep (it is empty, or torn in its first line); a new run "
                             "would replace it: pass --fresh to discard it, or --out to write elsewhere");
  }
  if (parsed.has_header) {
    if (mode == Mode::kCreate) {
      return make_error(dir + " already holds results of sweep \"" + parsed.results.sweep.name + "\" (" +
                        std::to_string(parsed.results.rows.size()) + " of " +
                        std::to_string(parsed.results.sweep.points_total) +
                        " points); pass --resume to continue it, --fresh to discard it, or "
                        "--out to write elsewhere");
    }
    if (parsed.results.sweep.digest != sweep.digest) {
      return make_error(path + " was written for a different sweep (\"" + parsed.results.sweep.name +
                        "\", digest " + parsed.results.sweep.digest + "; this sweep's digest is " +
                        sweep.digest + "); resuming would mix answers to different questions. "
                        "Use --fresh to discard it or --out for a new directory");
    }
    const std::optional<ShardInfo>& had = parsed.results.sweep.shard;
    if (had != sweep.shard) {
      auto what = [](const std::optional<ShardInfo>& s) {
        return s ? "shard " + s->label() + " (" + std::to_string(s->point_ids.size()) + " points)"
                 : std::string("the whole sweep");
      };
      return make_error(path + " holds " + what(had) + " of sweep \"" + sweep.name + "\"; this run is " +
                        what(sweep.shard) + ". Resume with the same --shard (and the same build, whose cost "
                        "estimate partitions the sweep), or use --fresh / another --out");
    }
    auto app = DurableAppender::open(path, parsed.good_bytes, false);
    if (!app) return app.error();
    jr.appender_ = std::move(*app);
    jr.results_ = std::move(parsed.results);
    Status st = jr.appender_.append(journal_segment_line(env));
    if (!st) return st.error();
    jr.results_.environments.push_back(env);
  } else {
    auto app = DurableAppender::open(path, 0, true);
    if (!app) return app.error();
    jr.appender_ = std::move(*app);
    jr.results_.sweep = sweep;
    jr.results_.environments.push_back(env);
    Status st = jr.appender_.append(journal_header_line(sweep, env));
    if (!st) return st.error();
  }
  for (const ResultRow& r : jr.results_.rows) {
    jr.ids_.insert(r.point.id());
    if (r.status != RowStatus::kFailed) continue;
    ++jr.failed_at_open_;
    if (retry_failed) jr.retry_ids_.insert(r.point.id());
  }
  jr.loaded_rows_ = jr.results_.rows.size();
  return jr;
}

Status Journal::append(const ResultRow& row) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = row.point.id();
  const bool retry = retry_ids_.count(id) != 0;
  if (ids_.count(id) != 0 && !retry) return Status::success();  // never twice
  Status st = appender_.append(journal_row_line(row, retry));
  if (!st) return st;
  if (retry) {
    retry_ids_.erase(id);  // measured again: its row replaces the failed one
    auto at = std::lower_bound(results_.rows.begin(), results_.rows.end(), row.point.index,
                               [](const ResultRow& r, std::size_t idx) { return r.point.index < idx; });
    for (; at != results_.rows.end() && at->point.index == row.point.index; ++at) {
      if (at->point.id() == id) *at = row;
    }
    return Status::success();
  }
  ids_.insert(id);
  auto it = std::upper_bound(results_.rows.begin(), results_.rows.end(), row.point.index,
                             [](std::size_t idx, const ResultRow& r) { return idx < r.point.index; });
  results_.rows.insert(it, row);
  return Status::success();
}

}  // namespace moebench
