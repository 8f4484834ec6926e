// reproduce.cpp — the emulation plan of a published claim on this machine
// and the verdict on its rows (reproduce.h states the method).
#include "harness/reproduce.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "model/cost_model.h"
#include "model/engine_families.h"
#include "model/setup_model.h"
#include "vocab/metrics.h"
#include "vocab/quant_format.h"
#include "vocab/sweep_spec.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// Quants the engines have kernels for, by bits per weight (the first of a
// tie is taken when only bits are known).
const std::vector<std::string>& engine_quants() {
  static const std::vector<std::string> q = {"mxfp4", "q4_k", "q4_0", "q2_k", "q3_k", "q8_0", "bf16", "f16"};
  return q;
}

double bits_of(const std::string& quant) {
  const auto f = find_quant(quant);
  return f ? f->bits_per_weight() : 0;
}

// The engine quant for `bits` per weight: the stated name when the engines
// run it, else a quant with exactly those bits; "" when there is none.
std::string engine_quant_for(double bits, const std::string& stated) {
  const auto& q = engine_quants();
  if (!stated.empty() && std::find(q.begin(), q.end(), stated) != q.end() && std::abs(bits_of(stated) - bits) < 0.01) {
    return stated;
  }
  for (const std::string& name : q) {
    if (std::abs(bits_of(name) - bits) < 0.01) return name;
  }
  return "";
}

// The trunk's engine quant: the case's named quant, else the engine quant
// nearest its bits (said in `how`).
std::string trunk_engine_quant(const SetupCase& c, std::string* how) {
  const auto& q = engine_quants();
  if (!c.trunk_quant.empty() && std::find(q.begin(), q.end(), c.trunk_quant) != q.end()) return c.trunk_quant;
  std::string best;
  for (const std::string& name : q) {
    if (best.empty() || std::abs(bits_of(name) - c.trunk_bits) < std::abs(bits_of(best) - c.trunk_bits)) best = name;
  }
  *how = "the trunk at " + format_fixed(c.trunk_bits, 2) + " bits/weight runs as " + best + " (" +
         format_fixed(bits_of(best), 2) + " bits), the nearest engine quant";
  return best;
}

std::string tok_s(double v) { return v >= 10 ? format_fixed(v, 1) + " tok/s" : format_fixed(v, 3) + " tok/s"; }

std::string pct(double v) { return (v >= 0 ? "+" : "") + format_fixed(100 * v, 0) + " %"; }

// Why this machine cannot run a case as the claimed machine did ("" = it can).
std::string case_not_emulable(const SetupCase& c, const CaseEstimate& e, const MachineProfile& claimed) {
  if (!c.contradiction.empty()) return "the stated conditions contradict each other: " + c.contradiction;
  if (!e.fits) return "does not fit the claimed machine: " + e.why;
  const int nodes = c.nodes > 0 ? c.nodes : claimed.nodes;
  if (nodes > 1) {
    return "split over " + std::to_string(nodes) + " linked nodes: their interconnect and synchronisation are not "
           "emulated on one host";
  }
  if (c.experts_on_cpu) {
    return "hybrid: a GPU holds the trunk and the KV cache (" + c.processor_how + "); this machine has no GPU to emulate it with";
  }
  if (c.gpus && claimed.accelerators.has_value()) {
    return "discrete GPUs hold the weights" + (c.processor_how.empty() ? std::string() : " (" + c.processor_how + ")") +
           ": their kernels, memory and links are not emulated by a CPU run";
  }
  if (c.speculative_speedup > 1) {
    return "speculative decoding (×" + format_fixed(c.speculative_speedup, 1) +
           " tokens per weight pass): the engines decode one token per pass";
  }
  if (c.batch > 1) return "batched serving (" + std::to_string(c.batch) + " streams)";
  return "";
}

