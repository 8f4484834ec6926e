// sweep_spec.cpp — strict loading and expansion of sweeps (see sweep_spec.h).
#include "vocab/sweep_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

#include "vocab/card_tensors.h"
#include "vocab/hot_set_spec.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"

namespace moebench {

const std::vector<std::string>& sweep_axis_names() {
  static const std::vector<std::string> kNames = {
      "model",         "quant",         "trunk_quant", "drives",     "engine",  "ram_budget",
      "context_tokens", "prompt_tokens", "gen_tokens", "threads", "routing",
      "cache_policy",  "prefetch",     "hot_set"};
  return kNames;
}

std::string check_routing(const std::string& routing, const std::string& base_dir) {
  const auto colon = routing.find(':');
  const std::string kind = routing.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : routing.substr(colon + 1);
  auto number = [&](double& out) {
    const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), out);
    return ec == std::errc() && ptr == arg.data() + arg.size() && std::isfinite(out);
  };
  double v = 0;
  if (kind == "uniform") {
    return colon == std::string::npos ? "" : "\"uniform\" takes no parameter";
  }
  if (kind == "zipf") {
    if (!number(v) || v <= 0) return "zipf needs an exponent > 0, e.g. \"zipf:1.1\"";
    return "";
  }
  if (kind == "sticky") {
    if (!number(v) || v < 0 || v > 1) {
      return "sticky needs a repeat probability in [0, 1], e.g. \"sticky:0.6\"";
    }
    return "";
  }
  if (kind == "locality") {
    const auto comma = arg.find(',');
    double pv = 0, sv = 0;
    auto parse = [](const std::string& t, double& out) {
      const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
      return !t.empty() && ec == std::errc() && ptr == t.data() + t.size() && std::isfinite(out);
    };
    if (comma == std::string::npos || !parse(arg.substr(0, comma), pv) || !parse(arg.substr(comma + 1), sv) || pv < 0 ||
        pv > 1 || sv < 0) {
      return "locality needs a reuse probability P in [0, 1] and a popularity exponent S >= 0, e.g. \"locality:0.3,0.8\"";
    }
    return "";
  }
  if (kind == "trace") {
    if (arg.empty()) return "trace needs a file, e.g. \"trace:traces/k3.txt\"";
    std::filesystem::path p(arg);
    if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) {
      return "trace file " + p.string() + " does not exist (relative paths are taken from the "
             "sweep file's directory)";
    }
    return "";
  }
  return "unknown routing \"" + routing + "\"" +
         did_you_mean(kind, {"uniform", "zipf", "sticky", "locality", "trace"}) +
         "; expected uniform, zipf:S, sticky:P, locality:P,S or trace:FILE";
}

std::string trunk_quant_fits_card(const ModelCard& card, const std::string& quant) {
  const auto f = find_quant(quant);
  if (!f) return "unknown quant \"" + quant + "\"";
  ModelCard c = card;
  c.trunk_quant = quant;
  for (const CardTensor& t : card_trunk_tensors(c)) {
    if (t.small) continue;  // 16-bit small tensors (norms, routers) do not take the trunk quant
    if (!f->divides(t.row_len)) {
      return quant + " stores weights in blocks of " + std::to_string(f->block_weights) +
             ", which does not divide the row length " + std::to_string(t.row_len) + " of trunk tensor " + t.name +
             " of " + card.name + "; pick a quant whose block divides it (bf16, f16, f32 always do)";
    }
  }
  return "";
}

