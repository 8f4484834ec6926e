// claim.cpp — strict loader for claims files (see claim.h).
#include "vocab/claim.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "vocab/quant_format.h"
#include "vocab/sweep_spec.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

const std::vector<std::string>& claim_condition_names() {
  static const std::vector<std::string> kNames = {"quant",  "engine",         "machine",     "ram_budget",
                                                  "drives", "context_tokens", "trunk_quant", "speculative"};
  return kNames;
}

const std::vector<std::string>& claim_backends() {
  static const std::vector<std::string> kBackends = {"cuda", "rocm", "vulkan-radv", "vulkan-amdvlk", "vulkan", "metal", "sycl"};
  return kBackends;
}

const std::vector<std::string>& claim_cache_types() {
  static const std::vector<std::string> kTypes = {"f32", "f16", "bf16", "fp8", "q8_0", "q6_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};
  return kTypes;
}

namespace {

// What a speed or time figure can be: nothing measured runs a million
// times slower than a token per 11 days or faster than 10^7 tok/s.
constexpr double kMinReported = 1e-6, kMaxReported = 1e7;

std::optional<Reported> read_reported(ObjectReader& r, const char* key) {
  const Json* j = r.get(key, false);
  if (j == nullptr) return std::nullopt;
  Diagnostics& d = r.diagnostics();
  const std::string path = r.path_of(key);
  Reported rep;
  if (j->is_array()) {
    if (j->size() != 2) {
      d.add(path, "expected a number or a range [low, high]");
      return std::nullopt;
    }
    const auto lo = read_number((*j)[0], json_pointer_append(path, 0), d);
    const auto hi = read_number((*j)[1], json_pointer_append(path, 1), d);
    if (!lo || !hi) return std::nullopt;
    if (*lo <= 0 || *hi < *lo) {
      d.add(path, "expected 0 < low <= high");
      return std::nullopt;
    }
    rep.low = *lo;
    rep.high = *hi;
  } else {
    const auto v = read_number(*j, path, d);
    if (!v) return std::nullopt;
    if (*v <= 0) {
      d.add(path, "expected a figure greater than zero");
      return std::nullopt;
    }
    rep.low = rep.high = *v;
  }
  if (rep.low < kMinReported || rep.high > kMaxReported) {
    d.add(path, std::string("expected ") + (j->is_array() ? "figures" : "a figure") +
                    " from 1e-6 to 1e7 (tok/s or seconds); check the value and its unit");
    return std::nullopt;
  }
  return rep;
}

// A string that must say something: "" is reported, not stored.
std::optional<std::string> non_empty(ObjectReader& r, const char* key, bool required) {
  auto v = r.string(key, required);
  if (v && trim(*v).empty()) {
    r.diagnostics().add(r.path_of(key), "must not be empty");
    return std::nullopt;
  }
  return v;
}

// A token count of at least `min`. Bounded as a sweep's are (kMaxTokens):
// their sums and products with per-token bytes must not overflow.
std::optional<std::int64_t> tokens(ObjectReader& r, const char* key, std::int64_t min) {
  auto v = r.integer(key, false, min, INT64_MAX);
  if (v && *v > kMaxTokens) {
    r.diagnostics().add(r.path_of(key), "expected at most " + std::to_string(kMaxTokens) + " tokens (2^30), got " +
                                            std::to_string(*v));
    return std::nullopt;
  }
  return v;
}

// Claim ids are referenced from reports and verdicts: lowercase letters,
// digits, '-', '.' and '_', starting with a letter or digit.
bool is_claim_id(const std::string& id) {
  if (id.empty()) return false;
  const auto ok = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (!first && (c == '-' || c == '.' || c == '_'));
  };
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (!ok(id[i], i == 0)) return false;
  }
  return true;
}