// This machine's measured matvec rate for `quant` at each thread count the
// probe ran, most threads first.
std::vector<std::pair<int, double>> kernel_rates(const MachineProfile& here, const std::string& quant) {
  std::vector<std::pair<int, double>> out;
  for (const KernelFigure& k : here.kernels) {
    if (k.quant == quant && k.shape == "matvec" && k.weight_bytes_s.value > 0) out.emplace_back(k.threads, k.weight_bytes_s.value);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return out;
}

struct Chosen {
  SetupCase c;
  CaseEstimate e;
  std::string quant;
};

Point base_point(const ModelCard& card, const Scale& scale, const EmulatedCase& ec) {
  Point p;
  p.engine = *parse_engine_spec(ec.engine);
  p.model = card.name;  // the cost model reads the card it is given, not this name
  p.scale = scale;
  p.quant = ec.quant;
  p.trunk_quant = ec.trunk_quant;
  p.trunk_quant_is_card = ec.trunk_quant == card.trunk_quant;
  p.ram_budget_bytes = ec.budget_bytes;
  p.drives.count = ec.drives;
  p.drives.throttle_bytes_s = ec.throttle_bytes_s;
  p.context_tokens = ec.context;
  p.prompt_tokens = ec.prompt;
  p.gen_tokens = ec.gen;
  p.threads = ec.threads;
  return p;
}

// The smallest budget (rounded up to 16 MiB) at which this machine's cost
// model gives the streaming point `slots` expert-cache slots; nullopt when
// even `ceiling` does not.
std::optional<std::uint64_t> budget_for_slots(const MachineProfile& here, const ModelCard& scaled, Point p,
                                              std::size_t slots, double ceiling) {
  auto slots_at = [&](double budget) -> std::size_t {
    p.ram_budget_bytes = static_cast<std::uint64_t>(budget);
    PredictContext ctx;
    auto pr = predict_point(here, scaled, p, Efficiency{}, ctx);
    if (!pr || pr->m.status != RowStatus::kOk || !pr->m.cache_slots) return 0;
    return static_cast<std::size_t>(*pr->m.cache_slots);
  };
  if (slots_at(ceiling) < slots) return std::nullopt;
  double lo = 0, hi = ceiling;
  for (int i = 0; i < 48 && hi - lo > (16 << 20); ++i) {
    const double mid = (lo + hi) / 2;
    (slots_at(mid) >= slots ? hi : lo) = mid;
  }
  const double step = 16.0 * (1 << 20);
  return static_cast<std::uint64_t>(std::ceil(hi / step) * step);
}

// Why the claim cannot be emulated at all, before any case is looked at
// ("" when it may be).
std::string claim_not_emulable(const Claim& claim, const MachineProfile& here) {
  if (claim.decode_figure_tok_s() <= 0) {
    return claim.aggregate_tok_s ? "the claim reports an aggregate serving figure, not one stream's decode"
                                 : "the claim reports no decode figure";
  }
  if (claim.concurrency && *claim.concurrency > 1) {
    return "the figure was measured with " + std::to_string(*claim.concurrency) + " concurrent streams";
  }
  if (here.kernels.empty()) {
    return "this machine's profile (" + here.name + ") has no kernel figures: run `moebench probe` to measure them";
  }
  return "";
}

// The plausible cases, their estimates on the claimed machine, and which
// of them this machine's engines can run (the others in `skipped`, why).
std::vector<Chosen> runnable_cases(const Claim& claim, const ModelCard& card, const MachineProfile& claimed,
                                   const MachineProfile& here, const EngineEfficiency& eff, std::vector<std::string>& skipped) {
  std::vector<Chosen> runnable;
  for (const SetupCase& c : plausible_cases(claim, card, claimed)) {
    CaseEstimate e = estimate_case(card, claimed, c, eff);
    std::string why = case_not_emulable(c, e, claimed);
    const std::string stated_quant = claim.quant ? quant_name_of(*claim.quant) : "";
    const std::string quant = engine_quant_for(c.expert_bits, stated_quant);
    if (why.empty() && quant.empty()) {
      why = "experts at " + format_fixed(c.expert_bits, 4) + " bits/weight: no engine kernel stores that precision";
    }
    if (why.empty() && kernel_rates(here, quant).empty()) {
      why = "no " + quant + " matvec figure in this machine's profile (a full `moebench probe` measures every quant)";
    }
    if (!why.empty()) {
      skipped.push_back((c.label.empty() ? std::string("as stated") : c.label) + ": " + why);
      continue;
    }
    runnable.push_back({c, std::move(e), quant});
  }
  return runnable;
}

// What every case of one reproduction shares.
struct CaseContext {
  const Claim& claim;
  const ModelCard& card;
  const MachineProfile& claimed;
  const MachineProfile& here;
  const ReproduceOptions& o;
  const Scale& scale;
  const ModelCard& scaled_base;
};

// Dilation: the two machines' kernel throughput for the expert quant, at
// one thread count the probe measured here (`r`: threads, bytes/s).
void set_dilation(EmulatedCase& ec, double there, const std::string& how_there, const std::pair<int, double>& r) {
  ec.threads = r.first;
  ec.dilation = there / r.second;
  ec.derivation.push_back("kernel throughput, " + ec.quant + " matvec: claimed machine " + format_rate(there) + " (" +
                          how_there + "); this machine " + format_rate(r.second) + " at " + std::to_string(r.first) +
                          " thread" + (r.first == 1 ? "" : "s") + " (probe)");
  ec.derivation.push_back("dilation D = " + format_fixed(ec.dilation, 3) + ": this machine computes a token in D× the "
                          "claimed machine's time; the drives are throttled by the same factor, and the result is "
                          "divided by D");
}

// A streaming case's trunk placement and expert-cache budget: as the case
// has most of its per-layer trunk, and the scaled card's share of its
// slots. False (the reason in `skipped`) when this machine cannot hold it.
bool place_trunk_and_cache(EmulatedCase& ec, const Chosen& ch, const CaseContext& x, const ModelCard& full,
                           const ModelCard& scaled, std::vector<std::string>& skipped) {
  const SetupCase& c = ch.c;
  const CaseEstimate& e = ch.e;
  const auto layer_bytes = trunk_layer_bytes(full);
  double trunk_total = 0;
  for (auto b : layer_bytes) trunk_total += static_cast<double>(b);
  const double pinned_share = trunk_total > 0 ? std::min(1.0, e.pinned_trunk_bytes / trunk_total) : 1;
  const bool pin = pinned_share >= 0.5;
  ec.engine = std::string("streaming:trunk=") + (pin ? "resident" : "stream");
  ec.derivation.push_back("trunk: the claimed case pins " + format_fixed(100 * pinned_share, 0) + " % of its " +
                          format_bytes(trunk_total) + " of per-layer trunk; the scaled run " +
                          (pin ? "pins all of it" : "streams all of it") +
                          (pinned_share > 0.02 && pinned_share < 0.98
                               ? " (the nearest placement a " + std::to_string(scaled.total_layers()) +
                                     "-layer card has; the full-model figure carries that difference)"
                               : ""));
  // Cache: the full case's slots, and the scaled card's share of them.
  ec.full_slots = static_cast<std::size_t>(std::max(0.0, e.slots));
  const double pool_full = static_cast<double>(full.moe_layers()) * full.moe.experts;
  const double pool_scaled = static_cast<double>(scaled.moe_layers()) * scaled.moe.experts;
  const auto k = static_cast<std::size_t>(scaled.moe.active);
  const std::size_t want = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::llround(e.slots * pool_scaled / pool_full)), k, static_cast<std::size_t>(pool_scaled));
  ec.drives = c.drives;
  const Point p = base_point(full, x.scale, ec);
  const double usable = x.here.memory_usable_bytes.value;
  auto budget = budget_for_slots(x.here, scaled, p, want, usable);
  if (!budget) {
    skipped.push_back(ec.label + ": the scaled run needs more memory than this machine's usable " +
                      format_bytes(usable) + " for " + std::to_string(want) + " cache slots");
    return false;
  }
  // Headroom: the engine measures its resident part (RSS after load),
  // which can exceed the cost model's estimate by a slot or two; a few
  // more slots here only raise the scaled run's hit rate, which the
  // full-model replay (the claimed case's own slots) corrects.
  ec.budget_bytes = *budget + std::max<std::uint64_t>(64ull << 20, *budget / 32);
  ec.derivation.push_back("expert cache: the claimed case holds " + std::to_string(ec.full_slots) + " of " +
                          format_fixed(pool_full, 0) + " experts (" + format_bytes(e.cache_bytes) + " of " +
                          format_bytes(c.memory_bytes) + " memory, " + c.memory_how + "); the scaled pool of " +
                          format_fixed(pool_scaled, 0) + " gets " + std::to_string(want) + " slots" +
                          (want == k ? " (at least one layer's top-" + std::to_string(k) + ")" : "") +
                          ": budget " + format_bytes(static_cast<double>(*ec.budget_bytes)) + " (the cost model's " +
                          format_bytes(static_cast<double>(*budget)) + " + 3 % headroom for what the engine measures)");
  return true;
}