namespace {

using AxisParser =
    std::function<std::optional<Json>(const Json&, const std::string&, Diagnostics&)>;

std::optional<Json> int_value(const Json& j, const std::string& path, Diagnostics& d,
                              std::int64_t min_value, std::int64_t max_value, const char* why) {
  // nlohmann keeps a non-negative integer as number_unsigned, which must not
  // be read as int64 (above INT64_MAX it would wrap negative).
  const bool below = j.is_number_unsigned() ? min_value > 0 && j.get<std::uint64_t>() < static_cast<std::uint64_t>(min_value)
                                            : j.is_number_integer() && j.get<std::int64_t>() < min_value;
  if (below && why != nullptr) {
    d.add(path, "expected an integer of at least " + std::to_string(min_value) + " (" + why +
                    "), got " + j.dump());
    return std::nullopt;
  }
  auto v = read_integer(j, path, d, min_value, max_value);
  return v ? std::optional<Json>(*v) : std::nullopt;
}

// An engine spec ("resident", "streaming:cache=lru"): a known engine whose
// options its table accepts.
std::optional<Json> parse_engine_axis(const SweepContext& ctx, const Json& j, const std::string& path, Diagnostics& d) {
  auto s = read_string(j, path, d);
  if (!s) return std::nullopt;
  auto spec = parse_engine_spec(*s);
  if (!spec) {
    d.add(path, spec.error().message);
    return std::nullopt;
  }
  bool known = false;
  for (const std::string& n : ctx.engine_names) known = known || n == spec->name;
  if (!known) {
    d.add(path, "unknown engine \"" + spec->name + "\"" + did_you_mean(spec->name, ctx.engine_names) +
                    "; available engines: " + join(ctx.engine_names, ", "));
    return std::nullopt;
  }
  if (ctx.check_engine_options) {
    const std::string msg = ctx.check_engine_options(*spec);
    if (!msg.empty()) {
      d.add(path, msg);
      return std::nullopt;
    }
  }
  return Json(spec->to_string());
}

// A card name, or {"card": NAME, "layers": N, "experts": E}: a card the store
// has, scaled as asked.
std::optional<Json> parse_model_axis(const SweepContext& ctx, const Json& j, const std::string& path, Diagnostics& d) {
  std::string name;
  Scale scale;
  if (j.is_string()) {
    name = j.get<std::string>();
  } else if (j.is_object()) {
    ObjectReader r(j, path, d);
    name = r.string("card", true).value_or("");
    if (auto l = r.integer("layers", false, 1, 100000)) scale.layers = static_cast<int>(*l);
    if (auto e = r.integer("experts", false, 1, 1 << 20)) scale.experts = static_cast<int>(*e);
    r.finish();
    if (name.empty()) return std::nullopt;
  } else {
    d.add(path, "expected a card name or {\"card\": NAME, \"layers\": N, \"experts\": E}, got " +
                    json_type_phrase(j));
    return std::nullopt;
  }
  auto card = ctx.find_card(name);
  if (!card) {
    d.add(path, card.error().message);
    return std::nullopt;
  }
  auto scaled = apply_scale(*card, scale);
  if (!scaled) {
    d.add(path, scaled.error().message);
    return std::nullopt;
  }
  return Json{{"card", name}, {"scale", scale.to_string()}};
}

// An expert quant moebench computes with, or "native" (the card's).
std::optional<Json> parse_quant_axis(const Json& j, const std::string& path, Diagnostics& d) {
  std::vector<std::string> names = quant_names();
  names.push_back("native");
  auto s = read_enum(j, path, d, names, "quant");
  return s ? std::optional<Json>(*s) : std::nullopt;
}

// A trunk quant, or "native" (the card's).
std::optional<Json> parse_trunk_quant_axis(const Json& j, const std::string& path, Diagnostics& d) {
  std::vector<std::string> names = quant_names();
  names.push_back("native");
  auto s = read_enum(j, path, d, names, "trunk quant");
  return s ? std::optional<Json>(*s) : std::nullopt;
}

// A size ("32GiB"), or "unlimited".
std::optional<Json> parse_ram_budget_axis(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_string() && j.get<std::string>() == "unlimited") return Json("unlimited");
  auto v = read_size(j, path, d);
  return v ? std::optional<Json>(*v) : std::nullopt;
}

