// results_reader.cpp — see results_reader.h.
//
// The rows are cut out of the file one at a time (vocab/json_scan.h) and
// parsed, checked and decoded in batches on worker threads (a row's parse is
// most of the cost) while the scan goes on; batches are taken back in order.
// A row written as moebench writes it takes the fast path (vocab/row_text.h);
// any other goes through the strict reader, which names its problems.
// Memory holds the decoded rows and the text of a few batches, not the
// file's text and tree (about 5 bytes per byte of file). The rest of the
// document (version, sweep, environments) is read from the text that remains.
//
// What a file reading it whole would say comes out the same, in the same
// order: a syntax error; then "not a results file" or a version this build
// does not read; then every check problem at once (sweep, environments,
// rows; rows capped at 100); then a decoding error.
#include "reports/results_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <system_error>
#include <variant>

#include "vocab/file_io.h"
#include "vocab/journal_format.h"
#include "vocab/json_reader.h"
#include "vocab/json_scan.h"
#include "vocab/row_text.h"

namespace moebench {
namespace {

const char* kWhatToDo = " (the file is damaged or was edited by hand; use the results.json a run wrote, or re-run)";
const char* kNotResults = "; expected the results.json of `moebench run`";

// What the rows gave: decoded rows, or why not, kept apart so that the
// caller can put the errors in the order a whole-file reader gives them.
class RowCollector {
 public:
  explicit RowCollector(std::string path) : path_(std::move(path)), problems_(path_) {}

  Status add(std::string_view text, const ElementPlace& place) { return add_row(std::string(text), place); }
  // A row already parsed (read from the document's tree).
  void add_tree(Json row, const ElementPlace& place) { (void)add_row(std::move(row), place); }
  // Every row added so far taken back.
  void finish() {
    launch();
    while (!pending_.empty()) take_back();
  }
  const std::optional<Error>& syntax_error() const { return syntax_error_; }
  const Diagnostics& problems() const { return problems_; }
  bool capped() const { return capped_; }
  const std::optional<Error>& decode_error() const { return decode_error_; }
  std::vector<ResultRow> take_rows() { return std::move(rows_); }

 private:
  static constexpr std::size_t kMaxProblems = 100;
  static constexpr std::size_t kBatchRows = 256;
  static constexpr std::size_t kMaxPending = 3;

  struct Text {
    std::variant<std::string, Json> body;  // the row's text, or its tree
    ElementPlace place;
  };
  struct Batch {
    std::size_t first = 0;  // index of its first row
    std::vector<Text> texts;
  };
  struct Parsed {
    std::vector<ResultRow> rows;
    std::vector<ConfigIssue> issues;
    std::optional<Error> syntax_error, decode_error;  // the batch's first of each
  };

  bool stopped() const { return syntax_error_.has_value() || capped_; }

  Status add_row(std::variant<std::string, Json> body, const ElementPlace& place) {
    if (stopped()) return Status::success();  // the answer is known; the scan only finds the end
    if (batch_.texts.empty()) batch_.first = place.index;
    batch_.texts.push_back({std::move(body), place});
    if (batch_.texts.size() >= kBatchRows) launch();
    return Status::success();
  }

  // One parsed row checked and decoded into `out`.
  static void decode_row(const Json& row, const std::string& where, const std::string& path, Diagnostics& d,
                         Parsed& out) {
    check_row_record(row, where, d);
    if (!d.ok() || out.decode_error) return;  // problems are all named; nothing decoded after one
    // "columns" is derived from the rest (written for readers) and not read.
    auto decoded = row_from_json(row);
    if (!decoded) {
      out.decode_error = make_error(path + ": " + where + ": " + decoded.error().message + kWhatToDo);
      return;
    }
    out.rows.push_back(std::move(*decoded));
  }

  static Parsed parse_batch(const std::string& path, const Batch& batch) {
    Parsed out;
    Diagnostics d(path);
    for (const Text& t : batch.texts) {
      const std::string where = json_pointer_append("/rows", t.place.index);
      if (const Json* tree = std::get_if<Json>(&t.body)) {
        decode_row(*tree, where, path, d, out);
        continue;
      }
      const auto& text = std::get<std::string>(t.body);
      if (auto fast = fast_row_from_text(text)) {  // what the strict way gives, at a fraction of its cost
        if (!out.decode_error) out.rows.push_back(std::move(*fast));
        continue;
      }
      auto parsed = parse_json_text(text, path, JsonTextOrigin{t.place.line, t.place.column, where, 2});
      if (!parsed) {
        out.syntax_error = make_error(parsed.error().message + kNotResults);
        break;
      }
      decode_row(*parsed, where, path, d, out);
    }
    out.issues = d.issues();
    return out;
  }

