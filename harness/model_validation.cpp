// model_validation.cpp — see model_validation.h.
#include "harness/model_validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "harness/claim_review.h"
#include "vocab/text.h"

namespace moebench {

Expected<std::vector<PublishedFigure>> load_published(const ConfigStore& store, const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    if (std::filesystem::exists(dir, ec)) {
      return make_error(dir + ": not a directory: --published takes the directory of figure files (e.g. tests/data/published)");
    }
    return make_error(dir + ": no such directory (the published figures live in tests/data/published; pass --published DIR)");
  }
  std::vector<std::string> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    std::error_code fe;
    if (!std::filesystem::is_regular_file(it->path(), fe)) {
      return make_error(it->path().string() + ": not a regular file (a directory, FIFO, device or dangling link): remove it from " + dir);
    }
    files.push_back(it->path().string());
  }
  if (ec) return make_error(dir + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) return make_error(dir + ": no .json files of published figures");
  std::vector<PublishedFigure> out;
  std::optional<SpecTables> specs;
  for (const std::string& f : files) {
    // hit_rates.json (routing_fit.h's data) lives beside the figures.
    if (std::filesystem::path(f).filename() == "hit_rates.json") continue;
    auto claims = load_claims_file(f);
    if (!claims) return claims.error();
    for (const Claim& c : *claims) {
      auto setup = resolve_claim_setup(store, c, f, &specs);
      if (!setup) return setup.error();
      out.push_back({c, f, setup->card, setup->machine, setup->machine_error, setup->spec_machine});
    }
  }
  if (out.empty()) return make_error(dir + ": no published figures (hit_rates.json alone is the routing fit's data)");
  return out;
}

bool is_held_out(const std::string& id) { return (fnv1a64(id) & 1) != 0; }

namespace {

// The measured decode tok/s of a figure (the middle of a range).
struct FitItem {
  ClaimJudgement j;
  double measured = 0;
  std::string family;
};

double log_err(const FitItem& it, const EngineEfficiency& e) {
  const double p = realistic_tok_s(it.j, e);
  if (!(p > 0)) return 10;
  return std::log(p / it.measured);
}

// Grid search; `prior` (nullptr for the pooled fit) pulls each factor with
// weight `pull`.
EngineEfficiency fit_one(const std::vector<const FitItem*>& items, const EngineEfficiency* prior, double pull) {
  static const std::vector<double> kOverlap = {0.0, 0.5, 1.0};
  auto log_grid = [](double lo, double hi, int n) {
    std::vector<double> g;
    for (int i = 0; i < n; ++i) g.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
    return g;
  };
  static const std::vector<double> kMemory = log_grid(0.01, 1.0, 31);
  static const std::vector<double> kIo = log_grid(0.02, 1.0, 25);
  // Batch-1 decode reaches a small share of the FLOP peak; a scalar engine
  // that dequantizes in its inner loop, a thousandth of it.
  static const std::vector<double> kCompute = log_grid(0.001, 1.0, 16);
  EngineEfficiency best = prior ? *prior : EngineEfficiency{};
  double best_cost = 1e300;
  for (double m : kMemory) {
    for (double io : kIo) {
      for (double c : kCompute) {
        for (double ov : kOverlap) {
          EngineEfficiency e = best;
          e.memory = m;
          e.io = io;
          e.compute = c;
          e.overlap = ov;
          double cost = 0;
          for (const FitItem* it : items) {
            const double r = log_err(*it, e);
            cost += std::fabs(r);  // L1: the median error is the target
          }
          if (prior) {
            const double pm = std::log(m / prior->memory), pi = std::log(io / prior->io), pc = std::log(c / prior->compute);
            cost += pull * (pm * pm + pi * pi + pc * pc) + pull * (ov - prior->overlap) * (ov - prior->overlap);
          }
          if (cost < best_cost - 1e-12) {
            best_cost = cost;
            best = e;
          }
        }
      }
    }
  }
  return best;
}

std::vector<FitItem> judged_items(const std::vector<PublishedFigure>& figures, bool held_out) {
  std::vector<FitItem> items;
  const EfficiencyTable defaults;
  for (const PublishedFigure& f : figures) {
    if (is_held_out(f.claim.id) != held_out || !f.card || !f.machine) continue;
    const double meas = f.claim.decode_figure_tok_s();
    if (!(meas > 0)) continue;
    FitItem it;
    it.j = judge_claim(f.claim, &*f.card, &*f.machine, &defaults);
    if (it.j.realistic_parts.empty()) continue;
    it.measured = meas;
    it.family = it.j.engine_family;
    items.push_back(std::move(it));
  }
  return items;
}

}  // namespace

