// cell_format.cpp — see cell_format.h.
#include "reports/cell_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

std::string exact_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string();
}

namespace {

std::string significant(double v, int digits) {
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e9)) return format_scientific(v, digits - 1);
  // Fixed notation with `digits` significant digits (no exponent).
  int decimals = digits - 1 - (a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a))));
  decimals = std::max(0, std::min(decimals, 9));
  return format_fixed(v, decimals);
}

}  // namespace

std::string human_cell(const Column& col, const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "-";
  if (const auto* s = std::get_if<std::string>(&cell)) return s->empty() ? "-" : *s;
  const double v = std::get<double>(cell);
  switch (col.type) {
    case ColumnType::kBytes: return format_bytes(v);
    case ColumnType::kFraction: return format_fixed(100 * v, 1) + "%";
    case ColumnType::kInteger: return format_fixed(v, 0);
    case ColumnType::kNumber:
      if (col.unit == "%") return format_fixed(v, 1);
      return significant(v, 4);
    case ColumnType::kString: break;
  }
  return exact_number(v);
}

std::string exact_cell(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "";
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return exact_number(std::get<double>(cell));
}

nlohmann::ordered_json cell_to_json(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return nullptr;
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  const double v = std::get<double>(cell);
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace moebench

namespace moebench {

std::string escape_markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace moebench
