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
#include "engines/executor/topology.h"
#include "engines/registry.h"
#include "harness/cache_bench.h"
#include "harness/full_model.h"
#include "probes/fio_adapter.h"
#include "probes/fio_search.h"
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
  std::vector<BenchLine> out = {reads.line};
  if (!reads.replay_line.ratios.empty()) out.push_back(reads.replay_line);  // 1': absent when no replay read anything
  for (const BenchLine& l : {overlap.uniform, overlap.causal_bound, overlap.sticky_prefetch, overlap.more_slots,
                             overlap.pregate, resident.line, zero_hits.line}) {
    out.push_back(l);
  }
  out.push_back(scale.resident_decode);
  out.push_back(scale.resident_ttft);
  out.push_back(scale.streaming_decode);
  if (scaling) {
    out.push_back(scaling->two);
    out.push_back(scaling->four);
  }
  out.insert(out.end(), cache_optimum.begin(), cache_optimum.end());
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

// The named lines of the table, with their targets; measured, reference and
// ratios are filled in by the steps below.
void name_lines(EngineBenchResults& r, const EngineBenchSetup& a, const CardSetup& ms) {
  r.reads.line = {"1 streaming decode reads (min budget " + format_bytes(static_cast<double>(ms.budget)) + ", uniform)", "",
                  "", ">= 0.90", {}, false, 0.90};
  r.reads.replay_line = {"1' the same decode reads replayed by fio (the engine's own iolog: files, offsets, sizes, order)",
                         "", "", ">= 0.95", {}, false, 0.95};
  OverlapBench& o = r.overlap;
  o.uniform = {"2a overlap, uniform, no lookahead: s/token vs max(I/O, compute)", "", "", "<= 1.15", {}, true, 1.15};
  o.causal_bound = {"2a' the same vs the causal bound: compute before routing + max(I/O, compute after routing)", "",
                    "", "<= 1.15", {}, true, 1.15};
  o.sticky_prefetch = {"2b overlap, sticky:0.8 + next-layer prefetch", "", "", "<= 1.15", {}, true, 1.15};
  o.more_slots = {"2c overlap, as 2b with k more slots", "", "", "<= 1.15", {}, true, 1.15};
  o.pregate = {"2d overlap, uniform + pregate:0.9 (a predictor naming 90 % of the next layer's experts)", "", "",
               "<= 1.15", {}, true, 1.15};
  r.resident.line = {"3 resident decode weight bytes / time", "", "", ">= 0.70", {}, false, 0.70};
  ScaleBench& s = r.scale;
  const std::string deeper = a.scale_text + " -> " + a.overlap_scale_text;
  s.resident_decode = {"6a scale extrapolation, resident decode s/token " + deeper, "", "", "<= 1.10", {}, true, 1.10};
  s.resident_ttft = {"6b scale extrapolation, resident TTFT " + deeper, "", "", "<= 1.10", {}, true, 1.10};
  s.streaming_decode = {"6c scale extrapolation, streaming decode s/token " + deeper +
                            " (trunk pinned, minimum expert cache, uniform, " + format_rate(kScaleThrottleBytesS) +
                            " throttle)",
                        "", "", "<= 1.10", {}, true, 1.10};
}

// What every step reads: the setup, both cards' benches and set-ups.
struct BenchRun {
  const EngineBenchSetup& a;
  Progress& progress;
  const std::string& fio_path;
  Bench& b;   // the main card
  Bench& ob;  // the deeper (overlap) card
  const CardSetup& ms;
  const CardSetup& os;
  MemoryBandwidthOptions memory;
  std::uint64_t more_slots_budget = 0;  // 2c: the overlap card's minimum + one layer's k slots
  std::uint64_t memory_llc_bytes = 0;   // line 3: the last-level cache hwloc reported (0: none)
  std::optional<FioReplay> replay;      // line 1': fio's best way to replay the engine's reads, once found
  bool replay_searched = false;         // the search ran (found one or not)
};

// Samples of the repetitions that the results do not keep as vectors.
struct RepetitionNotes {
  std::vector<double> ttft_predicted_s, ttft_measured_s;
  std::string hidden_sticky, hidden_slots, hidden_pregate, hit_slots;
};

