// results_reader.cpp — see results_reader.h.
#include "reports/results_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <future>
#include <optional>
#include <memory>

#include "vocab/file_io.h"
#include "vocab/json_scan.h"
#include "vocab/journal_format.h"
#include "vocab/json_reader.h"

namespace moebench {

namespace {
const char* kWhatToDo = " (the file is damaged or was edited by hand; use the results.json a run wrote, or re-run)";

// The rows are cut out of the file one at a time (vocab/json_scan.h) and
// parsed, checked and decoded in batches on worker threads (a row's parse is
// most of the cost), while the scan goes on; batches are taken back in
// order, so rows, problems and the first error are those a single thread
// would give. Memory holds the decoded rows and the text of a few batches,
// not the file's text and tree (about 5 bytes per byte of file). Everything
// else (version, sweep, environments) is read from the text that remains.
class RowCollector {
 public:
  explicit RowCollector(const std::string& path) : path_(path), rows_diag_(path) {}

  Status add(std::string_view text, std::size_t line, std::size_t index) {
    if (batch_.texts.empty()) batch_.first = index;
    batch_.texts.emplace_back(std::string(text), line);
    if (batch_.texts.size() < kBatchRows) return Status::success();
    return launch();
  }
  // Every row added so far parsed and taken back (or the first error).
  Status finish() {
    if (failed_) return *failed_;
    if (Status st = launch(); !st) return st;
    while (!pending_.empty()) {
      if (Status st = take_back(); !st) return st;
    }
    return Status::success();
  }
  const Diagnostics& diagnostics() const { return rows_diag_; }
  std::vector<ResultRow> take_rows() { return std::move(rows_); }

 private:
  static constexpr std::size_t kMaxIssues = 100;
  static constexpr std::size_t kBatchRows = 256;
  static constexpr std::size_t kMaxPending = 3;

  struct Batch {
    std::size_t first = 0;  // index of its first row
    std::vector<std::pair<std::string, std::size_t>> texts;  // text, line
  };
  struct Parsed {
    std::vector<ResultRow> rows;
    std::vector<ConfigIssue> issues;
    std::optional<Error> error;  // stops the read
  };

  static Parsed parse_batch(const std::string& path, const Batch& batch) {
    Parsed out;
    Diagnostics d(path);
    for (std::size_t k = 0; k < batch.texts.size(); ++k) {
      auto parsed = parse_json_text(batch.texts[k].first, path, batch.texts[k].second);
      if (!parsed) {
        out.error = make_error(parsed.error().message + "; expected the results.json of `moebench run`");
        break;
      }
      const std::string where = json_pointer_append("/rows", batch.first + k);
      check_row_record(*parsed, where, d);
      if (!d.ok()) continue;  // keep checking: every problem is named at once
      // "columns" is derived from the rest (written for readers) and not read.
      auto row = row_from_json(*parsed);
      if (!row) {
        out.error = make_error(path + ": " + where + ": " + row.error().message + kWhatToDo);
        break;
      }
      out.rows.push_back(std::move(*row));
    }
    out.issues = d.issues();
    return out;
  }

  Status launch() {
    if (batch_.texts.empty()) return Status::success();
    pending_.push_back(std::async(std::launch::async, [this, batch = std::move(batch_)] {
      return parse_batch(path_, batch);
    }));
    batch_ = Batch{};
    if (pending_.size() <= kMaxPending) return Status::success();
    return take_back();
  }

  Status take_back() {
    Status st = take_back_in_order();
    if (!st && !failed_) failed_ = st.error();
    return st;
  }
  Status take_back_in_order() {
    if (failed_) return *failed_;  // the first error stands: nothing after it is read
    Parsed p = pending_.front().get();
    pending_.pop_front();
    for (ConfigIssue& issue : p.issues) {
      rows_diag_.add(std::move(issue.path), std::move(issue.message));
      if (rows_diag_.issues().size() >= kMaxIssues) {
        return make_error(rows_diag_.render() + "\n(stopped at the first " + std::to_string(kMaxIssues) +
                          " problems)" + kWhatToDo);
      }
    }
    if (p.error) return *p.error;
    if (!rows_diag_.ok()) return Status::success();  // nothing is decoded once a problem was found
    for (ResultRow& r : p.rows) rows_.push_back(std::move(r));
    return Status::success();
  }

