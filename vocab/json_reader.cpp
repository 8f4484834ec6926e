// json_reader.cpp — see json_reader.h.
#include "vocab/json_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

void Diagnostics::add(std::string path, std::string message) {
  issues_.push_back({std::move(path), std::move(message)});
}

std::string Diagnostics::render() const {
  std::string out;
  for (std::size_t i = 0; i < issues_.size(); ++i) {
    if (i) out += '\n';
    out += file_ + ": " + (issues_[i].path.empty() ? std::string("(root)") : issues_[i].path) +
           ": " + issues_[i].message;
  }
  return out;
}
namespace {

void line_col(std::string_view text, std::size_t byte, std::size_t& line, std::size_t& col) {
  line = 1;
  col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
}

// Byte offset of the bracket that opens nesting level `depth` + 1 (strings
// and comments skipped), or text.size() if the text never gets that deep.
std::size_t too_deep_offset(std::string_view text, std::size_t depth) {
  std::size_t level = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '[' || c == '{') {
      if (++level > depth) return i;
    } else if ((c == ']' || c == '}') && level > 0) {
      --level;
    }
  }
  return text.size();
}

// Builds the document from nlohmann's SAX events (the same tree its own DOM
// parser builds) and enforces what that parser does not: no duplicate keys,
// a nesting limit; and it keeps the error's byte position, which nlohmann
// drops for a number out of range (its out_of_range has no position).
class StrictDomBuilder {
 public:
  StrictDomBuilder(Json& root, std::size_t base_depth, std::string base_pointer)
      : root_(root), base_depth_(base_depth), base_pointer_(std::move(base_pointer)) {}

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(Json::number_integer_t v) { return value(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value(v); }
  bool number_float(Json::number_float_t v, const std::string& /*text*/) { return value(v); }
  bool string(std::string& v) { return value(std::move(v)); }
  bool binary(Json::binary_t& /*v*/) { return value(nullptr); }  // never produced by the text parser
  bool start_object(std::size_t /*elements*/) { return open(Json::value_t::object); }
  bool start_array(std::size_t /*elements*/) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!has_duplicate_ && f.node->contains(k)) {
      has_duplicate_ = true;
      duplicate_key_ = k;
      duplicate_path_ = json_pointer_append(open_path(), k);
    }
    pending_key_ = k;
    member_ = &(*f.node)[k];
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    error_position_ = position;
    error_token_ = last_token;
    error_id_ = ex.id;
    error_what_ = ex.what();
    return false;
  }

  bool too_deep() const { return too_deep_; }
  bool has_duplicate() const { return has_duplicate_; }
  const std::string& duplicate_key() const { return duplicate_key_; }
  const std::string& duplicate_path() const { return duplicate_path_; }
  std::size_t error_position() const { return error_position_; }
  const std::string& error_token() const { return error_token_; }
  int error_id() const { return error_id_; }
  const std::string& error_what() const { return error_what_; }

 private:
  struct Frame {
    Json* node;
    std::string token;  // its key in the parent object, or its index in the parent array
  };

  // Places a value where the parser is: the root, the next array element or
  // the member whose key came last. Returns it, and the token that names it
  // in its parent when `token` is given (only containers need one).
  template <typename V>
  Json* place(V&& v, std::string* token) {
    if (frames_.empty()) {
      root_ = Json(std::forward<V>(v));
      if (token) token->clear();
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.node->is_array()) {
      if (token) *token = std::to_string(f.node->size());
      f.node->emplace_back(std::forward<V>(v));
      return &f.node->back();
    }
    if (token) *token = pending_key_;
    *member_ = Json(std::forward<V>(v));
    return member_;
  }
  template <typename V>
  bool value(V&& v) {
    place(std::forward<V>(v), nullptr);
    return true;
  }
  bool open(Json::value_t type) {
    if (frames_.size() + base_depth_ >= kMaxJsonDepth) {
      too_deep_ = true;
      return false;
    }
    std::string token;
    Json* node = place(type, &token);
    frames_.push_back(Frame{node, std::move(token)});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  // The JSON Pointer of the innermost open object or array (built only for
  // an error: a path per value costs as much as the parse).
  std::string open_path() const {
    std::string path = base_pointer_;
    for (std::size_t i = 1; i < frames_.size(); ++i) path = json_pointer_append(path, frames_[i].token);
    return path;
  }

  Json& root_;
  std::size_t base_depth_ = 0;
  std::string base_pointer_;
  std::vector<Frame> frames_;
  std::string pending_key_;
  Json* member_ = nullptr;
  bool too_deep_ = false;
  bool has_duplicate_ = false;  // the key may be "" itself
  std::string duplicate_key_, duplicate_path_;
  std::size_t error_position_ = 0;
  std::string error_token_;
  int error_id_ = 0;
  std::string error_what_;
};

}  // namespace

