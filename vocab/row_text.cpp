// row_text.cpp — see row_text.h.
//
// The scanner walks the row's top-level object. "metrics" and "samples" are
// decoded here; "columns" (derived, never read back) is checked to be a flat
// object of plain values and skipped; every other member's text is copied,
// as it stands, into a small object that the strict reader parses, checks and
// decodes. Any byte the scanner does not expect ends the fast path.
//
// Numbers decode as nlohmann decodes them: an integer token becomes an
// integer first (so "-0" is +0.0), then a double; anything else goes
// through std::from_chars, which rounds correctly as strtod does.
#include "vocab/row_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "vocab/journal_format.h"
#include "vocab/json_reader.h"

namespace moebench {
namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool eat(char c) {
    blanks();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool at_end() {
    blanks();
    return p_ == end_;
  }
  // A string of printable ASCII without escapes (every key moebench writes).
  bool plain_string(std::string_view& out) {
    if (!eat('"')) return false;
    const char* start = p_;
    for (; p_ < end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c > 0x7e) return false;
    }
    return false;
  }
  bool number(double& v) {
    blanks();
    const char* start = p_;
    bool integer = true;
    if (!number_token(integer)) return false;
    return to_double(start, p_, integer, v);
  }
  bool number_or_null(double& v) {
    if (literal("null")) {
      v = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    return number(v);
  }
  // A count: digits only, at most INT64_MAX (as the strict check reads "n").
  bool count(std::size_t& v) {
    blanks();
    const char* start = p_;
    bool integer = true;
    if (p_ == end_ || *p_ == '-' || !number_token(integer) || !integer) return false;
    std::uint64_t u = 0;
    const auto r = std::from_chars(start, p_, u);
    if (r.ec != std::errc() || r.ptr != p_ || u > static_cast<std::uint64_t>(INT64_MAX)) return false;
    v = static_cast<std::size_t>(u);
    return true;
  }
  // A string, number, true, false or null, skipped.
  bool plain_value() {
    blanks();
    if (p_ < end_ && *p_ == '"') return valid_string();
    if (literal("null") || literal("true") || literal("false")) return true;
    double ignored = 0;
    return number(ignored);
  }
  // The text of one value of any kind, found by matching brackets; whether
  // it is valid JSON is for the strict reader to say.
  bool span(std::string_view& out) {
    blanks();
    const char* start = p_;
    int depth = 0;
    for (; p_ < end_; ++p_) {
      const char c = *p_;
      if (c == '"') {
        if (!skip_string()) return false;
        --p_;  // the loop steps past the closing quote
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (depth == 0) break;
        if (--depth == 0) {
          ++p_;
          break;
        }
      } else if (c == '/') {
        return false;  // a comment: the strict reader's business
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        break;
      }
    }
    if (depth != 0 || p_ == start) return false;
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    return true;
  }

 private:
  void blanks() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool literal(std::string_view word) {
    blanks();
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }
  bool digits() {
    const char* start = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ > start;
  }
  // JSON's number grammar; `integer` says whether it had no fraction or exponent.
  bool number_token(bool& integer) {
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (!digits()) {
      return false;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (!digits()) return false;
      integer = false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) return false;
      integer = false;
    }
    return true;
  }
  static bool to_double(const char* start, const char* stop, bool integer, double& v) {
    if (integer) {  // as nlohmann: an integer when it fits, else a double
      if (*start == '-') {
        std::int64_t i = 0;
        if (std::from_chars(start, stop, i).ec == std::errc()) {
          v = static_cast<double>(i);
          return true;
        }
      } else {
        std::uint64_t u = 0;
        if (std::from_chars(start, stop, u).ec == std::errc()) {
          v = static_cast<double>(u);
          return true;
        }
      }
    }
    const auto r = std::from_chars(start, stop, v);
    return r.ec == std::errc() && r.ptr == stop;  // out of range: the strict reader names it
  }
  // Past a string, checked as the strict reader checks one: escapes
  // (surrogates in pairs) and UTF-8 (RFC 3629: no overlong form, no
  // surrogate, at most U+10FFFF).
  bool valid_string() {
    for (++p_; p_ < end_;) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        if (!valid_escape()) return false;
      } else if (c < 0x80) {
        ++p_;
      } else if (!valid_utf8()) {
        return false;
      }
    }
    return false;
  }
  bool hex4(unsigned& v) {
    if (end_ - p_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char h = *p_;
      const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    return true;
  }
  bool valid_escape() {  // at the backslash
    if (++p_ == end_) return false;
    const char e = *p_++;
    if (e != 'u') return std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos;
    unsigned u = 0;
    if (!hex4(u)) return false;
    if (u >= 0xDC00 && u <= 0xDFFF) return false;  // a low surrogate alone
    if (u < 0xD800 || u > 0xDBFF) return true;
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
    p_ += 2;
    return hex4(u) && u >= 0xDC00 && u <= 0xDFFF;
  }
  bool valid_utf8() {  // at a lead byte >= 0x80
    const auto b0 = static_cast<unsigned char>(*p_);
    int more = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      more = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      more = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      more = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (end_ - p_ <= more) return false;
    for (int i = 1; i <= more; ++i) {
      const auto b = static_cast<unsigned char>(p_[i]);
      if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
    }
    p_ += more + 1;
    return true;
  }
  // Past a string that may hold escapes (checked later by the strict reader).
  bool skip_string() {
    for (++p_; p_ < end_; ++p_) {
      if (*p_ == '\\') {
        ++p_;
      } else if (*p_ == '"') {
        ++p_;
        return true;
      }
    }
    return false;
  }

  const char* p_;
  const char* end_;
};