// A streaming case's drives: the claimed set's rate at the record size,
// ÷ D, per directory, at the most threads whose dilation this machine's
// drives can keep up with. False (the reason in `skipped`) when none can.
bool throttle_drives(EmulatedCase& ec, const Chosen& ch, const CaseContext& x, const ModelCard& scaled,
                     const MachineProfile& share, double there, const std::string& how_there,
                     const std::vector<std::pair<int, double>>& rates, std::vector<std::string>& skipped) {
  const SetupCase& c = ch.c;
  const double record = static_cast<double>(scaled.expert_bytes(ec.quant));
  std::string how_drive_there, how_drive_here;
  const double rate_there =
      drive_set_read_bw(share, c.drives, static_cast<std::uint64_t>(record), 32, std::nullopt, &how_drive_there);
  if (!(rate_there > 0)) {
    skipped.push_back(ec.label + ": the claimed machine's profile has no drive figures");
    return false;
  }
  // What this machine's drives can deliver: each probed cell at its best
  // repeat (this VM's disk swings from minute to minute; the rows say
  // when a run's minute delivered less than the throttle).
  MachineProfile best = x.here;
  for (DriveProfile& d : best.drives) {
    for (DriveReadPoint& pt : d.read_curve) {
      if (pt.read_spread && pt.read_spread->max > pt.read_bytes_s.value) pt.read_bytes_s.value = pt.read_spread->max;
    }
  }
  best.drive_sets.clear();
  const int here_drives = std::max(1, std::min<int>(c.drives, static_cast<int>(x.here.drives.size())));
  const double capacity =
      drive_set_read_bw(best, here_drives, static_cast<std::uint64_t>(record), 32, std::nullopt, &how_drive_here) *
      profile_efficiency(x.here).io;
  how_drive_here += ", the best of the probe's repeats";
  if (const double io = profile_efficiency(x.here).io; io != 1) {
    // `moebench calibrate` measured how much of the probe's figure the engine gets.
    how_drive_here += " × the calibrated I/O efficiency " + format_fixed(io, 2);
  }
  const std::pair<int, double>* pick = nullptr;
  for (const auto& r : rates) {
    if (rate_there / (there / r.second) <= x.o.drive_headroom * capacity) {
      pick = &r;
      break;
    }
  }
  if (!pick) {
    const auto& slowest = rates.back();
    const double need_min = rate_there / (there / slowest.second);
    skipped.push_back(ec.label + ": needs " + format_rate(need_min) + " of reads here (the claimed " +
                      format_rate(rate_there) + " ÷ D " + format_fixed(there / slowest.second, 2) + " at " +
                      std::to_string(slowest.first) + " thread" + (slowest.first == 1 ? "" : "s") +
                      "), more than " + format_fixed(100 * x.o.drive_headroom, 0) + " % of this machine's " +
                      format_rate(capacity) + " (" + how_drive_here + ")");
    return false;
  }
  set_dilation(ec, there, how_there, *pick);
  const double need = rate_there / ec.dilation;
  ec.derivation.push_back("drives: the claimed " + std::to_string(c.drives) + " read " + format_rate(rate_there) +
                          " at " + format_bytes(record) + " records (" + how_drive_there + "); ÷ D = " +
                          format_rate(need) + " here, " + format_rate(need / c.drives) + " per directory");
  ec.throttle_bytes_s = std::floor(need / c.drives);
  ec.derivation.push_back("this machine's drive directories deliver " + format_rate(capacity) + " (" + how_drive_here +
                          "): the throttle, not the disk, sets the rate");
  return true;
}

