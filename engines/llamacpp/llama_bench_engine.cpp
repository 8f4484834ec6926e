// llama_bench_engine.cpp — see llama_bench_engine.h.
#include "engines/llamacpp/llama_bench_engine.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <thread>

#include "engines/container/gguf_export.h"
#include "engines/executor/run_support.h"
#include "engines/llamacpp/llama_bench.h"
#include "engines/llamacpp/memory_cgroup.h"
#include "vocab/file_io.h"
#include "vocab/subprocess.h"
#include "vocab/units.h"

namespace moebench {
namespace {

class LlamaBenchEngine final : public Engine {
 public:
  explicit LlamaBenchEngine(EngineSpec spec) : spec_(std::move(spec)) {
    const EngineOptions o(llama_bench_engine_options(), spec_);  // checked when the sweep loaded
    binary_ = o.text("path");
    load_ = o.text("load");
    ubatch_ = static_cast<std::int64_t>(o.count("ubatch"));
    warmup_ = o.flag("warmup");
    decode_reads_ = o.flag("decode_reads");
  }
  std::string_view name() const override { return "llama-bench"; }

  Expected<Measurement> run(const Point& point, RunContext& ctx) override {
    if (binary_.empty()) {
      return make_error("llama-bench engine: no path option; name the binary: llama-bench:path=/path/to/llama-bench");
    }
    if (::access(binary_.c_str(), X_OK) != 0) {
      return make_error("llama-bench engine: path=" + binary_ + " is not an executable file; build llama.cpp's "
                        "llama-bench and give its path (llama-bench:path=/path/to/llama-bench)");
    }
    if (point.drives.count != 1) {
      Measurement m;
      m.status = RowStatus::kInvalid;
      m.reason = "llama.cpp reads its model from one file: the llama-bench engine runs drives=1 only";
      return m;
    }
    ctx.progress.phase("container", -1);
    auto use = ensure_container(point, ctx, false);
    if (!use) return use.error();
    ctx.progress.phase("exporting for llama.cpp", -1);
    auto exp = ensure_llama_export(use->spec);
    if (!exp) return exp.error();
    LlamaBenchRequest req;
    req.binary = binary_;
    req.model = exp->path;
    req.threads = point.threads > 0 ? point.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    req.prompt_tokens = point.prompt_tokens;
    req.gen_tokens = point.gen_tokens;
    req.depth = point.context_tokens;
    req.repetitions = 1;  // the runner repeats the point
    req.load_mode = load_;
    req.ubatch = ubatch_;
    req.warmup = warmup_;
    req.verbose = true;  // the load log names the weights' buffers (mapped or copied)
    auto first = run_llama(req, point, ctx, exp->path);
    if (!first) return first.error();
    if (!first->res.ok()) return make_error(failure(*first, req, point));
    auto tests = parse_llama_bench_json(first->res.out, "llama-bench output");
    if (!tests) return tests.error();
    auto m = measurement_from_llama_bench(*tests, point.prompt_tokens, point.gen_tokens, 0);
    if (!m) return m.error();
    m->provenance = "measured";
    m->notes.insert(m->notes.begin(), "engine " + llama_build_label(tests->front()) + " (" + binary_ + ", " +
                                          llama_build_flags(binary_).value_or("build flags unknown: no CMakeCache.txt "
                                                                              "beside the binary") + ")");
    m->notes.push_back("model " + exp->path + (exp->reused ? " (export reused)" : " (exported from the container)"));
    m->notes.push_back("routing axis not applied: llama.cpp routes tokens with the model's own router");
    m->notes.push_back(buffers_note(first->mem, point.ram_budget_bytes.has_value()));
    if (point.ram_budget_bytes) {
      m->budget_enforced = first->enforced;
      if (first->peak) m->peak_rss_bytes = *first->peak;
      if (decode_reads_ && point.gen_tokens >= 2) {
        // The same run with twice the generated tokens: the extra reads are
        // gen tokens' worth of decode (load, prompt and warm-up cancel).
        LlamaBenchRequest twice = req;
        twice.gen_tokens = 2 * req.gen_tokens;
        ctx.progress.phase("llama-bench (reads per token)", -1);
        auto second = run_llama(twice, point, ctx, exp->path);
        if (!second) return second.error();
        if (!second->res.ok()) return make_error(failure(*second, twice, point));
        if (first->res.read_bytes && second->res.read_bytes) {
          const double extra = std::max(0.0, static_cast<double>(*second->res.read_bytes) - static_cast<double>(*first->res.read_bytes));
          const double per_token = extra / static_cast<double>(req.gen_tokens);
          m->read_bytes_decode = static_cast<std::uint64_t>(per_token * static_cast<double>(point.gen_tokens - 1) + 0.5);
          m->notes.push_back("storage reads per decode token " + format_bytes(per_token) + ": runs of tg" +
                             std::to_string(req.gen_tokens) + " and tg" + std::to_string(twice.gen_tokens) + " read " +
                             format_bytes(static_cast<double>(*first->res.read_bytes)) + " and " +
                             format_bytes(static_cast<double>(*second->res.read_bytes)) +
                             " (wait4 ru_inblock, page cache dropped before each); the difference over the extra tokens");
        }
      }
      m->notes.push_back(first->cgroup_note);
    } else if (first->res.read_bytes) {
      m->notes.push_back("llama-bench read " + format_bytes(static_cast<double>(*first->res.read_bytes)) +
                         " from storage in all (load, warm-ups and tests)");
    }
    return std::move(*m);
  }