// One metric's summary: exactly its nine fields, each once.
bool summary(Scanner& s, Summary& out) {
  static constexpr std::string_view kFields[] = {"n", "median", "min", "max", "mean", "stddev", "p10", "p90", "mad"};
  double* const targets[] = {nullptr, &out.median, &out.min, &out.max, &out.mean, &out.stddev, &out.p10, &out.p90, &out.mad};
  unsigned seen = 0;
  if (!s.eat('{')) return false;
  do {
    std::string_view key;
    if (!s.plain_string(key) || !s.eat(':')) return false;
    std::size_t f = 0;
    while (f < std::size(kFields) && kFields[f] != key) ++f;
    if (f == std::size(kFields) || (seen & (1u << f)) != 0) return false;
    seen |= 1u << f;
    if (f == 0 ? !s.count(out.n) : !s.number_or_null(*targets[f])) return false;
  } while (s.eat(','));
  return s.eat('}') && seen == (1u << std::size(kFields)) - 1;
}

bool metrics(Scanner& s, SummaryMap& out) {
  if (!s.eat('{')) return false;
  if (s.eat('}')) return true;
  do {
    std::string_view name;
    Summary sum;
    if (!s.plain_string(name) || !s.eat(':') || !summary(s, sum)) return false;
    if (!out.emplace(std::string(name), sum).second) return false;  // a duplicate key
  } while (s.eat(','));
  return s.eat('}');
}

bool samples(Scanner& s, SampleMap& out) {
  if (!s.eat('{')) return false;
  if (s.eat('}')) return true;
  do {
    std::string_view name;
    if (!s.plain_string(name) || !s.eat(':') || !s.eat('[')) return false;
    std::vector<double> values;
    if (!s.eat(']')) {
      do {
        double v = 0;
        if (!s.number_or_null(v)) return false;
        values.push_back(v);
      } while (s.eat(','));
      if (!s.eat(']')) return false;
    }
    if (!out.emplace(std::string(name), std::move(values)).second) return false;
  } while (s.eat(','));
  return s.eat('}');
}

// A flat object of plain values with distinct keys ("columns").
bool flat_object(Scanner& s) {
  if (!s.eat('{')) return false;
  if (s.eat('}')) return true;
  std::vector<std::string_view> keys;
  do {
    std::string_view key;
    if (!s.plain_string(key) || !s.eat(':') || !s.plain_value()) return false;
    keys.push_back(key);
  } while (s.eat(','));
  std::sort(keys.begin(), keys.end());
  return s.eat('}') && std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

}  // namespace

// A row record has 17 keys and "columns"; more is a row for the strict reader.
constexpr std::size_t kMaxRowKeys = 32;

