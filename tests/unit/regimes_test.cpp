// regimes_test.cpp — each regime's formula (model/regimes.h) on a case
// worked by hand, the regime it names, and the fit (model/regime_fit.h):
// it finds a parameter that generated the figures, never leaves a range,
// keeps its prior without figures, and builds the band from the plausible
// cases and the regime's spread.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/regime_fit.h"
#include "vocab/stats.h"

using namespace moebench;

namespace {

// Round numbers so the hand arithmetic is short: a 100 GB/s machine reading
// 10 GB per token takes 0.1 s at full bandwidth.
RegimeParams params() {
  RegimeParams q = RegimeParams::defaults();
  q.set("mem_eff_cpu", 0.5);
  q.set("core_bw", 10e9);
  q.set("numa_gain", 0.5);
  q.set("mem_eff_gpu", 0.8);
  q.set("layer_s_cpu", 10e-6);
  q.set("layer_s_thread", 0.1e-6);
  q.set("layer_s_gpu", 5e-6);
  q.set("layer_s_igpu", 2e-6);
  q.set("layer_s_handoff", 15e-6);
  q.set("compute_eff", 0.25);
  q.set("attn_eff", 0.2);
  q.set("io_eff", 0.5);
  q.set("overlap", 0.5);
  return q;
}

CaseParts cpu_case() {
  CaseParts p;
  for (double& x : p.mem_cpu_s) x = 0.1;  // 10 GB at 100 GB/s
  for (double& x : p.mem_s) x = 0.1;
  p.cpu_bytes_tok = 10e9;
  p.cores = 64;
  p.layers = 100;
  return p;
}

// A CPU decode's fixed costs over cpu_case's 100 layers: 10 µs each, and
// 0.1 µs per thread that meets at its barriers.
double fixed_cpu(int threads) { return 100 * (10e-6 + threads * 0.1e-6); }

}  // namespace

TEST_CASE("memory-cpu: bytes ÷ (bandwidth × mem_eff_cpu) + layers × layer_s_cpu", "[regimes]") {
  const CaseParts p = cpu_case();
  // 0.1 / 0.5 = 0.2 s; + 100 × (10 µs + 64 threads × 0.1 µs) = 0.00164 s.
  CHECK(regime_token_s(p, params()) == Approx(0.20164));
  CHECK(case_regime(p, params()) == "memory-cpu");
}

TEST_CASE("fixed: a CPU decode's barriers cost more the more threads meet at them", "[regimes]") {
  CaseParts p = cpu_case();
  for (double& x : p.mem_cpu_s) x = 0.0001;  // a tiny model: the fixed costs bind
  p.cpu_bytes_tok = 10e6;
  p.threads = 8;  // 0.0002 s of reads; 100 × (10 µs + 8 × 0.1 µs) = 0.00108 s
  CHECK(regime_token_s(p, params()) == Approx(0.0002 + 0.00108));
  CHECK(case_regime(p, params()) == "fixed");
  p.threads = 128;  // SMT siblings meet at the barriers too: 100 × (10 + 12.8) µs
  CHECK(regime_token_s(p, params()) == Approx(0.0002 + 0.00228));
  p.gpu_computes = true;  // a GPU's layers have no CPU barriers: 100 × 5 µs
  for (double& x : p.mem_gpu_s) x = 0.0001;
  CHECK(regime_token_s(p, params()) == Approx(0.0001 / 0.8 + 0.0002 + 0.0005));
}

TEST_CASE("fixed: an integrated GPU on unified memory pays its own per-layer cost", "[regimes]") {
  CaseParts p;
  for (double& x : p.mem_gpu_s) x = 0.001;  // a small model: 0.001 s of reads at full bandwidth
  for (double& x : p.mem_s) x = 0.001;
  p.gpu_computes = true;
  p.layers = 100;
  // A discrete card: 100 layers × 5 µs of launches and synchronisation.
  CHECK(regime_token_s(p, params()) == Approx(0.001 / 0.8 + 100 * 5e-6));
  // The same work on a GPU that shares the CPU's memory: 100 × 2 µs.
  p.unified = true;
  CHECK(regime_token_s(p, params()) == Approx(0.001 / 0.8 + 100 * 2e-6));
  // (setup_model marks it: layer_split_test.cpp, on a DGX Spark profile.)
}

