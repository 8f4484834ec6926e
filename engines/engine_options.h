// engine_options.h — an engine's options declared once, as data: name,
// kind (flag, whole number in a range, one of some choices, a size, or text
// checked by a function), default and help. One table per engine (fio's
// option tables): the sweep loader and `moebench validate` check a spec
// against it, `moebench run --help`-style text is generated from it, and
// the engine reads its values through it, so the three never disagree.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/point.h"

namespace moebench {

enum class OptionKind {
  kFlag,    // 0 or 1
  kCount,   // a whole number in [min, max]
  kChoice,  // one of `choices`
  kSize,    // a size with its unit ("8GiB", "512MB")
  kText,    // anything `check` accepts
};

struct EngineOption {
  std::string name;
  OptionKind kind = OptionKind::kFlag;
  std::string default_value;  // "" = none: absent unless given
  std::string help;           // a few words: what it sets, with its unit
  std::uint64_t min = 0, max = 0;                        // kCount
  std::vector<std::string> choices;                      // kChoice
  std::function<std::string(const std::string&)> check;  // kText: "" = ok, else why not
};

using OptionTable = std::vector<EngineOption>;

// "" when every option of `spec` is in `table` with a valid value; else one
// message naming engine:key, what was given and what is accepted (with a
// did-you-mean for a misspelt key).
std::string check_engine_options(std::string_view engine, const OptionTable& table, const EngineSpec& spec);

// "packed=0|1 (container layout), qd=1..1024 (reads in flight), ..."
std::string engine_options_help(const OptionTable& table);

// The values of a checked spec, defaults filled in. Reading an option the
// table does not declare, or as the wrong kind, is a defect: it throws
// std::logic_error (the runner turns an engine's exception into a failed row).
class EngineOptions {
 public:
  EngineOptions(const OptionTable& table, const EngineSpec& spec);
  bool flag(std::string_view name) const;
  std::uint64_t count(std::string_view name) const;  // the value, or the default
  std::optional<std::uint64_t> count_if_given(std::string_view name) const;
  std::optional<std::uint64_t> size_if_given(std::string_view name) const;
  std::string text(std::string_view name) const;     // choices and text; "" when absent without default

 private:
  const EngineOption& declared(std::string_view name, OptionKind kind) const;
  std::optional<std::string> value(const EngineOption& o) const;
  const OptionTable& table_;
  EngineSpec spec_;
};

}  // namespace moebench
