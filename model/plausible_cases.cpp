// plausible_cases.cpp — the cases a claim's conditions allow, and where a
// case computes (setup_model.h: plausible_cases, apply_processor,
// usable_memory, usable_for): stated conditions fixed, the missing ones over
// their declared plausible sets, contradictions named by field. The
// estimate of one case is setup_model.cpp's.
#include <algorithm>
#include <cmath>

#include "model/routing_fit.h"
#include "model/setup_model.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {
}  // namespace

void apply_processor(SetupCase& c, const std::optional<std::string>& stated, const MachineProfile& machine) {
  std::optional<std::string> p = stated;
  c.processor_how = stated ? "as stated" : "";
  if (!stated) {
    // A family default that this machine cannot host (hybrid needs a GPU
    // with its own memory) leaves the machine's default.
    const auto d = family_processor(c.family);
    const bool hostable = d && (d->processor != "hybrid" || machine.accelerators.has_value());
    if (hostable) {
      p = d->processor;
      c.processor_how = "the " + c.family + " default: " + d->source;
    }
  }
  c.on_cpu = p && *p == "cpu";
  if (c.on_cpu) c.gpus = false;
  c.experts_on_cpu = p && *p == "hybrid";
  if (p) c.processor_how = *p + " (" + c.processor_how + ")";
}

