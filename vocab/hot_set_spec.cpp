// hot_set_spec.cpp — see hot_set_spec.h.
#include "vocab/hot_set_spec.h"

#include <charconv>

namespace moebench {

namespace {

constexpr const char* kForms = "hot_set is \"off\", \"learned:N[,SHARE]\" or \"trace:FILE[,SHARE]\"";

// A share written after the last comma of `arg`, when the text there is a
// number; `arg` keeps what precedes it.
Status split_share(std::string& arg, HotSetSpec& s, bool required_number) {
  const auto comma = arg.rfind(',');
  if (comma == std::string::npos) return Status::success();
  const std::string tail = arg.substr(comma + 1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), v);
  if (ec != std::errc() || ptr != tail.data() + tail.size()) {
    if (required_number) return make_error(std::string(kForms) + ": \"" + tail + "\" after the comma is not a share");
    return Status::success();  // a comma inside a file name
  }
  if (!(v > 0 && v <= 1)) {
    return make_error("hot_set share " + tail + " is outside (0, 1]: the share of the cache's slots the set may hold, e.g. 0.5");
  }
  s.share = v;
  arg = arg.substr(0, comma);
  return Status::success();
}

}  // namespace

Expected<HotSetSpec> parse_hot_set(const std::string& text) {
  HotSetSpec s;
  if (text == "off") return s;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "learned") {
    s.kind = HotSetSpec::Kind::kLearned;
    if (Status st = split_share(arg, s, true); !st) return st.error();
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (arg.empty() || ec != std::errc() || ptr != arg.data() + arg.size() || n < 1) {
      return make_error("hot_set learned needs a count of calibration tokens of 1 or more, e.g. \"learned:256\"");
    }
    s.tokens = n;
    return s;
  }
  if (kind == "trace") {
    s.kind = HotSetSpec::Kind::kTrace;
    if (Status st = split_share(arg, s, false); !st) return st.error();
    if (arg.empty()) return make_error("hot_set trace needs a routing trace file, e.g. \"trace:routes.trace\"");
    s.path = arg;
    return s;
  }
  return make_error(std::string(kForms) + ", not \"" + text + "\"");
}

}  // namespace moebench
