// json_text_writer.cpp — see json_text_writer.h.
#include "vocab/json_text_writer.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace moebench {

void JsonTextWriter::newline() {
  if (indent_ < 0) return;
  out_ += '\n';
  out_.append(base_ + in_array_.size() * static_cast<std::size_t>(indent_), ' ');
}

// Before an array element or a member's key: the comma after the one
// before, and its line.
void JsonTextWriter::next_item() {
  if (!first_) out_ += ',';
  newline();
  first_ = false;
}

// Before a value: in an array, its item separator (a member's value follows
// its key, which wrote it).
void JsonTextWriter::value_start() {
  if (!in_array_.empty() && in_array_.back()) next_item();
}

void JsonTextWriter::open(char bracket, bool array) {
  value_start();
  out_ += bracket;
  in_array_.push_back(array);
  first_ = true;
}

void JsonTextWriter::close(char bracket) {
  const bool empty = first_;
  in_array_.pop_back();
  if (!empty) newline();
  out_ += bracket;
  first_ = false;
}

void JsonTextWriter::begin_object() { open('{', false); }
void JsonTextWriter::begin_array() { open('[', true); }
void JsonTextWriter::end_object() { close('}'); }
void JsonTextWriter::end_array() { close(']'); }

void JsonTextWriter::key(std::string_view k) {
  next_item();
  string(k);
  out_ += indent_ < 0 ? ":" : ": ";
}

void JsonTextWriter::string(std::string_view s) {
  value_start();
  const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out_ += '"';
    out_.append(s);
    out_ += '"';
    return;
  }
  out_ += Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);  // escapes and UTF-8 as nlohmann
}

void JsonTextWriter::number(double v) {
  value_start();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  std::array<char, 64> buf{};
  const char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);  // the digits dump writes
  out_.append(buf.data(), static_cast<std::size_t>(end - buf.data()));
}

void JsonTextWriter::integer(std::int64_t v) {
  value_start();
  out_ += std::to_string(v);
}

void JsonTextWriter::unsigned_integer(std::uint64_t v) {
  value_start();
  out_ += std::to_string(v);
}

void JsonTextWriter::null() {
  value_start();
  out_ += "null";
}

}  // namespace moebench
