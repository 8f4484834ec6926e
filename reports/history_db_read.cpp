// history_db_read.cpp — HistoryDb's reading side (see history_db.h): the
// stored runs, counts, metric names and machines, one run loaded back as
// RunResults, and the entries a HistoryFilter selects. history_db.cpp opens
// the store and adds runs.
#include "reports/history_db.h"

#include "reports/history_db_internal.h"
#include "reports/sql_connection.h"

#include <cmath>
#include <utility>

#include "vocab/metrics.h"

namespace moebench {

using history_internal::db_error;

Expected<std::vector<HistoryRun>> HistoryDb::runs() const {
  auto s = conn_->prepare(
      "SELECT u.run_id, u.sweep_name, u.sweep_digest, u.git_commit, u.build_label, u.build_type, u.machine, u.host, "
      "u.started_at, u.file_path, u.added_at, (SELECT count(*) FROM rows r WHERE r.run_id = u.run_id) "
      "FROM runs u ORDER BY u.started_at, u.run_id");
  if (!s) return db_error(path_, "cannot list runs", s.error());
  std::vector<HistoryRun> out;
  SqlStatement& q = **s;
  for (;;) {
    auto more = q.next();
    if (!more) return db_error(path_, "cannot list runs", more.error());
    if (!*more) break;
    HistoryRun r;
    r.run_id = q.col_text(0);
    r.sweep_name = q.col_text(1);
    r.sweep_digest = q.col_text(2);
    r.git_commit = q.col_text(3);
    r.build_label = q.col_text(4);
    r.build_type = q.col_text(5);
    r.machine = q.col_text(6);
    r.host = q.col_text(7);
    r.started_at = q.col_text(8);
    r.file_path = q.col_text(9);
    r.added_at = q.col_text(10);
    r.rows = q.col_int(11);
    out.push_back(std::move(r));
  }
  return out;
}

Expected<HistoryCounts> HistoryDb::counts() const {
  auto s = conn_->prepare(
      "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM rows), (SELECT count(*) FROM metrics), "
      "(SELECT count(*) FROM samples)");
  if (!s) return db_error(path_, "cannot count the stored runs", s.error());
  auto row = (*s)->next();
  if (!row) return db_error(path_, "cannot count the stored runs", row.error());
  if (!*row) return make_error(path_ + ": cannot count the stored runs");
  return HistoryCounts{(*s)->col_int(0), (*s)->col_int(1), (*s)->col_int(2), (*s)->col_int(3)};
}

Expected<std::vector<std::string>> HistoryDb::metric_names() const {
  auto s = conn_->prepare("SELECT DISTINCT metric FROM metrics ORDER BY metric");
  if (!s) return db_error(path_, "cannot list metrics", s.error());
  std::vector<std::string> out;
  for (;;) {
    auto more = (*s)->next();
    if (!more) return db_error(path_, "cannot list metrics", more.error());
    if (!*more) break;
    out.push_back((*s)->col_text(0));
  }
  return out;
}

Expected<std::vector<HistoryMachine>> HistoryDb::machines() const {
  auto s = conn_->prepare(
      "SELECT r.machine, count(DISTINCT r.run_id), count(*), min(u.started_at), max(u.started_at) "
      "FROM rows r JOIN runs u ON u.run_id = r.run_id GROUP BY r.machine ORDER BY r.machine");
  auto sw = conn_->prepare(
      "SELECT DISTINCT r.machine, u.sweep_name FROM rows r JOIN runs u ON u.run_id = r.run_id "
      "ORDER BY r.machine, u.sweep_name");
  if (!s) return db_error(path_, "cannot list machines", s.error());
  if (!sw) return db_error(path_, "cannot list machines", sw.error());
  std::vector<HistoryMachine> out;
  for (;;) {
    auto more = (*s)->next();
    if (!more) return db_error(path_, "cannot list machines", more.error());
    if (!*more) break;
    SqlStatement& q = **s;
    out.push_back(HistoryMachine{q.col_text(0), q.col_int(1), q.col_int(2), q.col_text(3), q.col_text(4), {}});
  }
  for (;;) {
    auto more = (*sw)->next();
    if (!more) return db_error(path_, "cannot list machines", more.error());
    if (!*more) break;
    const std::string m = (*sw)->col_text(0);
    for (HistoryMachine& hm : out) {
      if (hm.machine == m) hm.sweeps.push_back((*sw)->col_text(1));
    }
  }
  return out;
}

Expected<RunResults> HistoryDb::load_run(const std::string& run_id) const {
  auto run = conn_->prepare(
      "SELECT sweep_name, sweep_digest, points_total, repetitions, environments_json FROM runs WHERE run_id = ?1");
  auto rows = conn_->prepare(
      "SELECT row_id, point_index, point_key_json, status, reason, provenance, machine, build_label, segment_run_id, "
      "repetitions FROM rows WHERE run_id = ?1 ORDER BY point_index");
  auto metrics = conn_->prepare(
      "SELECT metric, median, mad, n, min, max, mean, stddev, p10, p90 FROM metrics WHERE row_id = ?1 ORDER BY metric");
  auto samples = conn_->prepare("SELECT metric, value FROM samples WHERE row_id = ?1 ORDER BY metric, rep");
  for (auto* st : {&run, &rows, &metrics, &samples}) {
    if (!*st) return db_error(path_, "cannot read run " + run_id, st->error());
  }
  const std::string where = path_ + ": run " + run_id;
  RunResults r;
  SqlStatement& ru = **run;
  ru.text(1, run_id);
  auto found = ru.next();
  if (!found) return db_error(path_, "cannot read run " + run_id, found.error());
  if (!*found) return make_error(where + " is not stored (`moebench history runs` lists the runs)");
  r.sweep.name = ru.col_text(0);
  r.sweep.digest = ru.col_text(1);
  r.sweep.points_total = static_cast<std::size_t>(ru.col_int(2));
  r.sweep.repetitions = static_cast<int>(ru.col_int(3));
  const Json envs = Json::parse(ru.col_text(4), nullptr, false);
  if (!envs.is_array()) return make_error(where + ": its environments_json is not a JSON array (damaged?)");
  for (const Json& e : envs) {
    auto env = environment_from_json(e);
    if (!env) return make_error(where + ": " + env.error().message);
    r.environments.push_back(std::move(*env));
  }
  ru.reset();
  SqlStatement& rq = **rows;
  rq.text(1, run_id);
  std::vector<std::int64_t> row_ids;
  for (;;) {
    auto more = rq.next();
    if (!more) return db_error(path_, "cannot read the rows of run " + run_id, more.error());
    if (!*more) break;
    const Json key = Json::parse(rq.col_text(2), nullptr, false);
    auto point = point_from_key_json(key);
    if (!point) return make_error(where + ": point " + rq.col_text(2) + ": " + point.error().message);
    ResultRow row;
    row.point = std::move(*point);
    row.point.index = static_cast<std::size_t>(rq.col_int(1));
    if (!parse_row_status(rq.col_text(3), row.status)) return make_error(where + ": unknown status " + rq.col_text(3));
    row.reason = rq.col_text(4);
    row.provenance = rq.col_text(5);
    row.machine = rq.col_text(6);
    row.build = rq.col_text(7);
    row.run_id = rq.col_text(8);
    row.repetitions = static_cast<int>(rq.col_int(9));
    row_ids.push_back(rq.col_int(0));
    r.rows.push_back(std::move(row));
  }
  rq.reset();
  const double nan = std::nan("");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    SqlStatement& mq = **metrics;
    mq.integer(1, row_ids[i]);
    for (;;) {
      auto more = mq.next();
      if (!more) return db_error(path_, "cannot read metrics of run " + run_id, more.error());
      if (!*more) break;
      Summary s;
      s.median = mq.col_real(1).value_or(nan);
      s.mad = mq.col_real(2).value_or(nan);
      s.n = static_cast<std::size_t>(mq.col_int(3));
      s.min = mq.col_real(4).value_or(nan);
      s.max = mq.col_real(5).value_or(nan);
      s.mean = mq.col_real(6).value_or(nan);
      s.stddev = mq.col_real(7).value_or(nan);
      s.p10 = mq.col_real(8).value_or(nan);
      s.p90 = mq.col_real(9).value_or(nan);
      r.rows[i].metrics[mq.col_text(0)] = s;
    }
    mq.reset();
    SqlStatement& sq = **samples;
    sq.integer(1, row_ids[i]);
    for (;;) {
      auto more = sq.next();
      if (!more) return db_error(path_, "cannot read samples of run " + run_id, more.error());
      if (!*more) break;
      r.rows[i].samples[sq.col_text(0)].push_back(sq.col_real(1).value_or(nan));
    }
    sq.reset();
  }
  return r;
}

