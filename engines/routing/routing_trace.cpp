// routing_trace.cpp — trace:FILE routing: loading and checking a recorded
// trace (format in routing.h) against the card's shape, replaying it with
// wrap-around, and write_routing_trace, which records any generator.
//
// A trace is parsed once, fully, at load time — every error names the file,
// the line and what to change — and replay is then a copy of one token's
// ids. Loading is linear in the file size and allocates no more than the
// ids themselves.
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engines/routing/routing.h"
#include "engines/routing/routing_internal.h"
#include "vocab/file_io.h"

namespace moebench {
namespace {

constexpr std::string_view kMagic = "moebench-trace";
constexpr std::string_view kVersion = "v1";
constexpr const char* kHeaderForm = "\"moebench-trace v1 layers=L experts=E k=K\"";

std::size_t to_size(int v) { return static_cast<std::size_t>(v); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Cuts `s` at the first `sep`: returns the part before, leaves the rest
// (without the separator) in `s`, or empties `s` if there is none.
std::string_view take_until(std::string_view& s, char sep) {
  const auto at = s.find(sep);
  const std::string_view head = s.substr(0, at);
  s = at == std::string_view::npos ? std::string_view() : s.substr(at + 1);
  return head;
}

std::string quoted_excerpt(std::string_view s) {
  constexpr std::size_t kMax = 60;
  return "\"" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "...\"" : "\"");
}

// Whole-string non-negative integer; -1 if it is not one (or overflows).
std::int64_t parse_count(std::string_view s) {
  std::int64_t v = -1;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty() || v < 0) return -1;
  return v;
}

class TraceRouting final : public RoutingGenerator {
 public:
  TraceRouting(std::string arg, std::vector<int> ids, std::size_t ids_per_token)
      : text_("trace:" + std::move(arg)),
        ids_(std::move(ids)),
        per_token_(ids_per_token),
        tokens_(ids_.size() / ids_per_token) {}

  void next_token(std::vector<int>& ids) override {
    ids.resize(per_token_);
    const auto first = ids_.begin() + static_cast<std::ptrdiff_t>(cursor_ * per_token_);
    std::copy(first, first + static_cast<std::ptrdiff_t>(per_token_), ids.begin());
    if (++cursor_ == tokens_) cursor_ = 0;
    ++served_;
  }

  std::string describe() const override { return text_; }
  std::uint64_t wrapped_tokens() const override { return served_ > tokens_ ? served_ - tokens_ : 0; }