// One end of the band as a run here: quants, context, the prediction, the
// dilation, and the engine's placement; nullopt (the reason in `skipped`)
// when this machine cannot run it.
std::optional<EmulatedCase> emulate_case(const Chosen& ch, const CaseContext& x, std::vector<std::string>& skipped) {
  const SetupCase& c = ch.c;
  const CaseEstimate& e = ch.e;
  EmulatedCase ec;
  ec.label = c.label.empty() ? "as stated" : c.label;
  ec.quant = ch.quant;
  std::string trunk_how;
  ec.trunk_quant = trunk_engine_quant(c, &trunk_how);
  if (!trunk_how.empty()) ec.derivation.push_back(trunk_how);
  if (std::string bad = trunk_quant_fits_card(x.card, ec.trunk_quant); !bad.empty()) {
    skipped.push_back(ec.label + ": " + bad);
    return std::nullopt;
  }
  ec.context = static_cast<std::int64_t>(c.context);
  ec.gen = x.o.gen_tokens;
  ec.prompt = x.claim.prompt_tokens && *x.claim.prompt_tokens <= x.o.max_prompt_tokens ? *x.claim.prompt_tokens : 8;
  if (x.o.regimes) {
    const double t = regime_token_s(e.parts, x.o.regimes->params.for_family(engine_family(x.claim.engine.value_or("")), kinds_of({&e.parts})), 1);
    ec.predicted_tok_s = t > 0 ? 1 / t : 0;
  } else {
    ec.predicted_tok_s = e.tok_s_real();
  }
  ModelCard full = x.card;
  full.trunk_quant = ec.trunk_quant;
  ModelCard scaled = x.scaled_base;
  scaled.trunk_quant = ec.trunk_quant;

  // Dilation at each thread count the probe measured here (fewer threads
  // dilate more, so slower drives keep the claimed proportion).
  std::string how_there;
  const MachineProfile share = machine_share(x.claimed, c.nodes, c.gpu_count);
  const double there = matvec_rate(share, ec.quant, &how_there);
  std::vector<std::pair<int, double>> rates = kernel_rates(x.here, ec.quant);  // threads, bytes/s; most threads first
  if (!(there > 0) || rates.empty()) {
    skipped.push_back(ec.label + ": no " + ec.quant + " matvec figure for " + (there > 0 ? "this machine (probe it)" : "the claimed machine"));
    return std::nullopt;
  }
  if (e.resident) {
    set_dilation(ec, there, how_there, rates.front());
    ec.engine = "resident";
    ec.drives = 1;
    ec.derivation.push_back("resident on the claimed machine (" + format_bytes(e.model_bytes) +
                            " of weights fit): the resident engine runs the scaled card");
    PredictContext ctx;
    auto pr = predict_point(x.here, scaled, base_point(full, x.scale, ec), Efficiency{}, ctx);
    if (!pr || pr->m.status != RowStatus::kOk) {
      skipped.push_back(ec.label + ": the scaled card does not fit this machine resident" +
                        (pr ? ": " + pr->m.reason : ": " + pr.error().message));
      return std::nullopt;
    }
    return ec;
  }
  if (!place_trunk_and_cache(ec, ch, x, full, scaled, skipped)) return std::nullopt;
  if (!throttle_drives(ec, ch, x, scaled, share, there, how_there, rates, skipped)) return std::nullopt;
  return ec;
}

