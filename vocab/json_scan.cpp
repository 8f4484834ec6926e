// json_scan.cpp — see json_scan.h. One pass over the bytes: everything
// outside the streamed array is copied into ScannedObject::rest as it is
// (so the strict reader later reports any syntax error there, at its own
// line), and the array's elements are cut out one at a time.
#include "vocab/json_scan.h"

#include <vector>

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
    if (c == '\n') ++line_;
    return c;
  }
  std::size_t line() const { return line_; }
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
  std::size_t line_ = 1;
};

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Copies the rest of a string whose opening quote was copied.
void copy_string(Source& in, std::string& out) {
  for (int c = in.get(); c != kEnd; c = in.get()) {
    out += static_cast<char>(c);
    if (c == '"') return;
    if (c == '\\') {
      const int next = in.get();
      if (next == kEnd) return;
      out += static_cast<char>(next);
    }
  }
}

// After a '/' was copied: copies a // or /* */ comment (anything else is
// left for the strict reader to refuse).
void copy_comment(Source& in, std::string& out) {
  const int kind = in.peek();
  if (kind != '/' && kind != '*') return;
  out += static_cast<char>(in.get());
  int prev = 0;
  for (int c = in.get(); c != kEnd; c = in.get()) {
    out += static_cast<char>(c);
    if (kind == '/' && c == '\n') return;
    if (kind == '*' && prev == '*' && c == '/') return;
    prev = c;
  }
}

// Skips white space and comments between array elements.
void skip_blank(Source& in, std::string& discard) {
  for (;;) {
    const int c = in.peek();
    if (is_space(c)) {
      in.get();
    } else if (c == '/') {
      discard.clear();
      discard += static_cast<char>(in.get());
      copy_comment(in, discard);
    } else {
      return;
    }
  }
}

// Cuts one element (from its first byte to the byte before the ',' or ']'
// that ends it at the array's level) into `out`, trailing blanks removed.
void cut_element(Source& in, std::string& out) {
  out.clear();
  int depth = 0;
  for (int c = in.peek(); c != kEnd; c = in.peek()) {
    if (depth == 0 && (c == ',' || c == ']')) break;
    in.get();
    out += static_cast<char>(c);
    if (c == '"') {
      copy_string(in, out);
    } else if (c == '/') {
      copy_comment(in, out);
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) break;  // a stray closer: the element is damaged, the strict reader says where
    }
  }
  while (!out.empty() && is_space(static_cast<unsigned char>(out.back()))) out.pop_back();
}

Status stream_array(Source& in, const std::string& label, std::string_view key, const ElementSink& sink,
                    std::size_t& count) {
  std::string element, discard;
  auto where = [&] { return label + ":" + std::to_string(in.line()); };
  skip_blank(in, discard);
  if (in.peek() == ']') {
    in.get();
    return Status::success();
  }
  for (;;) {
    skip_blank(in, discard);
    const std::size_t line = in.line();
    cut_element(in, element);
    if (element.empty()) {
      if (in.peek() == kEnd) break;
      return make_error(where() + ": not valid JSON: expected element " + std::to_string(count) + " of \"" +
                        std::string(key) + "\", found '" + std::string(1, static_cast<char>(in.peek())) + "'");
    }
    if (Status st = sink(element, line, count); !st) return st;
    ++count;
    const int c = in.get();
    if (c == ']') return Status::success();
    if (c == kEnd) break;
  }
  if (in.read_error()) return make_error(label + ": read error");
  return make_error(where() + ": the file ends inside \"" + std::string(key) + "\" (after " + std::to_string(count) +
                    " elements): it is truncated or damaged");
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
    if (depth == 1 && top_object && after_colon && c == '[' && last_key == key && !out.streamed) {
      after_colon = false;
      out.streamed = true;
      const std::size_t first_line = in.line();
      if (Status st = stream_array(in, label, key, sink, out.elements); !st) return st.error();
      rest += "[]";
      rest.append(in.line() - first_line, '\n');  // later lines keep their numbers
      continue;
    }
    after_colon = false;
    rest += static_cast<char>(c);
    if (c != '/' && !started) {
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
    } else if (c == '/') {
      copy_comment(in, rest);
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