// The bits per weight a claim states (routed experts, trunk), each from 1
// to 32, and a pruned build's scale.
void read_bits(ObjectReader& r, Claim& c, Diagnostics& d) {
  if (auto v = r.number("expert_bits_per_weight", false)) {
    if (*v < 1 || *v > 32) {
      d.add(r.path_of("expert_bits_per_weight"),
            "expected bits per routed-expert weight from 1 to 32 (MXFP4 is 4.25, IQ1_S 1.5625), got " +
                format_fixed(*v, 4));
    } else {
      c.expert_bits_per_weight = *v;
    }
  }
  if (auto v = r.string("scale", false)) {
    auto sc = parse_scale(*v);
    if (!sc) {
      d.add(r.path_of("scale"), sc.error().message + " (a pruned build: \"experts=242\")");
    } else {
      c.scale = *sc;
    }
  }
  if (auto v = r.number("trunk_bits_per_weight", false)) {
    if (*v < 1 || *v > 32) {
      d.add(r.path_of("trunk_bits_per_weight"), "expected bits per trunk weight from 1 to 32 (bf16 is 16), got " +
                                                    format_fixed(*v, 4));
    } else {
      c.trunk_bits_per_weight = *v;
    }
  }
}

// The trunk's named quant, lowercased: a name the quant table knows, or
// bits beside it; it and trunk_bits_per_weight agree within a bit.
void read_trunk_quant(ObjectReader& r, Claim& c, Diagnostics& d) {
  c.trunk_quant = non_empty(r, "trunk_quant", false);
  if (c.trunk_quant) {
    for (char& ch : *c.trunk_quant) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto named = published_quant_bits(*c.trunk_quant);
    if (named && c.trunk_bits_per_weight && std::fabs(*named - *c.trunk_bits_per_weight) > 1.0) {
      d.add(r.path_of("trunk_bits_per_weight"), format_fixed(*c.trunk_bits_per_weight, 2) + " bits per weight disagrees with trunk_quant " +
                                                    *c.trunk_quant + " (" + format_fixed(*named, 2) + "): give one of them");
    }
    if (!named && !c.trunk_bits_per_weight) {
      d.add(r.path_of("trunk_quant"), "unknown trunk quant \"" + *c.trunk_quant + "\": use one of " +
                                          join(published_quant_names(), ", ") +
                                          " (or a GGUF name built on one: ud-, mix-, _r4, _xl), or give trunk_bits_per_weight beside it");
      c.trunk_quant.reset();
    }
  }
}

// An expert cache of 0 is a stated condition (the engine ran without
// one), unlike every other size.
void read_cache_bytes(ObjectReader& r, Claim& c, Diagnostics& d) {
  if (const Json* cb = r.get("cache_bytes", false)) {
    // "0", "0MiB", "0 GB": a zero count in a unit the size parser knows
    // (parse_size_bytes refuses zero itself, so its unit is checked on 1).
    const bool zero = (cb->is_number() && cb->get<double>() == 0) ||
                      (cb->is_string() && [&] {
                        const std::string t = cb->get<std::string>();
                        const std::size_t n = t.find_first_not_of("0. ");
                        if (t.find('0') == std::string::npos || (n != std::string::npos && !std::isalpha(static_cast<unsigned char>(t[n])))) return false;
                        return n == std::string::npos || parse_size_bytes("1" + t.substr(n)).ok();
                      }());
    c.cache_bytes = zero ? std::optional<std::uint64_t>(0) : read_size(*cb, r.path_of("cache_bytes"), d);
  }
}

// The run fits its window; the cache holds at least the prompt while it
// decodes, and no more than the window.
void check_token_window(ObjectReader& r, const Claim& c, Diagnostics& d) {
  if (c.context_window_tokens && (c.prompt_tokens || c.gen_tokens) &&
      c.prompt_tokens.value_or(0) + c.gen_tokens.value_or(0) > *c.context_window_tokens) {
    d.add(r.path_of(c.prompt_tokens ? "prompt_tokens" : "gen_tokens"),
          "prompt_tokens + gen_tokens (" + std::to_string(c.prompt_tokens.value_or(0) + c.gen_tokens.value_or(0)) +
              ") exceed context_window_tokens (" + std::to_string(*c.context_window_tokens) + ")");
  }
  if (c.context_tokens && c.prompt_tokens && *c.context_tokens < *c.prompt_tokens) {
    d.add(r.path_of("context_tokens"), "context_tokens (" + std::to_string(*c.context_tokens) + ") is less than prompt_tokens (" +
                                           std::to_string(*c.prompt_tokens) +
                                           "): the cache holds the prompt while the figure decodes; a configured window "
                                           "is context_window_tokens");
  }
  if (c.context_window_tokens && c.context_tokens && *c.context_tokens > *c.context_window_tokens) {
    d.add(r.path_of("context_tokens"), "context_tokens (" + std::to_string(*c.context_tokens) + ") exceed context_window_tokens (" +
                                           std::to_string(*c.context_window_tokens) + "): the window bounds what the cache holds");
  }
}