// A drive count, or {"count": N, "layout": "replicate"|"stripe", "throttle":
// RATE}.
std::optional<Json> parse_drives_axis(const Json& j, const std::string& path, Diagnostics& d) {
  DriveSpec s;
  if (j.is_number_integer() || j.is_number_unsigned()) {
    auto c = read_integer(j, path, d, 1, kMaxDrives);
    if (!c) return std::nullopt;
    s.count = static_cast<int>(*c);
  } else if (j.is_object()) {
    ObjectReader r(j, path, d);
    s.count = static_cast<int>(r.integer("count", true, 1, kMaxDrives).value_or(0));
    s.layout = r.enumeration("layout", false, {"replicate", "stripe"}, "drive layout").value_or("?");
    if (!r.has("layout")) s.layout = "replicate";
    s.throttle_bytes_s = r.rate("throttle", false);
    const bool had_throttle = r.has("throttle");
    r.finish();
    if (s.count == 0 || s.layout == "?" || (had_throttle && !s.throttle_bytes_s)) return std::nullopt;
  } else {
    d.add(path, "expected a drive count or {\"count\": N, \"layout\": \"replicate\"|\"stripe\", "
                "\"throttle\": \"200MB/s\"}, got " + json_type_phrase(j));
    return std::nullopt;
  }
  Json out = {{"count", s.count}, {"layout", s.layout}};
  out["throttle_bytes_s"] = s.throttle_bytes_s ? Json(*s.throttle_bytes_s) : Json(nullptr);
  return out;
}

// Tokens already in the KV cache (0 or more).
std::optional<Json> parse_context_tokens_axis(const Json& j, const std::string& path, Diagnostics& d) {
  return int_value(j, path, d, 0, kMaxTokens, nullptr);
}

// Prompt tokens (at least 1: TTFT needs a prompt).
std::optional<Json> parse_prompt_tokens_axis(const Json& j, const std::string& path, Diagnostics& d) {
  return int_value(j, path, d, 1, kMaxTokens, "TTFT needs a prompt");
}

// Generated tokens (at least 2: the decode rate excludes the first).
std::optional<Json> parse_gen_tokens_axis(const Json& j, const std::string& path, Diagnostics& d) {
  return int_value(j, path, d, 2, kMaxTokens, "decode rate excludes the first token, so at least 2");
}

// A thread count, or "all".
std::optional<Json> parse_threads_axis(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_string() && j.get<std::string>() == "all") return Json("all");
  if (!(j.is_number_integer() || j.is_number_unsigned())) {
    d.add(path, "expected a thread count or \"all\", got " + json_type_phrase(j));
    return std::nullopt;
  }
  return int_value(j, path, d, 1, kMaxThreads, nullptr);
}

// A routing model the run can build (check_routing: uniform, zipf, sticky,
// locality, a trace file).
std::optional<Json> parse_routing_axis(const SweepContext& ctx, const Json& j, const std::string& path, Diagnostics& d) {
  auto s = read_string(j, path, d);
  if (!s) return std::nullopt;
  const std::string msg = check_routing(*s, ctx.base_dir);
  if (!msg.empty()) {
    d.add(path, msg);
    return std::nullopt;
  }
  return Json(*s);
}

// The expert cache's eviction: "lru" or "lfu".
std::optional<Json> parse_cache_policy_axis(const Json& j, const std::string& path, Diagnostics& d) {
  auto s = read_enum(j, path, d, {"lru", "lfu"}, "cache policy");
  return s ? std::optional<Json>(*s) : std::nullopt;
}

// "off", "next-layer", or "pregate:P": a simulated pre-gating predictor that
// names each of the next layer's experts correctly with probability P.
std::optional<Json> parse_prefetch_axis(const Json& j, const std::string& path, Diagnostics& d) {
  if (j.is_string() && j.get<std::string>().rfind("pregate:", 0) == 0) {
    const std::string arg = j.get<std::string>().substr(8);
    double v = -1;
    const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
    if (ec != std::errc() || ptr != arg.data() + arg.size() || !(v >= 0 && v <= 1)) {
      d.add(path, "pregate needs an accuracy in [0, 1], e.g. \"pregate:0.9\"");
      return std::nullopt;
    }
    return Json(j.get<std::string>());
  }
  auto s = read_enum(j, path, d, {"off", "next-layer"}, "prefetch mode (or pregate:P)");
  return s ? std::optional<Json>(*s) : std::nullopt;
}