std::optional<ResultRow> fast_row_from_text(std::string_view text) {
  Scanner s(text);
  SummaryMap row_metrics;
  SampleMap row_samples;
  std::vector<std::string_view> keys;
  std::string rest = R"({"metrics":{},"samples":{})";
  if (!s.eat('{')) return std::nullopt;
  do {
    std::string_view key;
    if (!s.plain_string(key) || !s.eat(':')) return std::nullopt;
    // A duplicate key; and a row of many keys is not one moebench wrote (the
    // linear check must not cost what the file's author chose).
    if (keys.size() >= kMaxRowKeys || std::find(keys.begin(), keys.end(), key) != keys.end()) return std::nullopt;
    keys.push_back(key);
    bool ok = true;
    if (key == "metrics") {
      ok = metrics(s, row_metrics);
    } else if (key == "samples") {
      ok = samples(s, row_samples);
    } else if (key == "columns") {
      ok = flat_object(s);
    } else {
      std::string_view value;
      ok = s.span(value);
      rest.append(",\"").append(key).append("\":").append(value);
    }
    if (!ok) return std::nullopt;
  } while (s.eat(','));
  if (!s.eat('}') || !s.at_end()) return std::nullopt;
  const auto has = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  if (!has("metrics") || !has("samples")) return std::nullopt;
  rest.push_back('}');

  auto tree = parse_json_text(rest, "row", JsonTextOrigin{1, 1, "", 2});
  if (!tree) return std::nullopt;
  Diagnostics d("row");
  check_row_record(*tree, "", d);
  if (!d.ok()) return std::nullopt;
  auto row = row_from_json(*tree);
  if (!row) return std::nullopt;
  const auto runs = static_cast<std::size_t>(row->repetitions) + static_cast<std::size_t>(row->warmup);
  for (const auto& [name, values] : row_samples) {
    if (values.size() > runs) return std::nullopt;  // the strict check names it
  }
  row->metrics = std::move(row_metrics);
  row->samples = std::move(row_samples);
  return std::move(*row);
}

// ------------------------------------------------------------ the writer

namespace {

void summary_members(JsonTextWriter& w, const Summary& s) {
  w.begin_object();
  w.key("mad");
  w.number(s.mad);
  w.key("max");
  w.number(s.max);
  w.key("mean");
  w.number(s.mean);
  w.key("median");
  w.number(s.median);
  w.key("min");
  w.number(s.min);
  w.key("n");
  w.unsigned_integer(s.n);
  w.key("p10");
  w.number(s.p10);
  w.key("p90");
  w.number(s.p90);
  w.key("stddev");
  w.number(s.stddev);
  w.end_object();
}

}  // namespace

// Keys in row_to_json's order (its std::map sorts them).
void write_row_members(JsonTextWriter& w, const ResultRow& row) {
  w.key("build");
  w.string(row.build);
  w.key("index");
  w.unsigned_integer(row.point.index);
  w.key("machine");
  w.string(row.machine);
  w.key("metrics");
  w.begin_object();
  for (const auto& [name, s] : row.metrics) {
    w.key(name);
    summary_members(w, s);
  }
  w.end_object();
  if (row.min_budget_bytes) {
    w.key("min_budget_bytes");
    w.unsigned_integer(*row.min_budget_bytes);
  }
  w.key("notes");
  w.begin_array();
  for (const std::string& n : row.notes) w.string(n);
  w.end_array();
  w.key("point");
  write_point_key(w, row.point);
  w.key("point_id");
  w.string(row.point.id());
  w.key("provenance");
  w.string(row.provenance);
  w.key("reason");
  w.string(row.reason);
  w.key("repetitions");
  w.integer(row.repetitions);
  w.key("run_id");
  w.string(row.run_id);
  w.key("samples");
  w.begin_object();
  for (const auto& [name, values] : row.samples) {
    w.key(name);
    w.begin_array();
    for (double v : values) w.number(v);
    w.end_array();
  }
  w.end_object();
  w.key("status");
  w.string(to_string(row.status));
  if (!row.point.trunk_quant.empty()) {
    w.key("trunk_quant");
    w.string(row.point.trunk_quant);
  }
  w.key("wall_s");
  w.number(row.wall_s);
  w.key("warmup");
  w.integer(row.warmup);
}

std::string row_text(const ResultRow& row, int indent) {
  std::string out;
  JsonTextWriter w(out, indent);
  w.begin_object();
  write_row_members(w, row);
  w.end_object();
  return out;
}

}  // namespace moebench