double worse(double predicted, double measured) { return std::max(predicted / measured, measured / predicted); }

Point streaming_at(Bench& b, std::uint64_t budget) {
  Point p = b.point("streaming");
  p.ram_budget_bytes = budget;
  return p;
}

// Line 1''s yardstick: fio's best way to replay the engine's decode reads,
// one replay per candidate (io_uring with registered buffers at depths 8-64,
// handing reads to the kernel one at a time or a quarter of the depth at
// once, as the engine hands over a layer's misses; libaio at 32), the
// fastest kept. Returns it with its first measurement; `tried` lists all.
struct ReplayFound {
  std::optional<FioReplay> best;  // none when no candidate read anything
  FioResult got;
  std::string tried;
};

// The first line of an error message, for a one-line note.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

ReplayFound search_replay(const std::string& fio_path, const std::string& iolog, const std::string& dir) {
  std::vector<FioReplay> candidates;
  for (int qd : {8, 16, 32, 64}) {
    for (int batch : {1, qd / 4}) {
      FioReplay r;
      r.iolog_path = iolog;
      r.queue_depth = qd;
      r.batch_submit = batch;
      candidates.push_back(r);
    }
  }
  FioReplay aio;
  aio.iolog_path = iolog;
  aio.ioengine = "libaio";
  aio.fixed_buffers = false;
  candidates.push_back(aio);
  ReplayFound out;
  std::vector<std::string> tried;
  for (const FioReplay& r : candidates) {
    auto got = run_fio_replay(fio_path, r, dir);
    if (!got) {  // one way failing (an engine fio lacks, say) leaves the others
      tried.push_back(fio_replay_label(r) + " failed: " + first_line(got.error().message));
      continue;
    }
    tried.push_back(fio_replay_label(r) + " " + format_rate(got->read_bytes_s));
    if (got->read_bytes_s > out.got.read_bytes_s) {
      out.best = r;
      out.got = *got;
    }
  }
  out.tried = join(tried, ", ");
  return out;
}

// One replay of the engine's reads with the way the search found, or none:
// a replay that fails or reads nothing is noted, and line 1' goes without
// that repetition (the other lines keep theirs).
std::optional<FioResult> replay_once(BenchRun& c, StreamingReadsBench& r1) {
  c.progress.phase("fio replays the engine's reads", -1);
  auto got = run_fio_replay(c.fio_path, *c.replay, c.a.drive_dirs[0]);
  if (!got) {
    r1.replay_notes.push_back("a replay failed: " + first_line(got.error().message));
    return std::nullopt;
  }
  if (!(got->read_bytes_s > 0)) {
    r1.replay_notes.push_back("a replay read nothing fio counts (" + std::to_string(got->total_ios) + " reads issued)");
    return std::nullopt;
  }
  return *got;
}

// The search on the first repetition: its fastest replay is that
// repetition's reference; without one, line 1' is left out.
std::optional<FioResult> find_replay(BenchRun& c, StreamingReadsBench& r1, const std::string& iolog) {
  c.progress.phase("fio's best replay of the engine's reads (search)", -1);
  ReplayFound found = search_replay(c.fio_path, iolog, c.a.drive_dirs[0]);
  r1.replay_search = found.tried;
  c.replay_searched = true;
  if (!found.best) {
    r1.replay_notes.push_back("no replay of the engine's reads read anything; line 1' is left out");
    return std::nullopt;
  }
  c.replay = found.best;
  return found.got;
}

