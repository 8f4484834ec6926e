// json_scan.cpp — see json_scan.h. One pass over the bytes: everything
// outside the streamed array is copied into ScannedObject::rest as it is
// (so the strict reader later reports any syntax error there, at its own
// line), and the array's elements are cut out one at a time.
#include "vocab/json_scan.h"

#include <algorithm>
#include <array>
#include <vector>

#include "vocab/json_reader.h"

namespace moebench {
namespace {

constexpr int kEnd = -1;

// Bytes from a file (read in 1 MiB blocks) or from text in memory, with the
// number of the line the next byte is on.
class Source {
 public:
  explicit Source(std::FILE* f) : file_(f), block_(1 << 20) {}
  explicit Source(std::string_view text) : data_(text.data()), len_(text.size()) {}

  int peek() {
    if (pos_ == len_ && !refill()) return kEnd;
    return static_cast<unsigned char>(data_[pos_]);
  }
  int get() {
    const int c = peek();
    if (c == kEnd) return kEnd;
    ++pos_;
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }
  // Copies bytes up to the next one marked in `stop` (or the end), keeping
  // the line and column: the fast run through a row's text.
  void copy_until(std::string& out, const std::array<bool, 256>& stop) {
    for (;;) {
      if (pos_ == len_ && !refill()) return;
      const char* start = data_ + pos_;
      const char* end = data_ + len_;
      const char* p = start;
      for (; p < end && !stop[static_cast<unsigned char>(*p)]; ++p) {
        if (*p == '\n') {
          ++line_;
          column_ = 1;
        } else {
          ++column_;
        }
      }
      out.append(start, static_cast<std::size_t>(p - start));
      pos_ += static_cast<std::size_t>(p - start);
      if (p < end) return;
    }
  }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  bool read_error() const { return file_ != nullptr && std::ferror(file_) != 0; }