// The sweep that runs the cases: the union of their values, and one
// include filter each.
std::string reproduction_sweep(const ReproductionPlan& plan, const Claim& claim, const ModelCard& card, const Scale& scale,
                               const ReproduceOptions& o) {
  Json sweep;
  sweep["name"] = "reproduce-" + claim.id;
  sweep["description"] = "moebench reproduce " + claim.id + ": " + claim.title;
  sweep["repetitions"] = o.repetitions;
  sweep["warmup"] = 0;
  sweep["seed"] = o.seed;
  sweep["timeout_s"] = 900;
  int max_drives = 1;
  for (const EmulatedCase& ec : plan.cases) max_drives = std::max(max_drives, ec.drives);
  std::vector<std::string> dirs = o.drive_dirs;
  for (int i = static_cast<int>(dirs.size()); i < max_drives; ++i) dirs.push_back("moebench-drives/d" + std::to_string(i));
  sweep["drive_dirs"] = dirs;
  Json model = {{"card", claim.card.value_or(card.name)}, {"layers", *scale.layers}, {"experts", *scale.experts}};
  auto budget_json = [](const EmulatedCase& ec) { return ec.budget_bytes ? Json(*ec.budget_bytes) : Json("unlimited"); };
  auto drives_json = [](const EmulatedCase& ec) {
    Json d = {{"count", ec.drives}};
    if (ec.throttle_bytes_s) d["throttle"] = *ec.throttle_bytes_s;
    return d;
  };
  Json axes;
  auto add = [&axes](const std::string& axis, const Json& v) {
    if (!axes.contains(axis)) axes[axis] = Json::array();
    for (const Json& x : axes[axis]) {
      if (x == v) return;
    }
    axes[axis].push_back(v);
  };
  Json include = Json::array();
  for (const EmulatedCase& ec : plan.cases) {
    add("engine", ec.engine);
    add("model", model);
    add("quant", ec.quant);
    add("trunk_quant", ec.trunk_quant);
    add("ram_budget", budget_json(ec));
    add("drives", drives_json(ec));
    add("context_tokens", ec.context);
    add("prompt_tokens", ec.prompt);
    add("gen_tokens", ec.gen);
    add("threads", ec.threads);
    include.push_back({{"engine", {ec.engine}}, {"quant", {ec.quant}}, {"trunk_quant", {ec.trunk_quant}},
                       {"ram_budget", {budget_json(ec)}}, {"drives", {drives_json(ec)}},
                       {"context_tokens", {ec.context}}, {"prompt_tokens", {ec.prompt}},
                       {"threads", {ec.threads}}});
  }
  sweep["axes"] = axes;
  sweep["include"] = include;
  return sweep.dump(2);
}

// This machine's cost model over the cases: what the run will take.
double predicted_run_s(const ReproductionPlan& plan, const CaseContext& x) {
  double total = 0;
  for (const EmulatedCase& ec : plan.cases) {
    ModelCard scaled = x.scaled_base;
    scaled.trunk_quant = ec.trunk_quant;
    PredictContext ctx;
    ctx.seed = x.o.seed;
    ModelCard full = x.card;
    full.trunk_quant = ec.trunk_quant;
    auto pr = predict_point(x.here, scaled, base_point(full, x.scale, ec), Efficiency{}, ctx);
    if (!pr) continue;
    double s = pr->m.load_s + pr->m.prefill_s;
    for (double t : pr->m.token_times_s) s += t;
    total += s * x.o.repetitions;
  }
  return total;
}

}  // namespace

