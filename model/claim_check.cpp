// claim_check.cpp — see claim_check.h.
#include "model/claim_check.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>

#include "model/engine_families.h"
#include "model/routing_fit.h"
#include "vocab/stats.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

double storage_share(double model_bytes, double memory_bytes) {
  if (model_bytes <= 0) return 0;
  return std::clamp((model_bytes - memory_bytes) / model_bytes, 0.0, 1.0);
}

namespace {

// The verdict rules, each printed in the reason it decides:
// - a case allows a figure up to kAllowOverFast × its fast end (the fast
//   end's own figures are rounded; a figure 5 % past it is not evidence);
// - past that on every case: optimistic; past kImplausibleOverFast × the
//   highest fast end: implausible;
// - below the lowest slow end ÷ kBelowSlow: below-band.
constexpr double kAllowOverFast = 1.05;
constexpr double kImplausibleOverFast = 1.5;
constexpr double kBelowSlow = 1.25;

std::string tps(double t) { return format_fixed(t, t < 1 ? 3 : 2) + " tok/s"; }

// The claim's decode figure as tok/s (low, high).
std::optional<Reported> reported_tok_s(const Claim& claim, std::string* text) {
  if (claim.decode_tok_s) {
    const Reported& r = *claim.decode_tok_s;
    *text = r.is_range() ? format_fixed(r.low, 3) + "–" + format_fixed(r.high, 3) + " tok/s" : format_fixed(r.low, 3) + " tok/s";
    return r;
  }
  if (claim.s_per_token) {
    const Reported& r = *claim.s_per_token;
    *text = format_fixed(r.low, 2) + (r.is_range() ? "–" + format_fixed(r.high, 2) : "") + " s/token";
    return Reported{1 / r.high, 1 / r.low};
  }
  if (claim.aggregate_tok_s) {
    *text = format_fixed(claim.aggregate_tok_s->high, 1) + " tok/s aggregate";
  } else if (claim.prefill_tok_s) {
    *text = format_fixed(claim.prefill_tok_s->high, 1) + " tok/s prefill";
  } else if (claim.ttft_s) {
    *text = format_fixed(claim.ttft_s->high, 2) + " s TTFT";
  }
  return std::nullopt;
}

// A run average that includes the first token and start-up: a short run of
// n tokens spends about one extra token's time (prompt, warm-up) beside
// them, so its average is slower than steady decode by up to (1 + 2/n)
// (the slow end), 1 + 1/n realistically, and not at all at the fast end.
double run_average_factor(const Claim& claim, bool slow_end) {
  if (claim.figure != "run_average") return 1;
  const double n = static_cast<double>(claim.gen_tokens.value_or(16));
  return 1 + (slow_end ? 2.0 : 1.0) / std::max(1.0, n);
}

// Which values of the left-out conditions allow a figure: per condition,
// the values that appear in some allowing case and those that never do
// ("consistent if trunk is q4_0 or q8_0 (not bf16)"); when no single
// condition decides, how many combinations allow it and one of them.
std::string condition_summary(const std::vector<const SetupCase*>& allow, const std::vector<const SetupCase*>& deny) {
  std::vector<std::string> names;
  for (const SetupCase* c : allow) {
    for (const auto& nv : c->assumed) {
      if (std::find(names.begin(), names.end(), nv.first) == names.end()) names.push_back(nv.first);
    }
  }
  auto values_of = [](const std::vector<const SetupCase*>& cases, const std::string& name) {
    std::vector<std::string> v;
    for (const SetupCase* c : cases) {
      for (const auto& nv : c->assumed) {
        if (nv.first == name && std::find(v.begin(), v.end(), nv.second) == v.end()) v.push_back(nv.second);
      }
    }
    return v;
  };
  std::vector<std::string> parts;
  for (const std::string& name : names) {
    const std::vector<std::string> ok = values_of(allow, name);
    std::vector<std::string> never;
    for (const std::string& v : values_of(deny, name)) {
      if (std::find(ok.begin(), ok.end(), v) == ok.end()) never.push_back(v);
    }
    if (!never.empty()) parts.push_back(name + " " + join(ok, " or ") + " (not " + join(never, ", ") + ")");
  }
  if (!parts.empty()) return "consistent only if " + join(parts, "; and ");
  return "consistent in " + std::to_string(allow.size()) + " of " + std::to_string(allow.size() + deny.size()) +
         " plausible combinations, e.g. " + (allow.empty() ? std::string("none") : allow.front()->label);
}

// A case's slow, realistic and fast tok/s (× streams, the run average
// applied as judge_claim does).
using CasePricer = std::function<CaseBand(const SetupCase&, const CaseEstimate&, double per)>;

// The engine efficiencies' band, or — with the regime fit — the regime
// model's realistic value, widened by the figure's regime's spread (the
// regime its realistic cases bind most often); sets j.regime and j.spread.
CasePricer case_pricer(const Claim& claim, const std::vector<SetupCase>& cases, const std::vector<CaseEstimate>& ests,
                       const std::string& family, const RegimeFit* regimes, ClaimJudgement& j) {
  const double avg_real = run_average_factor(claim, false), avg_slow = run_average_factor(claim, true);
  if (!regimes) {
    return [avg_real, avg_slow](const SetupCase& c, const CaseEstimate& e, double per) {
      return CaseBand{c.label, per * e.tok_s_slow() / avg_slow, per * e.tok_s_real() / avg_real, per * e.tok_s_fast()};
    };
  }
  RegimeFigure f;
  f.family = family;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (ests[i].fits && (cases[i].speculative_speedup <= 1 || (claim.speculative && *claim.speculative))) f.realistic.push_back(ests[i].parts);
  }
  j.regime = f.realistic.empty() ? "" : figure_regime(f, regimes->params);
  j.spread = regimes->spread_of(j.regime);
  std::vector<CaseParts> parts;
  for (const CaseEstimate& e : ests) parts.push_back(e.parts);
  const RegimeParams q = regimes->params.for_family(family, kinds_of(parts));
  const double s = j.spread;
  return [q, s, avg_real, avg_slow](const SetupCase& c, const CaseEstimate& e, double per) {
    const double t = regime_token_s(e.parts, q, 1);
    if (!(t > 0)) return CaseBand{c.label, 0, 0, 0};
    // The fast end: start-up may cost a run average nothing beside steady decode.
    return CaseBand{c.label, per / t / avg_slow * std::exp(-s), per / t / avg_real, per / t * std::exp(s)};
  };
}

}  // namespace

