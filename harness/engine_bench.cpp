// engine_bench.cpp — see engine_bench.h.
#include "harness/engine_bench.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "engines/registry.h"
#include "harness/full_model.h"
#include "probes/fio_adapter.h"
#include "probes/memory_bandwidth.h"
#include "vocab/clock.h"
#include "vocab/file_io.h"
#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

double BenchLine::median_ratio() const { return median(ratios); }
bool BenchLine::pass() const { return at_most ? median_ratio() <= limit : median_ratio() >= limit; }
std::string BenchLine::range() const {
  if (ratios.size() < 2) return "";
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  return format_fixed(*lo, 3) + "–" + format_fixed(*hi, 3);
}

std::vector<BenchLine> EngineBenchResults::lines() const {
  std::vector<BenchLine> out = {reads.line,         overlap.uniform, overlap.causal_bound, overlap.sticky_prefetch,
                                overlap.more_slots, overlap.pregate, resident.line,        zero_hits.line};
  out.push_back(scale.resident_decode);
  out.push_back(scale.resident_ttft);
  out.push_back(scale.streaming_decode);
  if (scaling) {
    out.push_back(scaling->two);
    out.push_back(scaling->four);
  }
  return out;
}

namespace {

class Bench {
 public:
  Bench(const EngineBenchSetup& a, const ModelCard& card, Scale scale, Progress& progress)
      : a_(a), card_(card), scale_(scale), progress_(progress) {}

  Point point(const std::string& engine) const {
    Point p;
    p.engine = *parse_engine_spec(engine);
    p.model = a_.model;
    p.scale = scale_;
    p.quant = a_.quant;
    p.prompt_tokens = 1;
    p.gen_tokens = a_.tokens;
    return p;
  }
  Expected<Measurement> run(const Point& p, int drives_available) {
    const EngineInfo* info = find_engine(p.engine.name);
    if (info == nullptr) return make_error("bench-engines: no engine \"" + p.engine.name + "\"");
    auto e = info->create(p.engine);
    if (!e) return e.error();
    std::vector<std::string> dirs(a_.drive_dirs.begin(), a_.drive_dirs.begin() + drives_available);
    RunContext ctx{clock_, progress_, card_, dirs, 42, 0, false, clock_.now_s() + 3600, nullptr};
    progress_.phase(p.engine.to_string() + " " + p.drives.to_string(), -1);
    return (*e)->run(p, ctx);
  }
  // The smallest budget the streaming engine accepts here (the infeasible
  // measurement's min_budget_bytes), plus 2 % for run-to-run differences in
  // resident memory.
  Expected<std::uint64_t> minimum_budget() {
    Point p = point("streaming");
    p.ram_budget_bytes = 1ull << 20;
    auto m = run(p, 1);
    if (!m) return m.error();
    if (m->status != RowStatus::kInfeasible || !m->min_budget_bytes) {
      return make_error("could not learn the minimum budget: " + m->reason);
    }
    return static_cast<std::uint64_t>(static_cast<double>(*m->min_budget_bytes) * 1.02);
  }
  Expected<std::string> cyclic_trace() const {
    const std::string path = (std::filesystem::path(a_.drive_dirs[0]) / "cyclic.trace").string();
    const int L = card_.moe_layers(), E = card_.moe.experts, k = card_.moe.active;
    std::ostringstream out;
    out << "moebench-trace v1 layers=" << L << " experts=" << E << " k=" << k << "\n";
    out << "# token t uses experts k*t .. k*t+k-1 (mod E) in every layer: a cycle LRU below the model never hits\n";
    for (int t = 0; t < 64; ++t) {
      for (int l = 0; l < L; ++l) {
        out << (l ? " | " : "");
        for (int j = 0; j < k; ++j) out << (j ? "," : "") << (k * t + j) % E;
      }
      out << "\n";
    }
    if (Status st = write_file_atomic(path, out.str()); !st) return st.error();
    return path;
  }

