// cmd_bench.cpp — `moebench bench-engines`: the engines' five speed
// benchmarks, each measured side by side with its reference in one run, so
// the ratios carry the machine's conditions of that moment:
//   1. streaming decode reads (minimum budget, uniform routing): bytes read
//      ÷ time with reads outstanding, against fio random reads at the
//      engine's read size and queue depth on the same container file;
//   2. overlap: streaming decode time per token against max(I/O time = bytes
//      per token ÷ fio's bandwidth, compute time = resident decode time per
//      token at the same routing);
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
#include <fstream>
#include <regex>
#include <thread>

#include "engines/container/container.h"
#include "engines/container/container_plan.h"
#include "engines/container/gguf.h"
#include "engines/resident/resident_engine.h"
#include "engines/streaming/streaming_engine.h"
#include "harness/cli/commands.h"
#include "harness/clock.h"
#include "harness/environment.h"
#include "harness/file_io.h"
#include "harness/progress.h"
#include "harness/text.h"
#include "harness/units.h"
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
  int tokens = 9;
  bool skip_scaling = false;
  std::string out;
};

struct Line {
  std::string name, measured, reference, target;
  double ratio = 0;
  bool pass = false;
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
    auto e = p.engine.name == "resident" ? make_resident_engine(p.engine) : make_streaming_engine(p.engine);
    std::vector<std::string> dirs(a_.drive_dirs.begin(), a_.drive_dirs.begin() + drives_available);
    RunContext ctx{clock_, progress_, card_, dirs, 42, 0, false, clock_.now_s() + 3600, nullptr};
    progress_.phase(p.engine.to_string() + " " + p.drives.to_string(), -1);
    return e->run(p, ctx);
  }
  // The smallest budget the streaming engine accepts here (read from the
  // infeasible row's reason), plus 2 % for the rounding of that figure and
  // run-to-run differences in resident memory.
  Expected<std::uint64_t> minimum_budget() {
    Point p = point("streaming");
    p.ram_budget_bytes = 1ull << 20;
    auto m = run(p, 1);
    if (!m) return m.error();
    std::smatch match;
    static const std::regex re("minimum budget ([0-9.]+) (GiB|MiB)");
    if (m->status != RowStatus::kInfeasible || !std::regex_search(m->reason, match, re)) {
      return make_error("could not learn the minimum budget: " + m->reason);
    }
    const double v = std::stod(match[1].str()) * (match[2].str() == "GiB" ? 1073741824.0 : 1048576.0);
    return static_cast<std::uint64_t>(v * 1.02);
  }
  std::string cyclic_trace() const {
    const std::string path = (std::filesystem::path(a_.drive_dirs[0]) / "cyclic.trace").string();
    const int L = card_.moe_layers(), E = card_.moe.experts, k = card_.moe.active;
    std::ofstream out(path);
    out << "moebench-trace v1 layers=" << L << " experts=" << E << " k=" << k << "\n";
    out << "# token t uses experts k*t .. k*t+k-1 (mod E) in every layer: a cycle LRU below the model never hits\n";
    for (int t = 0; t < 64; ++t) {
      for (int l = 0; l < L; ++l) {
        out << (l ? " | " : "");
        for (int j = 0; j < k; ++j) out << (j ? "," : "") << (k * t + j) % E;
      }
      out << "\n";
    }
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
double per_token(const Measurement& m) { return decode_s(m) / static_cast<double>(m.token_times_s.size() - 1); }

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
  if (a.drive_dirs.size() < (a.skip_scaling ? 1u : 4u)) return fail("needs 4 drive directories (or --skip-scaling)");
  for (const std::string& d : a.drive_dirs) {
    if (Status st = ensure_directory(d); !st) return fail(st.error().message);
  }
  SteadyClock clock;
  QuietProgress quiet;
  TerminalProgress terminal(stderr, clock);
  Progress& progress = is_terminal(stderr) ? static_cast<Progress&>(terminal) : static_cast<Progress&>(quiet);
  progress.sweep_started(1, 0);
  progress.point_started(1, "bench-engines");
  Bench b(a, *scaled, *scale, progress);
  std::vector<Line> lines;
  Json record = Json::object();

  // 1 + 2: streaming at the minimum budget, uniform routing; fio beside it.
  auto budget = b.minimum_budget();
  if (!budget) return fail(budget.error().message);
  Point sp = b.point("streaming");
  sp.ram_budget_bytes = *budget;
  auto stream = b.run(sp, 1);
  if (!stream) return fail("streaming run: " + stream.error().message);
  if (stream->status != RowStatus::kOk) return fail("streaming run: " + stream->reason);
  ContainerSpec cs;
  cs.card_name = a.model;
  cs.card = *scaled;
  cs.scale = *scale;
  cs.quant = a.quant;
  cs.seed = 42;
  cs.drive_dirs = {a.drive_dirs[0]};
  const std::string file = (std::filesystem::path(a.drive_dirs[0]) / container_file_name(cs, 0)).string();
  const std::uint64_t slice = expert_record_bytes(cs) / 3 / 4096 * 4096;  // about one gate/up/down slice
  auto fio_path = find_fio();
  if (!fio_path) return fail("fio is not on PATH (apt install fio)");
  // fio reads the bytes the engine reads: the expert tensors at the back of
  // the file (the trunk is in front), so both meet the same device and the
  // same caches below the guest, if any.
  auto g = read_gguf(file);
  if (!g) return fail(g.error().message);
  std::uint64_t experts_begin = g->file_bytes;
  for (const GgufTensorInfo& t : g->tensors) {
    if (t.name.find("_exps") != std::string::npos) experts_begin = std::min(experts_begin, g->data_offset + t.offset);
  }
  FioCell cell;
  cell.file_path = file;
  cell.file_offset = experts_begin / 4096 * 4096;
  cell.file_bytes = (g->file_bytes - cell.file_offset) / slice * slice;
  cell.block_bytes = slice;
  cell.queue_depth = 32;
  cell.random = true;
  cell.runtime_s = 8;
  // Two fio runs: registered buffers (the engine's read method: the fair
  // reference) and plain io_uring (what fio does by default).
  progress.phase("fio random reads", -1);
  auto plain = run_fio(*fio_path, cell, a.drive_dirs[0]);
  if (!plain) return fail(plain.error().message);
  cell.fixed_buffers = true;
  auto fio = run_fio(*fio_path, cell, a.drive_dirs[0]);
  if (!fio) return fail(fio.error().message);
  const double achieved = static_cast<double>(stream->read_bytes_decode) / std::max(1e-9, stream->io_busy_s_decode);
  lines.push_back({"1 streaming decode reads (min budget " + format_bytes(static_cast<double>(*budget)) + ", uniform)",
                   format_rate(achieved) + " while reading (" +
                       format_rate(static_cast<double>(stream->read_bytes_decode) / decode_s(*stream)) + " over decode)",
                   "fio randread " + format_bytes(static_cast<double>(slice)) + " QD32 over the experts, fixedbufs: " +
                       format_rate(fio->read_bytes_s) + " (plain io_uring " + format_rate(plain->read_bytes_s) + ")",
                   ">= 0.90", achieved / fio->read_bytes_s, achieved / fio->read_bytes_s >= 0.90});
  Point rp = b.point("resident");
  auto res = b.run(rp, 1);
  if (!res) return fail("resident run: " + res.error().message);
  if (res->status != RowStatus::kOk) return fail("resident run: " + res->reason);
  const double tokens = static_cast<double>(stream->token_times_s.size() - 1);
  const double io_s = static_cast<double>(stream->read_bytes_decode) / tokens / fio->read_bytes_s;
  const double compute_s = per_token(*res);
  const double overlap = per_token(*stream) / std::max(io_s, compute_s);
  lines.push_back({"2a overlap, uniform (no prefetch can guess): s/token vs max(I/O, compute)",
                   format_fixed(per_token(*stream), 3) + " s/token",
                   "I/O " + format_fixed(io_s, 3) + " s, compute " + format_fixed(compute_s, 3) + " s", "<= 1.15", overlap,
                   overlap <= 1.15});
  // The same with routing a lookahead can guess (sticky:0.8) and next-layer
  // prefetch: reads may then run during attention and the lm_head too.
  Point pp = sp;
  pp.routing = "sticky:0.8";
  pp.prefetch = "next-layer";
  auto pre = b.run(pp, 1);
  if (!pre) return fail("prefetch run: " + pre.error().message);
  if (pre->status != RowStatus::kOk) return fail("prefetch run: " + pre->reason);
  Point rpp = rp;
  rpp.routing = pp.routing;
  auto res_sticky = b.run(rpp, 1);
  if (!res_sticky) return fail("resident run: " + res_sticky.error().message);
  const double io_p = static_cast<double>(pre->read_bytes_decode) / tokens / fio->read_bytes_s;
  const double compute_p = per_token(*res_sticky);
  const double overlap_p = per_token(*pre) / std::max(io_p, compute_p);
  lines.push_back({"2b overlap, sticky:0.8 + next-layer prefetch (hidden misses " +
                       std::to_string(pre->expert_misses_hidden_decode) + " of " +
                       std::to_string(pre->expert_misses_decode) + ")",
                   format_fixed(per_token(*pre), 3) + " s/token",
                   "I/O " + format_fixed(io_p, 3) + " s, compute " + format_fixed(compute_p, 3) + " s", "<= 1.15",
                   overlap_p, overlap_p <= 1.15});

  // Uniform routing with a simulated pre-gating predictor (90 % of the next
  // layer's experts named right): the lookahead real offloading engines use.
  Point pg = sp;
  pg.prefetch = "pregate:0.9";
  auto gated = b.run(pg, 1);
  if (!gated) return fail("pregate run: " + gated.error().message);
  if (gated->status != RowStatus::kOk) return fail("pregate run: " + gated->reason);
  const double io_g = static_cast<double>(gated->read_bytes_decode) / tokens / fio->read_bytes_s;
  const double overlap_g = per_token(*gated) / std::max(io_g, compute_s);
  lines.push_back({"2d overlap, uniform + pregate:0.9 (hidden misses " + std::to_string(gated->expert_misses_hidden_decode) +
                       " of " + std::to_string(gated->expert_misses_decode) + ")",
                   format_fixed(per_token(*gated), 3) + " s/token",
                   "I/O " + format_fixed(io_g, 3) + " s, compute " + format_fixed(compute_s, 3) + " s", "<= 1.15",
                   overlap_g, overlap_g <= 1.15});
  // The same routing and prefetch with room to prefetch into: one more
  // layer's worth of slots (k) above the minimum.
  Point pr = pp;
  const std::uint64_t slot = (expert_record_bytes(cs) + 3 * 8192 + 4095) / 4096 * 4096;  // aligned split spans
  pr.ram_budget_bytes = *budget + static_cast<std::uint64_t>(scaled->moe.active) * slot;
  auto roomy = b.run(pr, 1);
  if (!roomy) return fail("prefetch run: " + roomy.error().message);
  if (roomy->status != RowStatus::kOk) return fail("prefetch run: " + roomy->reason);
  const double io_r = static_cast<double>(roomy->read_bytes_decode) / tokens / fio->read_bytes_s;
  const double overlap_r = per_token(*roomy) / std::max(io_r, compute_p);
  lines.push_back({"2c overlap, as 2b with k more slots (" + format_bytes(static_cast<double>(*pr.ram_budget_bytes)) +
                       "; hit rate " +
                       format_fixed(100.0 * static_cast<double>(roomy->expert_hits_decode) /
                                        static_cast<double>(std::max<std::uint64_t>(
                                            1, roomy->expert_hits_decode + roomy->expert_misses_decode)), 0) +
                       " %)",
                   format_fixed(per_token(*roomy), 3) + " s/token",
                   "I/O " + format_fixed(io_r, 3) + " s, compute " + format_fixed(compute_p, 3) + " s", "<= 1.15",
                   overlap_r, overlap_r <= 1.15});

  // 3: resident decode against one process's memory read bandwidth.
  MemoryBandwidthOptions mo;
  mo.thread_counts = {static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  mo.repetitions = 5;
  progress.phase("memory bandwidth", -1);
  auto bw = probe_memory_bandwidth(mo, progress);
  if (!bw) return fail(bw.error().message);
  double read_bw = 0;
  for (const BandwidthCell& c : *bw) {
    if (c.kernel == "read") read_bw = std::max(read_bw, c.best_bytes_s);
  }
  const double res_rate = static_cast<double>(res->mem_weight_bytes_decode) / decode_s(*res);
  lines.push_back({"3 resident decode weight bytes / time", format_rate(res_rate) + " (" +
                   format_bytes(static_cast<double>(res->mem_weight_bytes_decode) / tokens) + "/token)",
                   "memory read, " + std::to_string(mo.thread_counts[0]) + " threads: " + format_rate(read_bw), ">= 0.70",
                   res_rate / read_bw, res_rate / read_bw >= 0.70});

  // 4: bytes per token at 0 % hits.
  Point zp = b.point("streaming");
  zp.ram_budget_bytes = *budget;
  zp.routing = "trace:" + b.cyclic_trace();
  auto zero = b.run(zp, 1);
  if (!zero) return fail("0 % hits run: " + zero.error().message);
  if (zero->status != RowStatus::kOk) return fail("0 % hits run: " + zero->reason);
  const double card_bytes = static_cast<double>(scaled->decode_bytes(a.quant).experts_streamed.storage);
  const double eng = static_cast<double>(zero->read_bytes_decode) / tokens;
  const double proc = zero->proc_read_bytes_decode ? static_cast<double>(*zero->proc_read_bytes_decode) / tokens : 0;
  const double worst = std::max(std::fabs(eng / card_bytes - 1), std::fabs(proc / card_bytes - 1));
  lines.push_back({"4 bytes/token at 0 % hits (hits " + std::to_string(zero->expert_hits_decode) + ")",
                   format_bytes(eng) + " engine, " + format_bytes(proc) + " /proc/self/io",
                   "card: " + format_bytes(card_bytes), "within 2 %", worst, worst <= 0.02});

  // 5: drive scaling under a 200 MB/s throttle per directory.
  if (!a.skip_scaling) {
    double rate[3] = {0, 0, 0};
    const int counts[3] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
      Point dp = b.point("streaming");
      dp.ram_budget_bytes = *budget;
      dp.routing = zp.routing;
      dp.gen_tokens = 4;
      dp.drives.count = counts[i];
      dp.drives.throttle_bytes_s = 200e6;
      auto m = b.run(dp, counts[i]);
      if (!m) return fail("drive scaling (" + std::to_string(counts[i]) + "): " + m.error().message);
      if (m->status != RowStatus::kOk) return fail("drive scaling: " + m->reason);
      rate[i] = 1.0 / per_token(*m);
    }
    lines.push_back({"5 drive scaling 1 -> 2 (200 MB/s each, replicate)", format_fixed(rate[1], 3) + " vs " +
                     format_fixed(rate[0], 3) + " tok/s", "", ">= 1.8", rate[1] / rate[0], rate[1] / rate[0] >= 1.8});
    lines.push_back({"5 drive scaling 1 -> 4", format_fixed(rate[2], 3) + " vs " + format_fixed(rate[0], 3) + " tok/s",
                     "", ">= 3.2", rate[2] / rate[0], rate[2] / rate[0] >= 3.2});
  }
  progress.sweep_finished();

  const Environment env = capture_environment("", state.command_line);
  std::printf("moebench bench-engines: %s %s, %s; %s\n", a.model.c_str(), a.scale.c_str(), a.quant.c_str(),
              env.build_label().c_str());
  std::printf("| benchmark | measured | reference (same run) | ratio | target | |\n|---|---|---|---:|---|---|\n");
  for (const Line& l : lines) {
    std::printf("| %s | %s | %s | %s | %s | %s |\n", l.name.c_str(), l.measured.c_str(), l.reference.c_str(),
                format_fixed(l.ratio, 3).c_str(), l.target.c_str(), l.pass ? "met" : "MISSED");
    record["benchmarks"].push_back({{"name", l.name}, {"measured", l.measured}, {"reference", l.reference},
                                    {"ratio", l.ratio}, {"target", l.target}, {"met", l.pass}});
  }
  if (!a.out.empty()) {
    record["build"] = env.build_label();
    record["model"] = a.model + " " + a.scale + " " + a.quant;
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
  cmd->add_option("--quant", args->quant, "expert quant (default mxfp4)");
  cmd->add_option("--tokens", args->tokens, "generated tokens per run (default 9)")->check(CLI::Range(3, 1000));
  cmd->add_flag("--skip-scaling", args->skip_scaling, "skip the throttled drive-scaling benchmark");
  cmd->add_option("--out", args->out, "also write the figures as JSON");
  cmd->callback([args, &state] { state.exit_code = bench_command(*args, state); });
}

}  // namespace moebench