// 1: streaming at the minimum budget, uniform routing, fio right before;
// 3: resident decode against one process's memory read bandwidth.
Status measure_reads_and_resident(BenchRun& c, EngineBenchResults& r, int rep) {
  c.progress.phase("fio random reads (" + std::to_string(rep + 1) + "/" + std::to_string(c.a.reps) + ")", -1);
  auto fio = run_fio(c.fio_path, c.ms.cell, c.a.drive_dirs[0]);
  if (!fio) return fio.error();
  // The run writes its decode reads as an iolog; fio replays them, after
  // the run on even repetitions and before the next on odd ones (the same
  // seeded routing makes the same reads), so neither side always meets the
  // cache the other just warmed.
  Point sp = streaming_at(c.b, c.ms.budget);
  const std::string iolog = std::filesystem::absolute(c.a.drive_dirs[0] + "/line1-decode-reads.iolog").string();
  auto spec = parse_engine_spec("streaming:read_log=" + iolog);
  if (!spec) return make_error("line 1': " + spec.error().message + " (a drive directory without commas)");
  sp.engine = *spec;
  StreamingReadsBench& r1 = r.reads;
  const bool replay_first = c.replay && rep % 2 == 1;
  std::optional<FioResult> replayed = replay_first ? replay_once(c, r1) : std::nullopt;
  auto stream = ok_run(c.b, sp, 1, "streaming run");
  if (!stream) return stream.error();
  if (!c.replay_searched) {
    replayed = find_replay(c, r1, iolog);
  } else if (c.replay && !replay_first) {
    replayed = replay_once(c, r1);
  }
  r1.engine_bytes_s.push_back(static_cast<double>(stream->read_bytes_decode) / std::max(1e-9, stream->io_busy_s_decode));
  r1.fio_bytes_s.push_back(fio->read_bytes_s);
  r1.line.ratios.push_back(r1.engine_bytes_s.back() / r1.fio_bytes_s.back());
  if (replayed) {
    r1.replay_bytes_s.push_back(replayed->read_bytes_s);
    r1.replay_line.ratios.push_back(r1.engine_bytes_s.back() / r1.replay_bytes_s.back());
    r1.replay_job = fio_replay_label(*c.replay) + ", " + format_bytes(static_cast<double>(replayed->io_bytes)) + " in " +
                    format_fixed(replayed->runtime_s, 2) + " s";
  }

  auto res = ok_run(c.b, c.b.point("resident"), 1, "resident run");
  if (!res) return res.error();
  c.progress.phase("memory bandwidth", -1);
  auto bw = probe_memory_bandwidth(c.memory, c.progress);
  if (!bw) return bw.error();
  double read_bw = 0;
  for (const BandwidthCell& cell : *bw) {
    if (cell.kernel == "read") read_bw = std::max(read_bw, cell.median_bytes_s);  // the probe's statistic
  }
  ResidentBench& r3 = r.resident;
  r3.weight_bytes_s.push_back(static_cast<double>(res->mem_weight_bytes_decode) / decode_s(*res));
  r3.memory_read_bytes_s.push_back(read_bw);
  r3.bytes_per_token = static_cast<std::uint64_t>(static_cast<double>(res->mem_weight_bytes_decode) / decode_tokens(*res));
  r3.line.ratios.push_back(r3.weight_bytes_s.back() / read_bw);
  return Status::success();
}

