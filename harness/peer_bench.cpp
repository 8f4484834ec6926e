// peer_bench.cpp — see peer_bench.h.
#include "harness/peer_bench.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "engines/llamacpp/llama_bench.h"
#include "engines/llamacpp/llama_bench_engine.h"
#include "engines/quant/kernels.h"
#include "engines/registry.h"
#include "vocab/clock.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/metrics.h"
#include "vocab/point.h"
#include "vocab/units.h"

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

// One run of one side: its rates, TTFT and storage reads per decode token.
struct RunRates {
  double prefill = 0, decode = 0, ttft = 0;
  std::optional<double> read_per_token;
};

Expected<RunRates> run_once(Side& side, const ModelCard& card, const std::vector<std::string>& dirs, std::uint64_t seed,
                            int rep, bool warmup, Progress& progress, std::vector<std::string>& notes) {
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
  if (side.point.ram_budget_bytes && !m->budget_enforced) {
    // A side that ran with all of memory is not a figure below the model's size.
    std::string why = "no note says why";
    for (const std::string& n : m->notes) {
      if (n.find("not enforced") != std::string::npos || n.find("could not be reset") != std::string::npos) why = n;
    }
    return make_error(side.point.engine.to_string() + ": the RAM budget was not enforced (" + why + ")");
  }
  const RepMetrics r = derive_metrics(*m);
  notes = m->notes;
  RunRates out{r.at(metric::kPrefillTokS), r.at(metric::kDecodeTokS), r.at(metric::kTtftS), std::nullopt};
  if (m->read_bytes_decode > 0 || side.point.ram_budget_bytes) out.read_per_token = r.at(metric::kReadBytesPerToken);
  return out;
}

void record(PeerSide& side, const RunRates& r) {
  side.prefill_tok_s.push_back(r.prefill);
  side.decode_tok_s.push_back(r.decode);
  side.ttft_s.push_back(r.ttft);
  if (r.read_per_token) side.read_bytes_per_token.push_back(*r.read_per_token);
}

// One case: a warm-up each (the export and container are made, the weights
// loaded), then interleaved repetitions, the order alternating so a drift in
// the machine favours neither side. Under a budget a side that fails keeps
// its reason and the other side runs on; without one a failure is an error.
Status run_case(PeerCase& c, Side& llama, Side& ours, const ModelCard& card, const std::vector<std::string>& dirs,
                const PeerBenchRequest& req, Progress& progress) {
  const bool budget = c.budget_bytes > 0;
  const std::string label = fmt::format("{} {} {} thread(s){}", c.card, c.quant, c.threads,
                                        budget ? ", budget " + c.budget_text : std::string());
  progress.phase(label + ": warm-up", -1);
  for (auto [s, side] : {std::pair<Side*, PeerSide*>{&llama, &c.llama}, {&ours, &c.moebench}}) {
    auto r = run_once(*s, card, dirs, req.seed, 0, true, progress, side->notes);
    if (!r && !budget) return r.error();
    if (!r) side->failure = r.error().message;
  }
  for (int i = 0; i < req.repetitions; ++i) {
    progress.phase(fmt::format("{}: repetition {}/{}", label, i + 1, req.repetitions), -1);
    std::pair<Side*, PeerSide*> order[2] = {{&llama, &c.llama}, {&ours, &c.moebench}};
    if (i % 2 == 1) std::swap(order[0], order[1]);
    std::optional<RunRates> got_llama, got_ours;
    for (auto [s, side] : order) {
      if (!side->failure.empty()) continue;
      auto r = run_once(*s, card, dirs, req.seed, i, false, progress, side->notes);
      if (!r && !budget) return r.error();
      if (!r) {
        side->failure = r.error().message;
        continue;
      }
      record(*side, *r);
      (s == &llama ? got_llama : got_ours) = *r;
    }
    if (got_llama && got_ours) {
      c.prefill_ratio.push_back(got_ours->prefill / got_llama->prefill);
      c.decode_ratio.push_back(got_ours->decode / got_llama->decode);
    }
  }
  ours.engine->release();
  return Status::success();
}

// The bytes of the GGUF llama.cpp loads for `base` (made if missing).
Expected<std::uint64_t> model_file_bytes(const Point& base, const ModelCard& card, const std::vector<std::string>& dirs,
                                         Progress& progress) {
  SteadyClock clock;
  RunContext ctx{clock, progress, card, dirs};
  progress.phase("exporting for llama.cpp", -1);
  auto path = llama_export_for(base, ctx);
  if (!path) return path.error();
  std::error_code ec;
  const auto size = std::filesystem::file_size(*path, ec);
  if (ec) return make_error(*path + ": cannot read its size: " + ec.message());
  return static_cast<std::uint64_t>(size);
}