// A hot-set spec; a trace file must be readable as a routing trace.
std::optional<Json> parse_hot_set_axis(const SweepContext& ctx, const Json& j, const std::string& path, Diagnostics& d) {
  auto s = read_string(j, path, d);
  if (!s) return std::nullopt;
  auto h = parse_hot_set(*s);
  if (!h) {
    d.add(path, h.error().message);
    return std::nullopt;
  }
  if (h->kind == HotSetSpec::Kind::kTrace) {
    // The file as a routing trace names it (relative to the sweep file's directory).
    const std::string msg = check_routing("trace:" + h->path, ctx.base_dir);
    if (!msg.empty()) {
      d.add(path, "hot_set " + msg);
      return std::nullopt;
    }
  }
  return Json(*s);
}

// The axes a sweep may vary, each with the parser that checks and
// normalizes one value: the table the sweep loader reads.
std::map<std::string, AxisParser> make_parsers(const SweepContext& ctx) {
  auto with_context = [&ctx](std::optional<Json> (*f)(const SweepContext&, const Json&, const std::string&, Diagnostics&)) {
    return AxisParser([&ctx, f](const Json& j, const std::string& path, Diagnostics& d) { return f(ctx, j, path, d); });
  };
  return {
      {"engine", with_context(parse_engine_axis)},
      {"model", with_context(parse_model_axis)},
      {"quant", parse_quant_axis},
      {"trunk_quant", parse_trunk_quant_axis},
      {"ram_budget", parse_ram_budget_axis},
      {"drives", parse_drives_axis},
      {"context_tokens", parse_context_tokens_axis},
      {"prompt_tokens", parse_prompt_tokens_axis},
      {"gen_tokens", parse_gen_tokens_axis},
      {"threads", parse_threads_axis},
      {"routing", with_context(parse_routing_axis)},
      {"cache_policy", parse_cache_policy_axis},
      {"prefetch", parse_prefetch_axis},
      {"hot_set", with_context(parse_hot_set_axis)},
  };
}

const std::map<std::string, Json>& axis_defaults() {
  static const std::map<std::string, Json> kDefaults = {
      {"quant", "native"},
      {"trunk_quant", "native"},
      {"ram_budget", "unlimited"},
      {"drives", Json{{"count", 1}, {"layout", "replicate"}, {"throttle_bytes_s", nullptr}}},
      {"context_tokens", 0},
      {"prompt_tokens", 16},
      {"gen_tokens", 16},
      {"threads", "all"},
      {"routing", "uniform"},
      {"cache_policy", "lru"},
      {"prefetch", "off"},
      {"hot_set", "off"},
  };
  return kDefaults;
}

std::vector<SweepFilter> read_filters(ObjectReader& r, const char* key,
                                      const std::map<std::string, AxisParser>& parsers) {
  std::vector<SweepFilter> out;
  const Json* arr = r.array(key, false, true);
  if (arr == nullptr) return out;
  Diagnostics& d = r.diagnostics();
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string fpath = json_pointer_append(r.path_of(key), i);
    const Json& f = (*arr)[i];
    if (!f.is_object() || f.empty()) {
      d.add(fpath, "expected an object of axis → value(s), e.g. {\"engine\": \"null\", "
                   "\"ram_budget\": [\"8GiB\", \"16GiB\"]}");
      continue;
    }
    SweepFilter filter;
    for (auto it = f.begin(); it != f.end(); ++it) {
      const std::string vpath = json_pointer_append(fpath, it.key());
      auto parser = parsers.find(it.key());
      if (parser == parsers.end()) {
        d.add(vpath, "unknown axis \"" + it.key() + "\"" + did_you_mean(it.key(), sweep_axis_names()) +
                         "; filters name sweep axes");
        continue;
      }
      std::vector<Json> values;
      const bool is_list = it.value().is_array();
      const std::size_t n = is_list ? it.value().size() : 1;
      for (std::size_t k = 0; k < n; ++k) {
        const Json& v = is_list ? it.value()[k] : it.value();
        auto canon = parser->second(v, is_list ? json_pointer_append(vpath, k) : vpath, d);
        if (canon) values.push_back(*canon);
      }
      filter.accepted[it.key()] = values;
    }
    out.push_back(std::move(filter));
  }
  return out;
}