// 2a/2a': overlap on the deeper card, fio over its experts right before;
// 6: the main card's runs carried to the deeper card.
Status measure_overlap_and_scale(BenchRun& c, EngineBenchResults& r, RepetitionNotes& notes) {
  c.progress.phase("fio random reads, overlap card", -1);
  auto ofio = run_fio(c.fio_path, c.os.cell, c.a.drive_dirs[0]);
  if (!ofio) return ofio.error();
  const double f = ofio->read_bytes_s;
  OverlapBench& o = r.overlap;
  o.fio_bytes_s.push_back(f);
  // 6a/6b's shallow run right before the deep one, so both meet the same
  // minute of this VM's memory bandwidth (it swings between minutes).
  auto res_pair = ok_run(c.b, c.b.point("resident"), 1, "resident run (scale pair)");
  if (!res_pair) return res_pair.error();
  auto ru = ok_run(c.ob, c.ob.point("resident"), 1, "resident run (overlap card)");
  if (!ru) return ru.error();
  const Point osp = streaming_at(c.ob, c.os.budget);
  auto su = ok_run(c.ob, osp, 1, "streaming run (overlap card)");
  if (!su) return su.error();
  o.t_uniform.push_back(per_token(*su));
  o.io_uniform.push_back(io_per_token(*su, f));
  o.compute_uniform.push_back(per_token(*ru));
  const double after = ru->routed_phase_s_decode / decode_tokens(*ru);
  o.before_routing.push_back(o.compute_uniform.back() - after);
  o.uniform.ratios.push_back(o.t_uniform.back() / std::max(o.io_uniform.back(), o.compute_uniform.back()));
  o.causal_bound.ratios.push_back(o.t_uniform.back() / (o.before_routing.back() + std::max(o.io_uniform.back(), after)));

  ScaleBench& s = r.scale;
  auto fr = full_model_figures(c.a.card, c.a.overlap_card, *res_pair, c.b.point("resident"));
  if (!fr) return make_error("scale extrapolation (resident): " + fr.error().message);
  s.resident_predicted_s.push_back(fr->decode_s_per_token);
  s.resident_measured_s.push_back(per_token(*ru));
  s.resident_decode.ratios.push_back(worse(fr->decode_s_per_token, per_token(*ru)));
  notes.ttft_predicted_s.push_back(fr->ttft_s);
  notes.ttft_measured_s.push_back(ru->prefill_s);
  s.resident_ttft.ratios.push_back(worse(fr->ttft_s, ru->prefill_s));
  // Streaming through a drive throttled below this disk's slowest minute,
  // so both cards' runs read at one rate: the check is of the arithmetic,
  // not of which file the host happens to cache. Each card's whole
  // per-layer trunk pinned on top of its minimum budget: the runs differ in
  // depth, not in which regime the trunk is in.
  Point tsp = streaming_at(c.b, c.ms.budget + c.a.card.trunk().layers);
  Point tosp = streaming_at(c.ob, c.os.budget + c.a.overlap_card.trunk().layers);
  tsp.drives.throttle_bytes_s = tosp.drives.throttle_bytes_s = kScaleThrottleBytesS;
  tsp.gen_tokens = tosp.gen_tokens = std::min(c.a.tokens, 6);
  auto ts = ok_run(c.b, tsp, 1, "throttled streaming run");
  if (!ts) return ts.error();
  auto tos = ok_run(c.ob, tosp, 1, "throttled streaming run (overlap card)");
  if (!tos) return tos.error();
  auto fs = full_model_figures(c.a.card, c.a.overlap_card, *ts, tsp,
                               tos->cache_slots ? std::optional<std::size_t>(*tos->cache_slots) : std::nullopt);
  if (!fs) return make_error("scale extrapolation (streaming): " + fs.error().message);
  s.streaming_predicted_s.push_back(fs->decode_s_per_token);
  s.streaming_measured_s.push_back(per_token(*tos));
  s.streaming_decode.ratios.push_back(worse(fs->decode_s_per_token, per_token(*tos)));
  return Status::success();
}

// 2b-2d on the deeper card, against this repetition's fio rate and uniform
// compute: routing a lookahead can guess (sticky:0.8) with next-layer
// prefetch, the same with one more layer's worth of slots, and uniform
// routing with a simulated pre-gating predictor.
Status measure_lookahead(BenchRun& c, EngineBenchResults& r, RepetitionNotes& notes) {
  OverlapBench& o = r.overlap;
  const double f = o.fio_bytes_s.back();
  Point rsp = c.ob.point("resident");
  rsp.routing = "sticky:0.8";
  auto rs = ok_run(c.ob, rsp, 1, "resident run, sticky (overlap card)");
  if (!rs) return rs.error();
  Point pp = streaming_at(c.ob, c.os.budget);
  pp.routing = "sticky:0.8";
  pp.prefetch = "next-layer";
  auto ss = ok_run(c.ob, pp, 1, "prefetch run (overlap card)");
  if (!ss) return ss.error();
  o.t_sticky.push_back(per_token(*ss));
  o.io_sticky.push_back(io_per_token(*ss, f));
  o.compute_sticky.push_back(per_token(*rs));
  notes.hidden_sticky = hidden_of(*ss);
  o.sticky_prefetch.ratios.push_back(o.t_sticky.back() / std::max(o.io_sticky.back(), o.compute_sticky.back()));

  Point pr = pp;
  pr.ram_budget_bytes = c.more_slots_budget;
  auto sr = ok_run(c.ob, pr, 1, "prefetch run with k more slots (overlap card)");
  if (!sr) return sr.error();
  o.t_slots.push_back(per_token(*sr));
  o.io_slots.push_back(io_per_token(*sr, f));
  notes.hidden_slots = hidden_of(*sr);
  const double lookups = static_cast<double>(std::max<std::uint64_t>(1, sr->expert_hits_decode + sr->expert_misses_decode));
  notes.hit_slots = format_fixed(100.0 * static_cast<double>(sr->expert_hits_decode) / lookups, 0);
  o.more_slots.ratios.push_back(o.t_slots.back() / std::max(o.io_slots.back(), o.compute_sticky.back()));

  Point pg = streaming_at(c.ob, c.os.budget);
  pg.prefetch = "pregate:0.9";
  auto sg = ok_run(c.ob, pg, 1, "pregate run (overlap card)");
  if (!sg) return sg.error();
  o.t_pregate.push_back(per_token(*sg));
  o.io_pregate.push_back(io_per_token(*sg, f));
  notes.hidden_pregate = hidden_of(*sg);
  o.pregate.ratios.push_back(o.t_pregate.back() / std::max(o.io_pregate.back(), o.compute_uniform.back()));
  return Status::success();
}

