// cell_format.cpp — see cell_format.h.
#include "reports/cell_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "harness/units.h"

namespace moebench {

std::string exact_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string();
}

namespace {

std::string significant(double v, int digits) {
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e9)) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    return buf;
  }
  // Fixed notation with `digits` significant digits (no trailing exponent).
  int decimals = digits - 1 - (a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a))));
  decimals = std::max(0, std::min(decimals, 9));
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string human_cell(const Column& col, const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "-";
  if (const auto* s = std::get_if<std::string>(&cell)) return s->empty() ? "-" : *s;
  const double v = std::get<double>(cell);
  char buf[64];
  switch (col.type) {
    case ColumnType::kBytes: return format_bytes(v);
    case ColumnType::kFraction:
      std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
      return buf;
    case ColumnType::kInteger:
      std::snprintf(buf, sizeof buf, "%.0f", v);
      return buf;
    case ColumnType::kNumber:
      if (col.unit == "%") {
        std::snprintf(buf, sizeof buf, "%.1f", v);
        return buf;
      }
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

Json cell_to_json(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return nullptr;
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  const double v = std::get<double>(cell);
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace moebench