 private:
  const EngineBenchSetup& a_;
  const ModelCard& card_;
  Scale scale_;
  Progress& progress_;
  SteadyClock clock_;
};

double decode_s(const Measurement& m) { return m.token_times_s.back() - m.token_times_s.front(); }
double decode_tokens(const Measurement& m) { return static_cast<double>(m.token_times_s.size() - 1); }
double per_token(const Measurement& m) { return decode_s(m) / decode_tokens(m); }
// Seconds of storage time per decode token at fio's bandwidth.
double io_per_token(const Measurement& m, double fio_bytes_s) {
  return static_cast<double>(m.read_bytes_decode) / decode_tokens(m) / fio_bytes_s;
}
std::string hidden_of(const Measurement& m) {
  return "hidden misses " + std::to_string(m.expert_misses_hidden_decode) + " of " + std::to_string(m.expert_misses_decode);
}

// Everything one scaled card needs for the benchmarks: its container spec,
// the streaming engine's minimum budget and a fio cell over its experts.
struct CardSetup {
  ContainerSpec spec;
  std::uint64_t budget = 0;
  FioCell cell;
};

Expected<CardSetup> set_up(Bench& b, const EngineBenchSetup& a, const ModelCard& scaled, const Scale& scale) {
  CardSetup s;
  s.spec.card_name = a.model;
  s.spec.card = scaled;
  s.spec.scale = scale;
  s.spec.quant = a.quant;
  s.spec.seed = 42;
  s.spec.drive_dirs = {a.drive_dirs[0]};
  // The layout the streaming engine reads (8-row groups unless kernels=float):
  // fio must read the same file.
  s.spec.rows8 = wants_rows8_experts(b.point("streaming").engine, a.quant);
  // Learning the budget runs the engine once, which makes the container.
  auto budget = b.minimum_budget();
  if (!budget) return budget.error();
  s.budget = *budget;
  const std::string file = expert_file_path(s.spec, 0);
  const std::uint64_t slice = expert_record_bytes(s.spec) / 3 / 4096 * 4096;  // about one gate/up/down slice
  // fio reads the bytes the engine reads: the expert tensors of drive 0's
  // expert file (the trunk has a file of its own), so both meet the same
  // device and the same caches below the guest, if any.
  auto g = read_gguf(file);
  if (!g) return g.error();
  std::uint64_t experts_begin = g->file_bytes;
  for (const GgufTensorInfo& t : g->tensors) {
    if (t.name.find("_exps") != std::string::npos) experts_begin = std::min(experts_begin, g->data_offset + t.offset);
  }
  s.cell.file_path = file;
  s.cell.file_offset = experts_begin / 4096 * 4096;
  s.cell.file_bytes = (g->file_bytes - s.cell.file_offset) / slice * slice;
  s.cell.block_bytes = slice;
  s.cell.queue_depth = 32;
  s.cell.random = true;
  s.cell.runtime_s = 8;
  s.cell.fixed_buffers = true;  // the engine's read method: the fair reference
  return s;
}

Expected<Measurement> ok_run(Bench& b, const Point& p, int drives, const std::string& what) {
  auto m = b.run(p, drives);
  if (!m) return make_error(what + ": " + m.error().message);
  if (m->status != RowStatus::kOk) return make_error(what + ": " + m->reason);
  return m;
}

// Benchmark 6c's drive throttle: below this VM disk's slowest minute
// (0.3 GB/s), so both cards read at one rate.
constexpr double kScaleThrottleBytesS = 250e6;

std::string med_s(const std::vector<double>& v) { return format_fixed(median(v), 3) + " s"; }
std::string med_rate(const std::vector<double>& v) { return format_rate(median(v)); }

}  // namespace