TEST_CASE("few threads cannot draw the bandwidth: bytes ÷ (threads × core_bw)", "[regimes]") {
  CaseParts p = cpu_case();
  p.threads = 4;  // 4 × 10 GB/s = 40 GB/s < 0.5 × 100 GB/s
  CHECK(regime_token_s(p, params()) == Approx(10e9 / 40e9 + fixed_cpu(4)));
  p.threads = 128;  // past the 64 cores: the cores bound it, and the bandwidth binds
  CHECK(regime_token_s(p, params()) == Approx(0.2 + fixed_cpu(128)));
}

TEST_CASE("numa: a second socket adds numa_gain of its bandwidth", "[regimes]") {
  CaseParts p = cpu_case();
  p.sockets = 2;  // mem_cpu_s is at both sockets' bandwidth: share (1 + 0.5) / 2 = 0.75
  CHECK(regime_token_s(p, params()) == Approx(0.1 / (0.5 * 0.75) + fixed_cpu(64)));
  CHECK(case_regime(p, params()) == "numa");
}

TEST_CASE("memory-gpu and hybrid: the GPU's bytes at mem_eff_gpu, the CPU's beside them, a hand-off per layer", "[regimes]") {
  CaseParts g;
  for (double& x : g.mem_gpu_s) x = 0.02;
  g.layers = 60;
  g.gpu_computes = true;
  CHECK(regime_token_s(g, params()) == Approx(0.02 / 0.8 + 60 * 5e-6));
  CHECK(case_regime(g, params()) == "memory-gpu");
  CaseParts h = cpu_case();
  for (double& x : h.mem_gpu_s) x = 0.02;
  h.gpu_computes = true;
  h.experts_on_cpu = true;  // each layer pays the hand-off between GPU and CPU
  CHECK(regime_token_s(h, params()) == Approx(0.2 + 0.025 + 100 * 15e-6));
  CHECK(case_regime(h, params()) == "hybrid");
}

TEST_CASE("compute: flops at the peak ÷ compute_eff when above the memory time", "[regimes]") {
  CaseParts p = cpu_case();
  for (double& x : p.flops_peak_s) x = 0.1;  // 0.1 / 0.25 = 0.4 s > 0.2 s
  CHECK(regime_token_s(p, params()) == Approx(0.4 + fixed_cpu(64)));
  CHECK(case_regime(p, params()) == "compute");
  // The engine's threads are its share of the cores: 16 of 64 take 4 × as long.
  p.threads = 16;
  CHECK(regime_token_s(p, params()) == Approx(1.6 + fixed_cpu(16)));
  // Threads past the cores (SMT siblings) add no multiply units.
  p.threads = 256;
  CHECK(regime_token_s(p, params()) == Approx(0.4 + fixed_cpu(256)));
}

TEST_CASE("tensor parallelism: every layer ends in an all-reduce across the GPUs", "[regimes]") {
  CaseParts p;
  for (double& x : p.mem_gpu_s) x = 0.08;  // 0.08 / 0.8 = 0.1 s
  p.gpu_computes = true;
  p.layers = 60;
  RegimeParams q = params();
  q.set("layer_s_tp", 100e-6);
  CHECK(regime_token_s(p, q) == Approx(0.1 + 60 * 5e-6));
  p.tensor_parallel = true;  // 60 × (5 µs of launches + 100 µs of all-reduce)
  CHECK(regime_token_s(p, q) == Approx(0.1 + 60 * 105e-6));
  CHECK(family_tensor_parallel("vllm"));
  CHECK(family_tensor_parallel("sglang"));
  CHECK_FALSE(family_tensor_parallel("llama.cpp"));  // whole layers per GPU
}

