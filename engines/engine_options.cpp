// engine_options.cpp — see engine_options.h.
#include "engines/engine_options.h"

#include <charconv>
#include <stdexcept>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

std::optional<std::uint64_t> whole_number(const std::string& v) {
  std::uint64_t n = 0;
  const char* end = v.data() + v.size();
  const auto [ptr, ec] = std::from_chars(v.data(), end, n);
  if (v.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

std::string accepted(const EngineOption& o) {
  switch (o.kind) {
    case OptionKind::kFlag: return "0|1";
    case OptionKind::kCount: return std::to_string(o.min) + ".." + std::to_string(o.max);
    case OptionKind::kChoice: return join(o.choices, "|");
    case OptionKind::kSize: return "SIZE";
    case OptionKind::kText: return "TEXT";
  }
  return "";
}

// "" when `v` is a valid value of `o`, else why not.
std::string check_value(const EngineOption& o, const std::string& v) {
  switch (o.kind) {
    case OptionKind::kFlag:
      return v == "0" || v == "1" ? "" : "must be 0 or 1";
    case OptionKind::kCount: {
      const auto n = whole_number(v);
      return n && *n >= o.min && *n <= o.max ? ""
                                             : "must be a whole number in " + accepted(o) + " (" + o.help + ")";
    }
    case OptionKind::kChoice:
      for (const std::string& c : o.choices) {
        if (v == c) return "";
      }
      return "must be " + join(o.choices, ", ");
    case OptionKind::kSize: {
      auto size = parse_size_bytes(v);
      return size ? "" : size.error().message;
    }
    case OptionKind::kText:
      return o.check ? o.check(v) : "";
  }
  return "";
}

}  // namespace

std::string check_engine_options(std::string_view engine, const OptionTable& table, const EngineSpec& spec) {
  for (const auto& [key, value] : spec.options) {
    const EngineOption* o = nullptr;
    for (const EngineOption& candidate : table) o = candidate.name == key ? &candidate : o;
    if (o == nullptr) {
      std::vector<std::string> names;
      for (const EngineOption& candidate : table) names.push_back(candidate.name);
      return "engine \"" + std::string(engine) + "\" has no option \"" + sanitize_utf8(utf8_prefix(key, 40)) + "\"" +
             did_you_mean(key, names) +
             (table.empty() ? std::string("; it takes no options") : "; options: " + engine_options_help(table));
    }
    if (std::string why = check_value(*o, value); !why.empty()) {
      return std::string(engine) + ":" + key + "=" + sanitize_utf8(utf8_prefix(value, 40)) + ": " + why;
    }
  }
  return "";
}

std::string engine_options_help(const OptionTable& table) {
  std::vector<std::string> parts;
  for (const EngineOption& o : table) {
    std::string part = o.name + "=" + accepted(o) + " (" + o.help;
    if (!o.default_value.empty()) part += "; default " + o.default_value;
    parts.push_back(part + ")");
  }
  return join(parts, ", ");
}

EngineOptions::EngineOptions(const OptionTable& table, const EngineSpec& spec) : table_(table), spec_(spec) {}

const EngineOption& EngineOptions::declared(std::string_view name, OptionKind kind) const {
  for (const EngineOption& o : table_) {
    if (o.name == name) {
      if (o.kind != kind) throw std::logic_error("engine option " + std::string(name) + " read as the wrong kind");
      return o;
    }
  }
  throw std::logic_error("engine option " + std::string(name) + " is not in the engine's option table");
}

std::optional<std::string> EngineOptions::value(const EngineOption& o) const {
  if (auto it = spec_.options.find(o.name); it != spec_.options.end()) return it->second;
  if (!o.default_value.empty()) return o.default_value;
  return std::nullopt;
}

bool EngineOptions::flag(std::string_view name) const {
  return value(declared(name, OptionKind::kFlag)).value_or("0") == "1";
}

std::uint64_t EngineOptions::count(std::string_view name) const {
  const EngineOption& o = declared(name, OptionKind::kCount);
  return whole_number(value(o).value_or(std::to_string(o.min))).value_or(o.min);
}

std::optional<std::uint64_t> EngineOptions::count_if_given(std::string_view name) const {
  const auto v = value(declared(name, OptionKind::kCount));
  return v ? whole_number(*v) : std::nullopt;
}

std::optional<std::uint64_t> EngineOptions::size_if_given(std::string_view name) const {
  const auto v = value(declared(name, OptionKind::kSize));
  if (!v) return std::nullopt;
  auto size = parse_size_bytes(*v);
  return size ? std::optional<std::uint64_t>(*size) : std::nullopt;
}

std::string EngineOptions::text(std::string_view name) const {
  for (const EngineOption& o : table_) {
    if (o.name == name && (o.kind == OptionKind::kChoice || o.kind == OptionKind::kText)) return value(o).value_or("");
  }
  throw std::logic_error("engine option " + std::string(name) + " is not a choice or text option of the engine");
}

}  // namespace moebench
