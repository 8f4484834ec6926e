// results_reader.cpp — see results_reader.h.
#include "reports/results_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "vocab/file_io.h"
#include "vocab/json_scan.h"
#include "vocab/journal_format.h"
#include "vocab/json_reader.h"

namespace moebench {

namespace {
const char* kWhatToDo = " (the file is damaged or was edited by hand; use the results.json a run wrote, or re-run)";

// The rows are cut out of the file one at a time (vocab/json_scan.h): each
// is parsed, checked and decoded alone, so memory holds the decoded rows and
// one row's tree, not the file's text and tree (about 5 bytes per byte of
// file). Everything else (version, sweep, environments) is read as before
// from the text that remains.
class RowCollector {
 public:
  explicit RowCollector(const std::string& path) : path_(path), rows_diag_(path) {}

  Status add(std::string_view text, std::size_t line, std::size_t index) {
    auto parsed = parse_json_text(text, path_, line);
    if (!parsed) return make_error(parsed.error().message + "; expected the results.json of `moebench run`");
    const std::string where = json_pointer_append("/rows", index);
    check_row_record(*parsed, where, rows_diag_);
    if (rows_diag_.issues().size() >= kMaxIssues) {
      return make_error(rows_diag_.render() + "\n(stopped at the first " + std::to_string(kMaxIssues) +
                        " problems)" + kWhatToDo);
    }
    if (!rows_diag_.ok()) return Status::success();  // keep reading: every problem is named at once
    // "columns" is derived from the rest (written for readers) and not read.
    auto row = row_from_json(*parsed);
    if (!row) return make_error(path_ + ": " + where + ": " + row.error().message + kWhatToDo);
    rows_.push_back(std::move(*row));
    return Status::success();
  }
  const Diagnostics& diagnostics() const { return rows_diag_; }
  std::vector<ResultRow> take_rows() { return std::move(rows_); }

 private:
  static constexpr std::size_t kMaxIssues = 100;
  const std::string& path_;
  Diagnostics rows_diag_;
  std::vector<ResultRow> rows_;
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
  if (!scanned) return scanned.error();
  return finish_results(*scanned, rows, path);
}

}  // namespace moebench