  void launch() {
    if (batch_.texts.empty()) return;
    auto batch = std::make_shared<const Batch>(std::move(batch_));
    batch_ = Batch{};
    std::future<Parsed> next;
    try {
      next = std::async(std::launch::async, [path = path_, batch] { return parse_batch(path, *batch); });
    } catch (const std::system_error&) {  // no thread to be had: parse it here
      std::promise<Parsed> here;
      here.set_value(parse_batch(path_, *batch));
      next = here.get_future();
    }
    pending_.push_back(std::move(next));
    if (pending_.size() > kMaxPending) take_back();
  }

  void take_back() {
    Parsed p = pending_.front().get();
    pending_.pop_front();
    if (stopped()) return;  // an earlier batch settled the answer
    for (ConfigIssue& issue : p.issues) {
      if (problems_.issues().size() >= kMaxProblems) {
        capped_ = true;
        break;
      }
      problems_.add(std::move(issue.path), std::move(issue.message));
    }
    if (p.syntax_error) syntax_error_ = std::move(p.syntax_error);
    if (!decode_error_ && p.decode_error) decode_error_ = std::move(p.decode_error);
    if (problems_.ok() && !decode_error_) {
      for (ResultRow& r : p.rows) rows_.push_back(std::move(r));
    }
  }

  std::string path_;
  Diagnostics problems_;
  bool capped_ = false;
  std::optional<Error> syntax_error_, decode_error_;
  std::vector<ResultRow> rows_;
  Batch batch_;
  std::deque<std::future<Parsed>> pending_;
};

// The document without its streamed rows (or with them, when they were not
// streamed) read, and every error put in the order a whole-file reader gives.
Expected<RunResults> finish_results(const Expected<ScannedObject>& scanned, RowCollector& collected,
                                    const std::string& path) {
  collected.finish();
  if (!scanned) return collected.syntax_error() ? *collected.syntax_error() : scanned.error();
  auto parsed = parse_json_text(scanned->rest, path);  // never throws: 1e999, deep nesting, duplicates are errors
  if (!parsed) return make_error(parsed.error().message + kNotResults);
  if (collected.syntax_error()) return *collected.syntax_error();
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
  if (rows != nullptr && scanned->streamed && !rows->empty()) {
    return make_error(path + ": /rows: the rows were not where a results.json keeps them" + std::string(kWhatToDo));
  }
  if (rows != nullptr && !scanned->streamed) {  // "rows" not found by the scan (an escaped key): read from the tree
    for (std::size_t i = 0; i < rows->size(); ++i) {
      collected.add_tree((*rows)[i], ElementPlace{1, 1, i});
    }
    collected.finish();
    if (collected.syntax_error()) return *collected.syntax_error();
  }
  for (const ConfigIssue& issue : collected.problems().issues()) d.add(issue.path, issue.message);
  if (!d.ok()) {
    const std::string more = collected.capped() ? "\n(the rows' problems stop at the first 100)" : "";
    return make_error(d.render() + more + kWhatToDo);
  }

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
  if (collected.decode_error()) return *collected.decode_error();
  out.rows = collected.take_rows();
  return out;
}

template <typename Source>
Expected<RunResults> read_results(Source&& source, const std::string& path) {
  RowCollector rows(path);
  auto scanned = scan_json_object(source, path, "rows", [&rows](std::string_view text, const ElementPlace& place) {
    return rows.add(text, place);
  });
  return finish_results(scanned, rows, path);
}

}  // namespace

Expected<RunResults> parse_results_text(const std::string& text, const std::string& path) {
  return read_results(std::string_view(text), path);
}

std::string results_file_path(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return (std::filesystem::path(path) / "results.json").string();
  return path;
}

Expected<RunResults> load_results_file(const std::string& given) {
  const std::string path = results_file_path(given);
  if (auto st = refuse_non_regular_file(path, "a results.json file (or a run directory holding one)"); !st) return st.error();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return make_error(path + ": cannot open file: " + std::strerror(errno));
  return read_results(file.get(), path);
}

}  // namespace moebench
