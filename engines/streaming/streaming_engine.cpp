// streaming_engine.cpp — see streaming_engine.h.
#include "engines/streaming/streaming_engine.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "engines/cache/expert_cache.h"
#include "engines/cache/memory_plan.h"
#include "engines/container/container_plan.h"
#include "engines/executor/executor.h"
#include "engines/executor/model_loader.h"
#include "engines/executor/run_support.h"
#include "engines/executor/thread_pool.h"
#include "engines/io/expert_io.h"
#include "engines/routing/routing.h"
#include "engines/streaming/streaming_source.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

class StreamingEngine final : public Engine {
 public:
  explicit StreamingEngine(EngineSpec spec) : spec_(std::move(spec)) {
    const EngineOptions o(streaming_engine_options(), spec_);  // checked when the sweep loaded
    packed_ = o.flag("packed");
    make_ = o.flag("make");
    qd_ = static_cast<int>(o.count("qd"));
    chunk_ = static_cast<std::size_t>(o.count("chunk"));
    const std::string io = o.text("io");
    backend_ = io == "io_uring" ? IoBackend::kIoUring : io == "pread" ? IoBackend::kPread : IoBackend::kAuto;
    auto fault = parse_fault_plan(o.text("fault"));
    if (fault) fault_ = *fault;
  }
  std::string_view name() const override { return "streaming"; }
  void release() override {
    trunk_.reset();
    range_.reset();
    trunk_gguf_.reset();
    container_notes_.clear();
    tables_.clear();
    ggufs_.clear();
    paths_.clear();
    setup_key_.clear();
  }