TEST_CASE("the GPU launch cost is fitted without the tensor-parallel figures whose all-reduces are layer_s_tp's", "[regimes]") {
  // Single-GPU decodes made with 20 µs per layer, and tensor-parallel ones
  // whose all-reduces add 150 µs a layer.
  RegimeParams truth = params();
  truth.set("layer_s_gpu", 20e-6);
  truth.set("layer_s_tp", 150e-6);
  std::vector<RegimeFigure> figs;
  auto add = [&](int i, bool tp) {
    RegimeFigure f;
    f.id = (tp ? "tp" : "one") + std::to_string(i);
    f.source = "s" + std::to_string(i % 4);
    CaseParts p;
    for (double& x : p.mem_gpu_s) x = 0.002 * (1 + i % 3);
    p.gpu_computes = true;
    p.tensor_parallel = tp;
    p.layers = 20 * (1 + i % 5);
    f.realistic = {p};
    f.all = {p};
    f.measured_tok_s = 1 / regime_token_s(p, truth);
    figs.push_back(f);
  };
  for (int i = 0; i < 12; ++i) add(i, false);
  for (int i = 0; i < 6; ++i) add(i, true);
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  // Within a step of the grid (16 %).
  CHECK(fit.params.get("layer_s_gpu") == Approx(20e-6).epsilon(0.16));
  CHECK(fit.params.get("layer_s_tp") == Approx(150e-6).epsilon(0.16));
  auto fitted = [&](const std::string& name) {
    return std::find_if(fit.fitted.begin(), fit.fitted.end(), [&](const FittedParam& p) { return p.name == name && p.family.empty(); });
  };
  REQUIRE(fitted("layer_s_gpu") != fit.fitted.end());
  REQUIRE(fitted("layer_s_tp") != fit.fitted.end());
  CHECK(fitted("layer_s_gpu")->figures == 12);  // the single-GPU figures only
  CHECK(fitted("layer_s_tp")->figures == 18);
}

TEST_CASE("attention: the context's flops ÷ (peak × attn_eff), added after the weight reads", "[regimes]") {
  CaseParts p = cpu_case();
  p.attn_peak_s = 0.01;  // 0.01 / 0.2 = 0.05 s: it adds to the 0.2 s of reads, never hides behind them
  CHECK(regime_token_s(p, params()) == Approx(0.2 + 0.05 + fixed_cpu(64)));
  CHECK(case_regime(p, params()) == "memory-cpu");
  p.attn_peak_s = 0.06;  // 0.3 s, more than the reads: a long context binds
  CHECK(regime_token_s(p, params()) == Approx(0.2 + 0.3 + fixed_cpu(64)));
  CHECK(case_regime(p, params()) == "attention");
  // On half the cores the CPU's arithmetic takes twice as long; the reads
  // (32 threads × 10 GB/s) still reach 0.5 × 100 GB/s.
  p.threads = 32;
  CHECK(regime_token_s(p, params()) == Approx(0.2 + 0.6 + fixed_cpu(32)));
}

TEST_CASE("io and paging: reads ÷ io_eff, overlapped with compute by `overlap`", "[regimes]") {
  CaseParts p = cpu_case();
  for (double& x : p.io_s) x = 0.3;  // 0.6 s of reads against 0.20164 s of compute
  // max(0.20164, 0.6) + (1 − 0.5) × min(0.6, 0.20164)
  CHECK(regime_token_s(p, params()) == Approx(0.6 + 0.5 * 0.20164));
  CHECK(case_regime(p, params()) == "io");
  for (double& x : p.paged_io_s) x = 0.2;  // two thirds of the reads are page faults
  CHECK(case_regime(p, params()) == "paging");
  p.speculative = 2;  // two tokens per weight pass
  CHECK(regime_token_s(p, params()) == Approx((0.6 + 0.5 * 0.20164) / 2));
}

TEST_CASE("the fit recovers the efficiency that made the figures, inside its range", "[regimes]") {
  // Figures a 0.7-efficient CPU decode would give, over a spread of sizes.
  RegimeParams truth = params();
  truth.set("mem_eff_cpu", 0.7);
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 12; ++i) {
    RegimeFigure f;
    f.id = "f" + std::to_string(i);
    f.source = "s" + std::to_string(i % 4);
    CaseParts p = cpu_case();
    for (double& x : p.mem_cpu_s) x = 0.05 * (1 + i);
    p.cpu_bytes_tok = 5e9 * (1 + i);
    f.realistic = {p};
    f.all = {p};
    f.measured_tok_s = 1 / regime_token_s(p, truth);
    figs.push_back(f);
  }
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  CHECK(fit.params.get("mem_eff_cpu") == Approx(0.7).epsilon(0.03));
  // The fit ends at a fixed point: after the classifying rounds, a round
  // that moved no value.
  CHECK(fit.settled);
  CHECK(fit.rounds > kClassifyRounds);
  CHECK(fit.rounds <= kMaxRounds);
  for (const FittedParam& p : fit.fitted) {
    INFO(p.name);
    CHECK(p.value >= p.low);
    CHECK(p.value <= p.high);
    if (p.name == "compute_eff" || p.name == "io_eff" || p.name == "mem_eff_gpu") CHECK(p.prior);  // no figures of theirs
  }
  // A figure the model reproduces has a band of its plausible cases widened by the spread.
  const FigureBand b = figure_band(figs[3], fit);
  CHECK(b.regime == "memory-cpu");
  CHECK(b.low_tok_s < figs[3].measured_tok_s);
  CHECK(b.high_tok_s > figs[3].measured_tok_s);
  CHECK(b.ratio() == Approx(std::exp(2 * fit.spread.at("memory-cpu"))));
}