// The measured figures: at least one, and decode_tok_s and s_per_token
// agreeing where both are given.
void read_reported_block(ObjectReader& r, Claim& c, Diagnostics& d) {
  const std::size_t before = d.issues().size();
  if (const Json* rep = r.object("reported", true)) {
    ObjectReader rr(*rep, r.path_of("reported"), d);
    c.decode_tok_s = read_reported(rr, "decode_tok_s");
    c.s_per_token = read_reported(rr, "s_per_token");
    c.ttft_s = read_reported(rr, "ttft_s");
    c.prefill_tok_s = read_reported(rr, "prefill_tok_s");
    c.aggregate_tok_s = read_reported(rr, "aggregate_tok_s");
    c.rss_bytes = rr.size("rss", false);
    rr.finish();
    if (c.decode_tok_s && c.s_per_token) {
      // The same figure twice: they must agree (within rounding, ×1.25).
      const double a = std::sqrt(c.decode_tok_s->low * c.decode_tok_s->high);
      const double b = 1 / std::sqrt(c.s_per_token->low * c.s_per_token->high);
      if (a > 1.25 * b || b > 1.25 * a) {
        d.add(json_pointer_append(r.path_of("reported"), "s_per_token"),
              "decode_tok_s " + format_fixed(a, 3) + " and s_per_token (" + format_fixed(b, 3) +
                  " tok/s) disagree; give the one the source measured");
      }
    }
    if (d.issues().size() == before && !c.decode_tok_s && !c.s_per_token && !c.ttft_s &&
        !c.prefill_tok_s && !c.aggregate_tok_s) {
      d.add(r.path_of("reported"), "a claim reports at least one of decode_tok_s, s_per_token, "
                                   "ttft_s, prefill_tok_s, aggregate_tok_s");
    }
    if (c.aggregate_tok_s && c.concurrency && *c.concurrency == 1) {
      d.add(json_pointer_append(r.path_of("reported"), "aggregate_tok_s"),
            "an aggregate over concurrency 1 is a single-stream figure; give it as decode_tok_s");
    }
  }
}

// Where the figure comes from: exactly one of a reference text, a
// repository file or a page, with its quote.
void read_source_block(ObjectReader& r, Claim& c, Diagnostics& d) {
  if (const Json* src = r.object("source", true)) {
    ObjectReader s(*src, r.path_of("source"), d);
    c.source_document = non_empty(s, "document", false).value_or("");
    c.source_repository = non_empty(s, "repository", false).value_or("");
    c.source_path = non_empty(s, "path", false).value_or("");
    c.source_commit = non_empty(s, "commit", false).value_or("");
    c.source_page = non_empty(s, "page", false).value_or("");
    c.source_quote = non_empty(s, "quote", true).value_or("");
    s.finish();
    const int kinds = !c.source_document.empty() + !c.source_repository.empty() + !c.source_page.empty();
    if (kinds != 1) {
      d.add(r.path_of("source"), "give exactly one of \"document\" (a reference text), \"repository\" (owner/name, "
                                 "with \"path\") or \"page\" (a URL)");
    } else if (!c.source_repository.empty() && c.source_path.empty()) {
      d.add(r.path_of("source"), "a repository source names the file: add \"path\"");
    } else if (c.source_repository.empty() && (!c.source_path.empty() || !c.source_commit.empty())) {
      d.add(r.path_of("source"), "\"path\" and \"commit\" belong to a \"repository\" source");
    }
  }
}