 private:
  // One llama-bench process and what its memory cgroup saw.
  struct Attempt {
    ProcessResult res;
    LlamaMemory mem;
    std::optional<std::uint64_t> peak, oom_kills;
    bool enforced = false;  // a cgroup held it to the budget
    std::string cgroup_note;
  };

  // Runs `req` (in a fresh memory cgroup of the point's budget, the model's
  // page cache dropped first so no earlier run's pages count outside it).
  Expected<Attempt> run_llama(const LlamaBenchRequest& req, const Point& point, RunContext& ctx,
                              const std::string& model) {
    std::vector<std::string> argv = llama_bench_argv(req);
    Attempt a;
    std::optional<MemoryCgroup> cgroup;
    if (point.ram_budget_bytes) {
      if (Status st = drop_file_cache(model); !st) return st.error();
      auto g = MemoryCgroup::create(*point.ram_budget_bytes, "llama-bench");
      if (g) {
        argv = g->wrap(argv);
        a.cgroup_note = "RAM budget " + format_bytes(static_cast<double>(*point.ram_budget_bytes)) +
                        " enforced by a cgroup " + g->version() + " memory limit (page cache of the mmap'd model "
                        "charged too; dropped before the run)";
        cgroup.emplace(std::move(*g));
        a.enforced = true;
      } else {
        a.cgroup_note = "RAM budget not enforced: " + g.error().message;
      }
    }
    ProcessOptions po;
    po.timeout_s = std::max(1.0, ctx.deadline_s - ctx.clock.now_s());
    ctx.progress.phase("llama-bench", -1);
    auto res = run_process(argv, po);
    if (!res) return res.error();
    a.res = std::move(*res);
    a.mem = llama_memory(parse_llama_buffers(a.res.err));
    if (cgroup) {
      a.peak = cgroup->peak_bytes();
      a.oom_kills = cgroup->oom_kills();
      if (auto hits = cgroup->limit_hits(); hits && *hits > 0) {
        a.cgroup_note += "; the limit was reached " + std::to_string(*hits) + " times (pages evicted and re-read)";
      }
    }
    return a;
  }

  // The error of a failed run, saying why when its cgroup killed it.
  static std::string failure(const Attempt& a, const LlamaBenchRequest& req, const Point& point) {
    std::string why = "llama-bench " + a.res.describe();
    if (point.ram_budget_bytes && a.res.signal == 9 && !a.res.timed_out) {
      why = "llama-bench was " + explain_llama_kill(a.mem, *point.ram_budget_bytes, a.peak, a.oom_kills);
    }
    std::string err_tail;
    std::istringstream lines(last_lines(a.res.err, 40));
    for (std::string line; std::getline(lines, line);) {
      if (line.find("error") != std::string::npos || line.find("failed") != std::string::npos) err_tail += "\n" + line;
    }
    return why + ": " + command_line(llama_bench_argv(req)) + err_tail;
  }

  static std::string buffers_note(const LlamaMemory& mem, bool budget) {
    std::string s = "weights: " + format_bytes(static_cast<double>(mem.mapped_weights)) + " mapped (CPU_Mapped, pageable)";
    if (mem.copied_weights > 0) {
      s += ", " + format_bytes(static_cast<double>(mem.copied_weights)) + " copied into " + mem.copied_backends +
           " (anonymous)";
      if (budget) s += ": the copies cannot page, so the budget cannot go below them";
    }
    return s + "; KV and compute buffers " + format_bytes(static_cast<double>(mem.working)) + " (llama.cpp's -v log)";
  }

  EngineSpec spec_;
  std::string binary_, load_;
  std::int64_t ubatch_ = 512;
  bool warmup_ = true;
  bool decode_reads_ = true;
};

std::string check_path(const std::string& v) {
  if (v.empty()) return "give the llama-bench binary's path";
  if (v.find(',') != std::string::npos) return "a path with a comma cannot be given in an engine spec";
  return "";
}

}  // namespace

const OptionTable& llama_bench_engine_options() {
  static const OptionTable kTable = {
      {"path", OptionKind::kText, "", "llama-bench binary", 0, 0, {}, check_path},
      {"load", OptionKind::kChoice, "mmap", "llama-bench -lm: how weights are loaded", 0, 0,
       {"mmap", "none", "mlock", "mmap+mlock", "dio"}, {}},
      {"ubatch", OptionKind::kCount, "512", "llama-bench -ub: physical batch, tokens", 1, 65536, {}, {}},
      {"warmup", OptionKind::kFlag, "1", "llama-bench's own warm-up run before each test", 0, 0, {}, {}},
      {"decode_reads", OptionKind::kFlag, "1",
       "with a RAM budget, run llama-bench again with twice the generated tokens: the difference in bytes read "
       "from storage over the extra tokens is read_bytes_per_token", 0, 0, {}, {}},
  };
  return kTable;
}

Expected<std::string> llama_export_for(const Point& point, RunContext& ctx) {
  auto use = ensure_container(point, ctx, false);
  if (!use) return use.error();
  auto exp = ensure_llama_export(use->spec);
  if (!exp) return exp.error();
  return exp->path;
}

std::unique_ptr<Engine> make_llama_bench_engine(const EngineSpec& spec) { return std::make_unique<LlamaBenchEngine>(spec); }

}  // namespace moebench