// "median [min – max]" of `v`, each written by `one`; "-" when empty.
std::string range_cell(const std::vector<double>& v, const std::function<std::string(double)>& one) {
  if (v.empty()) return "-";
  const Summary s = summarize(v);
  return one(s.median) + " [" + one(s.min) + " – " + one(s.max) + "]";
}

std::string median_range(const std::vector<double>& v, const char* fmt_one) {
  return range_cell(v, [fmt_one](double x) { return fmt::format(fmt::runtime(fmt_one), x); });
}

std::string bytes_range(const std::vector<double>& v) { return range_cell(v, [](double x) { return format_bytes(x); }); }

}  // namespace

Expected<PeerBudget> parse_peer_budget(const std::string& text) {
  PeerBudget b;
  b.text = text;
  if (!text.empty() && text.back() == '%') {
    char* end = nullptr;
    const std::string num = text.substr(0, text.size() - 1);
    const double pct = std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !(pct > 0) || pct > 1000) {
      return make_error("--budget " + text + ": expected a share of the model such as 25% (above 0), or a size such as 1GiB");
    }
    b.share = pct / 100;
    return b;
  }
  auto bytes = parse_size_bytes(text);
  if (!bytes || *bytes == 0) {
    return make_error("--budget " + text + ": expected a share of the model such as 25%, or a size such as 1GiB" +
                      (bytes ? std::string(" (above 0)") : ": " + bytes.error().message));
  }
  b.bytes = *bytes;
  return b;
}

Expected<PeerReport> run_peer_bench(const PeerBenchRequest& req, const ConfigStore& store, Progress& progress,
                                    const std::function<void(const PeerCase&)>& on_case) {
  if (req.repetitions < 1) return make_error("bench-peer: --reps must be at least 1");
  if (req.gen_tokens < 2) return make_error("bench-peer: -n must be at least 2 (decode is timed between tokens)");
  std::vector<PeerBudget> budgets;
  for (const std::string& b : req.budgets) {
    auto pb = parse_peer_budget(b);
    if (!pb) return pb.error();
    budgets.push_back(*pb);
  }
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
  // No budget: one case per card, quant and threads (the resident engine).
  if (budgets.empty()) budgets.push_back(PeerBudget{});
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
      std::uint64_t model_bytes = 0;
      if (!req.budgets.empty()) {
        auto size = model_file_bytes(base, *pcard, dirs, progress);
        if (!size) return size.error();
        model_bytes = *size;
      }
      for (const PeerBudget& b : budgets) {
        for (int t : threads) {
          Point p = base;
          p.threads = t;
          PeerCase c;
          c.card = card_name;
          c.quant = quant;
          c.threads = t;
          c.model_bytes = model_bytes;
          c.budget_text = b.text;
          c.budget_bytes = b.bytes > 0 ? b.bytes : static_cast<std::uint64_t>(b.share * static_cast<double>(model_bytes));
          if (c.budget_bytes > 0) p.ram_budget_bytes = c.budget_bytes;
          auto llama = make_side("llama-bench:path=" + req.llama_bench, p);
          if (!llama) return llama.error();
          auto ours = make_side(c.budget_bytes > 0 ? req.streaming_engine : req.moebench_engine, p);
          if (!ours) return ours.error();
          c.llama.engine = llama->point.engine.to_string();
          c.moebench.engine = ours->point.engine.to_string();
          if (Status st = run_case(c, *llama, *ours, *pcard, dirs, req, progress); !st) return st.error();
          if (rep.llama_build.empty() && !c.llama.notes.empty()) {
            rep.llama_build = c.llama.notes.front();
            if (rep.llama_build.rfind("engine ", 0) == 0) rep.llama_build.erase(0, 7);
          }
          if (on_case) on_case(c);
          rep.cases.push_back(std::move(c));
        }
      }
    }
  }
  return rep;
}