// A point's key against a filter. The model axis matches on card name, and on
// scale too when the filter value was written with a scale.
bool matches(const SweepFilter& f, const Json& key, const Json& model_value) {
  for (const auto& [axis, values] : f.accepted) {
    bool any = false;
    for (const Json& v : values) {
      if (axis == "model") {
        any = any || (v.at("card") == model_value.at("card") &&
                      (v.at("scale") == "full" || v.at("scale") == model_value.at("scale")));
      } else if (axis == "ram_budget") {
        any = any || v == key.at("ram_budget_bytes");
      } else if (axis == "quant" && v == "native") {
        any = any || key.at("quant_was_native") == true;
      } else if (axis == "trunk_quant" && v == "native") {
        any = any || key.at("trunk_quant_was_native") == true;
      } else {
        any = any || v == key.at(axis);
      }
    }
    if (!any) return false;
  }
  return true;
}

// Why `name` cannot name a sweep, or "": it names the default results
// directory (results/<name>), so it is one plain path component.
std::string sweep_name_problem(const std::string& name) {
  const bool plain = !name.empty() && name.size() <= 128 && name != "." && name != ".." &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
                              c == '-';
                     });
  if (plain) return "";
  return "the sweep name \"" + sanitize_utf8(utf8_prefix(name, 60)) +
         "\" names its results directory (results/<name>): use 1-128 letters, digits and . _ + - (not \".\" or "
         "\"..\")";
}

}  // namespace