namespace {

// The band a claim is judged against, and what its cases allow.
struct BandOutcome {
  double real = 0, slow_min = 0, fast_max = 0;  // predicted tok/s: realistic, slow and fast ends
  double reported_lo = 0, reported_hi = 0;
  bool allowed = false, denied = false;  // some cases allow the figure, some do not
  std::string conditions;                // condition_summary of the two sets
};

// The verdict and its reason, from the reported figure against the band.
void set_verdict(ClaimJudgement& j, const Claim& claim, const MachineProfile& machine, bool on_cpu,
                 const CaseEstimate& first, const BandOutcome& b) {
  const double real = b.real, slow_min = b.slow_min, fast_max = b.fast_max;
  const double reported_lo = b.reported_lo, reported_hi = b.reported_hi;
  const std::string vs = "reported " + j.reported + " vs predicted " + tps(real) + " (band " + tps(slow_min) + " .. " +
                         tps(fast_max) + ", ×" + format_fixed(fast_max / std::max(1e-300, slow_min), 1) +
                         (j.regime.empty() ? std::string() : ", " + j.regime) + ")";
  if (reported_lo > kImplausibleOverFast * fast_max) {
    j.verdict = "implausible";
    j.reason = vs + ": beats the fast end ×" + format_fixed(reported_lo / fast_max, 1) +
               " under every plausible combination (past ×" + format_fixed(kImplausibleOverFast, 2) + " is implausible)";
    return;
  }
  if (reported_hi > kAllowOverFast * fast_max) {
    j.verdict = "optimistic";
    j.reason = vs + " (×" + format_fixed(reported_hi / fast_max, 2) + " the fast end; past ×" + format_fixed(kAllowOverFast, 2) +
               " is optimistic, past ×" + format_fixed(kImplausibleOverFast, 2) + " implausible)";
    return;
  }
  if (b.denied && b.allowed) {
    j.verdict = "consistent-if";
    j.reason = vs + ": " + b.conditions + " (a case allows a figure up to ×" +
               format_fixed(kAllowOverFast, 2) + " its fast end)";
    return;
  }
  if (reported_hi < slow_min / kBelowSlow) {
    j.verdict = "below-band";
    std::vector<std::string> causes;
    if (claim.figure == "run_average") {
      causes.push_back("the figure averages the first token and start-up over " +
                       (claim.gen_tokens ? std::to_string(*claim.gen_tokens) : std::string("an unstated number of")) + " tokens");
    }
    if (claim.ram_budget_bytes && static_cast<double>(*claim.ram_budget_bytes) > usable_memory(machine, on_cpu)) {
      causes.push_back("the budget exceeds usable memory, so cached experts page");
    }
    if (first.storage_bytes_tok > 0 && j.implied_storage_bytes_s &&
        *j.implied_storage_bytes_s < 0.25 * (machine.drives.empty() ? 0 : machine.drives[0].seq_read_bytes_s.value)) {
      causes.push_back("reads at " + format_rate(*j.implied_storage_bytes_s) +
                       ", a quarter of the drive or less: small or queue-depth-1 reads (page faults, mmap)");
    }
    if (causes.empty()) causes.push_back("the engine reaches less of the machine than its family's fitted efficiency");
    j.reason = vs + " (×" + format_fixed(slow_min / reported_hi, 1) + " below the slow end; past ×" + format_fixed(kBelowSlow, 2) +
               " is below-band): likely " + join(causes, "; ");
    return;
  }
  j.verdict = "consistent";
  j.reason = vs + (reported_hi > fast_max ? " (within ×" + format_fixed(kAllowOverFast, 2) + " of the fast end)" : std::string());
}

// Every plausible case priced: the band over them (slowest and fastest),
// the realistic ones, and which cases allow the reported figure.
struct CaseSweep {
  double fast_max = 0, slow_min = 1e300;
  std::vector<double> realistic;
  std::vector<std::string> allow, deny;
  std::vector<const SetupCase*> allow_cases, deny_cases;
  const CaseEstimate* first = nullptr;  // the first case that fits
};

CaseSweep sweep_cases(const Claim& claim, const std::vector<SetupCase>& cases, const std::vector<CaseEstimate>& ests,
                      const CasePricer& price, double per, double reported_hi, ClaimJudgement& j) {
  CaseSweep s;
  auto counts_realistic = [&](const SetupCase& c) { return c.speculative_speedup <= 1 || (claim.speculative && *claim.speculative); };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const SetupCase& c = cases[i];
    const CaseEstimate& e = ests[i];
    if (!e.fits) {
      s.deny.push_back(c.label + " (does not fit: " + e.why + ")");
      continue;
    }
    if (!s.first) s.first = &e;
    j.all_parts.push_back(e.parts);
    const CaseBand b = price(c, e, per);
    s.fast_max = std::max(s.fast_max, b.fast_tok_s);
    s.slow_min = std::min(s.slow_min, b.slow_tok_s);
    if (counts_realistic(c)) {
      s.realistic.push_back(b.real_tok_s);
      j.realistic_parts.push_back(e.parts);
    }
    const bool allows = reported_hi <= kAllowOverFast * b.fast_tok_s;
    (allows ? s.allow : s.deny).push_back(c.label);
    (allows ? s.allow_cases : s.deny_cases).push_back(&c);
    j.cases.push_back(b);
  }
  return s;
}