Expected<ReproductionPlan> plan_reproduction(const Claim& claim, const ModelCard& card, const MachineProfile& claimed,
                                             const MachineProfile& here, const EngineEfficiency& eff,
                                             const ReproduceOptions& o) {
  ReproductionPlan plan;
  plan.claim_id = claim.id;
  plan.cannot = claim_not_emulable(claim, here);
  if (!plan.cannot.empty()) return plan;
  std::vector<Chosen> runnable = runnable_cases(claim, card, claimed, here, eff, plan.skipped);
  if (runnable.empty()) {
    plan.cannot = plan.skipped.empty() ? "no plausible case of the claim fits its machine" : plan.skipped.front();
    if (plan.skipped.size() > 1) plan.cannot += " (and " + std::to_string(plan.skipped.size() - 1) + " more cases)";
    return plan;
  }
  // The band's ends: slowest and fastest realistic case.
  std::sort(runnable.begin(), runnable.end(), [](const Chosen& a, const Chosen& b) { return a.e.t_real_s > b.e.t_real_s; });
  std::vector<const Chosen*> ends = {&runnable.front()};
  if (runnable.size() > 1) ends.push_back(&runnable.back());
  if (runnable.size() > 2) {
    plan.notes.push_back("unstated conditions: " + std::to_string(runnable.size()) +
                         " plausible cases this machine can run; the slowest and the fastest (setup model, realistic) "
                         "are run as the reproduction's band");
  }
  // The scale: a part --scale leaves out takes its default.
  Scale scale = o.scale;
  if (!scale.layers) scale.layers = std::min(card.total_layers(), 2);
  if (!scale.experts) scale.experts = std::min(card.moe.experts, 64);
  auto scaled_base = apply_scale(card, scale);
  if (!scaled_base) return make_error("--scale " + scale.to_string() + ": " + scaled_base.error().message);
  plan.scale = scale.to_string();
  const CaseContext x{claim, card, claimed, here, o, scale, *scaled_base};
  for (const Chosen* ch : ends) {
    if (auto ec = emulate_case(*ch, x, plan.skipped)) plan.cases.push_back(std::move(*ec));
  }
  if (plan.cases.empty()) {
    plan.cannot = plan.skipped.empty() ? "no case could be emulated" : plan.skipped.back();
    return plan;
  }
  // Two ends that came out the same run once.
  if (plan.cases.size() == 2) {
    const EmulatedCase& a = plan.cases[0];
    const EmulatedCase& b = plan.cases[1];
    if (a.engine == b.engine && a.quant == b.quant && a.trunk_quant == b.trunk_quant && a.budget_bytes == b.budget_bytes &&
        a.drives == b.drives && a.throttle_bytes_s == b.throttle_bytes_s && a.context == b.context && a.threads == b.threads) {
      plan.cases.pop_back();
    }
  }
  plan.sweep_json = reproduction_sweep(plan, claim, card, scale, o);
  plan.predicted_run_s = predicted_run_s(plan, x);
  return plan;
}

const EmulatedCase* case_of_point(const ReproductionPlan& plan, const Point& p) {
  for (const EmulatedCase& ec : plan.cases) {
    auto spec = parse_engine_spec(ec.engine);
    if (!spec || spec->to_string() != p.engine.to_string()) continue;
    if (ec.quant != p.quant || ec.trunk_quant != p.trunk_quant || ec.budget_bytes != p.ram_budget_bytes) continue;
    if (ec.drives != p.drives.count || ec.context != p.context_tokens || ec.prompt != p.prompt_tokens) continue;
    if (ec.threads != p.threads) continue;
    if (ec.engine != "resident" && ec.throttle_bytes_s != p.drives.throttle_bytes_s) continue;
    return &ec;
  }
  return nullptr;
}