std::optional<SweepSpec> load_sweep(const Json& j, Diagnostics& d, const SweepContext& ctx) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  SweepSpec s;
  s.name = r.string("name", true).value_or("");
  if (const std::string why = sweep_name_problem(s.name); r.has("name") && !why.empty()) d.add("/name", why);
  s.description = r.string("description", false).value_or("");
  s.repetitions = static_cast<int>(r.integer("repetitions", false, 1, kMaxRepetitions).value_or(3));
  s.warmup = static_cast<int>(r.integer("warmup", false, 0, kMaxRepetitions).value_or(1));
  s.seed = static_cast<std::uint64_t>(r.integer("seed", false, 0, INT64_MAX).value_or(42));
  if (auto t = r.number("timeout_s", false)) {
    if (*t <= 0) {
      d.add("/timeout_s", "expected a timeout in seconds greater than zero");
    } else if (*t > kMaxTimeoutS) {
      d.add("/timeout_s", "a timeout of " + format_scientific(*t, 3) + " s is longer than the longest allowed, 30 days (" +
                              format_fixed(kMaxTimeoutS, 0) + " s); give a shorter one");
    } else {
      s.timeout_s = *t;
    }
  }
  if (const Json* dirs = r.array("drive_dirs", false, true)) {
    for (std::size_t i = 0; i < dirs->size(); ++i) {
      if (auto dir = read_string((*dirs)[i], json_pointer_append("/drive_dirs", i), d)) {
        s.drive_dirs.push_back(*dir);
      }
    }
  }
  if (!ctx.drive_dirs_override.empty()) s.drive_dirs = ctx.drive_dirs_override;
  const auto parsers = make_parsers(ctx);
  if (const Json* axes = r.object("axes", true)) {
    ObjectReader a(*axes, "/axes", d);
    for (const std::string& axis : sweep_axis_names()) {
      const bool required = axis == "engine" || axis == "model";
      const Json* values = a.array(axis, required, true);
      std::vector<Json> canon;
      if (values != nullptr) {
        for (std::size_t i = 0; i < values->size(); ++i) {
          if (auto c = parsers.at(axis)((*values)[i], json_pointer_append(a.path_of(axis), i), d)) {
            canon.push_back(*c);
          }
        }
      } else if (!required && !a.has(axis)) {
        canon.push_back(axis_defaults().at(axis));
      }
      s.axes[axis] = canon;
    }
    a.finish();
  }
  s.include = read_filters(r, "include", parsers);
  s.exclude = read_filters(r, "exclude", parsers);
  r.finish();

  // Cross-field checks that need the whole spec.
  if (d.ok()) {
    for (std::size_t i = 0; i < s.axes["drives"].size(); ++i) {
      const int count = s.axes["drives"][i].at("count").get<int>();
      bool needs_dirs = false;
      for (const Json& e : s.axes["engine"]) {
        auto spec = parse_engine_spec(e.get<std::string>());
        needs_dirs = needs_dirs || (spec && ctx.engine_uses_drives && ctx.engine_uses_drives(spec->name));
      }
      if (needs_dirs && count > static_cast<int>(s.drive_dirs.size())) {
        d.add("/axes/drives/" + std::to_string(i),
              "needs " + std::to_string(count) + " drive directories but /drive_dirs lists " +
                  std::to_string(s.drive_dirs.size()) + "; add directories (one per drive)");
      }
    }
    for (std::size_t m = 0; m < s.axes["model"].size(); ++m) {
      const std::string card_name = s.axes["model"][m].at("card").get<std::string>();
      auto card = ctx.find_card(card_name);
      if (!card) continue;
      for (std::size_t q = 0; q < s.axes["quant"].size(); ++q) {
        std::string quant = s.axes["quant"][q].get<std::string>();
        if (quant == "native") quant = card->expert_quant;
        const std::string fit = quant_fits_card(*card, quant);
        if (!fit.empty()) d.add("/axes/quant/" + std::to_string(q), fit);
      }
      for (std::size_t q = 0; q < s.axes["trunk_quant"].size(); ++q) {
        const std::string tq = s.axes["trunk_quant"][q].get<std::string>();
        if (tq == "native") continue;
        const std::string fit = trunk_quant_fits_card(*card, tq);
        if (!fit.empty()) d.add("/axes/trunk_quant/" + std::to_string(q), fit);
      }
    }
  }
  if (!d.ok()) return std::nullopt;
  Json canonical = {{"name", s.name}, {"repetitions", s.repetitions}, {"warmup", s.warmup},
                    {"seed", s.seed}, {"timeout_s", s.timeout_s}, {"drive_dirs", s.drive_dirs}};
  for (const auto& [axis, values] : s.axes) {
    // The trunk_quant axis at its default leaves the digest of sweeps written
    // before it existed unchanged (their journals still resume).
    if (axis == "trunk_quant" && values == std::vector<Json>{Json("native")}) continue;
    canonical["axes"][axis] = values;
  }
  canonical["include"] = j.value("include", Json::array());
  canonical["exclude"] = j.value("exclude", Json::array());
  s.digest = hex64(fnv1a64(canonical.dump()));
  return s;
}

Expected<SweepSpec> load_sweep_text(const std::string& text, const std::string& label,
                                    const SweepContext& ctx) {
  return load_config_text<SweepSpec>(text, label, [&ctx](const Json& j, Diagnostics& d) {
    return load_sweep(j, d, ctx);
  });
}

Expected<SweepSpec> load_sweep_file(const std::string& path, const SweepContext& ctx) {
  SweepContext local = ctx;
  if (local.base_dir.empty()) local.base_dir = std::filesystem::path(path).parent_path().string();
  return load_config_file<SweepSpec>(path, [&local](const Json& j, Diagnostics& d) {
    return load_sweep(j, d, local);
  });
}

