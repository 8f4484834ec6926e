// cmd_bench.cpp — `moebench bench-engines`: the engines' five speed
// benchmarks, each measured side by side with its reference in one run, so
// the ratios carry the machine's conditions of that moment. Benchmarks 1-3
// repeat --reps times, each repetition beside its own reference; a line
// reports the median ratio and the range:
//   1. streaming decode reads (minimum budget, uniform routing): bytes read
//      ÷ time with reads outstanding, against fio random reads (registered
//      buffers, as the engine) at the engine's read size and queue depth on
//      the same container file, run just before;
//   2. overlap, on a deeper card (--overlap-scale) so the lm_head does not
//      dominate the trunk: streaming decode time per token against
//      max(I/O time = bytes per token ÷ fio's bandwidth, compute time =
//      resident decode time per token at the same routing); with no
//      lookahead also against the causal bound (compute before the router
//      has chosen + max(I/O, compute after)), since reads cannot start
//      before the router names the experts;
//   3. resident decode: weight bytes per token ÷ time per token against the
//      memory read bandwidth of one process (all threads), measured now;
//   4. bytes read per decode token at 0 % hits (a cyclic trace no cache
//      below the whole model can hit) against the card's figure, from the
//      engine's counters and from /proc/self/io;
//   5. drive scaling: each drive directory throttled to 200 MB/s, 1 → 2 → 4
//      directories (replicate), decode tok/s ratios.
// Nothing here is a unit test: it prints figures and targets, and exits 1
// only when a benchmark could not be measured.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "cli/commands.h"
#include "engines/registry.h"
#include "harness/terminal_progress.h"
#include "vocab/clock.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/progress.h"
#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "probes/fio_adapter.h"
#include "probes/memory_bandwidth.h"

