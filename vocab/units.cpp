// units.cpp — see units.h. Parsing is locale-independent (std::from_chars),
// and so is printing ({fmt} without the "L" flag).
#include "vocab/units.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "vocab/text.h"

namespace moebench {
namespace {

struct Suffix {
  std::string_view name;
  double factor;
};

// Longest suffixes first so "GiB" is not read as "B".
constexpr Suffix kSizeSuffixes[] = {
    {"KiB", 1024.0},          {"MiB", 1048576.0},
    {"GiB", 1073741824.0},    {"TiB", 1099511627776.0},
    {"KB", 1e3},  {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
    {"kB", 1e3},  {"B", 1.0},
};

enum class Split { kOk, kMalformed, kOutOfRange };

// Splits "12.78 GB" into a finite number and a factor. Error text is filled
// by callers, who know what kind of quantity was expected.
Split split_number_suffix(std::string_view text, double& number, double& factor) {
  text = trim(text);
  if (text.empty()) return Split::kMalformed;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec == std::errc::result_out_of_range) return Split::kOutOfRange;  // 1e999
  if (ec != std::errc() || !std::isfinite(number)) return Split::kMalformed;  // also "inf", "nan"
  std::string_view rest = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  if (rest.empty()) {
    factor = 1.0;
    return Split::kOk;
  }
  for (const Suffix& s : kSizeSuffixes) {
    if (rest == s.name) {
      factor = s.factor;
      return Split::kOk;
    }
  }
  return Split::kMalformed;
}

Error out_of_range(const std::string& shown, const char* what) {
  return make_error(std::string(what) + " \"" + shown + "\": the number is outside the range of a double; " +
                    (std::string(what) == "size" ? "sizes are at most 16 EiB" : "rates are at most 1 EB/s"));
}

}  // namespace

Expected<std::uint64_t> parse_size_bytes(std::string_view text) {
  double number = 0;
  double factor = 1;
  const std::string shown = utf8_prefix(text, 80);
  const Split split = split_number_suffix(text, number, factor);
  if (split == Split::kOutOfRange) return out_of_range(shown, "size");
  if (split != Split::kOk) {
    return make_error("expected a size like \"8GiB\", \"12.78GB\" or a byte count, got \"" +
                      shown + "\" (units: B, KB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, "
                      "TiB = powers of 1024)");
  }
  const double bytes = number * factor;  // finite × finite: at worst +-inf, which the limit catches
  if (bytes <= 0) {
    return make_error("expected a size greater than zero, got \"" + shown + "\"");
  }
  if (!(bytes <= kMaxSizeBytes)) {
    return make_error("size \"" + shown + "\" is too large (limit 16 EiB)");
  }
  const double rounded = std::round(bytes);
  if (std::fabs(rounded - bytes) > 1e-6 * bytes + 1e-9 && factor == 1.0) {
    return make_error("a size in bytes must be a whole number, got \"" + shown + "\"");
  }
  return static_cast<std::uint64_t>(rounded);
}

Expected<double> parse_rate_bytes_s(std::string_view text) {
  std::string_view t = trim(text);
  const std::string shown = utf8_prefix(text, 80);
  bool had_per_s = false;
  if (t.size() >= 2 && t.substr(t.size() - 2) == "/s") {
    t = t.substr(0, t.size() - 2);
    had_per_s = true;
  }
  double number = 0;
  double factor = 1;
  const Split split = split_number_suffix(t, number, factor);
  if (split == Split::kOutOfRange) return out_of_range(shown, "rate");
  if (split != Split::kOk || (!had_per_s && factor != 1.0)) {
    return make_error("expected a rate like \"12.78GB/s\", \"200MB/s\" or bytes per second, got \"" +
                      shown + "\"");
  }
  const double rate = number * factor;
  if (rate <= 0) return make_error("expected a rate greater than zero, got \"" + shown + "\"");
  if (!(rate <= kMaxRateBytesS)) {
    return make_error("rate \"" + shown + "\" is beyond any machine (limit 1 EB/s = 1e18 bytes/s); check the "
                      "number and the unit");
  }
  return rate;
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024.0 && unit < 5) {
    v /= 1024.0;
    ++unit;
  }
  // Whole bytes below 1 KiB ("1023 B"; 1023.5 rounds to "1024 B"), two decimals above.
  return unit == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.2f} {}", v, kUnits[unit]);
}

std::string format_bytes_decimal(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  double v = bytes;
  while (v >= 1000.0 && unit < 5) {  // not fabs: -5000 stays "-5000 B", as the card report printed it
    v /= 1000.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.2f} {}", v, kUnits[unit]);
}

std::string format_rate(double bytes_s) {
  static constexpr const char* kUnits[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  int unit = 0;
  double v = bytes_s;
  while (std::fabs(v) >= 1000.0 && unit < 4) {
    v /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", v, kUnits[unit]);
}

std::string format_duration_s(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 1.0) return fmt::format("{:.0f} ms", seconds * 1e3);
  if (seconds < 60.0) return fmt::format("{:.1f} s", seconds);
  const long total = std::lround(seconds);
  if (total >= 3600) return fmt::format("{}h{:02}m{:02}s", total / 3600, (total / 60) % 60, total % 60);
  return fmt::format("{}m{:02}s", total / 60, total % 60);
}

Expected<double> parse_relative_change(const std::string& text, const std::string& flag) {
  std::string t(trim(text));
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t = std::string(trim(t.substr(0, t.size() - 1)));
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !std::isfinite(v) || v < 0) {
    return make_error(flag + " \"" + text + "\": expected a relative change such as 5% or 0.05");
  }
  if (!percent && v >= 1) {
    return make_error(flag + " " + text + ": ambiguous; write " + t + "% for a percentage or a fraction below 1 "
                      "(0.05 = 5 %)");
  }
  return percent ? v / 100 : v;
}


}  // namespace moebench