Expected<std::vector<Point>> expand_sweep(const SweepSpec& spec, const SweepContext& ctx) {
  const std::vector<std::string>& names = sweep_axis_names();
  std::size_t total = 1;
  for (const std::string& axis : names) {
    const std::size_t n = spec.axes.at(axis).size();
    if (n == 0) return make_error("sweep \"" + spec.name + "\": axis " + axis + " is empty");
    if (total > 1000000 / n) {
      return make_error("sweep \"" + spec.name + "\" expands to more than 1,000,000 points; "
                        "narrow the axes or add exclude filters");
    }
    total *= n;
  }
  std::map<std::string, std::string> native_quant;  // card → expert quant
  std::map<std::string, std::string> native_trunk;  // card → trunk quant
  std::vector<Point> points;
  std::vector<std::size_t> idx(names.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    // Mixed-radix counter; the last axis varies fastest.
    std::size_t rem = n;
    for (std::size_t a = names.size(); a-- > 0;) {
      const std::size_t size = spec.axes.at(names[a]).size();
      idx[a] = rem % size;
      rem /= size;
    }
    auto value = [&](const std::string& axis) -> const Json& {
      const std::size_t a = static_cast<std::size_t>(
          std::find(names.begin(), names.end(), axis) - names.begin());
      return spec.axes.at(axis)[idx[a]];
    };
    const Json& model = value("model");
    const std::string card_name = model.at("card").get<std::string>();
    std::string quant = value("quant").get<std::string>();
    const bool was_native = quant == "native";
    if (was_native) {
      auto it = native_quant.find(card_name);
      if (it == native_quant.end()) {
        auto card = ctx.find_card(card_name);
        if (!card) return card.error();
        it = native_quant.emplace(card_name, card->expert_quant).first;
      }
      quant = it->second;
    }
    auto card_trunk = native_trunk.find(card_name);
    if (card_trunk == native_trunk.end()) {
      auto card = ctx.find_card(card_name);
      if (!card) return card.error();
      card_trunk = native_trunk.emplace(card_name, card->trunk_quant).first;
    }
    std::string trunk_quant = value("trunk_quant").get<std::string>();
    const bool trunk_was_native = trunk_quant == "native";
    if (trunk_was_native) trunk_quant = card_trunk->second;
    Json key = {{"engine", value("engine")},
                {"model", card_name},
                {"scale", model.at("scale")},
                {"quant", quant},
                {"trunk_quant", trunk_quant},
                {"ram_budget_bytes", value("ram_budget")},
                {"drives", value("drives")},
                {"context_tokens", value("context_tokens")},
                {"prompt_tokens", value("prompt_tokens")},
                {"gen_tokens", value("gen_tokens")},
                {"threads", value("threads")},
                {"routing", value("routing")},
                {"cache_policy", value("cache_policy")},
                {"prefetch", value("prefetch")},
                {"hot_set", value("hot_set")},
                {"quant_was_native", was_native},
                {"trunk_quant_was_native", trunk_was_native}};
    bool keep = spec.include.empty();
    for (const SweepFilter& f : spec.include) keep = keep || matches(f, key, model);
    for (const SweepFilter& f : spec.exclude) keep = keep && !matches(f, key, model);
    if (!keep) continue;
    auto p = point_from_key_json(key);
    if (!p) return p.error();
    p->trunk_quant_is_card = p->trunk_quant == card_trunk->second;
    p->index = points.size();
    points.push_back(std::move(*p));
  }
  if (points.empty()) {
    return make_error("sweep \"" + spec.name + "\": /include, /exclude: the filters removed "
                      "every point; loosen them");
  }
  // Two axis values may canonicalize to the same point (e.g. "native" and the
  // card's own quant); keep the first so each point runs once.
  std::vector<Point> unique;
  std::set<std::string> seen;
  for (Point& p : points) {
    if (seen.insert(p.id()).second) {
      p.index = unique.size();
      unique.push_back(std::move(p));
    }
  }
  return unique;
}

}  // namespace moebench