  Expected<Measurement> run(const Point& point, RunContext& ctx) override {
    Measurement m;
    m.budget_enforced = true;
    const std::string key = point.setup_key() + ":" + spec_.to_string();
    if (key != setup_key_) {
      release();
      if (Status st = set_up(point, ctx, m); !st) return st.error();
      setup_key_ = key;
    } else {
      m.load_reused = true;
    }
    m.notes.push_back("trunk: " + method_);
    for (const std::string& n : container_notes_) m.notes.push_back(n);
    if (!reset_peak_rss()) {
      // Without a reset the peak includes earlier points: not a check of this budget.
      m.budget_enforced = false;
      m.notes.push_back("peak RSS could not be reset (/proc/self/clear_refs refused): it may include earlier points");
    }

    RoutingShape shape{ctx.card.moe_layers(), ctx.card.moe.experts, ctx.card.moe.active};
    auto routing = make_routing(point.routing, shape, routing_seed(ctx.seed, ctx.repetition));
    if (!routing) return routing.error();
    const int threads = point.threads > 0 ? point.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ThreadPool pool(threads);
    TensorOps ops(pool, best_simd_level());

    // Slot size: the largest aligned footprint of any expert.
    std::vector<const ExpertTable*> tables;
    for (const auto& t : tables_) tables.push_back(t.get());
    const bool stripe = point.drives.layout == "stripe";
    std::uint64_t slot_bytes = 0;
    const int layers = ctx.card.moe_layers(), experts = ctx.card.moe.experts, k = ctx.card.moe.active;
    for (int l = 0; l < layers; ++l) {
      for (int e = 0; e < experts; ++e) slot_bytes = std::max(slot_bytes, plan_expert_read(tables, stripe, l, e).span);
    }
    // The cache is what the budget leaves once everything else is resident
    // (engines/cache/memory_plan.h).
    auto make_cache = [&](Executor& ex) -> Expected<std::size_t> {
      ex.prepare(point.context_tokens, point.prompt_tokens + point.gen_tokens, ctx.seed);
      StreamingPlanInput in;
      in.resident_bytes = current_rss_bytes();  // measured before anything else allocates
      in.budget_bytes = point.ram_budget_bytes;
      in.usable_bytes = point.ram_budget_bytes ? 0 : usable_memory_bytes();
      in.slot_bytes = slot_bytes;
      in.moe_layers = layers;
      in.experts = experts;
      in.k = k;
      const StreamingPlan plan = plan_streaming(in);
      const std::uint64_t resident = in.resident_bytes;
      if (!plan.fits && point.ram_budget_bytes) {
        const std::uint64_t budget = *point.ram_budget_bytes;
        m.status = RowStatus::kInfeasible;
        m.min_budget_bytes = plan.min_budget_bytes;
        m.reason = "budget " + format_bytes(static_cast<double>(budget)) + " leaves room for " + std::to_string(plan.slots) +
                   " expert slots but one layer's top-" + std::to_string(k) + " needs " + std::to_string(k) +
                   ": minimum budget " + format_bytes(static_cast<double>(plan.min_budget_bytes)) + " (resident " +
                   format_bytes(static_cast<double>(resident)) + " incl. trunk and KV/state, margin 24 MiB + 1 % of "
                   "the budget, " + std::to_string(k) + " x " +
                   format_bytes(static_cast<double>(slot_bytes)) + ")";
        return std::size_t{0};
      }
      if (!plan.fits) {
        m.status = RowStatus::kInfeasible;
        m.reason = "usable memory " + format_bytes(static_cast<double>(in.usable_bytes)) + " holds fewer than " +
                   std::to_string(k) + " expert slots beside the resident " + format_bytes(static_cast<double>(resident));
        return std::size_t{0};
      }
      return static_cast<std::size_t>(plan.slots);
    };

    // A placeholder source lets the executor be built (and its KV/state
    // allocated) before the cache is sized from what is then resident.
    struct NoExperts final : ExpertSource {
      Status layer_routed(int, const std::vector<int>&) override { return Status::success(); }
      Expected<ExpertWeights> acquire(int, int) override { return make_error("no expert source"); }
    } none;
    auto sizing = std::make_unique<Executor>(ctx.card, *trunk_, none, **routing, ops);
    auto slots = make_cache(*sizing);
    if (!slots) return slots.error();
    if (m.status != RowStatus::kOk) return m;
    sizing.reset();  // its KV/state is allocated again by the executor that runs
    auto cache = ExpertCache::create(*slots, (slot_bytes + 4095) / 4096 * 4096, *parse_cache_policy(point.cache_policy));
    if (!cache) return cache.error();
    IoOptions io_opt;
    io_opt.paths = paths_;
    io_opt.throttle_bytes_s = point.drives.throttle_bytes_s;
    io_opt.queue_depth = qd_;
    io_opt.backend = backend_;
    io_opt.buffers = {{cache->arena().data(), static_cast<std::size_t>(cache->arena().size())}};
    io_opt.fault = fault_;
    auto io = ExpertIo::open(io_opt);
    if (!io) return io.error();
    StreamingSource source(tables, stripe, *cache, **io, point.prefetch, layers,
                           source_seed(ctx.seed, ctx.repetition));
    Executor ex(ctx.card, *trunk_, source, **routing, ops);
    ex.prepare(point.context_tokens, point.prompt_tokens + point.gen_tokens, ctx.seed);
    ExpertIo& io_ref = **io;
    ops.set_poll([&io_ref] { io_ref.flush(); });  // reap completions while matrices compute
    auto counters = [&] {
      EngineCounters c;
      c.read_bytes = (*io)->counters().bytes;
      c.hits = source.counts().hits;
      c.misses = source.counts().misses;
      c.misses_hidden = source.counts().misses_hidden;
      c.io_wait_s = source.io_wait_s;
      c.io_busy_s = (*io)->counters().busy_s;
      return c;
    };
    Status st = run_tokens(ex, point, ctx, chunk_, counters, m);
    (*io)->drain();
    if (!st) return st.error();
    m.peak_rss_bytes = peak_rss_bytes();
    if (m.io_busy_s_decode > 0) {
      m.notes.push_back("decode reads: " + format_rate(static_cast<double>(m.read_bytes_decode) / m.io_busy_s_decode) +
                        " while reads were outstanding (" + format_fixed(100 * m.io_busy_s_decode /
                        std::max(1e-9, m.token_times_s.back() - m.token_times_s.front()), 0) + " % of decode)");
    }
    m.notes.push_back("cache " + std::to_string(*slots) + " slots x " + format_bytes(static_cast<double>(cache->slot_bytes())) +
                      " (" + point.cache_policy + "), " + std::to_string(cache->evictions()) + " evictions; I/O " +
                      (*io)->backend() + ", qd " + std::to_string(qd_) + (packed_ ? ", packed records" : ", split tensors"));
    m.notes.push_back("routing " + (*routing)->describe() + ", " + std::to_string(threads) + " threads, kernels " +
                      to_string(best_simd_level()));
    return m;
  }