namespace {

std::string budget_cell(const PeerCase& c) {
  std::string s = format_bytes(static_cast<double>(c.budget_bytes));
  if (c.model_bytes > 0) {
    s += fmt::format(" ({:.0f} % of {})", 100.0 * static_cast<double>(c.budget_bytes) / static_cast<double>(c.model_bytes),
                     format_bytes(static_cast<double>(c.model_bytes)));
  }
  return s;
}

// The below-the-model's-size table: decode, TTFT and reads per token side by
// side; a side that failed shows "failed (n)" with its reason listed below.
std::string budget_tables(const PeerReport& r) {
  std::string s = fmt::format("## below the model's size: steady decode (tg{}), TTFT, storage reads per decode token\n\n",
                              r.gen_tokens);
  s += "| card | quant | threads | budget | llama.cpp tok/s | moebench tok/s | moebench ÷ llama.cpp | "
       "llama.cpp TTFT s | moebench TTFT s | llama.cpp reads/token | moebench reads/token |\n"
       "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::string> reasons;
  auto failed = [&](const PeerSide& side) {
    reasons.push_back(side.failure);
    return fmt::format("failed ({})", reasons.size());
  };
  for (const PeerCase& c : r.cases) {
    const std::string lf = c.llama.failure.empty() || !c.llama.decode_tok_s.empty() ? "" : failed(c.llama);
    const std::string mf = c.moebench.failure.empty() || !c.moebench.decode_tok_s.empty() ? "" : failed(c.moebench);
    auto cell = [](const std::string& fail, const std::string& v) { return fail.empty() ? v : fail; };
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.card, c.quant, c.threads,
                     budget_cell(c), cell(lf, median_range(c.llama.decode_tok_s, "{:.2f}")),
                     cell(mf, median_range(c.moebench.decode_tok_s, "{:.2f}")), median_range(c.decode_ratio, "{:.2f}"),
                     cell(lf, median_range(c.llama.ttft_s, "{:.3f}")), cell(mf, median_range(c.moebench.ttft_s, "{:.3f}")),
                     cell(lf, bytes_range(c.llama.read_bytes_per_token)),
                     cell(mf, bytes_range(c.moebench.read_bytes_per_token)));
  }
  s += "\n";
  for (std::size_t i = 0; i < reasons.size(); ++i) s += fmt::format("({}) {}\n\n", i + 1, reasons[i]);
  return s;
}

}  // namespace

std::string peer_report_markdown(const PeerReport& r) {
  const bool budgeted = std::any_of(r.cases.begin(), r.cases.end(), [](const PeerCase& c) { return c.budget_bytes > 0; });
  std::string s;
  s += "# moebench bench-peer\n\n";
  s += "- peer: " + (r.llama_build.empty() ? std::string("llama.cpp") : r.llama_build) + "\n";
  s += "- machine: " + r.cpu + "\n";
  s += fmt::format("- each case: prompt {} tokens (one batch on both sides), {} generated; {} interleaved repetition "
                   "pairs after one warm-up each; medians [min – max]; ratio = moebench ÷ llama.cpp per pair\n",
                   r.prompt_tokens, r.gen_tokens, r.repetitions);
  if (budgeted) {
    s += "- budgets: llama.cpp mmaps the exported GGUF inside a memory cgroup of the budget (page cache charged, the "
         "file's cached pages dropped before each run); moebench's streaming engine holds itself to the same budget "
         "and reads its container with O_DIRECT; llama.cpp's reads per token = the difference between runs of n and "
         "2n generated tokens (wait4 ru_inblock) over n\n";
  }
  s += "\n";
  if (budgeted) s += budget_tables(r);
  for (int which = 0; which < (budgeted ? 1 : 2); ++which) {  // budgeted: decode is in the table above
    s += which == 0 ? fmt::format("## prefill (pp{}) tok/s\n\n", r.prompt_tokens)
                    : fmt::format("## steady decode (tg{}) tok/s\n\n", r.gen_tokens);
    s += std::string("| card | quant | threads | ") + (budgeted ? "budget | " : "") +
         "llama.cpp | moebench | moebench ÷ llama.cpp |\n|---|---|---:|" + (budgeted ? "---|" : "") + "---:|---:|---:|\n";
    for (const PeerCase& c : r.cases) {
      const auto& l = which == 0 ? c.llama.prefill_tok_s : c.llama.decode_tok_s;
      const auto& m = which == 0 ? c.moebench.prefill_tok_s : c.moebench.decode_tok_s;
      const auto& q = which == 0 ? c.prefill_ratio : c.decode_ratio;
      s += fmt::format("| {} | {} | {} | {}{} | {} | {} |\n", c.card, c.quant, c.threads,
                       budgeted ? budget_cell(c) + " | " : "", median_range(l, "{:.1f}"), median_range(m, "{:.1f}"),
                       median_range(q, "{:.2f}"));
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
  for (const PeerCase& c : r.cases) {
    for (const std::string& n : c.llama.notes) {
      if (n.rfind("weights: ", 0) == 0) {
        s += "llama.cpp " + n + "\n";
        return s;
      }
    }
  }
  return s;
}

}  // namespace moebench
