// llama_bench_engine.cpp — see llama_bench_engine.h.
#include "engines/llamacpp/llama_bench_engine.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "engines/container/gguf_export.h"
#include "engines/executor/run_support.h"
#include "engines/llamacpp/llama_bench.h"
#include "engines/llamacpp/memory_cgroup.h"
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
    std::vector<std::string> argv = llama_bench_argv(req);
    std::optional<MemoryCgroup> cgroup;
    std::string budget_note;
    if (point.ram_budget_bytes) {
      auto g = MemoryCgroup::create(*point.ram_budget_bytes, "llama-bench");
      if (g) {
        argv = g->wrap(argv);
        budget_note = "RAM budget " + format_bytes(static_cast<double>(*point.ram_budget_bytes)) +
                      " enforced by a cgroup " + g->version() + " memory limit (page cache of the mmap'd model "
                      "charged too)";
        cgroup.emplace(std::move(*g));
      } else {
        budget_note = "RAM budget not enforced: " + g.error().message;
      }
    }
    ProcessOptions po;
    po.timeout_s = std::max(1.0, ctx.deadline_s - ctx.clock.now_s());
    ctx.progress.phase("llama-bench", -1);
    auto res = run_process(argv, po);
    if (!res) return res.error();
    if (!res->ok()) {
      return make_error("llama-bench " + res->describe() + ": " + command_line(argv) + "\n" + last_lines(res->err, 8));
    }
    auto tests = parse_llama_bench_json(res->out, "llama-bench output");
    if (!tests) return tests.error();
    auto m = measurement_from_llama_bench(*tests, point.prompt_tokens, point.gen_tokens, 0);
    if (!m) return m.error();
    m->provenance = "measured";
    m->notes.insert(m->notes.begin(), "engine " + llama_build_label(tests->front()) + " (" + binary_ + ", " +
                                          llama_build_flags(binary_).value_or("build flags unknown: no CMakeCache.txt "
                                                                              "beside the binary") + ")");
    m->notes.push_back("model " + exp->path + (exp->reused ? " (export reused)" : " (exported from the container)"));
    m->notes.push_back("routing axis not applied: llama.cpp routes tokens with the model's own router");
    if (cgroup) {
      m->budget_enforced = true;
      if (auto peak = cgroup->peak_bytes()) m->peak_rss_bytes = *peak;
      if (auto hits = cgroup->limit_hits(); hits && *hits > 0) {
        budget_note += "; the limit was reached " + std::to_string(*hits) + " times (pages evicted and re-read)";
      }
    }
    if (!budget_note.empty()) m->notes.push_back(budget_note);
    return std::move(*m);
  }

 private:
  EngineSpec spec_;
  std::string binary_, load_;
  std::int64_t ubatch_ = 512;
  bool warmup_ = true;
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
  };
  return kTable;
}

std::unique_ptr<Engine> make_llama_bench_engine(const EngineSpec& spec) { return std::make_unique<LlamaBenchEngine>(spec); }

}  // namespace moebench