// No case fits: the claim contradicts itself, the profile lacks the drives
// to judge it, or the model fits this machine under no condition.
void judge_no_fit(const std::vector<SetupCase>& cases, const MachineProfile& machine, const CaseSweep& s,
                  ClaimJudgement& j) {
  if (!cases.empty() && !cases.front().contradiction.empty()) {
    j.verdict = "contradictory";
    j.reason = cases.front().contradiction;
  } else if (machine.drives.empty()) {
    // The profile does not describe the machine's drives: the claim may
    // stream from them; that says nothing against it.
    j.verdict = "under-specified";
    j.reason = "the model must stream on " + machine.name +
               " and its hardware profile lists no drive: add the drives to the profile to judge the claim" +
               (s.deny.empty() ? std::string() : " (" + s.deny.front() + ")");
  } else {
    j.verdict = "implausible";
    j.reason = "the model does not fit this machine's memory and drives under any plausible condition: " + s.deny.front();
  }
}

}  // namespace

ClaimJudgement judge_claim(const Claim& claim, const ModelCard* card, const MachineProfile* machine,
                           const EfficiencyTable* table, const RegimeFit* regimes) {
  ClaimJudgement j;
  j.id = claim.id;
  auto step = [&j](std::string name, double v, std::string unit, std::string how) {
    j.steps.push_back({std::move(name), v, std::move(unit), std::move(how)});
  };
  const std::optional<Reported> tok = reported_tok_s(claim, &j.reported);
  if (tok) step("reported decode speed", tok->high, "tok/s", j.reported + " (" + claim.figure + ")");
  if (!card) {
    j.verdict = "under-specified";
    j.reason = "no model card for \"" + claim.model + "\": its bytes per token are unknown";
    return j;
  }
  if (!machine) {
    j.verdict = "under-specified";
    j.reason = "machine \"" + claim.machine.value_or("not stated") + "\" is not in the hardware catalog";
    return j;
  }
  static const EfficiencyTable kEmpty;
  const std::string family = engine_family(claim.engine.value_or(""));
  const EngineEfficiency& eff = (table ? *table : kEmpty).for_family(family);
  j.engine_family = family;
  j.efficiency_source = eff.source;
  std::vector<SetupCase> cases = plausible_cases(claim, *card, *machine);
  const bool aggregate = !tok && claim.aggregate_tok_s && claim.concurrency;
  if (aggregate) {
    for (SetupCase& c : cases) c.batch = *claim.concurrency;
  }
  if (!tok && !aggregate) {
    j.verdict = "under-specified";
    j.reason = claim.aggregate_tok_s ? "an aggregate (serving) figure without the number of concurrent streams"
                                     : "only prefill/TTFT figures: the model judges decode";
    return j;
  }
  // Every plausible combination, and the band over them.
  const double per = aggregate ? static_cast<double>(*claim.concurrency) : 1.0;
  const double reported_hi = aggregate ? claim.aggregate_tok_s->high : tok->high;
  const double reported_lo = aggregate ? claim.aggregate_tok_s->low : tok->low;
  std::vector<CaseEstimate> ests;
  ests.reserve(cases.size());
  for (const SetupCase& c : cases) ests.push_back(estimate_case(*card, *machine, c, eff));
  // With the regime fit, every case is priced by it: its realistic tok/s and
  // a band of the figure's regime's spread each way (as validate-model).
  const CasePricer price = case_pricer(claim, cases, ests, family, regimes, j);
  const CaseSweep s = sweep_cases(claim, cases, ests, price, per, reported_hi, j);
  if (!s.first) {
    judge_no_fit(cases, *machine, s, j);
    return j;
  }
  const double slow_min = s.slow_min, fast_max = s.fast_max;
  for (const Step& st : s.first->steps) j.steps.push_back(st);
  j.streams = per;
  j.run_average = run_average_factor(claim, false);
  const double real = s.realistic.empty() ? j.cases.front().real_tok_s : regimes ? median(s.realistic) : realistic_tok_s(j, eff);
  j.predicted_low_tok_s = slow_min;
  j.predicted_high_tok_s = fast_max;
  j.predicted_tok_s = real;
  step("predicted (realistic)", real, "tok/s",
       "median over " + std::to_string(s.realistic.size()) + " plausible case(s) of " + std::to_string(cases.size()) +
           "; engine family \"" + family + "\": " +
           (regimes ? "the regime fit (configs/fits/regimes.json), regime " + j.regime : eff.source));
  step("band", fast_max, "tok/s", "slow end " + tps(slow_min) + ", fast end " + tps(fast_max) + " over every plausible case" +
                                      (regimes ? ", widened by the " + j.regime + " regime's spread ×" + format_fixed(std::exp(j.spread), 2) + " each way" : std::string()) +
                                      "; ratio ×" + format_fixed(fast_max / std::max(1e-300, slow_min), 2));
  const double sbytes = s.first->storage_bytes_tok, mbytes = s.first->memory_bytes_tok;
  if (sbytes > 0) j.implied_storage_bytes_s = reported_hi / per * sbytes;
  j.implied_memory_bytes_s = reported_hi / per * mbytes;
  if (j.implied_storage_bytes_s) step("implied storage rate", *j.implied_storage_bytes_s, "B/s", "reported tok/s × storage bytes per token");
  step("implied memory rate", *j.implied_memory_bytes_s, "B/s", "reported tok/s × bytes per token from memory");

  const BandOutcome band{real, slow_min, fast_max, reported_lo, reported_hi, !s.allow.empty(), !s.deny.empty(),
                         !s.allow.empty() && !s.deny.empty() ? condition_summary(s.allow_cases, s.deny_cases) : std::string()};
  set_verdict(j, claim, *machine, cases.front().on_cpu, *s.first, band);
  return j;
}

