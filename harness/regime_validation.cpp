// regime_validation.cpp — see regime_validation.h.
#include "harness/regime_validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "model/engine_families.h"
#include "model/prefill_check.h"
#include "vocab/stats.h"
#include "vocab/text.h"

namespace moebench {

namespace {

GroupSummary summarize(const std::string& name, const std::vector<const RegimeRow*>& rows) {
  GroupSummary g;
  g.name = name;
  std::vector<double> errs, ratios;
  for (const RegimeRow* r : rows) {
    ++g.figures;
    if (!r->judged) continue;
    ++g.judged;
    g.in_band += r->in_band;
    errs.push_back(std::fabs(r->error));
    ratios.push_back(r->band_ratio());
  }
  g.median_abs_error = errs.empty() ? 0.0 : median(errs);
  g.median_band_ratio = ratios.empty() ? 0.0 : median(ratios);
  return g;
}

std::string pct(double v) { return fmt::format("{:.1f} %", 100 * v); }

std::string summary_row(const GroupSummary& g) {
  return fmt::format("| {} | {} | {} | {} | {} of {} ({}) | {} |\n", g.name, g.figures, g.judged,
                     g.judged ? pct(g.median_abs_error) : "–", g.in_band, g.judged,
                     g.judged ? fmt::format("{:.0f} %", 100.0 * g.in_band / g.judged) : "–",
                     g.judged ? fmt::format("×{:.2f}", g.median_band_ratio) : "–");
}

}  // namespace

std::string figure_source(const Claim& c) {
  if (!c.source_repository.empty()) return c.source_repository;
  return c.source_page.empty() ? c.source_document : c.source_page;
}

namespace {

// Why a figure has no cases before the model is asked: no card, no machine.
std::string missing_input(const PublishedFigure& f) {
  if (!f.card) return "no model card for \"" + f.claim.model + "\"";
  if (!f.machine) {
    return !f.machine_error.empty() ? "its machine_spec cannot be built: " + f.machine_error
                                    : "no hardware profile and no machine_spec";
  }
  return "";
}

}  // namespace

RegimeInputs regime_inputs(const std::vector<PublishedFigure>& published) {
  RegimeInputs in;
  for (const PublishedFigure& f : published) {
    RegimeRow why;
    why.id = f.claim.id;
    why.source = figure_source(f.claim);
    why.family = engine_family(f.claim.engine.value_or(""));
    why.measured_tok_s = f.claim.decode_figure_tok_s();
    const double prefill = f.claim.prefill_figure_tok_s();
    const std::string missing = missing_input(f);
    // The spec-built machine when the figure names its parts: the regime
    // parameters are shares of spec figures.
    const MachineProfile* machine = f.spec_machine ? &*f.spec_machine : f.machine ? &*f.machine : nullptr;
    auto add = [&](RegimeRow row, const std::vector<CaseParts>& realistic, const std::vector<CaseParts>& all,
                   double streams, double run_average, const std::string& why_not) {
      if (!why_not.empty() || realistic.empty()) {
        row.why_not = why_not.empty() ? "the model gives no case for it" : why_not;
        in.unanswered.push_back(row);
        return;
      }
      RegimeFigure r;
      r.id = row.id;
      r.source = row.source;
      r.family = row.family;
      r.kind = row.kind;
      r.measured_tok_s = row.measured_tok_s;
      r.streams = streams;
      r.run_average = run_average;
      r.realistic = realistic;
      r.all = all;
      in.figures.push_back(std::move(r));
    };
    if (why.measured_tok_s > 0) {
      if (!missing.empty()) {
        add(why, {}, {}, 1, 1, missing);
      } else {
        const ClaimJudgement j = judge_claim(f.claim, &*f.card, machine, nullptr);
        add(why, j.realistic_parts, j.all_parts, j.streams, j.run_average,
            j.realistic_parts.empty() ? j.verdict + ": " + j.reason : "");
      }
    }
    if (prefill > 0) {
      RegimeRow p = why;
      p.id += " (prefill)";
      p.kind = "prefill";
      p.measured_tok_s = prefill;
      if (!missing.empty()) {
        add(p, {}, {}, 1, 1, missing);
      } else {
        const PrefillCases pc = prefill_cases(f.claim, *f.card, *machine);
        add(p, pc.realistic, pc.all, 1, 1, pc.why_not);
      }
    }
    if (!(why.measured_tok_s > 0) && !(prefill > 0)) {
      why.why_not = "no single-stream decode or prefill figure (an aggregate only)";
      in.unanswered.push_back(why);
    }
  }
  return in;
}

namespace {

// One figure under the fit that left its group out.
struct HeldOut {
  const RegimeFigure* f = nullptr;
  std::string group;
  CaseRange range;
  RegimeDistance distance;
  FigureTerms terms;
};

// Where one fold's fitted values fall: each parameter's lowest and highest
// value over the folds, and which group's absence gave it.
void record_fold(RegimeValidation& v, const RegimeFit& fit, const std::string& without) {
  for (const FittedParam& p : fit.fitted) {
    if (p.prior) continue;
    RegimeValidation::FoldRange& r = v.fold_range[fold_key(p)];
    if (r.folds == 0 || p.value < r.low) {
      r.low = p.value;
      r.low_without = without;
      r.low_folds = 0;
    }
    if (p.value == r.low) ++r.low_folds;
    if (r.folds == 0 || p.value > r.high) {
      r.high = p.value;
      r.high_without = without;
      r.high_folds = 0;
    }
    if (p.value == r.high) ++r.high_folds;
    ++r.folds;
  }
}

// A held-out figure's row: its prediction, and its band widened by `spread`
// (the other groups' spread of its regime), in log terms.
RegimeRow held_out_row(const HeldOut& h, double spread) {
  const RegimeFigure& f = *h.f;
  RegimeRow r;
  r.id = f.id;
  r.source = f.source;
  r.family = f.family;
  r.kind = f.kind;
  r.regime = h.distance.regime;
  r.measured_tok_s = f.measured_tok_s;
  r.predicted_tok_s = h.range.tok_s;
  r.low_tok_s = h.range.low * std::exp(-spread);
  r.high_tok_s = h.range.high * std::exp(spread);
  r.judged = h.range.tok_s > 0;
  if (h.terms.parts) r.median_case = RegimeRow::MedianCase{*h.terms.parts, h.terms.terms};
  r.error = r.judged ? h.range.tok_s / f.measured_tok_s - 1 : 0;
  r.in_band = r.judged && f.measured_tok_s >= r.low_tok_s * 0.999 && f.measured_tok_s <= r.high_tok_s * 1.001;
  if (!r.judged) r.why_not = "the model gives no time for its cases";
  return r;
}

// The summaries: overall, per figure kind, per regime (in the regimes'
// order), per engine family.
void summarize_rows(RegimeValidation& v) {
  std::vector<const RegimeRow*> all;
  std::map<std::string, std::vector<const RegimeRow*>> regimes, families, kinds;
  for (const RegimeRow& r : v.rows) {
    all.push_back(&r);
    kinds[r.kind].push_back(&r);
    if (r.judged) regimes[r.regime].push_back(&r);
    families[r.family].push_back(&r);
  }
  v.overall = summarize("all", all);
  for (const auto& [name, rows] : kinds) v.per_kind.push_back(summarize(name, rows));
  for (const std::string& name : regime_names()) {
    if (regimes.count(name)) v.per_regime.push_back(summarize(name, regimes[name]));
  }
  for (const auto& [name, rows] : families) v.per_family.push_back(summarize(name, rows));
}

}  // namespace

RegimeValidation validate_regimes(const RegimeInputs& in, const std::string& left_out) {
  RegimeValidation v;
  v.left_out = left_out;
  auto key = [&](const RegimeFigure& f) { return left_out == "family" ? f.family : f.source; };
  std::set<std::string> groups;
  for (const RegimeFigure& f : in.figures) groups.insert(key(f));
  // Pass 1: each group's figures under the fit on every other group: their
  // plausible range, regime and distance outside it.
  std::vector<HeldOut> held;
  for (const std::string& g : groups) {
    std::vector<const RegimeFigure*> train;
    for (const RegimeFigure& f : in.figures) {
      if (key(f) != g) train.push_back(&f);
    }
    if (train.empty()) continue;
    ++v.folds;
    const RegimeFit fit = fit_regimes(train);
    for (const RegimeFigure& f : in.figures) {
      if (key(f) == g) held.push_back({&f, g, case_range(f, fit.params), regime_distance(f, fit.params), figure_terms(f, fit.params)});
    }
    if (fit.settled) ++v.folds_settled;
    record_fold(v, fit, g);
  }
  // Pass 2: a group's bands are widened by the spreads of the other
  // groups' held-out distances (never its own), so a band is as wide as
  // figures nobody fitted to need.
  std::vector<RegimeDistance> every_distance;
  for (const HeldOut& h : held) {
    if (h.distance.distance >= 0) every_distance.push_back(h.distance);
  }
  std::map<std::string, RegimeRow> by_id;
  std::map<std::string, RegimeFit> spreads;  // group → its bands' spreads
  for (const HeldOut& h : held) {
    if (!spreads.count(h.group)) {
      std::vector<RegimeDistance> rest;
      for (const HeldOut& o : held) {
        if (o.group != h.group && o.distance.distance >= 0) rest.push_back(o.distance);
      }
      set_spreads(spreads[h.group], rest);
    }
    by_id[h.f->id] = held_out_row(h, spreads[h.group].spread_of(h.distance.regime));
  }
  for (const RegimeFigure& f : in.figures) {
    auto it = by_id.find(f.id);
    if (it != by_id.end()) v.rows.push_back(it->second);
  }
  for (const RegimeRow& r : in.unanswered) v.rows.push_back(r);
  summarize_rows(v);
  std::vector<const RegimeFigure*> every;
  for (const RegimeFigure& f : in.figures) every.push_back(&f);
  v.full = fit_regimes(every);
  // The stored fit's bands: every figure's held-out distance.
  set_spreads(v.full, every_distance);
  return v;
}

std::string fold_key(const FittedParam& p) { return p.family.empty() ? p.name : p.name + " [" + p.family + "]"; }

std::string write_regime_validation(const RegimeValidation& v, bool rows) {
  std::string out = "moebench validate-model --regimes: the regime model against published measurements, leaving one " +
                    v.left_out + " out at a time (" + std::to_string(v.folds) + " folds: each " + v.left_out +
                    "'s figures predicted by a fit on the others)\n\n";
  const std::string head = "| {} | figures | answered | median abs error | inside the band | median band ratio |\n|---|---:|---:|---:|---:|---:|\n";
  out += fmt::format(fmt::runtime(head), "");
  out += summary_row(v.overall);
  for (const GroupSummary& g : v.per_kind) out += summary_row(g);
  out += "\nPer regime (the regime each answered figure's realistic cases bind; figures without a number have none):\n\n";
  out += fmt::format(fmt::runtime(head), "regime");
  for (const GroupSummary& g : v.per_regime) out += summary_row(g);
  out += "\nPer engine family:\n\n";
  out += fmt::format(fmt::runtime(head), "family");
  for (const GroupSummary& g : v.per_family) out += summary_row(g);
  out += "\nParameters fitted on every answered figure (" + std::to_string(v.full.figures) + "; " +
         std::to_string(v.full.rounds) + " rounds, " + (v.full.settled ? "settled" : "not settled") + "; " +
         std::to_string(v.folds_settled) + " of " + std::to_string(v.folds) + " folds settled within " +
         std::to_string(kMaxRounds) + " rounds), each inside its physical range; beside it, the lowest and highest value the folds fitted it to (each "
         "leaving one " + v.left_out + " out; a fold where a group has too few figures for its own value is not counted) and their ratio:\n\n| parameter | value | range | figures of its regimes | across the folds | note |\n|---|---:|---|---:|---|---|\n";
  for (const FittedParam& p : v.full.fitted) {
    const bool seconds = p.name.rfind("layer_s", 0) == 0;
    const bool rate = p.name == "core_bw";
    auto show = [&](double x) {
      return seconds ? (x < 1e-6 ? fmt::format("{:.2f} µs", x * 1e6) : fmt::format("{:.1f} µs", x * 1e6)) : rate ? fmt::format("{:.1f} GB/s", x / 1e9) : fmt::format("{:.3f}", x);
    };
    const auto fr = v.fold_range.find(fold_key(p));
    std::string folds = "–";
    if (fr != v.fold_range.end()) {
      const RegimeValidation::FoldRange& r = fr->second;
      // A swing worth naming (twofold, or from 0): the group whose absence
      // gives each end, where one fold alone reaches it.
      auto end = [&](const char* which, int n, const std::string& without) {
        return n == 1 ? fmt::format("{} without {}", which, without) : fmt::format("{} in {} folds", which, n);
      };
      const bool swings = r.low > 0 ? r.high >= 2 * r.low : r.high > 0;
      folds = fmt::format("{} .. {} ({}{} folds{})", show(r.low), show(r.high), r.low > 0 ? fmt::format("×{:.2f}, ", r.high / r.low) : "",
                          r.folds, swings ? "; " + end("lowest", r.low_folds, r.low_without) + ", " + end("highest", r.high_folds, r.high_without) : "");
    }
    out += fmt::format("| {} | {} | {} .. {} | {} | {} | {} |\n", fold_key(p), show(p.value), show(p.low), show(p.high), p.figures, folds,
                       p.prior     ? "prior kept: fewer than " + std::to_string(kMinRegimeFigures) + " figures"
                       : p.at_edge && p.ends_attainable ? std::string("at an end of its range, a physical state")
                       : p.at_edge ? "at the edge of its range: a term the model lacks"
                                   : "inside its range");
  }
  out += "\nBand spread per regime (80th percentile of how far figures left out of their own fit fall outside their plausible cases; the band is those cases widened by it each way; a left-out group's own figures never widen its band):\n\n";
  for (const auto& [name, s] : v.full.spread) out += fmt::format("- {}: ×{:.2f} each way\n", name, std::exp(s));
  if (rows) {
    out += "\n| figure | source | family | regime | measured tok/s | predicted | band | ratio | error | in band |\n"
           "|---|---|---|---|---:|---:|---|---:|---:|---|\n";
    for (const RegimeRow& r : v.rows) {
      if (!r.judged) continue;
      out += fmt::format("| {} | {} | {} | {} | {:.3g} | {:.3g} | {:.3g}–{:.3g} | ×{:.2f} | {:+.0f} % | {} |\n", r.id, r.source,
                         r.family, r.regime, r.measured_tok_s, r.predicted_tok_s, r.low_tok_s, r.high_tok_s, r.band_ratio(),
                         100 * r.error, r.in_band ? "yes" : "no");
    }
    out += "\nWithout a number:\n\n";
    for (const RegimeRow& r : v.rows) {
      if (!r.judged) out += "- " + r.id + ": " + r.why_not + "\n";
    }
  }
  return out;
}

namespace {

std::string ms(double s) { return fmt::format("{:.3g}", s * 1e3); }

std::string case_lines(const CaseParts& c, const RegimeParams& q) {
  const RegimeTerms t = regime_terms(c, q, 1);
  std::string out = fmt::format(
      "  parts at spec (ms): memory cpu {} (sockets {}, threads {}, cores {}, {:.3g} GB/token) gpu {}; flops {}; "
      "attention {}; io {} (paged {}); layers {}{}{}{}\n",
      ms(c.mem_cpu_s[1]), c.sockets, c.threads, c.cores, c.cpu_bytes_tok / 1e9, ms(c.mem_gpu_s[1]), ms(c.flops_peak_s[1]),
      ms(c.attn_peak_s), ms(c.io_s[1]), ms(c.paged_io_s[1]), c.layers, c.gpu_computes ? ", GPU computes" : "",
      c.experts_on_cpu ? ", experts on the CPU" : "", c.unified ? ", unified memory" : "");
  if (c.prefill) {
    const char* rule = !c.copies_experts ? "" : *c.copies_experts ? "; the engine's rule copies the CPU-held experts" : "; the engine's rule keeps the CPU-held experts on the CPU";
    out += fmt::format("  prefill pass of {} tokens at peak (ms): gpu {} cpu {} offload {} link {} attention {}{}\n", c.batch,
                       ms(c.flops_gpu_peak_s), ms(c.flops_cpu_peak_s), ms(c.flops_offload_peak_s), ms(c.link_s),
                       ms(c.attn_gpu_peak_s + c.attn_cpu_peak_s), rule);
  }
  out += fmt::format("  priced (ms): memory cpu {} gpu {}; flops {}; attention {}; fixed {}; io {} (paged {})", ms(t.mem_cpu_s),
                     ms(t.mem_gpu_s), ms(t.flops_s), ms(t.attn_s), ms(t.fixed_s), ms(t.io_s), ms(t.paged_s));
  if (c.prefill) {
    out += fmt::format("; pass gpu {} cpu {} link {} attention {}", ms(t.prefill_gpu_s), ms(t.prefill_cpu_s), ms(t.prefill_link_s),
                       ms(t.prefill_attn_s));
  }
  out += fmt::format("\n  => {} ms per {}, {:.4g} tok/s, regime {}\n", ms(t.token_s), c.prefill ? "token of the pass" : "token",
                     t.token_s > 0 ? 1 / t.token_s : 0.0, t.regime);
  return out;
}

}  // namespace

std::string write_regime_explain(const RegimeInputs& in, const std::string& id, const std::string& left_out) {
  auto key = [&](const RegimeFigure& f) { return left_out == "family" ? f.family : f.source; };
  std::string out;
  std::optional<RegimeValidation> v;  // the rows' bands (held-out spreads need every fold)
  for (const RegimeFigure& f : in.figures) {
    if (f.id != id && f.id != id + " (prefill)") continue;
    if (!v) v = validate_regimes(in, left_out);
    std::vector<const RegimeFigure*> train;
    for (const RegimeFigure& g : in.figures) {
      if (key(g) != key(f)) train.push_back(&g);
    }
    const RegimeFit fit = fit_regimes(train);
    FigureBand b = figure_band(f, fit);
    for (const RegimeRow& r : v->rows) {
      if (r.id == f.id) {
        b.low_tok_s = r.low_tok_s;
        b.high_tok_s = r.high_tok_s;
      }
    }
    const RegimeParams q = fit.params.for_family(f.family, kinds_of(f.realistic));
    out += fmt::format("{} ({} figure, engine family {})\nsource {}; fitted on {} figures of the other {}\nmeasured {:.4g} tok/s, predicted {:.4g} "
                       "(band {:.3g}–{:.3g}, ×{:.2f}), regime {}\nparameters as family \"{}\" sees them:",
                       f.id, f.kind, f.family, f.source, train.size(), left_out == "family" ? "families" : "sources", f.measured_tok_s, b.tok_s, b.low_tok_s,
                       b.high_tok_s, b.low_tok_s > 0 ? b.high_tok_s / b.low_tok_s : 0.0, b.regime, f.family);
    for (const RegimeParam& p : q.p) out += fmt::format(" {}={:.4g}", p.name, p.value);
    out += fmt::format("\nstreams {}, run-average factor {}; {} realistic case(s) of {}:\n", f.streams, f.run_average,
                       f.realistic.size(), f.all.size());
    for (const CaseParts& c : f.realistic) out += case_lines(c, q);
    out += "\n";
  }
  return out;
}

namespace {

// One row's median realistic case: its parts before any efficiency and each
// priced term, in seconds per token (per token of the pass for a prefill).
Json case_json(const CaseParts& c, const RegimeTerms& t) {
  Json parts{{"layers", c.layers},
             {"threads", c.threads},
             {"cores", c.cores},
             {"sockets", c.sockets},
             {"cpu_bytes_per_token", c.cpu_bytes_tok},
             {"memory_cpu_s", c.mem_cpu_s[1]},
             {"memory_gpu_s", c.mem_gpu_s[1]},
             {"flops_peak_s", c.flops_peak_s[1]},
             {"attention_peak_s", c.attn_peak_s},
             {"io_s", c.io_s[1]},
             {"gpu_computes", c.gpu_computes},
             {"unified", c.unified},
             {"gpu_kind", c.gpu_kind},
             {"cpu_layers", c.cpu_layers},
             {"tensor_parallel", c.tensor_parallel},
             {"experts_on_cpu", c.experts_on_cpu}};
  if (c.prefill) {
    parts["batch"] = c.batch;
    parts["prefill_gpu_peak_s"] = c.flops_gpu_peak_s;
    parts["prefill_cpu_peak_s"] = c.flops_cpu_peak_s;
    parts["prefill_attention_peak_s"] = c.attn_gpu_peak_s + c.attn_cpu_peak_s;
    parts["link_s"] = c.link_s;
  }
  Json priced{{"memory_cpu_s", t.mem_cpu_s}, {"memory_gpu_s", t.mem_gpu_s}, {"flops_s", t.flops_s}, {"attention_s", t.attn_s},
              {"fixed_s", t.fixed_s},        {"io_s", t.io_s},               {"paged_s", t.paged_s}, {"token_s", t.token_s}};
  if (c.prefill) {
    priced["prefill_gpu_s"] = t.prefill_gpu_s;
    priced["prefill_cpu_s"] = t.prefill_cpu_s;
    priced["prefill_link_s"] = t.prefill_link_s;
    priced["prefill_attention_s"] = t.prefill_attn_s;
  }
  return Json{{"parts", parts}, {"priced", priced}, {"regime", t.regime}};
}

}  // namespace

Json regime_validation_json(const RegimeValidation& v) {
  Json j;
  j["left_out"] = v.left_out;
  j["folds"] = v.folds;
  auto group = [](const GroupSummary& g) {
    return Json{{"name", g.name},         {"figures", g.figures}, {"answered", g.judged},
                {"in_band", g.in_band},   {"median_abs_error", g.median_abs_error},
                {"median_band_ratio", g.median_band_ratio}};
  };
  j["overall"] = group(v.overall);
  j["fit"] = {{"rounds", v.full.rounds}, {"settled", v.full.settled}, {"folds", v.folds}, {"folds_settled", v.folds_settled}};
  for (const GroupSummary& g : v.per_kind) j["per_kind"].push_back(group(g));
  for (const GroupSummary& g : v.per_regime) j["per_regime"].push_back(group(g));
  for (const GroupSummary& g : v.per_family) j["per_family"].push_back(group(g));
  for (const FittedParam& p : v.full.fitted) {
    Json x{{"name", p.name}, {"family", p.family.empty() ? "all" : p.family}, {"value", p.value}, {"low", p.low}, {"high", p.high},
           {"figures", p.figures}, {"prior", p.prior}, {"at_edge", p.at_edge}};
    const auto fr = v.fold_range.find(fold_key(p));
    if (fr != v.fold_range.end()) {
      const RegimeValidation::FoldRange& r = fr->second;
      x["across_folds"] = {{"low", r.low}, {"high", r.high}, {"folds", r.folds}, {"low_folds", r.low_folds}, {"high_folds", r.high_folds}};
      if (r.low_folds == 1) x["across_folds"]["low_without"] = r.low_without;
      if (r.high_folds == 1) x["across_folds"]["high_without"] = r.high_without;
    }
    j["parameters"].push_back(x);
  }
  for (const RegimeRow& r : v.rows) {
    Json x{{"id", r.id}, {"kind", r.kind}, {"source", r.source}, {"family", r.family}, {"answered", r.judged}};
    if (r.judged) {
      x["regime"] = r.regime;
      x["measured_tok_s"] = r.measured_tok_s;
      x["predicted_tok_s"] = r.predicted_tok_s;
      x["band"] = {r.low_tok_s, r.high_tok_s};
      x["band_ratio"] = r.band_ratio();
      x["error"] = r.error;
      x["in_band"] = r.in_band;
      if (r.median_case) x["case"] = case_json(r.median_case->parts, r.median_case->terms);
    } else {
      x["why_not"] = r.why_not;
    }
    j["figures"].push_back(x);
  }
  return j;
}

}  // namespace moebench
