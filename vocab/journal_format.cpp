// journal_format.cpp — see journal_format.h. Also the checks of the records
// a journal and a results.json hold (check_*_record), made before the
// decoders see them.
#include "vocab/journal_format.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/row_text.h"
#include "vocab/split_work.h"
#include "vocab/sweep_spec.h"
#include "vocab/units.h"

namespace moebench {


Json sweep_info_to_json(const SweepInfo& s) {
  Json j{{"name", s.name},         {"description", s.description}, {"digest", s.digest},
         {"points_total", s.points_total}, {"repetitions", s.repetitions},
         {"warmup", s.warmup},     {"seed", s.seed}};
  if (s.shard) {
    j["shard"] = Json{{"index", s.shard->index},
                      {"count", s.shard->count},
                      {"predicted_cost_s", s.shard->predicted_cost_s},
                      {"partition_digest", s.shard->partition_digest},
                      {"point_ids", s.shard->point_ids}};
  }
  return j;
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
    if (j.contains("shard")) {
      const Json& sh = j.at("shard");
      ShardInfo info;
      info.index = sh.at("index").get<int>();
      info.count = sh.at("count").get<int>();
      info.predicted_cost_s = sh.at("predicted_cost_s").get<double>();
      info.partition_digest = sh.at("partition_digest").get<std::string>();
      info.point_ids = sh.at("point_ids").get<std::vector<std::string>>();
      s.shard = std::move(info);
    }
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

// ------------------------------------------------------------ record checks

namespace {

// Largest point index and count a results file may hold: a sweep expands to
// at most 1,000,000 points.
constexpr std::int64_t kMaxPoints = 1000000;
// A fleet of at most 100,000 shards (`run --shard K/N`).
constexpr std::int64_t kMaxShards = 100000;

void strings(ObjectReader& r, std::initializer_list<const char*> keys) {
  for (const char* k : keys) (void)r.string(k, true);
}

// A non-negative integer that fits a uint64 (seeds, byte counts).
void unsigned_integer(ObjectReader& r, const char* key) {
  const Json* j = r.get(key, true);
  if (j == nullptr) return;
  if (j->is_number_unsigned() || (j->is_number_integer() && j->get<std::int64_t>() >= 0)) return;
  r.diagnostics().add(r.path_of(key), "expected an integer of 0 or more, got " + json_type_phrase(*j));
}

// A figure the writer stores as a number, or null when it was not finite.
void number_or_null(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_number() || j.is_null()) return;
  d.add(path, "expected a number or null, got " + json_type_phrase(j));
}

void check_point_key(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return;
  strings(r, {"engine", "model", "scale", "quant", "routing", "cache_policy", "prefetch"});
  (void)r.string("hot_set", false);  // only when set (vocab/hot_set_spec.h)
  if (const Json* b = r.get("ram_budget_bytes", true)) {
    if (!(b->is_string() && b->get<std::string>() == "unlimited")) {
      if (!(b->is_number_unsigned() || b->is_number_integer()) || (b->is_number_integer() && b->get<std::int64_t>() < 1)) {
        d.add(r.path_of("ram_budget_bytes"), "expected a byte count of 1 or more or \"unlimited\", got " +
                                                 json_type_phrase(*b));
      }
    }
  }
  if (const Json* drives = r.object("drives", true)) {
    ObjectReader dr(*drives, r.path_of("drives"), d);
    (void)dr.integer("count", true, 1, kMaxDrives);
    (void)dr.string("layout", true);
    if (const Json* t = dr.get("throttle_bytes_s", false); t != nullptr && !t->is_null()) {
      (void)read_rate(*t, dr.path_of("throttle_bytes_s"), d);
    }
  }
  (void)r.integer("context_tokens", true, 0, kMaxTokens);
  (void)r.integer("prompt_tokens", true, 0, kMaxTokens);
  (void)r.integer("gen_tokens", true, 0, kMaxTokens);
  if (const Json* t = r.get("threads", true); t != nullptr && !t->is_string()) {
    (void)read_integer(*t, r.path_of("threads"), d, 0, kMaxThreads);
  }
}

}  // namespace

void check_sweep_record(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return;
  strings(r, {"name", "description", "digest"});
  (void)r.integer("points_total", true, 0, kMaxPoints);
  (void)r.integer("repetitions", true, 0, kMaxRepetitions);
  (void)r.integer("warmup", true, 0, kMaxRepetitions);
  unsigned_integer(r, "seed");
  if (const Json* shard = r.object("shard", false); shard != nullptr) {
    ObjectReader sr(*shard, r.path_of("shard"), d);
    const auto count = sr.integer("count", true, 1, kMaxShards);
    const auto index = sr.integer("index", true, 1, kMaxShards);
    if (count && index && *index > *count) {
      d.add(sr.path_of("index"), "shard " + std::to_string(*index) + " of " + std::to_string(*count) +
                                       ": the index is 1 to the count");
    }
    (void)sr.string("partition_digest", true);
    if (auto cost = sr.number("predicted_cost_s", true); cost && !(*cost >= 0)) {
      d.add(sr.path_of("predicted_cost_s"), "expected a cost in seconds, 0 or more");
    }
    if (const Json* ids = sr.get("point_ids", true); ids != nullptr) {
      if (!ids->is_array() || ids->size() > static_cast<std::size_t>(kMaxPoints)) {
        d.add(sr.path_of("point_ids"), "expected an array of at most 1000000 point ids");
      } else {
        for (std::size_t i = 0; i < ids->size(); ++i) {
          if (!(*ids)[i].is_string()) d.add(sr.path_of("point_ids") + "/" + std::to_string(i), "expected a point id (string)");
        }
      }
    }
  }
}

void check_environment_record(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return;
  strings(r, {"run_id", "moebench_version", "git_commit", "compiler", "compiler_flags", "build_type", "sanitizers",
              "kernel", "cpu_model", "hostname", "started_at", "machine_profile", "command_line"});
  (void)r.string("machine_name", false);
  (void)r.string("machine_source", false);
  (void)r.integer("logical_cpus", true, 0, 1 << 24);
  unsigned_integer(r, "memory_total_bytes");
}

void check_row_record(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return;
  if (const Json* p = r.object("point", true)) check_point_key(*p, r.path_of("point"), d);
  (void)r.integer("index", true, 0, kMaxPoints);
  strings(r, {"point_id", "status", "reason", "provenance", "run_id", "machine", "build"});
  if (const Json* notes = r.array("notes", true, false)) {
    for (std::size_t i = 0; i < notes->size(); ++i) (void)read_string((*notes)[i], json_pointer_append(r.path_of("notes"), i), d);
  }
  const auto reps = r.integer("repetitions", true, 0, kMaxRepetitions);
  const auto warmup = r.integer("warmup", true, 0, kMaxRepetitions);
  (void)r.number("wall_s", true);
  (void)r.integer("min_budget_bytes", false, 0, INT64_MAX);
  if (const Json* metrics = r.object("metrics", true)) {
    for (auto it = metrics->begin(); it != metrics->end(); ++it) {
      ObjectReader m(it.value(), json_pointer_append(r.path_of("metrics"), it.key()), d);
      if (!m.is_object()) continue;
      (void)m.integer("n", true, 0, INT64_MAX);
      for (const char* k : {"median", "min", "max", "mean", "stddev", "p10", "p90", "mad"}) {
        if (const Json* v = m.get(k, true)) number_or_null(*v, m.path_of(k), d);
      }
    }
  }
  if (const Json* samples = r.object("samples", true)) {
    for (auto it = samples->begin(); it != samples->end(); ++it) {
      const std::string spath = json_pointer_append(r.path_of("samples"), it.key());
      if (!it.value().is_array()) {
        d.add(spath, "expected an array of numbers, got " + json_type_phrase(it.value()));
        continue;
      }
      // One sample per run of the point (load_s counts warm-ups too): more
      // is not a row moebench writes, and would make compare's statistics
      // cost what the file's author chose.
      const std::size_t runs = static_cast<std::size_t>(reps.value_or(0) + warmup.value_or(0));
      if (reps && warmup && it.value().size() > runs) {
        d.add(spath, std::to_string(it.value().size()) + " samples, but the row ran " + std::to_string(*reps) +
                         " repetitions and " + std::to_string(*warmup) +
                         " warm-ups: a row holds at most one sample per run");
        continue;
      }
      for (std::size_t i = 0; i < it.value().size(); ++i) number_or_null(it.value()[i], json_pointer_append(spath, i), d);
    }
  }
}

// ------------------------------------------------------------ the journal

namespace {
const char* kDamaged = "the journal is damaged: delete this line to keep the other rows, or move the results "
                       "directory aside (or pass --fresh) and re-run";

// Why a row line cannot belong to this journal, or "": its run must have been
// started by a header or segment line before it, and its point must be one
// of the sweep's (or the shard's).
std::string foreign_row_reason(const ResultRow& row, const JournalPrefix& p, const std::set<std::string>& runs,
                               const std::set<std::string>& shard_ids) {
  const SweepInfo& s = p.results.sweep;
  if (runs.count(row.run_id) == 0) {
    return "it was written by run \"" + sanitize_utf8(utf8_prefix(row.run_id, 60)) +
           "\", which no header or segment line above it started: rows of another journal were appended here";
  }
  if (row.point.index >= s.points_total) {
    return "its point #" + std::to_string(row.point.index + 1) + " is past the " + std::to_string(s.points_total) +
           " points of sweep \"" + s.name + "\"";
  }
  if (s.shard && shard_ids.count(row.point.id()) == 0) {
    return "its point " + row.point.id() + " is not one of shard " + s.shard->label() + "'s";
  }
  return "";
}

// A second row for one point: the same line again is harmless; a retry
// (--retry-failed) replaces a failed row; anything else is two answers to
// one question.
struct FirstRow {
  std::size_t line_no;
  std::size_t hash;
  std::size_t at;  // index in p.results.rows
};

// A decoded row line taken into the prefix: refused when it belongs to
// another journal or contradicts an earlier row for its point; a retry of a
// failed point replaces it; a repeat of the same line changes nothing.
Status take_row(ResultRow row, bool replaces, std::string_view line, std::size_t line_no, const std::string& where,
                const std::set<std::string>& runs, const std::set<std::string>& shard_ids,
                std::map<std::string, FirstRow>& seen, JournalPrefix& p) {
  if (const std::string why = foreign_row_reason(row, p, runs, shard_ids); !why.empty()) {
    return make_error(where + ": a row that does not belong to this journal (" + why + "); " + kDamaged);
  }
  const std::string id = row.point.id();
  const std::size_t hash = std::hash<std::string_view>{}(line);
  auto [it, fresh] = seen.emplace(id, FirstRow{line_no, hash, p.results.rows.size()});
  if (fresh) {
    p.results.rows.push_back(std::move(row));
  } else if (replaces && p.results.rows[it->second.at].status == RowStatus::kFailed) {
    p.results.rows[it->second.at] = std::move(row);  // a retry of a failed point
    it->second = FirstRow{line_no, hash, it->second.at};
  } else if (hash != it->second.hash) {
    return make_error(where + ": a second, different row for point " + id + " (the first is line " +
                      std::to_string(it->second.line_no) +
                      "): the journal holds two answers to one question and moebench will not pick one; " + kDamaged);
  }
  return Status::success();
}

// A row line as journal_row_line writes it, read on the fast path
// (vocab/row_text.h): `replaces` says whether it retries a failed point.
// nullopt: read the line the strict way.
std::optional<ResultRow> fast_row_line(std::string_view line, bool& replaces) {
  constexpr std::string_view kRow = R"({"row":)", kRetry = R"({"replaces_failed":true,"row":)",
                             kEnd = R"(,"type":"row"})";
  if (line.size() < kRetry.size() + kEnd.size() || line.substr(line.size() - kEnd.size()) != kEnd) return std::nullopt;
  replaces = line.substr(0, kRetry.size()) == kRetry;
  const std::size_t start = replaces ? kRetry.size() : line.substr(0, kRow.size()) == kRow ? kRow.size() : 0;
  if (start == 0) return std::nullopt;
  return fast_row_from_text(line.substr(start, line.size() - kEnd.size() - start));
}


// The journal's whole lines (a torn last line, without its newline, is not
// one), and each row line after the header decoded on the fast path ahead
// of the in-order pass: decoding is pure and most of the work, so it runs
// on two cores. A line the fast path hands back is read the strict way in
// order.
struct DecodedLines {
  std::vector<std::string_view> lines;
  std::vector<std::optional<ResultRow>> rows;
  std::vector<char> replaces;
};

DecodedLines decode_lines(const std::string& text) {
  DecodedLines d;
  for (std::size_t pos = 0, nl; pos < text.size() && (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    d.lines.emplace_back(text.data() + pos, nl - pos);
  }
  d.rows.resize(d.lines.size());
  d.replaces.assign(d.lines.size(), 0);
  share_work(d.lines.size(), 512, [&d](std::size_t from, std::size_t to) {
    for (std::size_t i = std::max<std::size_t>(from, 1); i < to; ++i) {
      bool replaces = false;
      d.rows[i] = fast_row_line(d.lines[i], replaces);
      d.replaces[i] = replaces;
    }
  });
  return d;
}

}  // namespace

Expected<JournalPrefix> parse_journal_prefix(const std::string& path, const std::string& text) {
  JournalPrefix p;
  std::map<std::string, FirstRow> seen;
  std::set<std::string> runs, shard_ids;
  DecodedLines decoded = decode_lines(text);
  for (std::size_t i = 0; i < decoded.lines.size(); ++i) {
    const std::size_t line_no = i + 1;
    const std::string_view line = decoded.lines[i];
    const std::size_t nl = static_cast<std::size_t>(line.data() - text.data()) + line.size();
    const std::string where = path + ":" + std::to_string(line_no);
    if (std::optional<ResultRow>& fast = decoded.rows[i]) {
      const bool fast_replaces = decoded.replaces[i] != 0;
      if (Status st = take_row(std::move(*fast), fast_replaces, line, line_no, where, runs, shard_ids, seen, p); !st) {
        return st.error();
      }
      p.good_bytes = nl + 1;
      continue;
    }
    auto parsed = parse_json_text(line, path, line_no);
    if (!parsed) {
      // Only the last line can be torn by a crash; damage before it is real.
      if (nl + 1 == text.size()) break;
      const std::string& m = parsed.error().message;  // "PATH:LINE:COL: not valid JSON: ..."
      return make_error(where + ": damaged journal line (" + (m.rfind(path + ":", 0) == 0 ? m.substr(path.size() + 1) : m) +
                        "); " + kDamaged);
    }
    const Json& j = *parsed;
    if (!j.is_object()) {
      return make_error(where + ": a journal record is a JSON object, this line holds " + json_type_phrase(j) +
                        "; " + kDamaged);
    }
    Diagnostics d(where);
    ObjectReader r(j, "", d);
    const std::string type = r.string("type", true).value_or("");
    if (!d.ok()) return make_error(d.render() + "; " + kDamaged);
    if (line_no == 1) {
      if (type != "header") {
        return make_error(where + ": not a moebench journal (the first line is a \"header\" record, this one is \"" +
                          sanitize_utf8(utf8_prefix(type, 40)) + "\")");
      }
      const auto version = r.integer("journal_version", true, INT64_MIN, INT64_MAX);
      if (version && *version != kJournalVersion) {
        return make_error(where + ": /journal_version: journal version " + std::to_string(*version) +
                          " is not one this build reads (" + std::to_string(kJournalVersion) + ")");
      }
      const Json* sweep = r.object("sweep", true);
      const Json* env = r.object("environment", true);
      if (sweep) check_sweep_record(*sweep, "/sweep", d);
      if (env) check_environment_record(*env, "/environment", d);
      if (!d.ok()) return make_error(d.render() + "; " + kDamaged);
      auto s = sweep_info_from_json(*sweep);
      if (!s) return make_error(where + ": " + s.error().message);
      auto e = environment_from_json(*env);
      if (!e) return make_error(where + ": " + e.error().message);
      p.results.sweep = *s;
      p.results.environments.push_back(*e);
      p.has_header = true;
      runs.insert(e->run_id);
      if (s->shard) shard_ids.insert(s->shard->point_ids.begin(), s->shard->point_ids.end());
    } else if (type == "segment") {
      const Json* env = r.object("environment", true);
      if (env) check_environment_record(*env, "/environment", d);
      if (!d.ok()) return make_error(d.render() + "; " + kDamaged);
      auto e = environment_from_json(*env);
      if (!e) return make_error(where + ": " + e.error().message);
      p.results.environments.push_back(*e);
      runs.insert(e->run_id);
    } else if (type == "row") {
      const Json* row_json = r.object("row", true);
      if (row_json) check_row_record(*row_json, "/row", d);
      if (!d.ok()) return make_error(d.render() + "; " + kDamaged);
      auto row = row_from_json(*row_json);
      if (!row) return make_error(where + ": " + row.error().message + "; " + kDamaged);
      const bool replaces = r.boolean("replaces_failed", false).value_or(false);
      if (!d.ok()) return make_error(d.render() + "; " + kDamaged);
      if (Status st = take_row(std::move(*row), replaces, line, line_no, where, runs, shard_ids, seen, p); !st) {
        return st.error();
      }
    } else {
      return make_error(where + ": /type: unknown journal record type \"" + sanitize_utf8(utf8_prefix(type, 40)) +
                        "\" (expected header, segment or row); " + kDamaged);
    }
    p.good_bytes = nl + 1;
  }
  std::stable_sort(p.results.rows.begin(), p.results.rows.end(),
                   [](const ResultRow& a, const ResultRow& b) { return a.point.index < b.point.index; });
  return p;
}

Expected<RunResults> parse_journal_text(const std::string& text, const std::string& label) {
  auto parsed = parse_journal_prefix(label, text);
  if (!parsed) return parsed.error();
  if (!parsed->has_header) return make_error(label + ": empty journal (no header line)");
  return std::move(parsed->results);
}

Expected<RunResults> read_journal(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_journal_text(*text, path);
}

std::string journal_header_line(const SweepInfo& sweep, const Environment& env) {
  const Json header = {{"type", "header"},
                       {"journal_version", kJournalVersion},
                       {"sweep", sweep_info_to_json(sweep)},
                       {"environment", environment_to_json(env)}};
  // The environment holds the command line, which may be any bytes.
  return dump_untrusted(header) + "\n";
}

std::string journal_segment_line(const Environment& env) {
  return dump_untrusted(Json{{"type", "segment"}, {"environment", environment_to_json(env)}}) + "\n";
}

std::string journal_row_line(const ResultRow& row, bool replaces_failed) {
  std::string line;  // {"replaces_failed":true,"row":{...},"type":"row"}: keys in order, as dump sorts them
  JsonTextWriter w(line);
  w.begin_object();
  if (replaces_failed) {
    w.key("replaces_failed");
    line += "true";
  }
  w.key("row");
  w.begin_object();
  write_row_members(w, row);
  w.end_object();
  w.key("type");
  w.string("row");
  w.end_object();
  line += '\n';
  return line;
}

}  // namespace moebench