Expected<std::vector<HistoryEntry>> HistoryDb::query(const HistoryFilter& f) const {
  // An empty filter value binds NULL and matches everything.
  auto s = conn_->prepare(
      "SELECT r.row_id, r.point_id, r.machine, r.provenance, r.point_key_json, r.engine_spec, r.model, r.scale, "
      "r.quant, r.ram_budget_bytes, r.drives, r.drive_layout, r.context_tokens, r.status, r.reason, "
      "u.run_id, u.git_commit, u.build_label, u.started_at, u.host, u.sweep_name, m.median, m.mad, m.n "
      "FROM rows r JOIN runs u ON u.run_id = r.run_id "
      "LEFT JOIN metrics m ON m.row_id = r.row_id AND m.metric = ?1 "
      "WHERE (?2 IS NULL OR r.engine = ?2 OR r.engine_spec = ?2) AND (?3 IS NULL OR r.model = ?3) "
      "AND (?4 IS NULL OR r.quant = ?4) AND (?5 IS NULL OR r.machine = ?5) "
      "AND (?6 IS NULL OR substr(r.point_id, 1, length(?6)) = ?6) AND (?7 IS NULL OR r.provenance = ?7) "
      "AND (?8 IS NULL OR u.sweep_name = ?8) "
      "ORDER BY r.point_id, r.machine, r.provenance, u.started_at, u.run_id");
  auto samples = conn_->prepare("SELECT value FROM samples WHERE row_id = ?1 AND metric = ?2 ORDER BY rep");
  if (!s) return db_error(path_, "cannot query the history", s.error());
  if (!samples) return db_error(path_, "cannot query the history", samples.error());
  SqlStatement& q = **s;
  SqlStatement& sq = **samples;
  q.text(1, f.metric)
      .text_or_null(2, f.engine)
      .text_or_null(3, f.model)
      .text_or_null(4, f.quant)
      .text_or_null(5, f.machine)
      .text_or_null(6, f.point)
      .text_or_null(7, f.provenance)
      .text_or_null(8, f.sweep);
  std::vector<HistoryEntry> out;
  for (;;) {
    auto more = q.next();
    if (!more) return db_error(path_, "cannot query the history", more.error());
    if (!*more) break;
    HistoryEntry e;
    const std::int64_t row_id = q.col_int(0);
    e.point_id = q.col_text(1);
    e.machine = q.col_text(2);
    e.provenance = q.col_text(3);
    e.point_key_json = q.col_text(4);
    e.engine_spec = q.col_text(5);
    e.model = q.col_text(6);
    e.scale = q.col_text(7);
    e.quant = q.col_text(8);
    if (!q.col_null(9)) e.ram_budget_bytes = static_cast<std::uint64_t>(q.col_int(9));
    e.drives = static_cast<int>(q.col_int(10));
    e.drive_layout = q.col_text(11);
    e.context_tokens = q.col_int(12);
    e.status = q.col_text(13);
    e.reason = q.col_text(14);
    e.run_id = q.col_text(15);
    e.git_commit = q.col_text(16);
    e.build_label = q.col_text(17);
    e.started_at = q.col_text(18);
    e.host = q.col_text(19);
    e.sweep_name = q.col_text(20);
    e.median = q.col_real(21);
    e.mad = q.col_real(22);
    e.n = q.col_null(23) ? 0 : static_cast<std::size_t>(q.col_int(23));
    if (e.median) {
      sq.integer(1, row_id).text(2, f.metric);
      for (;;) {
        auto got = sq.next();
        if (!got) return db_error(path_, "cannot read samples", got.error());
        if (!*got) break;
        if (auto v = sq.col_real(0)) e.samples.push_back(*v);
      }
      sq.reset();
    }
    // The run's marks of other work, one per repetition.
    sq.integer(1, row_id).text(2, metric::kDisturbed);
    for (;;) {
      auto got = sq.next();
      if (!got) return db_error(path_, "cannot read samples", got.error());
      if (!*got) break;
      if (auto v = sq.col_real(0)) {
        e.marks.push_back(*v);
        e.disturbed = e.disturbed.value_or(0) + (*v > 0 ? 1 : 0);  // as ResultRow::disturbed_repetitions counts
      }
    }
    sq.reset();
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace moebench