Expected<Json> parse_json_text(std::string_view text, const std::string& file_label, std::size_t first_line) {
  return parse_json_text(text, file_label, JsonTextOrigin{first_line, 1, "", 0});
}

Expected<Json> parse_json_text(std::string_view text, const std::string& file_label, const JsonTextOrigin& origin) {
  Json doc;
  StrictDomBuilder builder(doc, origin.depth, origin.pointer);
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json,
                         /*strict=*/true, /*ignore_comments=*/true);
  } catch (const std::exception& e) {  // nlohmann reports errors through the builder; this is a guard
    return make_error(file_label + ": not valid JSON: " + sanitize_utf8(e.what()));
  }
  auto at = [&](std::size_t byte) {
    std::size_t line = 0, col = 0;
    line_col(text, byte, line, col);
    if (line == 1) col += origin.first_column - 1;
    return file_label + ":" + std::to_string(line + origin.first_line - 1) + ":" + std::to_string(col);
  };
  if (builder.too_deep()) {
    const std::size_t room = kMaxJsonDepth > origin.depth ? kMaxJsonDepth - origin.depth : 0;
    return make_error(at(too_deep_offset(text, room)) + ": nested deeper than " +
                      std::to_string(kMaxJsonDepth) + " arrays/objects; no moebench file needs that — "
                      "check the brackets");
  }
  if (!ok) {
    const std::size_t end = builder.error_position();
    if (builder.error_id() == 406) {  // out_of_range: a number beyond double range
      const std::string& token = builder.error_token();
      const std::size_t start = end >= token.size() ? end - token.size() : 0;
      return make_error(at(start) + ": number " + sanitize_utf8(utf8_prefix(token, 40)) +
                        " is outside the range of a double (about ±1.8e308); write the value in range "
                        "(sizes and rates as strings like \"8GiB\" or \"12GB/s\")");
    }
    std::string what = builder.error_what();
    const auto pos = what.find("parse error");
    if (pos != std::string::npos) what = what.substr(pos);
    return make_error(at(end > 0 ? end - 1 : 0) + ": not valid JSON: " + sanitize_utf8(what));
  }
  if (builder.has_duplicate()) {
    return make_error(file_label + ": " + builder.duplicate_path() + ": duplicate key \"" +
                      sanitize_utf8(builder.duplicate_key()) +
                      "\" in one object; JSON would keep only the last one — remove one of them");
  }
  return doc;
}

Expected<Json> read_json_file(const std::string& path) {
  if (auto st = refuse_non_regular_file(path, "a JSON file"); !st) return st.error();
  std::error_code ec;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)) && !std::filesystem::exists(path, ec)) {
    return make_error(path + ": a symbolic link to nothing (dangling): fix or remove it");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(path + ": cannot open file (check the path; relative paths are taken from " +
                      "the current directory)");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return parse_json_text(ss.str(), path);
}

std::string json_pointer_append(const std::string& base, std::string_view token) {
  std::string out = base + "/";
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string json_pointer_append(const std::string& base, std::size_t index) {
  return base + "/" + std::to_string(index);
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte (RFC 3629 table)
    if (b < 0x80) {
      len = 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;  // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    }
    bool valid = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; valid && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      valid = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
    }
    if (valid) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for one invalid byte
      ++i;
    }
  }
  return out;
}

