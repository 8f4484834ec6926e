// text.h — small string helpers shared by the config loaders and writers:
// trimming, splitting, edit distance for "did you mean" hints, and a stable
// 64-bit hash (FNV-1a) used for point ids and sweep digests. Nothing here
// allocates more than its result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moebench {

std::string_view trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Levenshtein distance (insert/delete/substitute, each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible
// typo (distance <= max(2, len/3)); nullopt otherwise.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// " (did you mean \"x\"?)" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// Locale-independent number formatting ({fmt} without "L"): the same bytes
// whatever LC_NUMERIC says. Non-finite values print as "inf", "-inf", "nan".
std::string format_fixed(double v, int decimals);     // format_fixed(1.2345, 2) == "1.23"
std::string format_scientific(double v, int digits);  // format_scientific(12345, 2) == "1.23e+04"

std::uint64_t fnv1a64(std::string_view data);
std::string hex64(std::uint64_t v);  // 16 lowercase hex digits

// At most `max_bytes` bytes of `s`, never cutting a UTF-8 sequence in half.
std::string utf8_prefix(std::string_view s, std::size_t max_bytes);

}  // namespace moebench