 private:
  Status set_up(const Point& point, RunContext& ctx, Measurement& m) {
    // make=0: the container must already be on every drive.
    auto made = make_ ? ensure_container(point, ctx, packed_) : existing_container(point, ctx, packed_);
    if (!made) return made.error();
    ContainerUse use = std::move(*made);
    if (use.make_s > 0) m.notes.push_back("container made in " + format_duration_s(use.make_s) + " (not in load_s)");
    container_notes_ = container_notes(use);
    // Open every drive's file; replicas must agree on identity and checksums.
    for (const ContainerFile& f : use.files) {
      auto g = read_gguf(f.path);
      if (!g) return g.error();
      // A reused file's tensor table must be the card's before anything binds to it.
      if (Status st = check_tensor_table(*g, use.spec, ContainerPart::kExperts, f.drive); !st) {
        if (f.drive == 0) return st;
        return make_error((point.drives.layout == "stripe" ? "stripe part on drive " : "replica on drive ") +
                          std::to_string(f.drive) + ": " + st.error().message);
      }
      auto t = expert_table(ctx.card, *g);
      if (!t) return t.error();
      if (!ggufs_.empty()) {
        const GgufFile& first = *ggufs_[0];
        const bool stripe = point.drives.layout == "stripe";
        if (!stripe && (g->get_string("moebench.identity") != first.get_string("moebench.identity") ||
                        g->get_string("moebench.checksums") != first.get_string("moebench.checksums") ||
                        g->get_string("moebench.expert_checksums") != first.get_string("moebench.expert_checksums"))) {
          return make_error("replica on drive " + std::to_string(f.drive) + " (" + f.path + ") differs from drive 0's (" +
                            first.label + "): identity or checksums disagree; remake it with `moebench container make`");
        }
        if (stripe && (g->get_string("moebench.seed") != first.get_string("moebench.seed") ||
                       g->get_uint("moebench.drive_index") != std::optional<std::uint64_t>(static_cast<std::uint64_t>(f.drive)))) {
          return make_error("stripe part on drive " + std::to_string(f.drive) + " (" + f.path +
                            ") does not belong to this container (drive index or seed)");
        }
      }
      paths_.push_back(f.path);
      ggufs_.push_back(std::make_unique<GgufFile>(std::move(*g)));
      tables_.push_back(std::make_unique<ExpertTable>(std::move(*t)));
    }
    // Trunk: every tensor of the trunk file (drive 0), which every expert
    // file must pair with.
    std::vector<const GgufFile*> experts;
    for (const auto& g : ggufs_) experts.push_back(g.get());
    auto trunk_file = open_trunk(use, experts);
    if (!trunk_file) return trunk_file.error();
    trunk_gguf_ = std::make_unique<GgufFile>(std::move(*trunk_file));
    const GgufFile& g0 = *trunk_gguf_;
    std::uint64_t trunk_end = 0;
    for (const GgufTensorInfo& t : g0.tensors) trunk_end = std::max(trunk_end, g0.data_offset + t.offset + t.bytes);
    ctx.progress.phase("loading trunk", -1);
    auto r = load_range(g0.label, g0.data_offset, trunk_end, false);
    if (!r) return r.error();
    m.load_s = r->load_s;
    method_ = r->method + ", " + format_bytes(static_cast<double>(r->bytes_read));
    range_ = std::make_unique<LoadedRange>(std::move(*r));
    auto trunk = bind_trunk(ctx.card, g0, *range_);
    if (!trunk) return trunk.error();
    trunk_ = std::make_unique<TrunkWeights>(std::move(*trunk));
    return Status::success();
  }

  EngineSpec spec_;
  bool packed_ = false, make_ = true;
  int qd_ = 32;
  std::size_t chunk_ = 32;
  IoBackend backend_ = IoBackend::kAuto;
  FaultPlan fault_;
  std::string setup_key_, method_;
  std::vector<std::string> container_notes_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<GgufFile>> ggufs_;
  std::vector<std::unique_ptr<ExpertTable>> tables_;
  std::unique_ptr<GgufFile> trunk_gguf_;
  std::unique_ptr<LoadedRange> range_;
  std::unique_ptr<TrunkWeights> trunk_;
};

}  // namespace

const OptionTable& streaming_engine_options() {
  static const OptionTable kTable = {
      {"packed", OptionKind::kFlag, "0", "container layout: one record per expert", 0, 0, {}, {}},
      {"make", OptionKind::kFlag, "1", "make the container if missing", 0, 0, {}, {}},
      {"qd", OptionKind::kCount, "32", "reads in flight", 1, 1024, {}, {}},
      {"io", OptionKind::kChoice, "auto", "read path", 0, 0, {"auto", "io_uring", "pread"}, {}},
      {"chunk", OptionKind::kCount, "32", "prefill chunk, tokens", 1, 4096, {}, {}},
      {"fault", OptionKind::kText, "", "fault injection: eio@N or short@N", 0, 0, {},
       [](const std::string& v) -> std::string {
         auto f = parse_fault_plan(v);
         return f ? "" : f.error().message;
       }},
  };
  return kTable;
}

std::unique_ptr<Engine> make_streaming_engine(const EngineSpec& spec) { return std::make_unique<StreamingEngine>(spec); }

}  // namespace moebench