Expected<EngineBenchResults> run_engine_benchmarks(const EngineBenchSetup& a, Progress& progress) {
  if (a.drive_dirs.size() < (a.skip_scaling ? 1u : 4u)) return make_error("needs 4 drive directories (or --skip-scaling)");
  for (const std::string& d : a.drive_dirs) {
    if (Status st = ensure_directory(d); !st) return st.error();
  }
  auto fio_path = find_fio();
  if (!fio_path) return make_error("fio is not on PATH (apt install fio)");
  progress.sweep_started(1, 0);
  progress.point_started(1, "bench-engines");
  Bench b(a, a.card, a.scale, progress);
  Bench ob(a, a.overlap_card, a.overlap_scale, progress);
  auto main_setup = set_up(b, a, a.card, a.scale);
  if (!main_setup) return main_setup.error();
  auto ov_setup = set_up(ob, a, a.overlap_card, a.overlap_scale);
  if (!ov_setup) return ov_setup.error();
  const CardSetup& ms = *main_setup;
  const CardSetup& os = *ov_setup;

  EngineBenchResults r;
  StreamingReadsBench& r1 = r.reads;
  OverlapBench& r2 = r.overlap;
  ResidentBench& r3 = r.resident;
  r1.budget_bytes = ms.budget;
  r1.fio_block_bytes = ms.cell.block_bytes;
  r2.budget_bytes = os.budget;
  BenchLine& l1 = r1.line;
  l1 = {"1 streaming decode reads (min budget " + format_bytes(static_cast<double>(ms.budget)) + ", uniform)", "", "",
        ">= 0.90", {}, false, 0.90};
  BenchLine& l2a = r2.uniform;
  BenchLine& l2a_bound = r2.causal_bound;
  BenchLine& l2b = r2.sticky_prefetch;
  BenchLine& l2c = r2.more_slots;
  BenchLine& l2d = r2.pregate;
  BenchLine& l3 = r3.line;
  l2a = {"2a overlap, uniform, no lookahead: s/token vs max(I/O, compute)", "", "", "<= 1.15", {}, true, 1.15};
  l2a_bound = {"2a' the same vs the causal bound: compute before routing + max(I/O, compute after routing)", "", "",
               "<= 1.15", {}, true, 1.15};
  l2b = {"2b overlap, sticky:0.8 + next-layer prefetch", "", "", "<= 1.15", {}, true, 1.15};
  l2c = {"2c overlap, as 2b with k more slots", "", "", "<= 1.15", {}, true, 1.15};
  l2d = {"2d overlap, uniform + pregate:0.9 (a predictor naming 90 % of the next layer's experts)", "", "",
         "<= 1.15", {}, true, 1.15};
  l3 = {"3 resident decode weight bytes / time", "", "", ">= 0.70", {}, false, 0.70};
  ScaleBench& r6 = r.scale;
  const std::string deeper = a.scale_text + " -> " + a.overlap_scale_text;
  r6.resident_decode = {"6a scale extrapolation, resident decode s/token " + deeper, "", "", "<= 1.10", {}, true, 1.10};
  r6.resident_ttft = {"6b scale extrapolation, resident TTFT " + deeper, "", "", "<= 1.10", {}, true, 1.10};
  r6.streaming_decode = {"6c scale extrapolation, streaming decode s/token " + deeper + " (trunk pinned, minimum expert cache, uniform, " +
                             format_rate(kScaleThrottleBytesS) + " throttle)",
                         "", "", "<= 1.10", {}, true, 1.10};
  std::vector<double> ttft_p, ttft_m;
  auto worse = [](double p, double m) { return std::max(p / m, m / p); };
  std::vector<double>&achieved = r1.engine_bytes_s, &fio_bw = r1.fio_bytes_s, &ofio_bw = r2.fio_bytes_s,
      &t_u = r2.t_uniform, &io_u = r2.io_uniform, &c_u = r2.compute_uniform, &pre_u = r2.before_routing,
      &t_s = r2.t_sticky, &io_s = r2.io_sticky, &c_s = r2.compute_sticky, &t_r = r2.t_slots, &io_r = r2.io_slots,
      &t_g = r2.t_pregate, &io_g = r2.io_pregate, &res_rate = r3.weight_bytes_s, &mem_bw = r3.memory_read_bytes_s;
  std::string hidden_s, hidden_r, hidden_g, hit_r;
  const std::uint64_t oslot = (expert_record_bytes(os.spec) + 3 * 8192 + 4095) / 4096 * 4096;  // aligned split spans
  MemoryBandwidthOptions mo;
  mo.thread_counts = {static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  mo.repetitions = 5;
  r3.threads = mo.thread_counts[0];

  for (int rep = 0; rep < a.reps; ++rep) {
    // 1: streaming at the minimum budget, uniform routing, fio right before.
    progress.phase("fio random reads (" + std::to_string(rep + 1) + "/" + std::to_string(a.reps) + ")", -1);
    auto fio = run_fio(*fio_path, ms.cell, a.drive_dirs[0]);
    if (!fio) return fio.error();
    Point sp = b.point("streaming");
    sp.ram_budget_bytes = ms.budget;
    auto stream = ok_run(b, sp, 1, "streaming run");
    if (!stream) return stream.error();
    achieved.push_back(static_cast<double>(stream->read_bytes_decode) / std::max(1e-9, stream->io_busy_s_decode));
    fio_bw.push_back(fio->read_bytes_s);
    l1.ratios.push_back(achieved.back() / fio_bw.back());

    // 3: resident decode against one process's memory read bandwidth.
    auto res = ok_run(b, b.point("resident"), 1, "resident run");
    if (!res) return res.error();
    progress.phase("memory bandwidth", -1);
    auto bw = probe_memory_bandwidth(mo, progress);
    if (!bw) return bw.error();
    double read_bw = 0;
    for (const BandwidthCell& c : *bw) {
      if (c.kernel == "read") read_bw = std::max(read_bw, c.best_bytes_s);
    }
    res_rate.push_back(static_cast<double>(res->mem_weight_bytes_decode) / decode_s(*res));
    mem_bw.push_back(read_bw);
    r3.bytes_per_token = static_cast<std::uint64_t>(static_cast<double>(res->mem_weight_bytes_decode) / decode_tokens(*res));
    l3.ratios.push_back(res_rate.back() / read_bw);

    // 2: overlap on the deeper card; fio over its experts right before.
    progress.phase("fio random reads, overlap card", -1);
    auto ofio = run_fio(*fio_path, os.cell, a.drive_dirs[0]);
    if (!ofio) return ofio.error();
    const double f = ofio->read_bytes_s;
    ofio_bw.push_back(f);
    // 6a/6b's shallow run right before the deep one, so both meet the same
    // minute of this VM's memory bandwidth (it swings between minutes).
    auto res_pair = ok_run(b, b.point("resident"), 1, "resident run (scale pair)");
    if (!res_pair) return res_pair.error();
    auto ru = ok_run(ob, ob.point("resident"), 1, "resident run (overlap card)");
    if (!ru) return ru.error();
    Point osp = ob.point("streaming");
    osp.ram_budget_bytes = os.budget;
    auto su = ok_run(ob, osp, 1, "streaming run (overlap card)");
    if (!su) return su.error();
    t_u.push_back(per_token(*su));
    io_u.push_back(io_per_token(*su, f));
    c_u.push_back(per_token(*ru));
    const double after = ru->routed_phase_s_decode / decode_tokens(*ru);
    pre_u.push_back(c_u.back() - after);
    l2a.ratios.push_back(t_u.back() / std::max(io_u.back(), c_u.back()));
    // 6: the main card's runs carried to this card.
    auto fr = full_model_figures(a.card, a.overlap_card, *res_pair, b.point("resident"));
    if (!fr) return make_error("scale extrapolation (resident): " + fr.error().message);
    r6.resident_predicted_s.push_back(fr->decode_s_per_token);
    r6.resident_measured_s.push_back(per_token(*ru));
    r6.resident_decode.ratios.push_back(worse(fr->decode_s_per_token, per_token(*ru)));
    ttft_p.push_back(fr->ttft_s);
    ttft_m.push_back(ru->prefill_s);
    r6.resident_ttft.ratios.push_back(worse(fr->ttft_s, ru->prefill_s));
    // Streaming through a drive throttled below this disk's slowest minute,
    // so both cards' runs read at one rate: the check is of the arithmetic,
    // not of which file the host happens to cache.
    // Each card's whole per-layer trunk pinned on top of its minimum budget:
    // the runs differ in depth, not in which regime the trunk is in.
    Point tsp = sp, tosp = osp;
    tsp.ram_budget_bytes = ms.budget + a.card.trunk().layers;
    tosp.ram_budget_bytes = os.budget + a.overlap_card.trunk().layers;
    tsp.drives.throttle_bytes_s = tosp.drives.throttle_bytes_s = kScaleThrottleBytesS;
    tsp.gen_tokens = tosp.gen_tokens = std::min(a.tokens, 6);
    auto ts = ok_run(b, tsp, 1, "throttled streaming run");
    if (!ts) return ts.error();
    auto tos = ok_run(ob, tosp, 1, "throttled streaming run (overlap card)");
    if (!tos) return tos.error();
    auto fs = full_model_figures(a.card, a.overlap_card, *ts, tsp,
                                 tos->cache_slots ? std::optional<std::size_t>(*tos->cache_slots) : std::nullopt);
    if (!fs) return make_error("scale extrapolation (streaming): " + fs.error().message);
    r6.streaming_predicted_s.push_back(fs->decode_s_per_token);
    r6.streaming_measured_s.push_back(per_token(*tos));
    r6.streaming_decode.ratios.push_back(worse(fs->decode_s_per_token, per_token(*tos)));
    l2a_bound.ratios.push_back(t_u.back() / (pre_u.back() + std::max(io_u.back(), after)));
    // Routing a lookahead can guess (sticky:0.8) and next-layer prefetch.
    Point rsp = ob.point("resident");
    rsp.routing = "sticky:0.8";
    auto rs = ok_run(ob, rsp, 1, "resident run, sticky (overlap card)");
    if (!rs) return rs.error();
    Point pp = osp;
    pp.routing = "sticky:0.8";
    pp.prefetch = "next-layer";
    auto ss = ok_run(ob, pp, 1, "prefetch run (overlap card)");
    if (!ss) return ss.error();
    t_s.push_back(per_token(*ss));
    io_s.push_back(io_per_token(*ss, f));
    c_s.push_back(per_token(*rs));
    hidden_s = hidden_of(*ss);
    l2b.ratios.push_back(t_s.back() / std::max(io_s.back(), c_s.back()));
    // The same with room to prefetch into: one more layer's worth of slots.
    Point pr = pp;
    pr.ram_budget_bytes = os.budget + static_cast<std::uint64_t>(a.overlap_card.moe.active) * oslot;
    auto sr = ok_run(ob, pr, 1, "prefetch run with k more slots (overlap card)");
    if (!sr) return sr.error();
    t_r.push_back(per_token(*sr));
    io_r.push_back(io_per_token(*sr, f));
    hidden_r = hidden_of(*sr);
    hit_r = format_fixed(100.0 * static_cast<double>(sr->expert_hits_decode) /
                             static_cast<double>(std::max<std::uint64_t>(1, sr->expert_hits_decode + sr->expert_misses_decode)),
                         0);
    l2c.ratios.push_back(t_r.back() / std::max(io_r.back(), c_s.back()));
    // Uniform routing with a simulated pre-gating predictor.
    Point pg = osp;
    pg.prefetch = "pregate:0.9";
    auto sg = ok_run(ob, pg, 1, "pregate run (overlap card)");
    if (!sg) return sg.error();
    t_g.push_back(per_token(*sg));
    io_g.push_back(io_per_token(*sg, f));
    hidden_g = hidden_of(*sg);
    l2d.ratios.push_back(t_g.back() / std::max(io_g.back(), c_u.back()));
  }
  r2.more_slots_budget_bytes = os.budget + static_cast<std::uint64_t>(a.overlap_card.moe.active) * oslot;
  l1.measured = med_rate(achieved) + " while reads were outstanding";
  l1.reference = "fio randread " + format_bytes(static_cast<double>(ms.cell.block_bytes)) +
                 " QD32 fixedbufs over the experts: " + med_rate(fio_bw);
  const std::string ref_u = "I/O " + med_s(io_u) + ", compute " + med_s(c_u);
  l2a.measured = med_s(t_u) + "/token";
  l2a.reference = ref_u;
  l2a_bound.measured = l2a.measured;
  {
    std::vector<double> after;
    for (std::size_t i = 0; i < c_u.size(); ++i) after.push_back(c_u[i] - pre_u[i]);
    l2a_bound.reference = "before routing " + med_s(pre_u) + ", I/O " + med_s(io_u) + ", after routing " + med_s(after);
  }
  l2b.name += " (" + hidden_s + ")";
  l2b.measured = med_s(t_s) + "/token";
  l2b.reference = "I/O " + med_s(io_s) + ", compute " + med_s(c_s);
  l2c.name += " (" + format_bytes(static_cast<double>(r2.more_slots_budget_bytes)) + "; hit rate " + hit_r + " %; " +
              hidden_r + ")";
  l2c.measured = med_s(t_r) + "/token";
  l2c.reference = "I/O " + med_s(io_r) + ", compute " + med_s(c_s);
  l2d.name += " (" + hidden_g + ")";
  l2d.measured = med_s(t_g) + "/token";
  l2d.reference = "I/O " + med_s(io_g) + ", compute " + med_s(c_u);
  l3.measured = med_rate(res_rate) + " (" + format_bytes(static_cast<double>(r3.bytes_per_token)) + "/token)";
  r6.resident_decode.measured = "predicted " + med_s(r6.resident_predicted_s) + "/token";
  r6.resident_decode.reference = "measured " + med_s(r6.resident_measured_s) + "/token";
  r6.resident_ttft.measured = "predicted " + med_s(ttft_p);
  r6.resident_ttft.reference = "measured " + med_s(ttft_m);
  r6.streaming_decode.measured = "predicted " + med_s(r6.streaming_predicted_s) + "/token";
  r6.streaming_decode.reference = "measured " + med_s(r6.streaming_measured_s) + "/token";
  l3.reference = "memory read, " + std::to_string(r3.threads) + " threads: " + med_rate(mem_bw);

  // 4: bytes per token at 0 % hits (deterministic: measured once).
  Point zp = b.point("streaming");
  zp.ram_budget_bytes = ms.budget;
  auto trace = b.cyclic_trace();
  if (!trace) return trace.error();
  zp.routing = "trace:" + *trace;
  auto zero = ok_run(b, zp, 1, "0 % hits run");
  if (!zero) return zero.error();
  ZeroHitBench& r4 = r.zero_hits;
  r4.hits = zero->expert_hits_decode;
  r4.card_bytes_per_token = static_cast<double>(a.card.decode_bytes(a.quant).experts_streamed.storage);
  r4.engine_bytes_per_token = static_cast<double>(zero->read_bytes_decode) / decode_tokens(*zero);
  r4.proc_bytes_per_token =
      zero->proc_read_bytes_decode ? static_cast<double>(*zero->proc_read_bytes_decode) / decode_tokens(*zero) : 0;
  const double card_bytes = r4.card_bytes_per_token, eng = r4.engine_bytes_per_token, proc = r4.proc_bytes_per_token;
  const double worst = std::max(std::fabs(eng / card_bytes - 1), std::fabs(proc / card_bytes - 1));
  r4.line = {"4 bytes/token at 0 % hits (hits " + std::to_string(r4.hits) + ")",
             format_bytes(eng) + " engine, " + format_bytes(proc) + " /proc/self/io",
             "card: " + format_bytes(card_bytes), "within 2 %", {worst}, true, 0.02};

  // 5: drive scaling under a 200 MB/s throttle per directory (the throttle
  // makes it deterministic: measured once).
  if (!a.skip_scaling) {
    DriveScalingBench r5;
    double* rate = r5.tok_s;
    const int counts[3] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
      Point dp = zp;
      dp.gen_tokens = 4;
      dp.drives.count = counts[i];
      dp.drives.throttle_bytes_s = 200e6;
      auto m = ok_run(b, dp, counts[i], "drive scaling (" + std::to_string(counts[i]) + ")");
      if (!m) return m.error();
      rate[i] = 1.0 / per_token(*m);
    }
    r5.two = {"5 drive scaling 1 -> 2 (200 MB/s each, replicate)",
              format_fixed(rate[1], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "", ">= 1.8",
              {rate[1] / rate[0]}, false, 1.8};
    r5.four = {"5 drive scaling 1 -> 4", format_fixed(rate[2], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "",
               ">= 3.2", {rate[2] / rate[0]}, false, 3.2};
    r.scaling = r5;
  }
  progress.sweep_finished();
  return r;
}

std::string write_engine_bench_table(const EngineBenchSetup& a, const EngineBenchResults& results,
                                     const std::string& build_label) {
  std::string out = fmt::format("moebench bench-engines: {} {} (overlap: {}), {}; {} repetitions (ratio: median, range); {}\n",
                                a.model, a.scale_text, a.overlap_scale_text, a.quant, a.reps, build_label);
  out += "| benchmark | measured (median) | reference (same run) | ratio | range | target | |\n"
         "|---|---|---|---:|---|---|---|\n";
  for (const BenchLine& l : results.lines()) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", l.name, l.measured, l.reference,
                       format_fixed(l.median_ratio(), 3), l.range(), l.target, l.pass() ? "met" : "MISSED");
  }
  return out;
}

Json engine_bench_record(const EngineBenchSetup& a, const EngineBenchResults& results, const std::string& build_label) {
  Json record = Json::object();
  for (const BenchLine& l : results.lines()) {
    record["benchmarks"].push_back({{"name", l.name}, {"measured", l.measured}, {"reference", l.reference},
                                    {"ratio", l.median_ratio()}, {"ratios", l.ratios}, {"target", l.target},
                                    {"met", l.pass()}});
  }
  record["build"] = build_label;
  record["model"] = a.model + " " + a.scale_text + " " + a.quant;
  record["overlap_model"] = a.model + " " + a.overlap_scale_text + " " + a.quant;
  record["repetitions"] = a.reps;
  return record;
}

}  // namespace moebench