 private:
  bool refill() {
    if (file_ == nullptr) return false;
    len_ = std::fread(block_.data(), 1, block_.size(), file_);
    data_ = block_.data();
    pos_ = 0;
    return len_ > 0;
  }
  std::FILE* file_ = nullptr;
  std::vector<char> block_;
  const char* data_ = nullptr;
  std::size_t len_ = 0, pos_ = 0;
  std::size_t line_ = 1, column_ = 1;
};

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

constexpr std::array<bool, 256> stops(std::string_view chars) {
  std::array<bool, 256> t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr auto kStringStops = stops("\"\\");
constexpr auto kElementStops = stops("\"{}[],/");

// Copies the rest of a string whose opening quote was copied.
void copy_string(Source& in, std::string& out) {
  for (in.copy_until(out, kStringStops); true; in.copy_until(out, kStringStops)) {
    const int c = in.get();
    if (c == kEnd) return;
    out += static_cast<char>(c);
    if (c == '"') return;
    if (c == '\\') {
      const int next = in.get();
      if (next == kEnd) return;
      out += static_cast<char>(next);
    }
  }
}

// After a '/' was copied: copies a // or /* */ comment, ended where the
// strict reader (nlohmann, ignore_comments) ends it: a // comment at a line
// feed, carriage return or NUL; a /* comment at */ (a NUL inside is the
// strict reader's error to report). A '/' that starts no comment is left for
// the strict reader to refuse. True when a comment was copied.
bool copy_comment(Source& in, std::string& out) {
  const int kind = in.peek();
  if (kind != '/' && kind != '*') return false;
  out += static_cast<char>(in.get());
  int prev = 0;
  for (int c = in.get(); c != kEnd; c = in.get()) {
    out += static_cast<char>(c);
    if (kind == '/' && (c == '\n' || c == '\r' || c == '\0')) break;
    if (kind == '*' && prev == '*' && c == '/') break;
    prev = c;
  }
  return true;
}

// Cuts one element into `out`: every byte after the '[' or ',' before it
// (blanks and comments included, for the strict reader to check) up to the
// ',' or ']' that ends it at the array's level. True when it holds more than
// blanks and comments.
bool cut_element(Source& in, std::string& out) {
  out.clear();
  int depth = 0;
  bool value = false;
  for (;;) {
    const std::size_t before = out.size();
    in.copy_until(out, kElementStops);  // blanks, numbers, literals, a row's indentation
    if (!value) value = std::any_of(out.begin() + static_cast<std::ptrdiff_t>(before), out.end(),
                                    [](char b) { return !is_space(static_cast<unsigned char>(b)); });
    const int c = in.peek();
    if (c == kEnd) break;
    if (depth == 0 && (c == ',' || c == ']')) break;
    in.get();
    out += static_cast<char>(c);
    if (c == '/' && copy_comment(in, out)) continue;
    value = true;
    if (c == '"') {
      copy_string(in, out);
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) break;  // a stray closer: the element is damaged, the strict reader says where
    }
  }
  return value;
}

Status stream_array(Source& in, const std::string& label, std::string_view key, const ElementSink& sink,
                    std::size_t& count) {
  std::string element;
  for (;;) {
    const std::size_t line = in.line(), column = in.column();
    const bool value = cut_element(in, element);
    const int next = in.peek();
    if (next == kEnd) break;  // a cut-off element is not handed over: the file is truncated
    if (!value) {
      if (count == 0 && next == ']') {  // an empty array, perhaps with comments: the strict reader checks them
        in.get();
        if (element.empty()) return Status::success();
        auto checked = parse_json_text("[" + element + "]", label, JsonTextOrigin{line, column - 1, "", 1});
        return checked ? Status::success() : Status(checked.error());
      }
      return make_error(label + ":" + std::to_string(in.line()) + ":" + std::to_string(in.column()) +
                        ": not valid JSON: expected element " + std::to_string(count) + " of \"" + std::string(key) +
                        "\", found '" + std::string(1, static_cast<char>(next)) + "'");
    }
    if (Status st = sink(element, ElementPlace{line, column, count}); !st) return st;
    ++count;
    if (in.get() == ']') return Status::success();  // else the ',' before the next element
  }
  if (in.read_error()) return make_error(label + ": read error");
  return make_error(label + ":" + std::to_string(in.line()) + ": the file ends inside \"" + std::string(key) +
                    "\" (after " + std::to_string(count) + " complete elements): it is truncated or damaged");
}

Expected<ScannedObject> scan(Source& in, const std::string& label, std::string_view key, const ElementSink& sink) {
  ScannedObject out;
  std::string& rest = out.rest;
  int depth = 0;
  bool started = false, top_object = false, at_key = false, after_colon = false;
  std::size_t key_start = 0;
  std::string last_key;
  for (int c = in.get(); c != kEnd; c = in.get()) {
    if (is_space(c)) {
      rest += static_cast<char>(c);
      continue;
    }
    if (c == '/') {
      rest += '/';
      if (copy_comment(in, rest)) continue;  // a comment changes nothing: "rows": /* c */ [ still streams
    }
    if (depth == 1 && top_object && after_colon && c == '[' && last_key == key && !out.streamed) {
      after_colon = false;
      out.streamed = true;
      const std::size_t open_line = in.line(), open_column = in.column() - 1;  // of the '['
      if (Status st = stream_array(in, label, key, sink, out.elements); !st) return st.error();
      // "[]" and padding in its place, so that what follows keeps its line
      // and column for the strict reader's messages.
      rest += "[]";
      if (in.line() == open_line) {
        rest.append(in.column() - open_column - 2, ' ');
      } else {
        rest.append(in.line() - open_line, '\n');
        rest.append(in.column() - 1, ' ');
      }
      continue;
    }
    after_colon = false;
    if (c != '/') rest += static_cast<char>(c);
    if (!started) {
      started = true;
      top_object = c == '{';
    }
    if (c == '"') {
      key_start = rest.size();
      copy_string(in, rest);
      if (depth == 1 && at_key && rest.size() > key_start) {
        last_key.assign(rest, key_start, rest.size() - key_start - 1);
      }
      at_key = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      at_key = depth == 1 && c == '{';
    } else if (c == '}' || c == ']') {
      --depth;
      at_key = false;
    } else if (c == ',') {
      at_key = depth == 1;
    } else if (c == ':') {
      after_colon = depth == 1;
    } else {
      at_key = false;
    }
  }
  if (in.read_error()) return make_error(label + ": read error");
  return out;
}

}  // namespace

Expected<ScannedObject> scan_json_object(std::FILE* file, const std::string& label, std::string_view key,
                                         const ElementSink& sink) {
  Source in(file);
  return scan(in, label, key, sink);
}

Expected<ScannedObject> scan_json_object(std::string_view text, const std::string& label, std::string_view key,
                                         const ElementSink& sink) {
  Source in(text);
  return scan(in, label, key, sink);
}

}  // namespace moebench