  const std::string& path_;
  Diagnostics rows_diag_;
  std::vector<ResultRow> rows_;
  Batch batch_;
  std::deque<std::future<Parsed>> pending_;
  std::optional<Error> failed_;
};

// The document without its streamed rows (or with them, when they were not
// streamed), checked and decoded; `collected` holds the streamed rows.
Expected<RunResults> finish_results(const ScannedObject& scanned, RowCollector& collected, const std::string& path) {
  auto parsed = parse_json_text(scanned.rest, path);  // never throws: 1e999, deep nesting, duplicates are errors
  if (!parsed) return make_error(parsed.error().message + "; expected the results.json of `moebench run`");
  const Json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("moebench_results_version")) {
    return make_error(path + ": no \"moebench_results_version\": not a moebench results.json (use the results.json "
                             "in a run's --out directory)");
  }
  const Json& version = doc.at("moebench_results_version");
  if (!(version.is_number_integer() && version.get<std::int64_t>() == 1)) {
    return make_error(path + ": /moebench_results_version: results version " + utf8_prefix(dump_untrusted(version), 40) +
                      " is not one this build reads (1)");
  }
  // Every field the decoders read is checked first, so that each problem is
  // named by its JSON Pointer (and no decoder meets a type it cannot take).
  Diagnostics d(path);
  ObjectReader r(doc, "", d);
  const Json* sweep = r.object("sweep", true);
  if (sweep != nullptr) check_sweep_record(*sweep, "/sweep", d);
  const Json* envs = r.get("environments", false);
  if (envs != nullptr && !envs->is_array()) {
    d.add("/environments", "expected an array, got " + json_type_phrase(*envs));
    envs = nullptr;
  }
  if (envs != nullptr) {
    for (std::size_t i = 0; i < envs->size(); ++i) check_environment_record((*envs)[i], json_pointer_append("/environments", i), d);
  }
  const Json* rows = r.array("rows", true, false);
  if (rows != nullptr) {
    for (std::size_t i = 0; i < rows->size(); ++i) {
      if (Status st = collected.add(dump_untrusted((*rows)[i]), 1, i); !st) return st.error();
    }
    if (Status st = collected.finish(); !st) return st.error();
  }
  for (const ConfigIssue& issue : collected.diagnostics().issues()) d.add(issue.path, issue.message);
  if (!d.ok()) return make_error(d.render() + kWhatToDo);

  RunResults out;
  auto s = sweep_info_from_json(*sweep);
  if (!s) return make_error(path + ": /sweep: " + s.error().message);
  out.sweep = *s;
  if (envs != nullptr) {
    for (std::size_t i = 0; i < envs->size(); ++i) {
      auto e = environment_from_json((*envs)[i]);
      if (!e) return make_error(path + ": /environments/" + std::to_string(i) + ": " + e.error().message);
      out.environments.push_back(*e);
    }
  }
  out.rows = collected.take_rows();
  return out;
}

}  // namespace

Expected<RunResults> parse_results_text(const std::string& text, const std::string& path) {
  RowCollector rows(path);
  auto scanned = scan_json_object(text, path, "rows", [&rows](std::string_view t, std::size_t line, std::size_t i) {
    return rows.add(t, line, i);
  });
  // A damaged row before the place where the scan stopped is named first.
  if (Status st = rows.finish(); !st) return st.error();
  if (!scanned) return scanned.error();
  return finish_results(*scanned, rows, path);
}

Expected<RunResults> load_results_file(const std::string& path) {
  if (auto st = refuse_non_regular_file(path, "a results.json file"); !st) return st.error();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return make_error(path + ": cannot open file: " + std::strerror(errno));
  RowCollector rows(path);
  auto scanned = scan_json_object(file.get(), path, "rows", [&rows](std::string_view t, std::size_t line, std::size_t i) {
    return rows.add(t, line, i);
  });
  // A damaged row before the place where the scan stopped is named first.
  if (Status st = rows.finish(); !st) return st.error();
  if (!scanned) return scanned.error();
  return finish_results(*scanned, rows, path);
}

}  // namespace moebench