ReproductionVerdict judge_reproduction(const ReproductionPlan& plan, const Claim& claim, const RunResults& results,
                                       double tolerance) {
  ReproductionVerdict v;
  v.claim_tok_s = claim.decode_figure_tok_s();
  if (!plan.cannot.empty()) {
    v.verdict = "cannot be emulated here";
    v.reason = plan.cannot;
    return v;
  }
  const bool run_average = claim.figure == "run_average" && claim.gen_tokens && *claim.gen_tokens > 1;
  std::vector<double> got;
  std::vector<std::string> failed;
  for (const EmulatedCase& ec : plan.cases) {
    ReproducedCase rc;
    rc.c = &ec;
    rc.status = "missing";
    for (const ResultRow& row : results.rows) {
      if (case_of_point(plan, row.point) != &ec) continue;
      rc.status = to_string(row.status);
      if (row.status != RowStatus::kOk) rc.status += ": " + row.reason;
      auto metric = [&row](const char* name) -> std::optional<double> {
        auto it = row.metrics.find(name);
        if (it == row.metrics.end() || it->second.n == 0) return std::nullopt;
        return it->second.median;
      };
      rc.scaled_tok_s = metric(metric::kDecodeTokS);
      rc.here_full_tok_s = metric(metric::kFullDecodeTokS);
      if (rc.here_full_tok_s) rc.claimed_tok_s = *rc.here_full_tok_s * ec.dilation;
      if (auto t = metric(metric::kFullTtftS)) rc.claimed_ttft_s = *t / ec.dilation;
      rc.read_busy_bytes_s = metric(metric::kReadBusyBytesS);
      if (rc.read_busy_bytes_s && ec.throttle_bytes_s) {
        const double set = *ec.throttle_bytes_s * ec.drives;
        if (*rc.read_busy_bytes_s < 0.85 * set) {
          rc.caveat = "the disk delivered " + format_rate(*rc.read_busy_bytes_s) + " while reading, below the throttled " +
                      format_rate(set) + ": this run's I/O was slower than the emulated drives, so it understates the "
                      "claimed machine";
        }
      }
    }
    if (rc.claimed_tok_s) {
      double figure = *rc.claimed_tok_s;
      if (run_average && rc.claimed_ttft_s && claim.prompt_tokens && *claim.prompt_tokens == ec.prompt) {
        const double gen = static_cast<double>(*claim.gen_tokens);
        figure = gen / (*rc.claimed_ttft_s + (gen - 1) / figure);
      }
      got.push_back(figure);
    } else {
      failed.push_back(ec.label + ": " + rc.status);
    }
    v.cases.push_back(rc);
  }
  if (got.empty()) {
    bool all_infeasible = !v.cases.empty();
    for (const ReproducedCase& rc : v.cases) all_infeasible = all_infeasible && rc.status.rfind("infeasible", 0) == 0;
    v.verdict = all_infeasible ? "cannot be emulated here" : "not reproduced";
    v.reason = (all_infeasible ? "the scaled runs did not fit this machine's memory: " : "the emulation produced no figure: ") +
               join(failed, "; ");
    return v;
  }
  v.low_tok_s = *std::min_element(got.begin(), got.end());
  v.high_tok_s = *std::max_element(got.begin(), got.end());
  const double claim_v = v.claim_tok_s;
  const double lo = *v.low_tok_s, hi = *v.high_tok_s;
  const std::string what = got.size() == 1 ? "the reproduction " + tok_s(lo)
                                            : "the reproduction's band " + tok_s(lo) + " .. " + tok_s(hi);
  const std::string figure_kind = run_average ? " (as a whole-run average, like the claim)" : "";
  if (claim_v >= lo * (1 - tolerance) && claim_v <= hi * (1 + tolerance)) {
    const double nearest = claim_v < lo ? lo : claim_v > hi ? hi : claim_v;
    const double err = std::abs(claim_v - nearest) / nearest;  // relative to the reproduction
    v.verdict = "reproduced";
    v.reason = got.size() > 1 && lo <= claim_v && claim_v <= hi
                   ? "reproduced: claim " + tok_s(claim_v) + " inside " + what + figure_kind +
                         " (the unstated conditions decide where)"
                   : "reproduced within " + format_fixed(100 * err, 0) + " %: claim " + tok_s(claim_v) + ", " + what +
                         figure_kind;
  } else {
    const bool faster = claim_v > hi;
    const double ref = faster ? hi : lo;
    v.verdict = "not reproduced";
    v.reason = "claim " + tok_s(claim_v) + " is " + pct(claim_v / ref - 1) + " against " + what + figure_kind +
               ", beyond the " + format_fixed(100 * tolerance, 0) + " % tolerance: " +
               (faster ? "the claimed machine did better than this emulation of it (a faster engine, drive or unstated "
                         "condition than the case assumes)"
                       : "the claim is slower than the emulation (overheads the emulation does not have: paging, a "
                         "run average, a slower engine)");
  }
  if (!failed.empty()) v.reason += "; not run: " + join(failed, "; ");
  for (const ReproducedCase& rc : v.cases) {
    if (!rc.caveat.empty()) v.reason += "; caveat (" + rc.c->label + "): " + rc.caveat;
  }
  return v;
}