TEST_CASE("the band widens the plausible cases by how far figures fall outside them, not by the residual again", "[regimes]") {
  // Ten figures with two plausible cases each, 0.1 s and 0.4 s of reads
  // (the realistic value is their median): eight measured between the two
  // cases, two 1.5 × beyond the fast one. Inside the range some case
  // answers the figure: it adds nothing to the spread.
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 10; ++i) {
    RegimeFigure f;
    f.id = "b" + std::to_string(i);
    f.source = "s" + std::to_string(i);
    CaseParts fast = cpu_case(), slow = cpu_case();
    for (double& x : slow.mem_cpu_s) x = 0.4;
    slow.cpu_bytes_tok = 40e9;
    f.realistic = {fast, slow};
    f.all = {fast, slow};
    const double hi = 1 / regime_token_s(fast, params()), lo = 1 / regime_token_s(slow, params());
    f.measured_tok_s = i < 8 ? std::sqrt(hi * lo) : 1.5 * hi;
    figs.push_back(f);
  }
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  // The definition, under the fitted parameters: each figure's distance
  // outside its cases' range, 0 inside; the regime's spread is their 80th percentile.
  std::vector<double> outside;
  int inside = 0;
  for (const RegimeFigure& f : figs) {
    const CaseRange r = case_range(f, fit.params);
    REQUIRE(r.high / r.low > 1.5);  // the cases alone span a range
    const double d = std::max({0.0, std::log(r.low / f.measured_tok_s), std::log(f.measured_tok_s / r.high)});
    inside += d == 0;
    outside.push_back(d);
  }
  CHECK(inside >= 8);
  const double s = fit.spread.at("memory-cpu");
  CHECK(s == Approx(quantile(outside, kSpreadQuantile)));
  CHECK(s < std::log(1.5));  // the residual from the realistic value would be wider than that
  const CaseRange r0 = case_range(figs[0], fit.params);
  const FigureBand b = figure_band(figs[0], fit);
  CHECK(b.low_tok_s == Approx(r0.low * std::exp(-s)));
  CHECK(b.high_tok_s == Approx(r0.high * std::exp(s)));
}

TEST_CASE("the fit never leaves a physical range, however the figures pull", "[regimes]") {
  // Figures 20× faster than any efficiency allows: the best the fit can do is the range's top, flagged.
  std::vector<RegimeFigure> figs;
  for (int i = 0; i < 5; ++i) {
    RegimeFigure f;
    f.id = "g" + std::to_string(i);
    f.source = "s";
    CaseParts p = cpu_case();
    f.realistic = {p};
    f.all = {p};
    f.measured_tok_s = 20 / regime_token_s(p, params());
    figs.push_back(f);
  }
  std::vector<const RegimeFigure*> ptrs;
  for (const RegimeFigure& f : figs) ptrs.push_back(&f);
  const RegimeFit fit = fit_regimes(ptrs, params());
  for (const FittedParam& p : fit.fitted) {
    if (p.name != "mem_eff_cpu") continue;
    CHECK(p.value == Approx(0.9));
    CHECK(p.at_edge);
  }
}

#include "harness/regime_validation.h"