// Lines 1-3 and 6: the medians over the repetitions, as the table prints them.
void describe_repeated_lines(EngineBenchResults& r, const CardSetup& ms, const RepetitionNotes& notes) {
  StreamingReadsBench& r1 = r.reads;
  r1.line.measured = med_rate(r1.engine_bytes_s) + " while reads were outstanding";
  r1.line.reference = "fio's best job over the experts (" + fio_job_label(ms.cell) + ", randread): " + med_rate(r1.fio_bytes_s);
  r1.replay_line.measured = r1.line.measured;
  r1.replay_line.reference = "fio's best replay of them (" + r1.replay_job + "): " + med_rate(r1.replay_bytes_s);
  OverlapBench& o = r.overlap;
  o.uniform.measured = med_s(o.t_uniform) + "/token";
  o.uniform.reference = "I/O " + med_s(o.io_uniform) + ", compute " + med_s(o.compute_uniform);
  o.causal_bound.measured = o.uniform.measured;
  std::vector<double> after;
  for (std::size_t i = 0; i < o.compute_uniform.size(); ++i) after.push_back(o.compute_uniform[i] - o.before_routing[i]);
  o.causal_bound.reference =
      "before routing " + med_s(o.before_routing) + ", I/O " + med_s(o.io_uniform) + ", after routing " + med_s(after);
  o.sticky_prefetch.name += " (" + notes.hidden_sticky + ")";
  o.sticky_prefetch.measured = med_s(o.t_sticky) + "/token";
  o.sticky_prefetch.reference = "I/O " + med_s(o.io_sticky) + ", compute " + med_s(o.compute_sticky);
  o.more_slots.name += " (" + format_bytes(static_cast<double>(o.more_slots_budget_bytes)) + "; hit rate " +
                       notes.hit_slots + " %; " + notes.hidden_slots + ")";
  o.more_slots.measured = med_s(o.t_slots) + "/token";
  o.more_slots.reference = "I/O " + med_s(o.io_slots) + ", compute " + med_s(o.compute_sticky);
  o.pregate.name += " (" + notes.hidden_pregate + ")";
  o.pregate.measured = med_s(o.t_pregate) + "/token";
  o.pregate.reference = "I/O " + med_s(o.io_pregate) + ", compute " + med_s(o.compute_uniform);
  ResidentBench& r3 = r.resident;
  r3.line.measured =
      med_rate(r3.weight_bytes_s) + " (" + format_bytes(static_cast<double>(r3.bytes_per_token)) + "/token)";
  r3.line.reference = "memory read, " + std::to_string(r3.threads) + " threads, arrays of " +
                      format_bytes(static_cast<double>(r3.array_bytes)) + " (last-level cache " +
                      (r3.llc_bytes > 0 ? format_bytes(static_cast<double>(r3.llc_bytes)) : std::string("not reported")) +
                      "), median of 5: " + med_rate(r3.memory_read_bytes_s);
  ScaleBench& s = r.scale;
  s.resident_decode.measured = "predicted " + med_s(s.resident_predicted_s) + "/token";
  s.resident_decode.reference = "measured " + med_s(s.resident_measured_s) + "/token";
  s.resident_ttft.measured = "predicted " + med_s(notes.ttft_predicted_s);
  s.resident_ttft.reference = "measured " + med_s(notes.ttft_measured_s);
  s.streaming_decode.measured = "predicted " + med_s(s.streaming_predicted_s) + "/token";
  s.streaming_decode.reference = "measured " + med_s(s.streaming_measured_s) + "/token";
}

