// peer_bench.cpp — see peer_bench.h.
#include "harness/peer_bench.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "engines/llamacpp/llama_bench.h"
#include "engines/quant/kernels.h"
#include "engines/registry.h"
#include "vocab/clock.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/metrics.h"
#include "vocab/point.h"

namespace moebench {
namespace {

struct Side {
  std::unique_ptr<Engine> engine;
  Point point;
};

Expected<Side> make_side(const std::string& spec_text, const Point& base) {
  auto spec = parse_engine_spec(spec_text);
  if (!spec) return spec.error();
  const EngineInfo* info = find_engine(spec->name);
  if (info == nullptr) return make_error("bench-peer: no engine " + spec->name);
  if (const std::string bad = info->check_options(*spec); !bad.empty()) return make_error("bench-peer: " + bad);
  auto engine = info->create(*spec);
  if (!engine) return engine.error();
  Side s{std::move(*engine), base};
  s.point.engine = *spec;
  return s;
}

// One run of one side: its prefill and decode rates.
Expected<std::pair<double, double>> run_once(Side& side, const ModelCard& card, const std::vector<std::string>& dirs,
                                             std::uint64_t seed, int rep, bool warmup, Progress& progress,
                                             std::vector<std::string>& notes) {
  SteadyClock clock;
  RunContext ctx{clock, progress, card, dirs};
  ctx.seed = seed;
  ctx.repetition = rep;
  ctx.warmup = warmup;
  ctx.deadline_s = clock.now_s() + 1800;
  auto m = side.engine->run(side.point, ctx);
  if (!m) return m.error();
  if (m->status != RowStatus::kOk) return make_error(side.point.engine.to_string() + ": " + m->reason);
  if (auto bad = check_measurement(*m)) return make_error(side.point.engine.to_string() + ": " + *bad);
  const RepMetrics r = derive_metrics(*m);
  notes = m->notes;
  return std::make_pair(r.at(metric::kPrefillTokS), r.at(metric::kDecodeTokS));
}

std::string median_range(const std::vector<double>& v, const char* fmt_one) {
  if (v.empty()) return "-";
  const Summary s = summarize(v);
  return fmt::format(fmt::runtime(fmt_one), s.median) + " [" + fmt::format(fmt::runtime(fmt_one), s.min) + " – " +
         fmt::format(fmt::runtime(fmt_one), s.max) + "]";
}

}  // namespace

Expected<PeerReport> run_peer_bench(const PeerBenchRequest& req, const ConfigStore& store, Progress& progress,
                                    const std::function<void(const PeerCase&)>& on_case) {
  if (req.repetitions < 1) return make_error("bench-peer: --reps must be at least 1");
  if (req.gen_tokens < 2) return make_error("bench-peer: -n must be at least 2 (decode is timed between tokens)");
  if (Status st = ensure_directory(req.dir); !st) return st.error();
  PeerReport rep;
  rep.prompt_tokens = req.prompt_tokens;
  rep.gen_tokens = req.gen_tokens;
  rep.repetitions = req.repetitions;
  rep.cpu = host_cpu_model() + ", moebench kernels " + simd_description();
  std::vector<int> threads = req.threads;
  if (threads.empty()) {
    const int all = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
  }
  const std::vector<std::string> dirs = {req.dir};
  for (const std::string& card_name : req.cards) {
    auto card = store.card(card_name);
    if (!card) return card.error();
    for (const std::string& quant : req.quants) {
      Point base;
      base.model = card_name;
      base.quant = quant;
      base.trunk_quant = quant;  // one quant everywhere, as a llama.cpp model file of that type
      base.trunk_quant_is_card = quant == card->trunk_quant;
      base.prompt_tokens = req.prompt_tokens;
      base.gen_tokens = req.gen_tokens;
      auto pcard = point_card(*card, base);
      if (!pcard) return pcard.error();
      for (int t : threads) {
        base.threads = t;
        auto llama = make_side("llama-bench:path=" + req.llama_bench, base);
        if (!llama) return llama.error();
        auto ours = make_side(req.moebench_engine, base);
        if (!ours) return ours.error();
        PeerCase c;
        c.card = card_name;
        c.quant = quant;
        c.threads = t;
        c.llama.engine = llama->point.engine.to_string();
        c.moebench.engine = ours->point.engine.to_string();
        progress.phase(fmt::format("{} {} {} thread(s): warm-up", card_name, quant, t), -1);
        // Warm-ups: the export and container are made here, the weights loaded.
        for (Side* s : {&*llama, &*ours}) {
          std::vector<std::string> notes;
          auto r = run_once(*s, *pcard, dirs, req.seed, 0, true, progress, notes);
          if (!r) return r.error();
        }
        for (int i = 0; i < req.repetitions; ++i) {
          progress.phase(fmt::format("{} {} {} thread(s): repetition {}/{}", card_name, quant, t, i + 1, req.repetitions), -1);
          // Alternate which side goes first, so a drift in the machine does not favour one.
          Side* order[2] = {&*llama, &*ours};
          if (i % 2 == 1) std::swap(order[0], order[1]);
          std::pair<double, double> got[2];
          for (int k = 0; k < 2; ++k) {
            PeerSide& side = order[k] == &*llama ? c.llama : c.moebench;
            auto r = run_once(*order[k], *pcard, dirs, req.seed, i, false, progress, side.notes);
            if (!r) return r.error();
            got[order[k] == &*llama ? 0 : 1] = *r;
          }
          c.llama.prefill_tok_s.push_back(got[0].first);
          c.llama.decode_tok_s.push_back(got[0].second);
          c.moebench.prefill_tok_s.push_back(got[1].first);
          c.moebench.decode_tok_s.push_back(got[1].second);
          c.prefill_ratio.push_back(got[1].first / got[0].first);
          c.decode_ratio.push_back(got[1].second / got[0].second);
        }
        ours->engine->release();
        if (rep.llama_build.empty() && !c.llama.notes.empty()) {
          rep.llama_build = c.llama.notes.front();
          if (rep.llama_build.rfind("engine ", 0) == 0) rep.llama_build.erase(0, 7);
        }
        if (on_case) on_case(c);
        rep.cases.push_back(std::move(c));
      }
    }
  }
  return rep;
}

std::string peer_report_markdown(const PeerReport& r) {
  std::string s;
  s += "# moebench bench-peer\n\n";
  s += "- peer: " + (r.llama_build.empty() ? std::string("llama.cpp") : r.llama_build) + "\n";
  s += "- machine: " + r.cpu + "\n";
  s += fmt::format("- each case: prompt {} tokens (one batch on both sides), {} generated; {} interleaved repetition "
                   "pairs after one warm-up each; medians [min – max]; ratio = moebench ÷ llama.cpp per pair\n\n",
                   r.prompt_tokens, r.gen_tokens, r.repetitions);
  for (int which = 0; which < 2; ++which) {
    s += which == 0 ? fmt::format("## prefill (pp{}) tok/s\n\n", r.prompt_tokens)
                    : fmt::format("## steady decode (tg{}) tok/s\n\n", r.gen_tokens);
    s += "| card | quant | threads | llama.cpp | moebench | moebench ÷ llama.cpp |\n|---|---|---:|---:|---:|---:|\n";
    for (const PeerCase& c : r.cases) {
      const auto& l = which == 0 ? c.llama.prefill_tok_s : c.llama.decode_tok_s;
      const auto& m = which == 0 ? c.moebench.prefill_tok_s : c.moebench.decode_tok_s;
      const auto& q = which == 0 ? c.prefill_ratio : c.decode_ratio;
      s += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.card, c.quant, c.threads, median_range(l, "{:.1f}"),
                       median_range(m, "{:.1f}"), median_range(q, "{:.2f}"));
    }
    s += "\n";
  }
  if (!r.cases.empty()) {
    s += "moebench engine: " + r.cases.front().moebench.engine;
    for (const std::string& n : r.cases.front().moebench.notes) {
      if (n.find("kernels") != std::string::npos) s += "; " + n;
    }
    s += "\n";
  }
  return s;
}

}  // namespace moebench
