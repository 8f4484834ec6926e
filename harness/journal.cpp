// journal.cpp — see journal.h.
#include "harness/journal.h"

#include <algorithm>
#include <filesystem>

namespace moebench {

constexpr int kJournalVersion = 1;

Json sweep_info_to_json(const SweepInfo& s) {
  return Json{{"name", s.name},         {"description", s.description}, {"digest", s.digest},
              {"points_total", s.points_total}, {"repetitions", s.repetitions},
              {"warmup", s.warmup},     {"seed", s.seed}};
}

Expected<SweepInfo> sweep_info_from_json(const Json& j) {
  try {
    SweepInfo s;
    s.name = j.at("name").get<std::string>();
    s.description = j.at("description").get<std::string>();
    s.digest = j.at("digest").get<std::string>();
    s.points_total = j.at("points_total").get<std::size_t>();
    s.repetitions = j.at("repetitions").get<int>();
    s.warmup = j.at("warmup").get<int>();
    s.seed = j.at("seed").get<std::uint64_t>();
    return s;
  } catch (const Json::exception& e) {
    return make_error(std::string("malformed sweep record: ") + e.what());
  }
}

const Environment* RunResults::environment_of(const ResultRow& row) const {
  for (const Environment& e : environments) {
    if (e.run_id == row.run_id) return &e;
  }
  return nullptr;
}

namespace {

struct Parsed {
  RunResults results;
  std::uint64_t good_bytes = 0;  // length of the intact prefix
  bool has_header = false;
};

Expected<Parsed> parse_journal(const std::string& path, const std::string& text) {
  Parsed p;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  std::set<std::string> seen;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // torn last line: dropped
    ++line_no;
    const std::string line = text.substr(pos, nl - pos);
    const std::string where = path + ":" + std::to_string(line_no);
    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::exception&) {
      // Only the last line can be torn by a crash; damage before it is real.
      if (nl + 1 == text.size()) break;
      return make_error(where + ": damaged journal line; move the results directory aside and "
                        "re-run, or delete this line to keep the other rows");
    }
    const std::string type = j.value("type", "");
    if (line_no == 1) {
      if (type != "header" || j.value("journal_version", 0) != kJournalVersion) {
        return make_error(where + ": not a moebench journal (version " +
                          std::to_string(kJournalVersion) + ")");
      }
      auto s = sweep_info_from_json(j.at("sweep"));
      if (!s) return make_error(where + ": " + s.error().message);
      auto e = environment_from_json(j.at("environment"));
      if (!e) return make_error(where + ": " + e.error().message);
      p.results.sweep = *s;
      p.results.environments.push_back(*e);
      p.has_header = true;
    } else if (type == "segment") {
      auto e = environment_from_json(j.value("environment", Json()));
      if (!e) return make_error(where + ": " + e.error().message);
      p.results.environments.push_back(*e);
    } else if (type == "row") {
      auto row = row_from_json(j.value("row", Json()));
      if (!row) return make_error(where + ": " + row.error().message);
      if (seen.insert(row->point.id()).second) p.results.rows.push_back(std::move(*row));
    } else {
      return make_error(where + ": unknown journal record type \"" + type + "\"");
    }
    pos = nl + 1;
    p.good_bytes = pos;
  }
  std::stable_sort(p.results.rows.begin(), p.results.rows.end(),
                   [](const ResultRow& a, const ResultRow& b) { return a.point.index < b.point.index; });
  return p;
}

}  // namespace

Expected<RunResults> read_journal(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  auto parsed = parse_journal(path, *text);
  if (!parsed) return parsed.error();
  if (!parsed->has_header) return make_error(path + ": empty journal (no header line)");
  return parsed->results;
}

Journal::Journal(Journal&& other) noexcept
    : appender_(std::move(other.appender_)),
      results_(std::move(other.results_)),
      ids_(std::move(other.ids_)),
      loaded_rows_(other.loaded_rows_) {}

bool Journal::has(const std::string& point_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return ids_.count(point_id) != 0;
}

Expected<Journal> Journal::open(const std::string& path, const SweepInfo& sweep,
                                const Environment& env, Mode mode) {
  Journal jr;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  Parsed parsed;
  if (exists && mode != Mode::kFresh) {
    auto text = read_file(path);
    if (!text) return text.error();
    auto p = parse_journal(path, *text);
    if (!p) return p.error();
    parsed = std::move(*p);
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
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
    auto app = DurableAppender::open(path, parsed.good_bytes, false);
    if (!app) return app.error();
    jr.appender_ = std::move(*app);
    jr.results_ = std::move(parsed.results);
    Status st = jr.appender_.append(Json{{"type", "segment"}, {"environment", environment_to_json(env)}}.dump() + "\n");
    if (!st) return st.error();
    jr.results_.environments.push_back(env);
  } else {
    auto app = DurableAppender::open(path, 0, true);
    if (!app) return app.error();
    jr.appender_ = std::move(*app);
    jr.results_.sweep = sweep;
    jr.results_.environments.push_back(env);
    const Json header = {{"type", "header"},
                         {"journal_version", kJournalVersion},
                         {"sweep", sweep_info_to_json(sweep)},
                         {"environment", environment_to_json(env)}};
    Status st = jr.appender_.append(header.dump() + "\n");
    if (!st) return st.error();
  }
  for (const ResultRow& r : jr.results_.rows) jr.ids_.insert(r.point.id());
  jr.loaded_rows_ = jr.results_.rows.size();
  return jr;
}

Status Journal::append(const ResultRow& row) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = row.point.id();
  if (ids_.count(id) != 0) return Status::success();  // never twice
  Status st = appender_.append(Json{{"type", "row"}, {"row", row_to_json(row)}}.dump() + "\n");
  if (!st) return st;
  ids_.insert(id);
  auto it = std::upper_bound(results_.rows.begin(), results_.rows.end(), row.point.index,
                             [](std::size_t idx, const ResultRow& r) { return idx < r.point.index; });
  results_.rows.insert(it, row);
  return Status::success();
}

}  // namespace moebench