// The conditions the source left out, each a known condition name.
void read_missing(ObjectReader& r, Claim& c, Diagnostics& d) {
  if (const Json* missing = r.array("missing", false, false)) {
    for (std::size_t i = 0; i < missing->size(); ++i) {
      if (auto m = read_enum((*missing)[i], json_pointer_append(r.path_of("missing"), i), d,
                             claim_condition_names(), "condition")) {
        c.missing.push_back(*m);
      }
    }
  }
}

// Every condition is given or named missing — never silently absent.
void check_conditions_named(const Json& j, const std::string& path, ObjectReader& r, const Claim& c, Diagnostics& d) {
  const std::set<std::string> missing(c.missing.begin(), c.missing.end());
  // A key that is present counts as given even when its value was refused
  // above: one problem, one message.
  auto present = [&j](const char* key) { return j.is_object() && j.contains(key); };
  const std::pair<const char*, bool> given[] = {
      {"quant", present("quant")},
      {"engine", present("engine")},
      {"machine", present("machine") || present("machine_spec")},
      {"ram_budget", present("ram_budget")},
      {"drives", present("drives")},
      {"context_tokens", present("context_tokens")},
      {"trunk_quant", present("trunk_quant") || present("trunk_bits_per_weight")},
      {"speculative", present("speculative")}};
  for (const auto& [name, is_given] : given) {
    if (!is_given && missing.count(name) == 0) {
      d.add(path, std::string("condition \"") + name +
                      "\" is neither given nor listed in \"missing\"; add it or name it missing");
    }
    if (is_given && missing.count(name) != 0) {
      d.add(r.path_of("missing"), std::string("\"") + name + "\" is given, so it is not missing");
    }
  }
}

std::optional<Claim> load_one(const Json& j, const std::string& path, Diagnostics& d) {
  ObjectReader r(j, path, d);
  if (!r.is_object()) return std::nullopt;
  Claim c;
  const auto id = r.string("id", true);
  c.id = id.value_or("");
  if (id && !is_claim_id(*id)) {
    d.add(r.path_of("id"), "claim id \"" + c.id + "\" must be lowercase letters, digits, '-', '.' "
                                "or '_', starting with a letter or digit");
  }
  c.title = non_empty(r, "title", true).value_or("");
  c.model = non_empty(r, "model", true).value_or("");
  c.card = non_empty(r, "card", false);
  c.quant = non_empty(r, "quant", false);
  c.engine = non_empty(r, "engine", false);
  c.machine = non_empty(r, "machine", false);
  c.hardware = non_empty(r, "hardware", false);
  if (const Json* ms = r.object("machine_spec", false)) c.machine_spec = load_machine_spec(*ms, r.path_of("machine_spec"), d);
  c.ram_budget_bytes = r.size("ram_budget", false);
  if (auto v = r.integer("drives", false, 1, 1024)) c.drives = static_cast<int>(*v);
  c.context_tokens = tokens(r, "context_tokens", 0);
  c.context_window_tokens = tokens(r, "context_window_tokens", 1);
  c.prompt_tokens = tokens(r, "prompt_tokens", 0);  // 0: llama-bench tgN, no prompt
  c.gen_tokens = tokens(r, "gen_tokens", 1);
  c.container_bytes = r.size("container_bytes", false);
  read_bits(r, c, d);
  if (auto v = r.integer("nodes", false, 1, 1 << 20)) c.nodes = static_cast<int>(*v);
  if (auto v = r.integer("gpus", false, 1, 1 << 20)) c.gpus = static_cast<int>(*v);
  if (auto v = r.integer("concurrency", false, 1, 1 << 20)) c.concurrency = static_cast<int>(*v);
  if (auto v = r.integer("threads", false, 1, 1 << 16)) c.threads = static_cast<int>(*v);
  if (auto v = r.integer("gpu_layers", false, 0, 100000)) c.gpu_layers = static_cast<int>(*v);
  if (auto v = r.integer("cpu_moe_layers", false, 0, 100000)) c.cpu_moe_layers = static_cast<int>(*v);
  if (auto v = r.integer("ubatch", false, 1, 1 << 20)) c.ubatch = static_cast<int>(*v);
  if (const Json* b = r.get("backend", false)) c.backend = read_enum(*b, r.path_of("backend"), d, claim_backends(), "GPU backend");
  if (const Json* t = r.get("cache_type_k", false)) c.cache_type_k = read_enum(*t, r.path_of("cache_type_k"), d, claim_cache_types(), "KV cache type");
  if (const Json* t = r.get("cache_type_v", false)) c.cache_type_v = read_enum(*t, r.path_of("cache_type_v"), d, claim_cache_types(), "KV cache type");
  c.notes = non_empty(r, "notes", false);
  read_trunk_quant(r, c, d);
  if (const Json* tp = r.get("trunk_placement", false)) {
    c.trunk_placement = read_enum(*tp, r.path_of("trunk_placement"), d, {"resident", "streamed", "partial"}, "trunk placement");
  }
  if (const Json* pj = r.get("processor", false)) {
    c.processor = read_enum(*pj, r.path_of("processor"), d, {"cpu", "gpu", "hybrid"}, "processor");
  }
  c.speculative = r.boolean("speculative", false);
  if (const Json* fj = r.get("figure", false)) {
    c.figure = read_enum(*fj, r.path_of("figure"), d, {"steady_decode", "run_average", "unknown"}, "figure kind")
                   .value_or("unknown");
  }
  if (auto v = r.number("hit_rate", false)) {
    if (*v < 0 || *v > 1) {
      d.add(r.path_of("hit_rate"), "expected a hit rate from 0 to 1, got " + format_fixed(*v, 4));
    } else {
      c.hit_rate = *v;
    }
  }
  read_cache_bytes(r, c, d);
  if (const Json* mb = r.get("measured_by", false)) {
    c.measured_by = read_enum(*mb, r.path_of("measured_by"), d, {"engine authors", "third party", "user report"}, "measurer");
  }
  check_token_window(r, c, d);
  read_reported_block(r, c, d);
  read_source_block(r, c, d);
  read_missing(r, c, d);
  r.finish();
  check_conditions_named(j, path, r, c, d);
  return c;
}

}  // namespace