TEST_CASE("leaving a source out: its figures are predicted by a fit on the others alone", "[regimes][validation]") {
  // Source "slow" reaches 0.4 of the bandwidth, source "fast" 0.8: each
  // left out is predicted with the other's efficiency, so the errors show
  // the other source's level (−50 % and +100 %), which an in-sample fit
  // would have hidden.
  auto figure = [](const std::string& source, int i, double eff) {
    RegimeParams truth = params();
    truth.set("mem_eff_cpu", eff);
    truth.set("layer_s_cpu", 3e-6);  // the range's floor: the fit can reach it exactly
    RegimeFigure f;
    f.id = source + std::to_string(i);
    f.source = source;
    f.family = "llama.cpp";
    CaseParts p = cpu_case();
    for (double& x : p.mem_cpu_s) x = 0.05 * (1 + i);
    p.cpu_bytes_tok = 0;  // no thread cap: only the efficiency matters
    p.cores = 0;
    f.realistic = {p};
    f.all = {p};
    f.measured_tok_s = 1 / regime_token_s(p, truth);
    return f;
  };
  RegimeInputs in;
  for (int i = 0; i < 4; ++i) in.figures.push_back(figure("slow", i, 0.4));
  for (int i = 0; i < 4; ++i) in.figures.push_back(figure("fast", i, 0.8));
  const RegimeValidation v = validate_regimes(in, "source");
  CHECK(v.folds == 2);
  REQUIRE(v.rows.size() == 8);
  for (const RegimeRow& r : v.rows) {
    INFO(r.id);
    REQUIRE(r.judged);
    if (r.source == "slow") CHECK(r.error == Approx(1.0).margin(0.08));    // predicted at 0.8: twice as fast
    if (r.source == "fast") CHECK(r.error == Approx(-0.5).margin(0.04));   // predicted at 0.4: half as fast
  }
  // Fitted on both, the parameter lands between them and inside its range.
  const double eff = v.full.params.get("mem_eff_cpu");
  CHECK(eff >= 0.4);
  CHECK(eff <= 0.8);
  // Across the folds it spans both sources' own levels: the fold without
  // "fast" fits 0.4, the one without "slow" 0.8 (within the grid's step and
  // the fixed costs fitted beside it, as the errors above).
  REQUIRE(v.fold_range.count("mem_eff_cpu"));
  const RegimeValidation::FoldRange& r = v.fold_range.at("mem_eff_cpu");
  CHECK(r.folds == 2);
  CHECK(r.low == Approx(0.4).margin(0.04));
  CHECK(r.high == Approx(0.8).margin(0.04));
  CHECK(r.low_folds == 1);
  CHECK(r.low_without == "fast");   // left out, only "slow" remains
  CHECK(r.high_folds == 1);
  CHECK(r.high_without == "slow");
  CHECK(write_regime_validation(v, false).find("| mem_eff_cpu | ") != std::string::npos);
  // Bands come from figures left out of their own fit: each source is off
  // by 2x when the other is fitted, so the stored spread is log 2 (the fit
  // on both is off by only sqrt 2 either way), and a source's band is
  // widened by the other's distance, never its own: x4 from end to end.
  CHECK(v.full.spread_of("memory-cpu") == Approx(std::log(2.0)).margin(0.08));
  for (const RegimeRow& r : v.rows) {
    INFO(r.id);
    CHECK(r.band_ratio() == Approx(4.0).epsilon(0.2));
    // ... whose end lands on the measured figure (each is off by 2x).
    const double nearer = r.source == "slow" ? r.low_tok_s : r.high_tok_s;
    CHECK(nearer / r.measured_tok_s == Approx(1.0).epsilon(0.1));
  }
  CHECK(v.overall.judged == 8);
  // --explain: one figure under the fold that left its source out, with the
  // same prediction its row carries.
  const std::string text = write_regime_explain(in, "slow0", "source");
  CHECK_THAT(text, Catch::Contains("fitted on 4 figures of the other sources"));
  CHECK_THAT(text, Catch::Contains("regime memory-cpu"));
  for (const RegimeRow& r : v.rows) {
    if (r.id == "slow0") CHECK_THAT(text, Catch::Contains(fmt::format("predicted {:.4g} ", r.predicted_tok_s)));
  }
  CHECK(write_regime_explain(in, "no-such-figure", "source").empty());
  // --json: every answered row carries its case, parts before any
  // efficiency and the terms priced under its fold, whose token time is the
  // row's prediction (one case, one stream) and whose memory term is the
  // bytes at the fold's efficiency (the other source's level).
  const Json j = regime_validation_json(v);
  REQUIRE(j["figures"].size() == 8);
  for (const Json& row : j["figures"]) {
    INFO(row["id"].get<std::string>());
    REQUIRE(row.contains("case"));
    const Json& c = row["case"];
    CHECK(c["regime"] == "memory-cpu");
    CHECK(c["parts"]["layers"] == 100);
    const double token_s = c["priced"]["token_s"].get<double>();
    CHECK(1 / token_s == Approx(row["predicted_tok_s"].get<double>()).epsilon(1e-9));
    const double at_eff = c["parts"]["memory_cpu_s"].get<double>() / c["priced"]["memory_cpu_s"].get<double>();
    CHECK(at_eff == Approx(row["source"] == "slow" ? 0.8 : 0.4).margin(0.04));
    CHECK(c["priced"]["fixed_s"].get<double>() + c["priced"]["memory_cpu_s"].get<double>() == Approx(token_s).epsilon(1e-9));
  }
}