Expected<EfficiencyTable> fit_efficiency_table(const std::vector<PublishedFigure>& figures, const std::string& where) {
  const std::vector<FitItem> items = judged_items(figures, false);
  if (static_cast<int>(items.size()) < kMinFitFigures) {
    return make_error(where + ": " + std::to_string(items.size()) + " fit-half figure(s) with a card, a profile and a decode "
                      "figure; a fit needs at least " + std::to_string(kMinFitFigures) +
                      " (add published figures, or use the stored table without --fit)");
  }
  std::vector<const FitItem*> all;
  std::map<std::string, std::vector<const FitItem*>> by_family;
  for (const FitItem& it : items) {
    all.push_back(&it);
    by_family[it.family].push_back(&it);
  }
  EfficiencyTable t;
  EngineEfficiency any = fit_one(all, nullptr, kPullWeight);
  any.family = "any";
  any.figures = static_cast<int>(all.size());
  std::map<std::string, EngineEfficiency> fams;
  for (const auto& [fam, list] : by_family) {
    EngineEfficiency e = fit_one(list, &any, kPullWeight);
    e.family = fam;
    e.figures = static_cast<int>(list.size());
    fams[fam] = e;
  }
  // The band: leave-one-out residuals of the family fits.
  std::vector<double> loo;
  for (const auto& [fam, list] : by_family) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::vector<const FitItem*> rest;
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (k != i) rest.push_back(list[k]);
      }
      const EngineEfficiency e = rest.empty() ? any : fit_one(rest, &any, kPullWeight);
      loo.push_back(std::fabs(log_err(*list[i], e)));
    }
  }
  std::sort(loo.begin(), loo.end());
  // The 80th percentile: the band is meant to hold four figures in five.
  const double q90 = loo.empty() ? std::log(1.6) : std::max(std::log(1.25), loo[std::min(loo.size() - 1, loo.size() * 8 / 10)]);
  const std::string band_how = "band ×" + format_fixed(std::exp(-q90), 3) + " .. ×" + format_fixed(std::exp(q90), 3) +
                               ": the 80th percentile of " + std::to_string(loo.size()) + " leave-one-out |log residuals|";
  any.band_low = std::exp(-q90);
  any.band_high = std::exp(q90);
  any.source = "fitted on all " + std::to_string(any.figures) + " fit-half figures of " + where + "; " + band_how;
  t.families.push_back(any);
  for (auto& [fam, e] : fams) {
    e.band_low = any.band_low;
    e.band_high = any.band_high;
    e.source = "fitted on " + std::to_string(e.figures) + " fit-half figure(s) of " + fam + " in " + where +
               " (pulled towards the pooled fit); " + band_how;
    t.families.push_back(e);
  }
  return t;
}

ValidationReport validate_model(const std::vector<PublishedFigure>& figures, const EfficiencyTable& table) {
  ValidationReport rep;
  std::vector<double> errs[2];
  for (const PublishedFigure& f : figures) {
    ValidationRow r;
    r.id = f.claim.id;
    r.file = std::filesystem::path(f.file).filename().string();
    r.held_out = is_held_out(f.claim.id);
    r.family = engine_family(f.claim.engine.value_or(""));
    r.machine = f.claim.hardware.value_or(f.claim.machine.value_or("?"));
    r.figure_kind = f.claim.figure;
    HalfSummary& h = r.held_out ? rep.held_out : rep.fit;
    ++h.figures;
    r.measured_tok_s = f.claim.decode_figure_tok_s();
    if (!(r.measured_tok_s > 0)) {
      r.why_not = "no single-stream decode figure (prefill, TTFT or aggregate only)";
    } else if (!f.card) {
      r.why_not = "no model card for \"" + f.claim.model + "\"";
    } else if (!f.machine) {
      r.why_not = !f.machine_error.empty() ? "its machine_spec cannot be built: " + f.machine_error
                  : "machine \"" + f.claim.machine.value_or("?") + "\" has no hardware profile and no machine_spec";
    }
    if (r.why_not.empty()) {
      const ClaimJudgement j = judge_claim(f.claim, &*f.card, &*f.machine, &table);
      r.verdict = j.verdict;
      r.reason = j.reason;
      if (j.predicted_tok_s) {
        r.judged = true;
        r.predicted_tok_s = *j.predicted_tok_s;
        r.slow_tok_s = j.predicted_low_tok_s.value_or(0);
        r.fast_tok_s = j.predicted_high_tok_s.value_or(0);
        r.error = r.predicted_tok_s / r.measured_tok_s - 1;
        r.in_band = r.measured_tok_s >= r.slow_tok_s * 0.999 && r.measured_tok_s <= r.fast_tok_s * 1.001;
        ++h.judged;
        h.in_band += r.in_band;
        errs[r.held_out].push_back(std::fabs(r.error));
      } else if (j.verdict == "contradictory") {
        r.why_not = "its stated conditions contradict each other: " + j.reason;  // the data, not the model
      } else if (j.verdict == "under-specified") {
        r.why_not = "under-specified: " + j.reason;  // the source left out what the answer needs (its drives)
      } else {
        r.why_not = "no prediction: " + j.reason;
        ++h.infeasible;
      }
    }
    rep.rows.push_back(r);
  }
  for (int half = 0; half < 2; ++half) {
    std::vector<double>& e = errs[half];
    std::sort(e.begin(), e.end());
    const double med = e.empty() ? 0 : e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
    HalfSummary& h = half ? rep.held_out : rep.fit;
    h.median_abs_error = med;
    h.p75_abs_error = e.empty() ? 0 : e[std::min(e.size() - 1, (e.size() * 3) / 4)];
    h.within_25 = static_cast<int>(std::count_if(e.begin(), e.end(), [](double x) { return x <= 0.25; }));
  }
  return rep;
}