// 4: bytes per token at 0 % hits (deterministic: measured once). Returns
// the point it ran, which line 5 reuses.
Expected<Point> measure_zero_hits(BenchRun& c, EngineBenchResults& r) {
  Point zp = streaming_at(c.b, c.ms.budget);
  auto trace = c.b.cyclic_trace();
  if (!trace) return trace.error();
  zp.routing = "trace:" + *trace;
  auto zero = ok_run(c.b, zp, 1, "0 % hits run");
  if (!zero) return zero.error();
  ZeroHitBench& r4 = r.zero_hits;
  r4.hits = zero->expert_hits_decode;
  r4.card_bytes_per_token = static_cast<double>(c.a.card.decode_bytes(c.a.quant).experts_streamed.storage);
  r4.engine_bytes_per_token = static_cast<double>(zero->read_bytes_decode) / decode_tokens(*zero);
  r4.proc_bytes_per_token =
      zero->proc_read_bytes_decode ? static_cast<double>(*zero->proc_read_bytes_decode) / decode_tokens(*zero) : 0;
  const double card_bytes = r4.card_bytes_per_token, eng = r4.engine_bytes_per_token, proc = r4.proc_bytes_per_token;
  const double worst = std::max(std::fabs(eng / card_bytes - 1), std::fabs(proc / card_bytes - 1));
  r4.line = {"4 bytes/token at 0 % hits (hits " + std::to_string(r4.hits) + ")",
             format_bytes(eng) + " engine, " + format_bytes(proc) + " /proc/self/io",
             "card: " + format_bytes(card_bytes), "within 2 %", {worst}, true, 0.02};
  return zp;
}

