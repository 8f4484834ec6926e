// json_reader.cpp — see json_reader.h.
#include "harness/json_reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "harness/text.h"
#include "harness/units.h"

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

}  // namespace

Expected<Json> parse_json_text(std::string_view text, const std::string& file_label) {
  // Track keys per open object to reject duplicates, which nlohmann would
  // otherwise resolve silently (last one wins).
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        open_objects.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open_objects.empty() && parsed.is_string()) {
          const std::string key = parsed.get<std::string>();
          if (!open_objects.back().insert(key).second && duplicate.empty()) duplicate = key;
        }
        break;
      default:
        break;
    }
    return true;
  };
  try {
    Json j = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                         /*ignore_comments=*/true);
    if (!duplicate.empty()) {
      return make_error(file_label + ": duplicate key \"" + duplicate +
                        "\" in one object; JSON would keep only the last one — remove one of them");
    }
    return j;
  } catch (const Json::parse_error& e) {
    std::size_t line = 0, col = 0;
    line_col(text, e.byte > 0 ? e.byte - 1 : 0, line, col);
    std::string what = e.what();
    const auto pos = what.find("parse error");
    if (pos != std::string::npos) what = what.substr(pos);
    return make_error(file_label + ":" + std::to_string(line) + ":" + std::to_string(col) +
                      ": not valid JSON: " + what);
  }
}

Expected<Json> read_json_file(const std::string& path) {
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

std::string json_type_phrase(const Json& j) {
  std::string shown = j.dump();
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
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
      d.add(path, "integer " + j.dump() + " is too large");
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
      d.add(path, "expected a size greater than zero, got " + j.dump());
      return std::nullopt;
    }
    return j.is_number_unsigned() ? j.get<std::uint64_t>()
                                  : static_cast<std::uint64_t>(j.get<std::int64_t>());
  }
  if (j.is_number_float()) {  // 25276510208.0 is a byte count; 1.5 is not
    const double v = j.get<double>();
    if (v > 0 && v < 1.8e19 && v == std::floor(v)) return static_cast<std::uint64_t>(v);
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
  return *parsed;
}

std::optional<double> read_rate(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!(v > 0) || !std::isfinite(v)) {
      d.add(path, "expected a rate greater than zero, got " + j.dump());
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