std::string write_validation_table(const ValidationReport& r, const EfficiencyTable& table) {
  auto summary = [](const char* name, const HalfSummary& h) {
    // An empty half has no error figures: "–", not 0.0 %.
    auto pct = [&h](double v) { return h.judged ? format_fixed(100 * v, 1) + " %" : std::string("–"); };
    return fmt::format("| {} | {} | {} | {} | {} | {} of {} | {} of {} ({} %) | {} |\n", name, h.figures, h.judged,
                       pct(h.median_abs_error), pct(h.p75_abs_error), h.within_25,
                       h.judged, h.in_band, h.judged, h.judged ? format_fixed(100.0 * h.in_band / h.judged, 0) : "–",
                       h.figures - h.judged);
  };
  std::string out = "moebench validate-model: the setup model against published measurements\n\n"
                    "| half | figures | predicted | median abs error | 75th percentile | within 25 % | inside the band | without a number |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  out += summary("fit", r.fit);
  out += summary("held out", r.held_out);
  out += "\n| figure | half | engine | machine | kind | measured tok/s | predicted | band | error | in band | verdict |\n"
         "|---|---|---|---|---|---:|---:|---|---:|---|---|\n";
  for (const ValidationRow& x : r.rows) {
    if (!x.judged) continue;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {}–{} | {}{} % | {} | {} |\n", x.id, x.held_out ? "held out" : "fit",
                       x.family, x.machine, x.figure_kind, format_fixed(x.measured_tok_s, 3), format_fixed(x.predicted_tok_s, 3),
                       format_fixed(x.slow_tok_s, 3), format_fixed(x.fast_tok_s, 3), x.error >= 0 ? "+" : "",
                       format_fixed(100 * x.error, 0), x.in_band ? "yes" : "no", x.verdict);
  }
  std::string without;
  for (const ValidationRow& x : r.rows) {
    if (!x.judged) without += "- " + x.id + ": " + x.why_not + "\n";
  }
  if (!without.empty()) out += "\nWithout a number:\n" + without;
  out += "\nEngine efficiencies used:\n";
  for (const EngineEfficiency& e : table.families) {
    out += fmt::format("- {}: memory {}, I/O {}, compute {}, overlap {} — {}\n", e.family, format_fixed(e.memory, 3),
                       format_fixed(e.io, 3), format_fixed(e.compute, 3), format_fixed(e.overlap, 2), e.source);
  }
  return out;
}

Json validation_json(const ValidationReport& r) {
  Json rows = Json::array();
  for (const ValidationRow& x : r.rows) {
    Json j = {{"id", x.id}, {"file", x.file}, {"held_out", x.held_out}, {"family", x.family}, {"machine", x.machine},
              {"figure", x.figure_kind}, {"judged", x.judged}};
    if (x.judged) {
      j["measured_tok_s"] = x.measured_tok_s;
      j["predicted_tok_s"] = x.predicted_tok_s;
      j["band_tok_s"] = {x.slow_tok_s, x.fast_tok_s};
      j["error"] = x.error;
      j["in_band"] = x.in_band;
      j["verdict"] = x.verdict;
    } else {
      j["why_not"] = x.why_not;
    }
    rows.push_back(j);
  }
  auto half = [](const HalfSummary& h) {
    const Json none;  // null: an empty half has no error figures
    return Json{{"figures", h.figures},
                {"judged", h.judged},
                {"in_band", h.in_band},
                {"median_abs_error", h.judged ? Json(h.median_abs_error) : none},
                {"p75_abs_error", h.judged ? Json(h.p75_abs_error) : none},
                {"within_25", h.within_25}};
  };
  return {{"fit", half(r.fit)}, {"held_out", half(r.held_out)}, {"rows", rows}};
}

}  // namespace moebench