 private:
  std::string text_;
  std::vector<int> ids_;  // token after token, each layers * k ids
  std::size_t per_token_;
  std::uint64_t tokens_;
  std::uint64_t cursor_ = 0;
  std::uint64_t served_ = 0;
};

// Parses "moebench-trace v1 layers=L experts=E k=K" into `shape`; "" or a
// message (without the "file:1: " prefix).
std::string parse_header(std::string_view line, RoutingShape& shape) {
  std::string_view rest = strip(line);
  const std::string_view magic = take_until(rest, ' ');
  if (magic != kMagic) {
    return std::string("expected the header ") + kHeaderForm + ", got " + quoted_excerpt(line) +
           " (is this a moebench trace?)";
  }
  rest = strip(rest);
  const std::string_view version = take_until(rest, ' ');
  if (version != kVersion) {
    return "unsupported trace version " + quoted_excerpt(version) + "; this moebench reads " +
           std::string(kVersion) + ", header " + kHeaderForm;
  }
  struct Field {
    std::string_view name;
    int* out;
    bool seen;
  };
  Field fields[] = {{"layers", &shape.moe_layers, false},
                    {"experts", &shape.experts, false},
                    {"k", &shape.k, false}};
  while (!(rest = strip(rest)).empty()) {
    std::string_view item = take_until(rest, ' ');
    const std::string_view name = take_until(item, '=');
    Field* field = nullptr;
    for (Field& f : fields) {
      if (f.name == name) field = &f;
    }
    if (field == nullptr) {
      return "unknown header field " + quoted_excerpt(name) + "; the header is " + kHeaderForm;
    }
    if (field->seen) return "header field \"" + std::string(name) + "\" appears twice";
    const std::int64_t v = parse_count(item);
    if (v <= 0 || v > std::numeric_limits<int>::max()) {
      return "header field \"" + std::string(name) + "\" needs a positive integer, got " +
             quoted_excerpt(item);
    }
    *field->out = static_cast<int>(v);
    field->seen = true;
  }
  for (const Field& f : fields) {
    if (!f.seen) {
      return "header field \"" + std::string(f.name) + "\" is missing; the header is " + kHeaderForm;
    }
  }
  return "";
}

std::string shape_mismatch(const RoutingShape& trace, const RoutingShape& card) {
  std::string msg;
  auto add = [&msg](const char* field, int in_trace, int in_card, const char* what) {
    if (in_trace == in_card) return;
    msg += msg.empty() ? "" : "; ";
    msg += std::string("the trace has ") + field + "=" + std::to_string(in_trace) + " but the card has " +
           std::to_string(in_card) + " " + what;
  };
  add("layers", trace.moe_layers, card.moe_layers, "MoE layers");
  add("experts", trace.experts, card.experts, "experts per MoE layer");
  add("k", trace.k, card.k, "active experts per token per MoE layer");
  return msg;
}

// Parses one token line (L groups of K ids) onto the end of `ids`; "" or a
// message. `stamp` (one entry per expert) and `group_id` detect duplicates.
std::string parse_token_line(std::string_view line, const RoutingShape& shape, std::vector<int>& ids,
                             std::vector<std::uint64_t>& stamp, std::uint64_t& group_id) {
  const auto groups = static_cast<std::int64_t>(std::count(line.begin(), line.end(), '|')) + 1;
  if (groups != shape.moe_layers) {
    return "found " + std::to_string(groups) + " group" + (groups == 1 ? "" : "s") + ", expected layers=" +
           std::to_string(shape.moe_layers) + " groups of k=" + std::to_string(shape.k) +
           " ids separated by \" | \"";
  }
  std::string_view rest = line;
  for (int l = 0; l < shape.moe_layers; ++l) {
    std::string_view group = take_until(rest, '|');
    const std::string where = "group " + std::to_string(l + 1) + " (MoE layer " + std::to_string(l) + ")";
    const auto count = static_cast<std::int64_t>(std::count(group.begin(), group.end(), ',')) + 1;
    if (count != shape.k) {
      return where + " has " + std::to_string(count) + " id" + (count == 1 ? "" : "s") + ", expected k=" +
             std::to_string(shape.k) + " comma-separated ids";
    }
    ++group_id;
    for (int j = 0; j < shape.k; ++j) {
      const std::string_view token = strip(take_until(group, ','));
      const std::int64_t id = parse_count(token);
      if (id < 0) {
        return where + ": " + quoted_excerpt(token) + " is not an expert id (a non-negative integer)";
      }
      if (id >= shape.experts) {
        return where + ": expert id " + std::to_string(id) + " is out of range (experts=" +
               std::to_string(shape.experts) + ", so ids are 0.." + std::to_string(shape.experts - 1) + ")";
      }
      const auto e = static_cast<std::size_t>(id);
      if (stamp[e] == group_id) {
        return where + ": expert " + std::to_string(id) +
               " appears twice (each layer's k experts must be distinct)";
      }
      stamp[e] = group_id;
      ids.push_back(static_cast<int>(id));
    }
  }
  return "";
}

void append_int(std::string& out, int v) {
  char buf[16];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

}  // namespace

namespace routing_detail {

Expected<std::unique_ptr<RoutingGenerator>> load_trace_routing(const std::string& arg,
                                                               const std::string& path,
                                                               const RoutingShape& shape) {
  auto text = read_file(path);
  if (!text) {
    return make_error("routing \"trace:" + arg + "\": " + text.error().message +
                      " (check that the trace file is readable)");
  }
  std::string_view rest = *text;
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // UTF-8 byte order mark
  if (strip(rest).empty()) {
    return make_error(path + ": the trace file is empty; it needs the header " + std::string(kHeaderForm) +
                      " and one line per token");
  }

  RoutingShape file_shape;
  if (const std::string msg = parse_header(take_until(rest, '\n'), file_shape); !msg.empty()) {
    return make_error(path + ":1: " + msg);
  }
  if (const std::string msg = shape_mismatch(file_shape, shape); !msg.empty()) {
    return make_error(path + ":1: " + msg +
                      "; record the trace for this card's shape (or choose the model scale it was "
                      "recorded for)");
  }

  const std::size_t per_token = to_size(shape.moe_layers) * to_size(shape.k);
  std::vector<int> ids;
  std::vector<std::uint64_t> stamp(to_size(shape.experts), 0);
  std::uint64_t group_id = 0;
  std::int64_t line_no = 1;
  while (!rest.empty()) {
    ++line_no;
    const std::string_view raw = take_until(rest, '\n');
    const std::string_view line = strip(raw);
    if (line.empty() || line.front() == '#') continue;
    if (const std::string msg = parse_token_line(line, shape, ids, stamp, group_id); !msg.empty()) {
      return make_error(path + ":" + std::to_string(line_no) + ": " + msg);
    }
  }
  if (ids.empty()) {
    return make_error(path + ": the trace has a header but no tokens; add one line per token of " +
                      std::to_string(shape.moe_layers) + " groups of " + std::to_string(shape.k) +
                      " ids, e.g. \"3,17 | 0,5\"");
  }
  std::unique_ptr<RoutingGenerator> gen = std::make_unique<TraceRouting>(arg, std::move(ids), per_token);
  return gen;
}

}  // namespace routing_detail

Status write_routing_trace(const std::string& path, RoutingGenerator& gen, const RoutingShape& shape,
                           std::int64_t tokens) {
  if (shape.moe_layers <= 0 || shape.experts <= 0 || shape.k <= 0 || shape.k > shape.experts) {
    return make_error(path + ": cannot write a trace for layers=" + std::to_string(shape.moe_layers) +
                      " experts=" + std::to_string(shape.experts) + " k=" + std::to_string(shape.k) +
                      " (needs layers, experts, k >= 1 and k <= experts)");
  }
  if (tokens <= 0) {
    return make_error(path + ": a trace needs at least one token, asked for " + std::to_string(tokens));
  }
  const std::size_t per_token = to_size(shape.moe_layers) * to_size(shape.k);
  std::string out = std::string(kMagic) + " " + std::string(kVersion) +
                    " layers=" + std::to_string(shape.moe_layers) + " experts=" + std::to_string(shape.experts) +
                    " k=" + std::to_string(shape.k) + "\n# recorded from " + gen.describe() + "\n";
  out.reserve(out.size() + static_cast<std::size_t>(tokens) * per_token * 5);
  std::vector<int> ids;
  std::vector<std::uint64_t> stamp(to_size(shape.experts), 0);
  std::uint64_t group_id = 0;
  for (std::int64_t t = 0; t < tokens; ++t) {
    gen.next_token(ids);
    if (ids.size() != per_token) {
      return make_error(path + ": " + gen.describe() + " gave " + std::to_string(ids.size()) +
                        " ids for a token, expected layers*k=" + std::to_string(per_token) +
                        " (generator and shape disagree)");
    }
    for (int l = 0; l < shape.moe_layers; ++l) {
      if (l > 0) out += " | ";
      ++group_id;
      for (int j = 0; j < shape.k; ++j) {
        const int id = ids[to_size(l * shape.k + j)];
        if (id < 0 || id >= shape.experts || stamp[to_size(id)] == group_id) {
          return make_error(path + ": " + gen.describe() + " gave expert " + std::to_string(id) + " at token " +
                            std::to_string(t) + ", MoE layer " + std::to_string(l) +
                            ", which is out of range or repeated; refusing to write an unloadable trace");
        }
        stamp[to_size(id)] = group_id;
        if (j > 0) out += ',';
        append_int(out, id);
      }
    }
    out += '\n';
  }
  return write_file_atomic(path, out);
}

}  // namespace moebench