std::string dump_untrusted(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string json_type_phrase(const Json& j) {
  // Scalars only: a container is named, not printed (it may be huge or deep).
  std::string shown;
  if (j.is_primitive()) {
    shown = dump_untrusted(j);
    if (shown.size() > 40) shown = utf8_prefix(shown, 37) + "...";
  }
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean (" + shown + ")";
    case Json::value_t::string: return "a string (" + shown + ")";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer (" + shown + ")";
    case Json::value_t::number_float: return "a number (" + shown + ")";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

std::optional<std::string> read_string(const Json& j, const std::string& path, Diagnostics& d) {
  if (!j.is_string()) {
    d.add(path, "expected a string, got " + json_type_phrase(j));
    return std::nullopt;
  }
  return j.get<std::string>();
}

std::optional<std::int64_t> read_integer(const Json& j, const std::string& path, Diagnostics& d,
                                         std::int64_t min_value, std::int64_t max_value) {
  std::int64_t v = 0;
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      d.add(path, "integer " + j.dump() + " is too large (at most " + std::to_string(max_value) + ")");
      return std::nullopt;
    }
    v = static_cast<std::int64_t>(u);
  } else if (j.is_number_integer()) {
    v = j.get<std::int64_t>();
  } else {
    d.add(path, "expected an integer, got " + json_type_phrase(j));
    return std::nullopt;
  }
  if (v < min_value || v > max_value) {
    std::string range;
    if (max_value == INT64_MAX) {
      range = "at least " + std::to_string(min_value);
    } else {
      range = "between " + std::to_string(min_value) + " and " + std::to_string(max_value);
    }
    d.add(path, "expected an integer " + range + ", got " + std::to_string(v));
    return std::nullopt;
  }
  return v;
}

std::optional<double> read_number(const Json& j, const std::string& path, Diagnostics& d) {
  if (!j.is_number()) {
    d.add(path, "expected a number, got " + json_type_phrase(j));
    return std::nullopt;
  }
  const double v = j.get<double>();
  if (!std::isfinite(v)) {
    d.add(path, "expected a finite number");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> read_bool(const Json& j, const std::string& path, Diagnostics& d) {
  if (!j.is_boolean()) {
    d.add(path, "expected true or false, got " + json_type_phrase(j));
    return std::nullopt;
  }
  return j.get<bool>();
}

std::optional<std::uint64_t> read_size(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_number_integer() || j.is_number_unsigned()) {
    if (j.is_number_unsigned() ? j.get<std::uint64_t>() == 0 : j.get<std::int64_t>() <= 0) {
      d.add(path, "expected a size greater than zero, got " + dump_untrusted(j));
      return std::nullopt;
    }
    return j.is_number_unsigned() ? j.get<std::uint64_t>()
                                  : static_cast<std::uint64_t>(j.get<std::int64_t>());
  }
  if (j.is_number_float()) {  // 25276510208.0 is a byte count; 1.5 is not
    const double v = j.get<double>();
    if (v > 0 && v <= kMaxSizeBytes && v == std::floor(v)) return static_cast<std::uint64_t>(v);
  }
  if (!j.is_string()) {
    d.add(path, "expected a size like \"8GiB\" or a byte count, got " + json_type_phrase(j));
    return std::nullopt;
  }
  auto parsed = parse_size_bytes(j.get<std::string>());
  if (!parsed) {
    d.add(path, parsed.error().message);
    return std::nullopt;
  }
  if (*parsed == 0) {
    d.add(path, "expected a size of at least one byte, got " + dump_untrusted(j));
    return std::nullopt;
  }
  return *parsed;
}

std::optional<double> read_rate(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!(v > 0) || !std::isfinite(v)) {
      d.add(path, "expected a rate greater than zero, got " + dump_untrusted(j));
      return std::nullopt;
    }
    if (v > kMaxRateBytesS) {
      d.add(path, "rate " + dump_untrusted(j) + " bytes/s is beyond any machine (limit " + format_rate(kMaxRateBytesS) +
                      "); check the unit (a rate is in bytes per second)");
      return std::nullopt;
    }
    return v;
  }
  if (!j.is_string()) {
    d.add(path, "expected a rate like \"12.78GB/s\", got " + json_type_phrase(j));
    return std::nullopt;
  }
  auto parsed = parse_rate_bytes_s(j.get<std::string>());
  if (!parsed) {
    d.add(path, parsed.error().message);
    return std::nullopt;
  }
  return *parsed;
}

