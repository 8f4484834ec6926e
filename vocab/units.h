// units.h — parsing and printing of byte sizes, rates and durations.
//
// Config files say "8GiB", "12.78GB", "512MiB" or plain byte counts; rates say
// "12.78GB/s". Decimal prefixes (KB, MB, GB, TB) are powers of 1000, binary
// ones (KiB, MiB, GiB, TiB) powers of 1024, and B is always bytes (never
// bits). Parsing is strict: anything else is an error whose message shows an
// accepted form, because a silently misread budget is a wrong number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vocab/expected.h"

namespace moebench {

// Limits of what a size or rate can be: a size must fit a uint64 byte count
// (16 EiB); a rate above 1 EB/s is no machine's, only a typo or an overflow
// ("1e300GB/s" would otherwise be infinity).
inline constexpr double kMaxSizeBytes = 1.8e19;
inline constexpr double kMaxRateBytesS = 1e18;

// Parses a size such as "8GiB", "12.78GB", "4096", "4096B". Rejects zero,
// negative, non-finite, out-of-range (above kMaxSizeBytes, or a number such
// as 1e999 that no double holds) and fractional-byte results (after rounding
// within 1e-6 relative). The error message says what was expected.
Expected<std::uint64_t> parse_size_bytes(std::string_view text);

// Parses a rate such as "12.78GB/s", "200MB/s" or a plain number of bytes/s.
// Rejects zero, negative, non-finite and rates above kMaxRateBytesS.
Expected<double> parse_rate_bytes_s(std::string_view text);

// A relative change: "5%" → 0.05, "0.05" → 0.05. A bare number of 1 or more
// is refused ("5" could mean 5 % or 500 %); `flag` names the option in errors.
Expected<double> parse_relative_change(const std::string& text, const std::string& flag);

// Printing: binary prefixes for sizes, decimal for rates (as drives are sold).
// All locale-independent. Below one unit a size is whole bytes ("1023 B").
std::string format_bytes(double bytes);           // "8.00 GiB", "512 B"
std::string format_bytes_decimal(double bytes);   // "12.78 GB", "1.00 kB" (powers of 1000, as published figures)
std::string format_rate(double bytes_s);          // "1.52 GB/s" (decimal)
std::string format_duration_s(double seconds);    // "1m05s", "3.2 s", "850 ms"

}  // namespace moebench