namespace moebench {
namespace {

struct BenchArgs {
  std::vector<std::string> drive_dirs = {"moebench-drives/d0", "moebench-drives/d1", "moebench-drives/d2",
                                         "moebench-drives/d3"};
  std::string model = "kimi-k3";
  std::string scale = "layers=2,experts=64";
  std::string quant = "mxfp4";
  std::string overlap_scale = "layers=6,experts=32";
  int tokens = 9;
  int reps = 3;
  bool skip_scaling = false;
  std::string out;
};

class Bench {
 public:
  Bench(const BenchArgs& a, ModelCard card, Scale scale, Progress& progress)
      : a_(a), card_(std::move(card)), scale_(scale), progress_(progress) {}

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
    auto e = info->make(p.engine);
    std::vector<std::string> dirs(a_.drive_dirs.begin(), a_.drive_dirs.begin() + drives_available);
    RunContext ctx{clock_, progress_, card_, dirs, 42, 0, false, clock_.now_s() + 3600, nullptr};
    progress_.phase(p.engine.to_string() + " " + p.drives.to_string(), -1);
    return e->run(p, ctx);
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
  const BenchArgs& a_;
  ModelCard card_;
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

Expected<CardSetup> set_up(Bench& b, const BenchArgs& a, const ModelCard& scaled, const Scale& scale) {
  CardSetup s;
  s.spec.card_name = a.model;
  s.spec.card = scaled;
  s.spec.scale = scale;
  s.spec.quant = a.quant;
  s.spec.seed = 42;
  s.spec.drive_dirs = {a.drive_dirs[0]};
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

// A ratio measured once per repetition; the line reports the median and the
// range, and the target applies to the median.
struct Line {
  std::string name, measured, reference, target;
  std::vector<double> ratios;
  bool at_most = true;  // target is "<= limit" (else ">= limit")
  double limit = 0;
  double median_ratio() const { return median(ratios); }
  bool pass() const { return at_most ? median_ratio() <= limit : median_ratio() >= limit; }
  std::string range() const {
    if (ratios.size() < 2) return "";
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    return format_fixed(*lo, 3) + "–" + format_fixed(*hi, 3);
  }
};

std::string med_s(const std::vector<double>& v) { return format_fixed(median(v), 3) + " s"; }
std::string med_rate(const std::vector<double>& v) { return format_rate(median(v)); }

int bench_command(const BenchArgs& a, const CliState& state) {
  auto fail = [](const std::string& m) {
    std::fprintf(stderr, "moebench bench-engines: %s\n", m.c_str());
    return 1;
  };
  auto card = state.store().card(a.model);
  if (!card) return fail(card.error().message);
  auto scale = parse_scale(a.scale);
  if (!scale) return fail("--scale: " + scale.error().message);
  auto scaled = apply_scale(*card, *scale);
  if (!scaled) return fail(scaled.error().message);
  auto oscale = parse_scale(a.overlap_scale);
  if (!oscale) return fail("--overlap-scale: " + oscale.error().message);
  auto oscaled = apply_scale(*card, *oscale);
  if (!oscaled) return fail(oscaled.error().message);
  if (a.drive_dirs.size() < (a.skip_scaling ? 1u : 4u)) return fail("needs 4 drive directories (or --skip-scaling)");
  for (const std::string& d : a.drive_dirs) {
    if (Status st = ensure_directory(d); !st) return fail(st.error().message);
  }
  auto fio_path = find_fio();
  if (!fio_path) return fail("fio is not on PATH (apt install fio)");
  SteadyClock clock;
  QuietProgress quiet;
  TerminalProgress terminal(stderr, clock);
  Progress& progress = is_terminal(stderr) ? static_cast<Progress&>(terminal) : static_cast<Progress&>(quiet);
  progress.sweep_started(1, 0);
  progress.point_started(1, "bench-engines");
  Bench b(a, *scaled, *scale, progress);
  Bench ob(a, *oscaled, *oscale, progress);
  auto main_setup = set_up(b, a, *scaled, *scale);
  if (!main_setup) return fail(main_setup.error().message);
  auto ov_setup = set_up(ob, a, *oscaled, *oscale);
  if (!ov_setup) return fail(ov_setup.error().message);
  const CardSetup& ms = *main_setup;
  const CardSetup& os = *ov_setup;

  Line l1{"1 streaming decode reads (min budget " + format_bytes(static_cast<double>(ms.budget)) + ", uniform)", "", "",
          ">= 0.90", {}, false, 0.90};
  Line l2a{"2a overlap, uniform, no lookahead: s/token vs max(I/O, compute)", "", "", "<= 1.15", {}, true, 1.15};
  Line l2a_bound{"2a' the same vs the causal bound: compute before routing + max(I/O, compute after routing)", "", "",
                 "<= 1.15", {}, true, 1.15};
  Line l2b{"2b overlap, sticky:0.8 + next-layer prefetch", "", "", "<= 1.15", {}, true, 1.15};
  Line l2c{"2c overlap, as 2b with k more slots", "", "", "<= 1.15", {}, true, 1.15};
  Line l2d{"2d overlap, uniform + pregate:0.9 (a predictor naming 90 % of the next layer's experts)", "", "",
           "<= 1.15", {}, true, 1.15};
  Line l3{"3 resident decode weight bytes / time", "", "", ">= 0.70", {}, false, 0.70};
  std::vector<double> achieved, fio_bw, ofio_bw, t_u, io_u, c_u, pre_u, t_s, io_s, c_s, t_r, io_r, t_g, io_g, res_rate,
      mem_bw;
  std::string hidden_s, hidden_r, hidden_g, hit_r;
  std::uint64_t res_bytes_per_token = 0;
  const std::uint64_t oslot = (expert_record_bytes(os.spec) + 3 * 8192 + 4095) / 4096 * 4096;  // aligned split spans
  MemoryBandwidthOptions mo;
  mo.thread_counts = {static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  mo.repetitions = 5;

  for (int rep = 0; rep < a.reps; ++rep) {
    // 1: streaming at the minimum budget, uniform routing, fio right before.
    progress.phase("fio random reads (" + std::to_string(rep + 1) + "/" + std::to_string(a.reps) + ")", -1);
    auto fio = run_fio(*fio_path, ms.cell, a.drive_dirs[0]);
    if (!fio) return fail(fio.error().message);
    Point sp = b.point("streaming");
    sp.ram_budget_bytes = ms.budget;
    auto stream = ok_run(b, sp, 1, "streaming run");
    if (!stream) return fail(stream.error().message);
    achieved.push_back(static_cast<double>(stream->read_bytes_decode) / std::max(1e-9, stream->io_busy_s_decode));
    fio_bw.push_back(fio->read_bytes_s);
    l1.ratios.push_back(achieved.back() / fio_bw.back());

    // 3: resident decode against one process's memory read bandwidth.
    auto res = ok_run(b, b.point("resident"), 1, "resident run");
    if (!res) return fail(res.error().message);
    progress.phase("memory bandwidth", -1);
    auto bw = probe_memory_bandwidth(mo, progress);
    if (!bw) return fail(bw.error().message);
    double read_bw = 0;
    for (const BandwidthCell& c : *bw) {
      if (c.kernel == "read") read_bw = std::max(read_bw, c.best_bytes_s);
    }
    res_rate.push_back(static_cast<double>(res->mem_weight_bytes_decode) / decode_s(*res));
    mem_bw.push_back(read_bw);
    res_bytes_per_token = static_cast<std::uint64_t>(static_cast<double>(res->mem_weight_bytes_decode) / decode_tokens(*res));
    l3.ratios.push_back(res_rate.back() / read_bw);

    // 2: overlap on the deeper card; fio over its experts right before.
    progress.phase("fio random reads, overlap card", -1);
    auto ofio = run_fio(*fio_path, os.cell, a.drive_dirs[0]);
    if (!ofio) return fail(ofio.error().message);
    const double f = ofio->read_bytes_s;
    ofio_bw.push_back(f);
    auto ru = ok_run(ob, ob.point("resident"), 1, "resident run (overlap card)");
    if (!ru) return fail(ru.error().message);
    Point osp = ob.point("streaming");
    osp.ram_budget_bytes = os.budget;
    auto su = ok_run(ob, osp, 1, "streaming run (overlap card)");
    if (!su) return fail(su.error().message);
    t_u.push_back(per_token(*su));
    io_u.push_back(io_per_token(*su, f));
    c_u.push_back(per_token(*ru));
    const double after = ru->routed_phase_s_decode / decode_tokens(*ru);
    pre_u.push_back(c_u.back() - after);
    l2a.ratios.push_back(t_u.back() / std::max(io_u.back(), c_u.back()));
    l2a_bound.ratios.push_back(t_u.back() / (pre_u.back() + std::max(io_u.back(), after)));
    // Routing a lookahead can guess (sticky:0.8) and next-layer prefetch.
    Point rsp = ob.point("resident");
    rsp.routing = "sticky:0.8";
    auto rs = ok_run(ob, rsp, 1, "resident run, sticky (overlap card)");
    if (!rs) return fail(rs.error().message);
    Point pp = osp;
    pp.routing = "sticky:0.8";
    pp.prefetch = "next-layer";
    auto ss = ok_run(ob, pp, 1, "prefetch run (overlap card)");
    if (!ss) return fail(ss.error().message);
    t_s.push_back(per_token(*ss));
    io_s.push_back(io_per_token(*ss, f));
    c_s.push_back(per_token(*rs));
    hidden_s = hidden_of(*ss);
    l2b.ratios.push_back(t_s.back() / std::max(io_s.back(), c_s.back()));
    // The same with room to prefetch into: one more layer's worth of slots.
    Point pr = pp;
    pr.ram_budget_bytes = os.budget + static_cast<std::uint64_t>(oscaled->moe.active) * oslot;
    auto sr = ok_run(ob, pr, 1, "prefetch run with k more slots (overlap card)");
    if (!sr) return fail(sr.error().message);
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
    if (!sg) return fail(sg.error().message);
    t_g.push_back(per_token(*sg));
    io_g.push_back(io_per_token(*sg, f));
    hidden_g = hidden_of(*sg);
    l2d.ratios.push_back(t_g.back() / std::max(io_g.back(), c_u.back()));
  }
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
  l2c.name += " (" + format_bytes(static_cast<double>(os.budget + static_cast<std::uint64_t>(oscaled->moe.active) * oslot)) +
              "; hit rate " + hit_r + " %; " + hidden_r + ")";
  l2c.measured = med_s(t_r) + "/token";
  l2c.reference = "I/O " + med_s(io_r) + ", compute " + med_s(c_s);
  l2d.name += " (" + hidden_g + ")";
  l2d.measured = med_s(t_g) + "/token";
  l2d.reference = "I/O " + med_s(io_g) + ", compute " + med_s(c_u);
  l3.measured = med_rate(res_rate) + " (" + format_bytes(static_cast<double>(res_bytes_per_token)) + "/token)";
  l3.reference = "memory read, " + std::to_string(mo.thread_counts[0]) + " threads: " + med_rate(mem_bw);
  std::vector<Line> lines = {l1, l2a, l2a_bound, l2b, l2c, l2d, l3};

  // 4: bytes per token at 0 % hits (deterministic: measured once).
  Point zp = b.point("streaming");
  zp.ram_budget_bytes = ms.budget;
  auto trace = b.cyclic_trace();
  if (!trace) return fail(trace.error().message);
  zp.routing = "trace:" + *trace;
  auto zero = ok_run(b, zp, 1, "0 % hits run");
  if (!zero) return fail(zero.error().message);
  const double card_bytes = static_cast<double>(scaled->decode_bytes(a.quant).experts_streamed.storage);
  const double eng = static_cast<double>(zero->read_bytes_decode) / decode_tokens(*zero);
  const double proc = zero->proc_read_bytes_decode ? static_cast<double>(*zero->proc_read_bytes_decode) / decode_tokens(*zero) : 0;
  const double worst = std::max(std::fabs(eng / card_bytes - 1), std::fabs(proc / card_bytes - 1));
  lines.push_back({"4 bytes/token at 0 % hits (hits " + std::to_string(zero->expert_hits_decode) + ")",
                   format_bytes(eng) + " engine, " + format_bytes(proc) + " /proc/self/io",
                   "card: " + format_bytes(card_bytes), "within 2 %", {worst}, true, 0.02});

  // 5: drive scaling under a 200 MB/s throttle per directory (the throttle
  // makes it deterministic: measured once).
  if (!a.skip_scaling) {
    double rate[3] = {0, 0, 0};
    const int counts[3] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
      Point dp = zp;
      dp.gen_tokens = 4;
      dp.drives.count = counts[i];
      dp.drives.throttle_bytes_s = 200e6;
      auto m = ok_run(b, dp, counts[i], "drive scaling (" + std::to_string(counts[i]) + ")");
      if (!m) return fail(m.error().message);
      rate[i] = 1.0 / per_token(*m);
    }
    lines.push_back({"5 drive scaling 1 -> 2 (200 MB/s each, replicate)",
                     format_fixed(rate[1], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "", ">= 1.8",
                     {rate[1] / rate[0]}, false, 1.8});
    lines.push_back({"5 drive scaling 1 -> 4", format_fixed(rate[2], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "",
                     ">= 3.2", {rate[2] / rate[0]}, false, 3.2});
  }
  progress.sweep_finished();

  const Environment env = capture_environment("", state.command_line);
  std::printf("moebench bench-engines: %s %s (overlap: %s), %s; %d repetitions (ratio: median, range); %s\n",
              a.model.c_str(), a.scale.c_str(), a.overlap_scale.c_str(), a.quant.c_str(), a.reps,
              env.build_label().c_str());
  std::printf("| benchmark | measured (median) | reference (same run) | ratio | range | target | |\n"
              "|---|---|---|---:|---|---|---|\n");
  Json record = Json::object();
  for (const Line& l : lines) {
    std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", l.name.c_str(), l.measured.c_str(), l.reference.c_str(),
                format_fixed(l.median_ratio(), 3).c_str(), l.range().c_str(), l.target.c_str(),
                l.pass() ? "met" : "MISSED");
    record["benchmarks"].push_back({{"name", l.name}, {"measured", l.measured}, {"reference", l.reference},
                                    {"ratio", l.median_ratio()}, {"ratios", l.ratios}, {"target", l.target},
                                    {"met", l.pass()}});
  }
  if (!a.out.empty()) {
    record["build"] = env.build_label();
    record["model"] = a.model + " " + a.scale + " " + a.quant;
    record["overlap_model"] = a.model + " " + a.overlap_scale + " " + a.quant;
    record["repetitions"] = a.reps;
    if (Status st = write_file_atomic(a.out, record.dump(2) + "\n"); !st) return fail(st.error().message);
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench-engines", "Measure the engines' speed against fio and memory bandwidth, side by side.");
  cmd->footer(
      "Runs the resident and streaming engines on a scaled card and, in the same run, fio random reads on the "
      "same container and the memory read bandwidth; prints each ratio against its target. Containers are made "
      "on first use in the drive directories (four for the drive-scaling part).\n\n"
      "Example:\n"
      "  moebench bench-engines\n"
      "  moebench bench-engines --quant q4_k --skip-scaling --out bench.json");
  cmd->add_option("--drive-dir", args->drive_dirs, "drive directories (4 for scaling; default moebench-drives/d0..d3)");
  cmd->add_option("--model", args->model, "model card (default kimi-k3)");
  cmd->add_option("--scale", args->scale, "card scale (default layers=2,experts=64)");
  cmd->add_option("--overlap-scale", args->overlap_scale,
                  "card scale for the overlap benchmark (default layers=6,experts=32: enough layers that the "
                  "lm_head does not dominate the trunk)");
  cmd->add_option("--reps", args->reps, "repetitions of benchmarks 1-3, each beside its reference (default 3)")
      ->check(CLI::Range(1, 50));
  cmd->add_option("--quant", args->quant, "expert quant (default mxfp4)");
  cmd->add_option("--tokens", args->tokens, "generated tokens per run (default 9)")->check(CLI::Range(3, 1000));
  cmd->add_flag("--skip-scaling", args->skip_scaling, "skip the throttled drive-scaling benchmark");
  cmd->add_option("--out", args->out, "also write the figures as JSON");
  cmd->callback([args, &state] { state.exit_code = bench_command(*args, state); });
}

}  // namespace moebench