std::string write_reproduction(const ReproductionPlan& plan, const Claim& claim, const ClaimJudgement& judged,
                               const ReproductionVerdict* v) {
  std::string out;
  out += "# moebench reproduce " + claim.id + "\n\n";
  out += claim.title + "\n";
  out += "source: " + claim.source_label() + "\n\n";
  out += "| | decode tok/s | conditions |\n|---|---:|---|\n";
  const std::string figure = claim.figure == "steady_decode" ? "steady decode"
                             : claim.figure == "run_average" ? "a whole-run average"
                                                             : "steady decode or run average: not said";
  out += "| claim | " + tok_s(claim.decode_figure_tok_s()) + " | " + claim.machine.value_or("machine not stated") + "; " +
         figure + " |\n";
  if (v && v->low_tok_s) {
    out += "| reproduction | " + (*v->low_tok_s == *v->high_tok_s ? tok_s(*v->low_tok_s)
                                                                    : tok_s(*v->low_tok_s) + " .. " + tok_s(*v->high_tok_s)) +
           " | " + plan.scale + " on this machine, time-dilated, full-model extrapolation |\n";
  } else if (!plan.cannot.empty() || v) {
    out += std::string("| reproduction | – | ") + (v ? v->verdict : std::string("cannot be emulated here")) + " |\n";
  } else {
    out += "| reproduction | (dry run) | " + plan.scale + " on this machine |\n";
  }
  if (judged.predicted_tok_s) {
    out += "| prediction | " + tok_s(*judged.predicted_tok_s) + " | setup model, band " +
           tok_s(judged.predicted_low_tok_s.value_or(0)) + " .. " + tok_s(judged.predicted_high_tok_s.value_or(0)) + " (×" +
           format_fixed(judged.band_ratio(), 1) + (judged.regime.empty() ? "" : ", " + judged.regime + " regime") +
           "; moebench claims: " + judged.verdict + ") |\n";
  }
  out += "\n";
  if (v) {
    out += "verdict: " + v->verdict + " — " + v->reason + "\n\n";
  } else if (!plan.cannot.empty()) {
    out += "verdict: cannot be emulated here — " + plan.cannot + "\n\n";
  }
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    const EmulatedCase& ec = plan.cases[i];
    out += "## case " + std::to_string(i + 1) + ": " + ec.label + "\n\n";
    out += "- runs: " + ec.engine + ", experts " + ec.quant + ", trunk " + ec.trunk_quant + ", " +
           (ec.budget_bytes ? "budget " + format_bytes(static_cast<double>(*ec.budget_bytes)) : std::string("no budget")) +
           ", " + std::to_string(ec.drives) + " drive director" + (ec.drives == 1 ? "y" : "ies") +
           (ec.throttle_bytes_s ? " at " + format_rate(*ec.throttle_bytes_s) + " each" : std::string()) + ", context " +
           std::to_string(ec.context) + ", prompt " + std::to_string(ec.prompt) + ", gen " + std::to_string(ec.gen) + ", " +
           std::to_string(ec.threads) + " thread" + (ec.threads == 1 ? "" : "s") + "\n";
    out += "- setup model on the claimed machine (this case): " + tok_s(ec.predicted_tok_s) + "\n";
    for (const std::string& d : ec.derivation) out += "- " + d + "\n";
    if (v) {
      for (const ReproducedCase& rc : v->cases) {
        if (rc.c != &ec) continue;
        out += "- row: " + rc.status;
        if (rc.scaled_tok_s) out += "; scaled card " + tok_s(*rc.scaled_tok_s);
        if (rc.here_full_tok_s) out += "; full model here " + tok_s(*rc.here_full_tok_s);
        if (rc.claimed_tok_s) out += "; × D = " + tok_s(*rc.claimed_tok_s) + " on the claimed machine";
        if (rc.claimed_ttft_s) out += " (TTFT " + format_fixed(*rc.claimed_ttft_s, 2) + " s for a " + std::to_string(ec.prompt) + "-token prompt)";
        if (rc.read_busy_bytes_s) out += "; drives read at " + format_rate(*rc.read_busy_bytes_s) + " while busy";
        out += "\n";
      }
    }
    out += "\n";
  }
  if (!plan.skipped.empty()) {
    out += "Plausible cases not emulated:\n";
    for (const std::string& s : plan.skipped) out += "- " + s + "\n";
    out += "\n";
  }
  for (const std::string& n : plan.notes) out += "Note: " + n + "\n";
  return out;
}

}  // namespace moebench