double realistic_tok_s(const ClaimJudgement& j, const EngineEfficiency& eff) {
  std::vector<double> v;
  v.reserve(j.realistic_parts.size());
  for (const CaseParts& p : j.realistic_parts) {
    const double t = case_times(p, eff).real_s;
    if (t > 0) v.push_back(1 / t);
  }
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // The median (the mean of the middle two for an even count).
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return j.streams * med / j.run_average;
}

MachineEstimate estimate_machine(const ModelCard& card, const MachineSetup& s, const MachineProfile& machine,
                                 const EfficiencyTable* table, const RegimeFit* regimes) {
  MachineEstimate out;
  out.drives = s.drives;
  static const EfficiencyTable kEmpty;
  const EngineEfficiency& eff = (table ? *table : kEmpty).for_family(s.engine_family);
  SetupCase c;
  const auto qf = find_quant(s.quant);
  c.expert_bits = s.expert_bits ? *s.expert_bits : qf ? qf->bits_per_weight() : 4.25;
  c.trunk_quant = s.trunk_quant.empty() ? card.trunk_quant : s.trunk_quant;
  c.trunk_bits = published_quant_bits(c.trunk_quant).value_or(16);  // a name outside the table scales the card's bytes
  c.drives = s.drives;
  c.context = static_cast<double>(s.context);
  c.gpus = machine.accelerators.has_value();
  c.family = s.engine_family;
  apply_processor(c, std::nullopt, machine);
  c.residency = family_residency(s.engine_family);
  const double usable = usable_memory(machine, c.on_cpu);
  c.memory_bytes = s.budget_bytes ? *s.budget_bytes : usable;
  c.memory_how = s.budget_bytes ? "the budget" : "usable memory";
  c.routing = s.routing.empty() ? default_real_routing() : s.routing;
  c.label = "as planned";
  const CaseEstimate e = estimate_case(card, machine, c, eff);
  out.steps = e.steps;
  out.storage_share = e.model_bytes > 0 ? std::clamp(e.storage_bytes_tok / std::max(1.0, e.storage_bytes_tok + e.memory_bytes_tok), 0.0, 1.0) : 0;
  if (!e.fits) {
    out.fits = false;
    out.why = e.why;
    return out;
  }
  // Streaming needs the model on the drives.
  if (!e.resident) {
    double capacity = 0;
    bool known = true;
    for (int i = 0; i < std::min<int>(s.drives, static_cast<int>(machine.drives.size())); ++i) {
      const DriveProfile& d = machine.drives[static_cast<std::size_t>(i)];
      if (!d.capacity_bytes) known = false; else capacity = std::max(capacity, d.capacity_bytes->value);
    }
    if (known && capacity > 0 && capacity < e.model_bytes) {
      out.fits = false;
      out.why = "streaming needs the " + format_bytes_decimal(e.model_bytes) + " model on a drive; the largest holds " +
                format_bytes_decimal(capacity);
      return out;
    }
    out.capacity_note = known ? "" : "drive capacity not in the profile: check that the model fits";
  }
  out.resident = e.resident;
  out.tok_s_low = e.tok_s_slow();
  out.tok_s_real = e.tok_s_real();
  out.tok_s_high = e.tok_s_fast();
  out.storage_bytes_tok = e.storage_bytes_tok;
  // The prompt in chunks of the family's prefill pass (512 when unknown),
  // each a weight pass over the trunk and (nearly) every expert it touches.
  const std::int64_t prompt = std::max<std::int64_t>(1, s.prompt);
  const auto chunk = family_prefill_chunk(s.engine_family);
  SetupCase pf = c;
  pf.batch = static_cast<int>(std::min<std::int64_t>(chunk ? chunk->tokens : 512, prompt));
  pf.one_sequence = true;
  pf.context = static_cast<double>(s.context) + static_cast<double>(prompt) / 2;
  const CaseEstimate pe = estimate_case(card, machine, pf, eff);
  const double chunks = std::ceil(static_cast<double>(prompt) / pf.batch);
  out.ttft_low_s = pe.fits ? chunks * pe.t_fast_s : std::numeric_limits<double>::infinity();
  if (!pe.fits) out.ttft_why = "the prompt does not fit: " + pe.why;
  if (regimes) {
    // The regime fit prices both: decode in its regime, the prompt in its
    // prefill regime, each widened by its regime's spread.
    const RegimeParams q = regimes->params.for_family(s.engine_family, kinds_of({&e.parts, &pe.parts}));
    const double t = regime_token_s(e.parts, q, 1);
    out.regime = case_regime(e.parts, q);
    const double sd = regimes->spread_of(out.regime);
    if (t > 0) {
      out.tok_s_real = 1 / t;
      out.tok_s_low = std::exp(-sd) / t;
      out.tok_s_high = std::exp(sd) / t;
    }
    CaseParts pp = pe.parts;
    pp.prefill = true;
    if (pe.fits && !pp.peak_missing) {
      const double tp = regime_token_s(pp, q, 1);
      out.prefill_regime = case_regime(pp, q);
      out.ttft_s = static_cast<double>(prompt) * tp;
      out.ttft_low_s = out.ttft_s * std::exp(-regimes->spread_of(out.prefill_regime));
    }
  }
  return out;
}

}  // namespace moebench
