// validate.cpp — see validate.h.
#include "vocab/validate.h"

#include <filesystem>

#include "vocab/claim.h"
#include "vocab/engine_efficiency.h"
#include "vocab/machine_profile.h"
#include "vocab/machine_spec.h"
#include "vocab/model_card.h"
#include "vocab/scale_fit.h"
#include "vocab/spec_tables.h"
#include "vocab/text.h"

namespace moebench {

const char* to_string(ConfigKind k) {
  switch (k) {
    case ConfigKind::kModel: return "model";
    case ConfigKind::kMachine: return "machine";
    case ConfigKind::kSweep: return "sweep";
    case ConfigKind::kClaims: return "claims";
    case ConfigKind::kEfficiency: return "efficiency";
    case ConfigKind::kSpecs: return "specs";
    case ConfigKind::kRegimeFit: return "regime-fit";
    case ConfigKind::kMachineSpec: return "machine-spec";
    case ConfigKind::kScaleFit: return "scale-fit";
  }
  return "?";
}

std::optional<ConfigKind> parse_config_kind(const std::string& s) {
  if (s == "model" || s == "models" || s == "card") return ConfigKind::kModel;
  if (s == "machine" || s == "hardware" || s == "profile") return ConfigKind::kMachine;
  if (s == "sweep" || s == "sweeps") return ConfigKind::kSweep;
  if (s == "claims" || s == "claim") return ConfigKind::kClaims;
  if (s == "efficiency" || s == "engines") return ConfigKind::kEfficiency;
  if (s == "specs" || s == "spec-table") return ConfigKind::kSpecs;
  if (s == "regime-fit" || s == "fits") return ConfigKind::kRegimeFit;
  if (s == "machine-spec" || s == "machine_spec") return ConfigKind::kMachineSpec;
  if (s == "scale-fit") return ConfigKind::kScaleFit;
  return std::nullopt;
}

namespace {

std::optional<ConfigKind> infer(const std::string& path, const Json& j) {
  const std::string parent = std::filesystem::path(path).parent_path().filename().string();
  // fits/ holds the regime fit and the full-model check (scale.json).
  if (parent == "fits" && j.is_object() && j.contains("checks")) return ConfigKind::kScaleFit;
  if (auto k = parse_config_kind(parent)) return k;
  if (!j.is_object()) return std::nullopt;
  if (j.contains("axes")) return ConfigKind::kSweep;
  if (j.contains("claims")) return ConfigKind::kClaims;
  if (j.contains("families")) return ConfigKind::kEfficiency;
  if (j.contains("parameters") && j.contains("spread")) return ConfigKind::kRegimeFit;
  if (j.contains("moe") || j.contains("layers")) return ConfigKind::kModel;
  if (is_machine_spec_document(j)) return ConfigKind::kMachineSpec;
  for (const char* t : {"cpus", "gpus", "memory_kinds", "os", "enclosures", "links"}) {
    if (j.contains(t)) return ConfigKind::kSpecs;
  }
  if (j.contains("drives") || j.contains("memory_total")) return ConfigKind::kMachine;
  return std::nullopt;
}

}  // namespace

Expected<std::string> validate_config_file(const std::string& path, std::optional<ConfigKind> kind,
                                           const SweepContext& ctx) {
  auto j = read_json_file(path);
  if (!j) return j.error();
  if (!kind) kind = infer(path, *j);
  if (!kind) {
    return make_error(path + ": cannot tell which kind of config this is (not under models/, "
                      "hardware/, sweeps/ or claims/, and no telling keys); pass --kind "
                      "model|machine|machine-spec|sweep|claims|specs|regime-fit|scale-fit");
  }
  Diagnostics d(path);
  switch (*kind) {
    case ConfigKind::kModel: {
      auto card = load_model_card(*j, d);
      if (!card) return d.to_error();
      return "model card \"" + card->name + "\": " + std::to_string(card->total_layers()) + " layers (" +
             std::to_string(card->moe_layers()) + " MoE), " + std::to_string(card->moe.experts) +
             " experts, top-" + std::to_string(card->moe.active);
    }
    case ConfigKind::kMachine: {
      auto m = load_machine_profile(*j, d);
      if (!m) return d.to_error();
      return "machine profile \"" + m->name + "\": " + std::to_string(m->drives.size()) + " drive(s)";
    }
    case ConfigKind::kEfficiency: {
      auto t = load_efficiency_table(*j, d);
      if (!t) return d.to_error();
      return "engine efficiencies: " + std::to_string(t->families.size()) + " famil" + (t->families.size() == 1 ? "y" : "ies");
    }
    case ConfigKind::kSpecs: {
      auto rows = load_spec_rows(*j, d);
      if (!rows) return d.to_error();
      return "spec table: " + std::to_string(rows->size()) + " row(s), every figure cited";
    }
    case ConfigKind::kMachineSpec: {
      auto spec = load_machine_spec_document(*j, d);
      if (!spec) return d.to_error();
      return "machine spec: " + describe_machine_spec(*spec);
    }
    case ConfigKind::kScaleFit: {
      auto fit = load_scale_fit(*j, d);
      if (!fit) return d.to_error();
      std::string out = "full-model check: " + std::to_string(fit->checks.size()) + " run(s)";
      if (auto b = scale_band(*fit, FullModelKind::kResidentDecode)) out += ", resident decode band ×" + format_fixed(b->factor, 3);
      if (auto b = scale_band(*fit, FullModelKind::kStreamingDecode)) out += ", streaming decode band ×" + format_fixed(b->factor, 3);
      return out;
    }
    case ConfigKind::kRegimeFit: {
      if (!ctx.check_regime_fit) return make_error(path + ": a regime fit is checked by the model layer, which this caller did not give");
      return ctx.check_regime_fit(*j, path);
    }
    case ConfigKind::kClaims: {
      auto c = load_claims(*j, d);
      if (!c) return d.to_error();
      return "claims file: " + std::to_string(c->size()) + " claim(s)";
    }
    case ConfigKind::kSweep: {
      SweepContext local = ctx;
      if (local.base_dir.empty()) local.base_dir = std::filesystem::path(path).parent_path().string();
      auto s = load_sweep(*j, d, local);
      if (!s) return d.to_error();
      auto points = expand_sweep(*s, local);
      if (!points) return make_error(path + ": " + points.error().message);
      return "sweep \"" + s->name + "\": " + std::to_string(points->size()) + " points × " +
             std::to_string(s->repetitions) + " repetitions (+" + std::to_string(s->warmup) + " warm-up)";
    }
  }
  return make_error("unreachable");
}

}  // namespace moebench