std::optional<std::string> read_enum(const Json& j, const std::string& path, Diagnostics& d,
                                     const std::vector<std::string>& allowed,
                                     std::string_view what) {
  auto s = read_string(j, path, d);
  if (!s) return std::nullopt;
  for (const std::string& a : allowed) {
    if (*s == a) return s;
  }
  d.add(path, "unknown " + std::string(what) + " \"" + *s + "\"" + did_you_mean(*s, allowed) +
                  "; expected one of: " + join(allowed, ", "));
  return std::nullopt;
}

ObjectReader::ObjectReader(const Json& j, std::string path, Diagnostics& d)
    : path_(std::move(path)), d_(d) {
  if (j.is_object()) {
    obj_ = &j;
  } else {
    d_.add(path_, "expected an object, got " + json_type_phrase(j));
  }
}

bool ObjectReader::has(std::string_view key) const {
  return obj_ != nullptr && obj_->find(std::string(key)) != obj_->end();
}

const Json* ObjectReader::get(std::string_view key, bool required) {
  known_.insert(std::string(key));
  if (obj_ == nullptr) return nullptr;
  auto it = obj_->find(std::string(key));
  if (it == obj_->end()) {
    if (required) d_.add(path_of(key), "missing required field \"" + std::string(key) + "\"");
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> ObjectReader::string(std::string_view key, bool required) {
  const Json* j = get(key, required);
  return j ? read_string(*j, path_of(key), d_) : std::nullopt;
}

std::optional<std::int64_t> ObjectReader::integer(std::string_view key, bool required,
                                                  std::int64_t min_value, std::int64_t max_value) {
  const Json* j = get(key, required);
  return j ? read_integer(*j, path_of(key), d_, min_value, max_value) : std::nullopt;
}

std::optional<double> ObjectReader::number(std::string_view key, bool required) {
  const Json* j = get(key, required);
  return j ? read_number(*j, path_of(key), d_) : std::nullopt;
}

std::optional<bool> ObjectReader::boolean(std::string_view key, bool required) {
  const Json* j = get(key, required);
  return j ? read_bool(*j, path_of(key), d_) : std::nullopt;
}

std::optional<std::uint64_t> ObjectReader::size(std::string_view key, bool required) {
  const Json* j = get(key, required);
  return j ? read_size(*j, path_of(key), d_) : std::nullopt;
}

std::optional<double> ObjectReader::rate(std::string_view key, bool required) {
  const Json* j = get(key, required);
  return j ? read_rate(*j, path_of(key), d_) : std::nullopt;
}

std::optional<std::string> ObjectReader::enumeration(std::string_view key, bool required,
                                                     const std::vector<std::string>& allowed,
                                                     std::string_view what) {
  const Json* j = get(key, required);
  return j ? read_enum(*j, path_of(key), d_, allowed, what) : std::nullopt;
}

const Json* ObjectReader::array(std::string_view key, bool required, bool non_empty) {
  const Json* j = get(key, required);
  if (j == nullptr) return nullptr;
  if (!j->is_array()) {
    d_.add(path_of(key), "expected an array, got " + json_type_phrase(*j));
    return nullptr;
  }
  if (non_empty && j->empty()) {
    d_.add(path_of(key), "must not be empty; give at least one value (or remove the key to use "
                         "the default)");
    return nullptr;
  }
  return j;
}

const Json* ObjectReader::object(std::string_view key, bool required) {
  const Json* j = get(key, required);
  if (j == nullptr) return nullptr;
  if (!j->is_object()) {
    d_.add(path_of(key), "expected an object, got " + json_type_phrase(*j));
    return nullptr;
  }
  return j;
}

void ObjectReader::finish() {
  if (finished_ || obj_ == nullptr) return;
  finished_ = true;
  const std::vector<std::string> known(known_.begin(), known_.end());
  for (auto it = obj_->begin(); it != obj_->end(); ++it) {
    if (known_.count(it.key()) == 0) {
      d_.add(path_of(it.key()), "unknown key \"" + it.key() + "\"" + did_you_mean(it.key(), known) +
                                    "; known keys here: " + join(known, ", "));
    }
  }
}

}  // namespace moebench
