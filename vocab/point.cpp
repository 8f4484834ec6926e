// point.cpp — see point.h.
#include "vocab/point.h"

#include "vocab/json_text_writer.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

std::string EngineSpec::to_string() const {
  if (options.empty()) return name;
  std::vector<std::string> parts;
  for (const auto& [k, v] : options) parts.push_back(k + "=" + v);
  return name + ":" + join(parts, ",");
}

Expected<EngineSpec> parse_engine_spec(const std::string& text) {
  EngineSpec spec;
  const auto colon = text.find(':');
  spec.name = std::string(trim(text.substr(0, colon)));
  if (spec.name.empty()) return make_error("empty engine name");
  if (colon == std::string::npos) return spec;
  for (const std::string& part : split(text.substr(colon + 1), ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos || eq == 0) {
      return make_error("engine \"" + text + "\": options are key=value pairs after a colon, "
                        "e.g. \"null:sleep_ms=5\"");
    }
    const std::string key(trim(part.substr(0, eq)));
    if (!spec.options.emplace(key, std::string(trim(part.substr(eq + 1)))).second) {
      return make_error("engine \"" + text + "\": option \"" + key + "\" given twice");
    }
  }
  return spec;
}

std::string DriveSpec::to_string() const {
  std::string s = std::to_string(count) + "x" + layout;
  if (throttle_bytes_s) s += "@" + format_rate(*throttle_bytes_s);
  return s;
}

Json Point::key_json() const {
  Json k = Json::object();
  k["engine"] = engine.to_string();
  k["model"] = model;
  k["scale"] = scale.to_string();
  k["quant"] = quant;
  if (!trunk_quant_is_card && !trunk_quant.empty()) k["trunk_quant"] = trunk_quant;
  k["ram_budget_bytes"] = ram_budget_bytes ? Json(*ram_budget_bytes) : Json("unlimited");
  Json d = {{"count", drives.count}, {"layout", drives.layout}};
  d["throttle_bytes_s"] = drives.throttle_bytes_s ? Json(*drives.throttle_bytes_s) : Json(nullptr);
  k["drives"] = d;
  k["context_tokens"] = context_tokens;
  k["prompt_tokens"] = prompt_tokens;
  k["gen_tokens"] = gen_tokens;
  k["threads"] = threads == 0 ? Json("all") : Json(threads);
  k["routing"] = routing;
  k["cache_policy"] = cache_policy;
  k["prefetch"] = prefetch;
  if (hot_set != "off") k["hot_set"] = hot_set;
  return k;
}

// key_json().dump(), written without the tree (ids are taken per row, often).
void write_point_key(JsonTextWriter& w, const Point& p) {
  w.begin_object();
  w.key("cache_policy");
  w.string(p.cache_policy);
  w.key("context_tokens");
  w.integer(p.context_tokens);
  w.key("drives");
  w.begin_object();
  w.key("count");
  w.integer(p.drives.count);
  w.key("layout");
  w.string(p.drives.layout);
  w.key("throttle_bytes_s");
  if (p.drives.throttle_bytes_s) {
    w.number(*p.drives.throttle_bytes_s);
  } else {
    w.null();
  }
  w.end_object();
  w.key("engine");
  w.string(p.engine.to_string());
  w.key("gen_tokens");
  w.integer(p.gen_tokens);
  if (p.hot_set != "off") {
    w.key("hot_set");
    w.string(p.hot_set);
  }
  w.key("model");
  w.string(p.model);
  w.key("prefetch");
  w.string(p.prefetch);
  w.key("prompt_tokens");
  w.integer(p.prompt_tokens);
  w.key("quant");
  w.string(p.quant);
  w.key("ram_budget_bytes");
  if (p.ram_budget_bytes) {
    w.unsigned_integer(*p.ram_budget_bytes);
  } else {
    w.string("unlimited");
  }
  w.key("routing");
  w.string(p.routing);
  w.key("scale");
  w.string(p.scale.to_string());
  w.key("threads");
  if (p.threads == 0) {
    w.string("all");
  } else {
    w.integer(p.threads);
  }
  if (!p.trunk_quant_is_card && !p.trunk_quant.empty()) {
    w.key("trunk_quant");
    w.string(p.trunk_quant);
  }
  w.end_object();
}

std::string Point::key_text() const {
  std::string out;
  JsonTextWriter w(out);
  write_point_key(w, *this);
  return out;
}

std::string Point::id() const { return hex64(fnv1a64(key_text())); }

std::string Point::label() const {
  std::string s = engine.name + " " + model;
  if (!scale.is_identity()) s += "[" + scale.to_string() + "]";
  s += " " + quant;
  if (!trunk_quant_is_card && !trunk_quant.empty()) s += " trunk=" + trunk_quant;
  s += " budget=" + (ram_budget_bytes ? format_bytes(static_cast<double>(*ram_budget_bytes)) : "unlimited");
  s += " drives=" + drives.to_string() + " ctx=" + std::to_string(context_tokens);
  if (hot_set != "off") s += " hot=" + hot_set;
  return s;
}

std::string Point::setup_key() const {
  return model + "|" + scale.to_string() + "|" + quant + "|" + trunk_quant + "|" + std::to_string(drives.count) + "|" +
         drives.layout;
}

Expected<Point> point_from_key_json(const Json& key) {
  try {
    Point p;
    auto engine = parse_engine_spec(key.at("engine").get<std::string>());
    if (!engine) return engine.error();
    p.engine = *engine;
    p.model = key.at("model").get<std::string>();
    auto scale = parse_scale(key.at("scale").get<std::string>());
    if (!scale) return scale.error();
    p.scale = *scale;
    p.quant = key.at("quant").get<std::string>();
    if (key.contains("trunk_quant")) {
      p.trunk_quant = key.at("trunk_quant").get<std::string>();
      p.trunk_quant_is_card = false;
    }
    const Json& budget = key.at("ram_budget_bytes");
    if (budget.is_number()) p.ram_budget_bytes = budget.get<std::uint64_t>();
    const Json& d = key.at("drives");
    p.drives.count = d.at("count").get<int>();
    p.drives.layout = d.at("layout").get<std::string>();
    if (d.contains("throttle_bytes_s") && d.at("throttle_bytes_s").is_number()) {
      p.drives.throttle_bytes_s = d.at("throttle_bytes_s").get<double>();
    }
    p.context_tokens = key.at("context_tokens").get<std::int64_t>();
    p.prompt_tokens = key.at("prompt_tokens").get<std::int64_t>();
    p.gen_tokens = key.at("gen_tokens").get<std::int64_t>();
    const Json& t = key.at("threads");
    p.threads = t.is_number() ? t.get<int>() : 0;
    p.routing = key.at("routing").get<std::string>();
    p.cache_policy = key.at("cache_policy").get<std::string>();
    p.prefetch = key.at("prefetch").get<std::string>();
    if (key.contains("hot_set")) p.hot_set = key.at("hot_set").get<std::string>();
    return p;
  } catch (const Json::exception& e) {
    return make_error(std::string("malformed point key: ") + e.what());
  }
}

Expected<ModelCard> point_card(const ModelCard& card, const Point& p) {
  auto scaled = apply_scale(card, p.scale);
  if (!scaled) return scaled.error();
  if (!p.trunk_quant.empty()) scaled->trunk_quant = p.trunk_quant;
  return scaled;
}

}  // namespace moebench
