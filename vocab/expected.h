// expected.h — errors as values.
//
// C++20 has no std::expected, so moebench carries its own minimal one. Library
// code returns Expected<T> or Status and never calls exit(); the CLI decides
// what to print and which exit code to use. An Error is a human-readable,
// actionable message (what is wrong, where, and what to do about it).
#pragma once

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace moebench {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}          // NOLINT(implicit)
  Expected(Error error) : v_(std::move(error)) {}      // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<Error>(v_); }
  T value_or(T fallback) const& { return ok() ? std::get<T>(v_) : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(implicit)
  static Status success() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

// Messages quote text from files and argv, which may hold control bytes (a
// NUL, a terminal escape): they are shown as \xNN, never sent to the
// terminal. Newlines and tabs are kept.
inline std::string escape_control_bytes(std::string message) {
  auto control = [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
  };
  if (std::none_of(message.begin(), message.end(), control)) return message;
  std::string shown;
  shown.reserve(message.size() + 16);
  for (char c : message) {
    if (!control(c)) {
      shown += c;
      continue;
    }
    static const char* kHex = "0123456789abcdef";
    const auto b = static_cast<unsigned char>(c);
    shown += "\\x";
    shown += kHex[b >> 4];
    shown += kHex[b & 15];
  }
  return shown;
}

inline Error make_error(std::string message) { return Error{escape_control_bytes(std::move(message))}; }

}  // namespace moebench