// 5: drive scaling under a 200 MB/s throttle per directory (the throttle
// makes it deterministic: measured once).
Status measure_drive_scaling(BenchRun& c, EngineBenchResults& r, const Point& zero_hit_point) {
  DriveScalingBench r5;
  double* rate = r5.tok_s;
  const int counts[3] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    Point dp = zero_hit_point;
    dp.gen_tokens = 4;
    dp.drives.count = counts[i];
    dp.drives.throttle_bytes_s = 200e6;
    auto m = ok_run(c.b, dp, counts[i], "drive scaling (" + std::to_string(counts[i]) + ")");
    if (!m) return m.error();
    rate[i] = 1.0 / per_token(*m);
  }
  r5.two = {"5 drive scaling 1 -> 2 (200 MB/s each, replicate)",
            format_fixed(rate[1], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "", ">= 1.8",
            {rate[1] / rate[0]}, false, 1.8};
  r5.four = {"5 drive scaling 1 -> 4", format_fixed(rate[2], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s", "",
             ">= 3.2", {rate[2] / rate[0]}, false, 3.2};
  r.scaling = r5;
  return Status::success();
}

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
  // Line 1's yardstick: fio's best way to read the expert region, any
  // engine, depth and block size (probes/fio_search.h), found once.
  progress.phase("fio search over the experts", -1);
  FioSearchOptions so;
  so.search_depth = true;
  so.search_blocks = true;
  so.max_block_bytes = expert_record_bytes(main_setup->spec) / 4096 * 4096;
  FioCell base = main_setup->cell;
  base.runtime_s = 2;
  auto found = search_fio(base, so, [&](const FioCell& fc) { return run_fio(*fio_path, fc, a.drive_dirs[0]); });
  if (!found) return make_error("line 1's fio search: " + found.error().message);
  main_setup->cell = found->best;
  main_setup->cell.runtime_s = base.runtime_s * 4;

  BenchRun c{a, progress, *fio_path, b, ob, *main_setup, *ov_setup, {}, 0, 0, std::nullopt, false};
  c.memory.thread_counts = {static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  c.memory.repetitions = 5;
  // Line 3's reference reads DRAM, not cache: arrays of 4 × the last-level
  // cache hwloc reports (all instances), and never below 1 GiB (a VM may
  // report none; the largest L3 sold, 1.1 GiB of stacked cache, is summed
  // over instances too).
  {
    auto topo = probe_topology();
    const std::uint64_t llc = topo ? topo->last_level_cache_bytes() : 0;
    c.memory.array_bytes = std::max<std::uint64_t>(4 * llc, 1ull << 30);
    c.memory_llc_bytes = llc;
  }
  const std::uint64_t oslot = (expert_record_bytes(c.os.spec) + 3 * 8192 + 4095) / 4096 * 4096;  // aligned split spans
  c.more_slots_budget = c.os.budget + static_cast<std::uint64_t>(a.overlap_card.moe.active) * oslot;

  EngineBenchResults r;
  name_lines(r, a, c.ms);
  r.reads.budget_bytes = c.ms.budget;
  r.reads.fio_block_bytes = c.ms.cell.block_bytes;
  r.reads.fio_job = fio_job_label(c.ms.cell);
  r.reads.fio_search = found->summary();
  r.overlap.budget_bytes = c.os.budget;
  r.overlap.more_slots_budget_bytes = c.more_slots_budget;
  r.resident.threads = c.memory.thread_counts[0];
  r.resident.array_bytes = c.memory.array_bytes;
  r.resident.llc_bytes = c.memory_llc_bytes;
  RepetitionNotes notes;
  for (int rep = 0; rep < a.reps; ++rep) {
    if (Status st = measure_reads_and_resident(c, r, rep); !st) return st.error();
    if (Status st = measure_overlap_and_scale(c, r, notes); !st) return st.error();
    if (Status st = measure_lookahead(c, r, notes); !st) return st.error();
  }
  describe_repeated_lines(r, c.ms, notes);
  auto zero_hit_point = measure_zero_hits(c, r);
  if (!zero_hit_point) return zero_hit_point.error();
  if (!a.skip_scaling) {
    if (Status st = measure_drive_scaling(c, r, *zero_hit_point); !st) return st.error();
  }
  progress.phase("7 cache against the offline optimum (replays)", -1);
  auto optimum = measure_cache_optimum(a.card, a.drive_dirs[0]);
  if (!optimum) return optimum.error();
  r.cache_optimum = std::move(optimum->lines);
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
  if (!results.reads.fio_search.empty()) out += "\nLine 1's yardstick, " + results.reads.fio_search + "\n";
  if (!results.reads.replay_search.empty()) out += "Line 1' yardstick, fio replaying the engine's decode reads: " + results.reads.replay_search + "\n";
  for (const std::string& n : results.reads.replay_notes) out += "Line 1': " + n + "\n";
  return out;
}

std::optional<ScaleCheck> scale_check_of(const EngineBenchSetup& a, const EngineBenchResults& results,
                                         const std::string& taken_at, const std::string& host, const std::string& cpu) {
  const ScaleBench& s = results.scale;
  if (s.resident_decode.ratios.empty() && s.streaming_decode.ratios.empty()) return std::nullopt;
  ScaleCheck c;
  c.taken_at = taken_at;
  c.host = host;
  c.cpu = cpu;
  c.cards = a.model + " " + a.scale_text + " -> " + a.overlap_scale_text;
  c.resident_decode = s.resident_decode.ratios;
  c.resident_ttft = s.resident_ttft.ratios;
  c.streaming_decode = s.streaming_decode.ratios;
  return c;
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
  record["fio_search"] = results.reads.fio_search;  // line 1's yardstick: every job tried, with its rate
  record["replay_search"] = results.reads.replay_search;  // line 1''s: every replay tried, with its rate
  record["replay_notes"] = results.reads.replay_notes;    // replays that failed or read nothing
  return record;
}

}  // namespace moebench