namespace {

// The conditions a claim states, as one case: bits, processor, nodes and
// GPUs, memory, threads, residency and routing; a stated value the profile
// contradicts sets `contradiction`.
SetupCase base_case(const Claim& claim, const ModelCard& card, const MachineProfile& machine) {
  SetupCase base;
  const auto native = find_quant(card.expert_quant);
  base.expert_bits = claim.expert_bits_per_weight.value_or(native ? native->bits_per_weight() : 4.25);
  base.gpus = machine.accelerators.has_value() && claim.gpus.value_or(machine.accelerators->count) > 0;
  base.family = engine_family(claim.engine.value_or(""));
  // Where it computes: as stated, else the family's default. A GPU the
  // profile does not have contradicts it.
  apply_processor(base, claim.processor, machine);
  const bool has_gpu = machine.accelerators.has_value() || (machine.compute && machine.compute->gpu_flops);
  if (claim.processor && *claim.processor != "cpu" && !has_gpu) {
    base.contradiction = "processor " + *claim.processor + " on hardware profile " + machine.name +
                         ", which lists no GPU: check the claim's processor or hardware";
  }
  if (claim.processor && *claim.processor == "hybrid" && !machine.accelerators && has_gpu) {
    base.contradiction = "processor hybrid (experts in host RAM beside a GPU's memory) on " + machine.name +
                         ", whose GPU shares one memory with the CPU: use gpu or cpu";
  }
  // Stated nodes and GPUs: that part of the machine (more than it has
  // contradicts the profile).
  if (claim.nodes) {
    if (*claim.nodes > machine.nodes) {
      base.contradiction = "nodes " + std::to_string(*claim.nodes) + " is more than the " + std::to_string(machine.nodes) +
                           " of hardware profile " + machine.name + ": check the claim's hardware";
    }
    base.nodes = std::min(*claim.nodes, machine.nodes);
  }
  if (claim.gpus) {
    // Discrete GPUs, or one integrated GPU per node on unified memory.
    const bool unified = machine.compute && machine.compute->gpu_flops;
    const int nodes_used = base.nodes > 0 ? base.nodes : machine.nodes;
    const int have = machine.accelerators ? machine.accelerators->count * nodes_used / std::max(1, machine.nodes)
                     : unified               ? nodes_used
                                             : 0;
    if (*claim.gpus > have) {
      base.contradiction = "gpus " + std::to_string(*claim.gpus) + " is more than the " + std::to_string(have) +
                           " of hardware profile " + machine.name + ": check the claim's hardware";
    }
    if (machine.accelerators) base.gpu_count = std::min(*claim.gpus, std::max(1, have));
  }
  const MachineProfile used = machine_share(machine, base.nodes, base.gpu_count);
  base.memory_bytes = usable_memory(used, base.on_cpu);
  base.memory_how = "usable memory of " + machine.name;
  if (claim.ram_budget_bytes) {
    base.memory_bytes = static_cast<double>(*claim.ram_budget_bytes);
    base.memory_how = "the stated budget";
  } else if (claim.rss_bytes && !base.gpus) {
    base.memory_bytes = std::min(base.memory_bytes, static_cast<double>(*claim.rss_bytes) * std::max(1, used.nodes));
    base.memory_how = "the stated RSS";
    base.memory_is_rss = true;
  }
  if (claim.cache_bytes) {
    base.cache_bytes = static_cast<double>(*claim.cache_bytes);
    const double limit = claim.ram_budget_bytes ? static_cast<double>(*claim.ram_budget_bytes)
                                                : used.memory_total_bytes.value +
                                                      (used.accelerators ? used.accelerators->count * used.accelerators->memory_bytes.value : 0);
    if (*base.cache_bytes > limit) {
      base.contradiction = "cache_bytes " + format_bytes_decimal(*base.cache_bytes) + " is more than " +
                           (claim.ram_budget_bytes ? "the stated ram_budget " : "all the memory of " + machine.name + ", ") + format_bytes_decimal(limit) +
                           ": check the size and its unit";
    }
  }
  base.memory_assumed = !claim.ram_budget_bytes;
  base.threads = claim.threads.value_or(0);
  // One cache type stated alone leaves the other at llama.cpp's default.
  if (claim.cache_type_k || claim.cache_type_v) {
    base.cache_type_k = claim.cache_type_k.value_or("f16");
    base.cache_type_v = claim.cache_type_v.value_or("f16");
  }
  if (claim.cpu_moe_layers && card.moe_layers() > 0) {
    base.cpu_expert_share = std::clamp(static_cast<double>(*claim.cpu_moe_layers) / card.moe_layers(), 0.0, 1.0);
    if (*claim.cpu_moe_layers > card.moe_layers()) {
      base.contradiction = "cpu_moe_layers " + std::to_string(*claim.cpu_moe_layers) + " is more than the " +
                           std::to_string(card.moe_layers()) + " MoE layers of card " + card.name + ": check the count";
    } else if (claim.processor && *claim.processor != "hybrid") {
      base.contradiction = "cpu_moe_layers (experts of some layers on the CPU beside a GPU) with processor " + *claim.processor +
                           ": a split like that is processor hybrid";
    }
  }
  // llama.cpp's -ngl below the card's layers: the other layers run whole on
  // the CPU cores (a CPU engine's -ngl says nothing; -ngl 0 on a GPU is one).
  if (claim.gpu_layers && base.gpus && !base.on_cpu && *claim.gpu_layers < card.total_layers()) {
    if (*claim.gpu_layers == 0) {
      base.contradiction = "gpu_layers 0 (no layer on a GPU) with processor " + claim.processor.value_or("gpu (the " + base.family + " default)") +
                           ": every layer runs on the CPU cores, so the processor is cpu";
    } else {
      base.gpu_layer_share = static_cast<double>(*claim.gpu_layers) / card.total_layers();
    }
  }
  base.residency = family_residency(engine_family(claim.engine.value_or("")));
  // A short run's average from an engine with its own expert cache starts
  // cold (a mapped file's page cache may outlive the run: not counted).
  if (claim.figure == "run_average" && base.residency == Residency::kStream && claim.gen_tokens && *claim.gen_tokens > 1) {
    base.cold_prompt_tokens = std::max<std::int64_t>(1, claim.prompt_tokens.value_or(1));
    base.cold_gen_tokens = *claim.gen_tokens;
  }
  base.routing = default_real_routing();
  return base;
}

// Trunk precisions: the stated quant, the stated bits, or the plausible set
// (a GGUF of a named low-bit type keeps its trunk between q4_0 and q8_0).
std::vector<std::pair<std::string, double>> trunk_set(const Claim& claim, const SetupCase& base, const PlausibleSets& sets) {
  // Trunk: stated quant, stated bits, or the declared plausible set.
  std::vector<std::pair<std::string, double>> trunks;
  if (claim.trunk_quant) {
    const auto b = published_quant_bits(*claim.trunk_quant);
    trunks.push_back({*claim.trunk_quant, claim.trunk_bits_per_weight.value_or(b.value_or(16))});
  } else if (claim.trunk_bits_per_weight) {
    trunks.push_back({"", *claim.trunk_bits_per_weight});
  } else {
    // A GGUF file quantized to a named low-bit type (llama-quantize writes
    // every 2-D weight in the type or a step above it, never bf16) leaves
    // its trunk between q4_0 and q8_0, whichever engine reads it (llama.cpp
    // and its forks map it, BigMoeOnEdge streams it; ktransformers repacks
    // the trunk on load, to Marlin int4 or bf16, which the set covers only
    // roughly).
    const std::string qn = claim.quant ? quant_name_of(*claim.quant) : std::string();
    const bool gguf_mix =
        claim.quant && (base.residency == Residency::kMmap || llama_quantize_type(qn)) && published_quant_bits(qn).value_or(16) < 9;
    for (const std::string& q : sets.trunk_quants) {
      const double bits = published_quant_bits(q).value_or(16);
      if (!gguf_mix || bits <= 8.5) trunks.push_back({q, bits});
    }
  }
  return trunks;
}

// Drive counts: as stated (more than the profile has contradicts it), else
// each count from one to the profile's.
std::vector<int> drive_set(const Claim& claim, const MachineProfile& machine, SetupCase& base) {
  std::vector<int> drives;
  if (claim.drives) {
    if (*claim.drives > static_cast<int>(machine.drives.size()) && !machine.drives.empty()) {
      base.contradiction = "drives " + std::to_string(*claim.drives) + " is more than the " + std::to_string(machine.drives.size()) +
                           " of hardware profile " + machine.name + ": check the claim's drives or add them to the profile";
    }
    drives.push_back(*claim.drives);
  } else {
    for (int d = 1; d <= std::max<int>(1, static_cast<int>(machine.drives.size())); ++d) drives.push_back(d);
  }
  return drives;
}

// Context: the KV the figure read — stated; else a stated prompt plus half
// the generated tokens (the mean over the decode); else the plausible set,
// bounded by a stated window (which is itself plausible: a full window).
struct ContextSet {
  std::vector<double> contexts;
  bool assumed = false;
  std::string how;
};
ContextSet context_set(const Claim& claim, const PlausibleSets& sets) {
  ContextSet out;
  std::vector<double>& contexts = out.contexts;
  const auto window = claim.context_window_tokens;
  if (claim.context_tokens) {
    contexts.push_back(static_cast<double>(*claim.context_tokens));
  } else if (claim.prompt_tokens) {
    double filled = static_cast<double>(*claim.prompt_tokens) + static_cast<double>(claim.gen_tokens.value_or(0)) / 2;
    if (window) filled = std::min(filled, static_cast<double>(*window));
    contexts.push_back(filled);
  } else {
    for (double ctx : sets.contexts) {
      if (!window || ctx <= static_cast<double>(*window)) contexts.push_back(ctx);
    }
    if (window && std::find(contexts.begin(), contexts.end(), static_cast<double>(*window)) == contexts.end()) {
      contexts.push_back(static_cast<double>(*window));
    }
  }
  out.assumed = !claim.context_tokens && !claim.prompt_tokens;
  const std::string window_how = window ? "window " + std::to_string(*window) : "";
  out.how = claim.context_tokens ? std::string()
                                  : claim.prompt_tokens ? "the prompt + half the generated tokens" +
                                                              (window ? ", within the " + window_how : std::string())
                                                        : (window ? "plausible within the " + window_how : std::string());
  return out;
}

// Expert bits a container of claim.container_bytes leaves beside a trunk of
// `tb` bits; nullopt below one bit per weight (the container cannot hold
// that trunk).
std::optional<double> container_left_bits(const Claim& claim, const ParamCounts& pc, double tb) {
  const double trunk_bytes = static_cast<double>(pc.trunk()) * tb / 8;
  const double left = static_cast<double>(*claim.container_bytes) - trunk_bytes;
  const double bits = left * 8 / static_cast<double>(pc.routed_experts);
  if (!(bits >= 1.0)) return std::nullopt;
  return std::min(bits, 16.0);
}

// Stated bits and a stated container must describe one file: the experts
// alone cannot outgrow it, nor can it hold twice a bf16 trunk and them.
void check_stated_container(const Claim& claim, const ParamCounts& pc, SetupCase& base) {
  if (!claim.expert_bits_per_weight || !claim.container_bytes || pc.routed_experts == 0) return;
  const double experts = static_cast<double>(pc.routed_experts) * *claim.expert_bits_per_weight / 8;
  const double most = 2 * (experts + static_cast<double>(pc.trunk()) * 2) + 10e9;
  const double file = static_cast<double>(*claim.container_bytes);
  if (experts > 1.1 * file || file > most) {
    base.contradiction = "container_bytes " + format_bytes_decimal(file) + " and expert_bits_per_weight " +
                         format_fixed(*claim.expert_bits_per_weight, 2) + " (experts alone " +
                         format_bytes_decimal(experts) + ") do not describe one model file: check the size, its unit and the bits";
  }
}

// The trunk precisions a stated container can hold beside at least one bit
// per expert weight; none: a contradiction naming the smallest (false).
bool keep_trunks_the_container_holds(const Claim& claim, const ParamCounts& pc,
                                     std::vector<std::pair<std::string, double>>& trunks, SetupCase& base) {
  std::vector<std::pair<std::string, double>> held;
  for (const auto& t : trunks) {
    if (container_left_bits(claim, pc, t.second)) held.push_back(t);
  }
  if (!held.empty()) {
    trunks = held;
    return true;
  }
  const auto& smallest =
      *std::min_element(trunks.begin(), trunks.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  base.contradiction = "container_bytes " + format_bytes_decimal(static_cast<double>(*claim.container_bytes)) +
                       " leaves less than 1 bit per expert weight beside the trunk (" +
                       format_bytes_decimal(static_cast<double>(pc.trunk()) * smallest.second / 8) + " at " +
                       format_fixed(smallest.second, 2) +
                       " bits): check the size and its unit (GB or GiB), or state expert_bits_per_weight";
  return false;
}

// One combination of the unstated conditions.
struct CaseChoice {
  std::string trunk_quant;
  double trunk_bits;
  std::string expert_quant;
  double expert_bits;
  int drives;
  double context;
  double speculative;
};

// The case of one combination, every assumed value named in its label.
SetupCase choice_case(const SetupCase& base, const Claim& claim, const CaseChoice& k, const ContextSet& cs,
                      bool quant_unstated, bool quant_unknown) {
  SetupCase c = base;
  c.expert_bits = k.expert_bits;
  c.trunk_quant = k.trunk_quant;
  c.trunk_bits = k.trunk_bits;
  c.drives = k.drives;
  c.context = k.context;
  c.context_how = cs.how;
  c.speculative_speedup = k.speculative;
  if (quant_unstated) c.assumed.push_back({quant_unknown ? "experts (quant name not known)" : "experts", k.expert_quant});
  if (!claim.trunk_quant && !claim.trunk_bits_per_weight) c.assumed.push_back({"trunk", k.trunk_quant});
  if (!claim.drives) c.assumed.push_back({"drives", std::to_string(k.drives)});
  if (cs.assumed) c.assumed.push_back({"context", format_fixed(k.context, 0)});
  if (!claim.speculative) {
    c.assumed.push_back({"speculative decoding", k.speculative > 1 ? "×" + format_fixed(k.speculative, 1) : "none"});
  }
  std::vector<std::string> parts;
  for (const auto& [name, value] : c.assumed) parts.push_back(name + " " + value);
  c.label = parts.empty() ? "as stated" : join(parts, ", ");
  return c;
}

}  // namespace

std::vector<SetupCase> plausible_cases(const Claim& claim, const ModelCard& card, const MachineProfile& machine,
                                       const PlausibleSets& sets) {
  SetupCase base = base_case(claim, card, machine);
  std::vector<std::pair<std::string, double>> trunks = trunk_set(claim, base, sets);
  const std::vector<int> drives = drive_set(claim, machine, base);
  const ContextSet cs = context_set(claim, sets);
  std::vector<double> specs;
  if (claim.speculative) {
    specs.push_back(*claim.speculative ? sets.speculative_speedups.back() : 1.0);
  } else {
    specs = sets.speculative_speedups;
  }
  // Expert bits: stated; else what the container leaves after the trunk (per
  // trunk case: the measured file says more than a quant's name); else the
  // claim's quant when it names one; else the card's.
  const std::optional<double> named_bits = claim.quant ? published_quant_bits(quant_name_of(*claim.quant)) : std::nullopt;
  // A quant whose name moebench does not know says nothing about its bits.
  const bool quant_unknown = claim.quant && !named_bits;
  const ParamCounts pc = card.parameter_counts();
  const bool from_container = !claim.expert_bits_per_weight && claim.container_bytes && pc.routed_experts > 0;
  check_stated_container(claim, pc, base);
  const bool container_holds_a_trunk = !from_container || keep_trunks_the_container_holds(claim, pc, trunks, base);
  // No quant, bits or file size at all: the expert precision is a range too.
  const bool quant_unstated =
      (quant_unknown || std::find(claim.missing.begin(), claim.missing.end(), "quant") != claim.missing.end()) &&
      !claim.expert_bits_per_weight && !named_bits && !claim.container_bytes;
  std::vector<std::pair<std::string, double>> expert_set;
  if (quant_unstated) {
    for (const std::string& q : sets.expert_quants) {
      const auto b = published_quant_bits(q);
      if (b && *b < base.expert_bits) expert_set.push_back({q, *b});
    }
    expert_set.push_back({card.expert_quant, base.expert_bits});
  }
  std::vector<SetupCase> out;
  for (const auto& [tq, tb] : trunks) {
    double ebits = base.expert_bits;
    if (!claim.expert_bits_per_weight) {
      if (from_container && container_holds_a_trunk) {
        ebits = *container_left_bits(claim, pc, tb);
      } else if (named_bits) {
        ebits = *named_bits;
      }
    }
    const std::vector<std::pair<std::string, double>> experts =
        quant_unstated ? expert_set : std::vector<std::pair<std::string, double>>{{"", ebits}};
    for (const auto& [eq, eb] : experts) {
      for (int d : drives) {
        for (double ctx : cs.contexts) {
          for (double sp : specs) {
            out.push_back(choice_case(base, claim, {tq, tb, eq, eb, d, ctx, sp}, cs, quant_unstated, quant_unknown));
          }
        }
      }
    }
  }
  return out;
}

// Memory an engine can hold without paging: on a unified-memory machine an
// engine that computes on the integrated GPU is held to the GPU wired limit,
// the low end of the profile's usable range (macOS: ~3/4 of RAM unless
// raised, the profile cites it); elsewhere the usable figure.
double usable_memory(const MachineProfile& m, bool on_cpu) {
  const bool unified_gpu = m.compute && m.compute->gpu_flops && !m.accelerators && !on_cpu;
  return unified_gpu ? m.memory_usable_bytes.low_or_value() : m.memory_usable_bytes.value;
}

double usable_for(const MachineProfile& m, const std::string& family) { return usable_memory(m, family_on_cpu(family)); }

}  // namespace moebench
