// json_reader.h — strict, path-aware reading of JSON config files.
//
// Every config type (model card, machine profile, sweep, claim) is loaded
// through ObjectReader so that the same rules hold everywhere: comments are
// allowed; unknown keys, duplicate keys, wrong types, missing required fields
// and bad sizes are errors; each error names the file, the JSON Pointer path
// (RFC 6901, e.g. /axes/ram_budget/2) and what to do. Errors are collected,
// not thrown, so one `moebench validate` shows all of them at once.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vocab/expected.h"
#include "vocab/text.h"

namespace moebench {

using Json = nlohmann::json;

struct ConfigIssue {
  std::string path;     // JSON Pointer; "" is the document root
  std::string message;  // what is wrong and what to do
};

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}
  void add(std::string path, std::string message);
  bool ok() const { return issues_.empty(); }
  const std::vector<ConfigIssue>& issues() const { return issues_; }
  const std::string& file() const { return file_; }
  // One line per issue: "FILE: /path: message".
  std::string render() const;
  Error to_error() const { return make_error(render()); }

 private:
  std::string file_;
  std::vector<ConfigIssue> issues_;
};

// Nesting deeper than this is refused at parse time (moebench's own files
// nest at most six deep; printing or walking a deeper tree recurses).
inline constexpr std::size_t kMaxJsonDepth = 128;

// Parses JSON text that may contain // and /* */ comments. Never throws:
// a syntax error, a number outside double range (1e999), nesting deeper
// than kMaxJsonDepth and a duplicate key (with its JSON Pointer) are errors
// naming the file and the line and column. `first_line` is the line number
// of the text's first line in the file (for one line of a JSONL file).
Expected<Json> parse_json_text(std::string_view text, const std::string& file_label, std::size_t first_line = 1);

// Where a piece of a larger document sits in it (one row of a results file
// read row by row): errors then give the document's line and column and JSON
// Pointer, and the nesting limit counts the arrays and objects around it.
struct JsonTextOrigin {
  std::size_t first_line = 1;    // line of the text's first byte
  std::size_t first_column = 1;  // column of the text's first byte
  std::string pointer;           // JSON Pointer of the text's value ("" = the root)
  std::size_t depth = 0;         // arrays and objects the text's value is inside
};
Expected<Json> parse_json_text(std::string_view text, const std::string& file_label, const JsonTextOrigin& origin);
Expected<Json> read_json_file(const std::string& path);

// Text from outside (a file, argv, a GGUF string) as valid UTF-8: each byte
// that does not start a well-formed UTF-8 sequence becomes U+FFFD.
std::string sanitize_utf8(std::string_view s);
// dump() that cannot throw on invalid UTF-8 in a string (it is replaced by
// U+FFFD): for every document holding text from outside.
std::string dump_untrusted(const Json& j, int indent = -1);

// Parses `text` (labelled `label` in errors) and runs a strict loader
// `std::optional<T> loader(const Json&, Diagnostics&)` over it.
template <typename T, typename Loader>
Expected<T> load_config_text(const std::string& text, const std::string& label, Loader loader) {
  auto j = parse_json_text(text, label);
  if (!j) return j.error();
  Diagnostics d(label);
  std::optional<T> value = loader(*j, d);
  if (!value) return d.to_error();
  return std::move(*value);
}

// The same for a file on disk.
template <typename T, typename Loader>
Expected<T> load_config_file(const std::string& path, Loader loader) {
  auto j = read_json_file(path);
  if (!j) return j.error();
  Diagnostics d(path);
  std::optional<T> value = loader(*j, d);
  if (!value) return d.to_error();
  return std::move(*value);
}

std::string json_pointer_append(const std::string& base, std::string_view token);
std::string json_pointer_append(const std::string& base, std::size_t index);
std::string json_type_phrase(const Json& j);  // "a string (\"8 gigs\")", "an integer (3)", ...

// Element readers: validate one JSON value at `path`; on failure add an
// issue and return nullopt.
std::optional<std::string> read_string(const Json& j, const std::string& path, Diagnostics& d);
std::optional<std::int64_t> read_integer(const Json& j, const std::string& path, Diagnostics& d,
                                         std::int64_t min_value, std::int64_t max_value);
std::optional<double> read_number(const Json& j, const std::string& path, Diagnostics& d);
std::optional<bool> read_bool(const Json& j, const std::string& path, Diagnostics& d);
std::optional<std::uint64_t> read_size(const Json& j, const std::string& path, Diagnostics& d);
std::optional<double> read_rate(const Json& j, const std::string& path, Diagnostics& d);
std::optional<std::string> read_enum(const Json& j, const std::string& path, Diagnostics& d,
                                     const std::vector<std::string>& allowed,
                                     std::string_view what);

// Reads the fields of one JSON object. Each accessor marks its key as known;
// finish() reports every key that no accessor asked for, with the closest
// known key as a hint.
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string path, Diagnostics& d);
  ~ObjectReader() = default;
  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  bool is_object() const { return obj_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return json_pointer_append(path_, key); }
  Diagnostics& diagnostics() { return d_; }

  // Returns the raw value for `key` (marking it known), or nullptr. A missing
  // required key is reported.
  const Json* get(std::string_view key, bool required);
  bool has(std::string_view key) const;

  std::optional<std::string> string(std::string_view key, bool required);
  std::optional<std::int64_t> integer(std::string_view key, bool required,
                                      std::int64_t min_value = INT64_MIN,
                                      std::int64_t max_value = INT64_MAX);
  std::optional<double> number(std::string_view key, bool required);
  std::optional<bool> boolean(std::string_view key, bool required);
  std::optional<std::uint64_t> size(std::string_view key, bool required);
  std::optional<double> rate(std::string_view key, bool required);
  std::optional<std::string> enumeration(std::string_view key, bool required,
                                         const std::vector<std::string>& allowed,
                                         std::string_view what);
  // An array (possibly required non-empty); returns nullptr if absent/wrong.
  const Json* array(std::string_view key, bool required, bool non_empty);
  const Json* object(std::string_view key, bool required);

  // Reports unknown keys. Call once all accessors have run.
  void finish();

 private:
  const Json* obj_ = nullptr;
  std::string path_;
  Diagnostics& d_;
  std::set<std::string, std::less<>> known_;
  bool finished_ = false;
};

}  // namespace moebench