double Claim::decode_figure_tok_s() const {
  if (decode_tok_s) return std::sqrt(decode_tok_s->low * decode_tok_s->high);
  if (s_per_token) return 1 / std::sqrt(s_per_token->low * s_per_token->high);
  return 0;
}

double Claim::prefill_figure_tok_s() const {
  if (prefill_tok_s) return std::sqrt(prefill_tok_s->low * prefill_tok_s->high);
  if (ttft_s && prompt_tokens && *prompt_tokens > 0) return static_cast<double>(*prompt_tokens) / std::sqrt(ttft_s->low * ttft_s->high);
  return 0;
}

std::string Claim::source_label() const {
  if (!source_repository.empty()) {
    return source_repository + "/" + source_path + (source_commit.empty() ? "" : "@" + source_commit.substr(0, 12));
  }
  return source_page.empty() ? source_document : source_page;
}

std::optional<std::vector<Claim>> load_claims(const Json& j, Diagnostics& d) {
  ObjectReader r(j, "", d);
  if (!r.is_object()) return std::nullopt;
  std::vector<Claim> out;
  if (const Json* claims = r.array("claims", true, true)) {
    std::set<std::string> ids;
    for (std::size_t i = 0; i < claims->size(); ++i) {
      const std::string path = json_pointer_append(r.path_of("claims"), i);
      if (auto c = load_one((*claims)[i], path, d)) {
        if (!c->id.empty() && !ids.insert(c->id).second) {
          d.add(path + "/id", "duplicate claim id \"" + c->id + "\"");
        }
        out.push_back(std::move(*c));
      }
    }
  }
  r.finish();
  if (!d.ok()) return std::nullopt;
  return out;
}

Expected<std::vector<Claim>> load_claims_file(const std::string& path) {
  return load_config_file<std::vector<Claim>>(path, load_claims);
}

}  // namespace moebench
