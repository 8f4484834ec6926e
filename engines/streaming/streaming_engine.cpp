// streaming_engine.cpp — see streaming_engine.h.
#include "engines/streaming/streaming_engine.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <thread>

#include "engines/cache/expert_cache.h"
#include "engines/cache/hot_set.h"
#include "engines/cache/memory_plan.h"
#include "engines/cache/optimal_cache.h"
#include "engines/container/container_plan.h"
#include "engines/executor/executor.h"
#include "engines/executor/model_loader.h"
#include "engines/executor/run_support.h"
#include "engines/executor/thread_pool.h"
#include "engines/executor/weight_layout.h"
#include "engines/io/expert_io.h"
#include "engines/routing/routing.h"
#include "engines/streaming/streaming_source.h"
#include "engines/streaming/trunk_stream.h"
#include "vocab/file_io.h"
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
    read_log_ = o.text("read_log");
    const std::string trunk = o.text("trunk");
    placement_ = trunk == "resident" ? TrunkPlacement::kResident : trunk == "stream" ? TrunkPlacement::kStream : TrunkPlacement::kAuto;
    if (auto sp = parse_split_policy(o.text("split"))) split_ = *sp;
  }
  std::string_view name() const override { return "streaming"; }
  void release() override {
    pinned_range_.reset();
    pinned_il_.reset();
    pinned_loaded_ = 0;
    head_range_.reset();
    head_il_.reset();
    layout_ = {};
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
    const TensorOps::DotMode dot_mode = *TensorOps::parse_dot_mode(EngineOptions(streaming_engine_options(), spec_).text("kernels"));  // a choice option: always valid
    ops.set_dot_mode(dot_mode);

    std::vector<const ExpertTable*> tables;
    for (const auto& t : tables_) tables.push_back(t.get());
    const bool stripe = point.drives.layout == "stripe";
    const std::uint64_t slot_bytes = slot_bytes_of(ctx.card, tables, stripe);
    auto planned = plan_memory(point, ctx, ops, **routing, slot_bytes, m);
    if (!planned) return planned.error();
    const TrunkPlan plan = *planned;
    if (!plan.fits) return m;
    if (Status st = pin_layers(plan, ctx, m); !st) return st.error();
    const int total_layers = static_cast<int>(layout_.layers.size());
    const int streamed = total_layers - plan.pinned_layers;
    auto staged = allocate_staging(plan, streamed);
    if (!staged) return staged.error();
    HugeArena& staging = staged->arena;
    const std::array<std::uint8_t*, 2> bufs = staged->bufs;
    const int nbuf = staged->nbuf;
    const std::uint64_t buf_bytes = staged->buf_bytes;
    auto views0 = bind_views(ctx.card, pinned_loaded_, streamed > 0 ? bufs[0] : nullptr);
    if (!views0) return views0.error();
    auto views1 = bind_views(ctx.card, pinned_loaded_, streamed > 0 ? bufs[1] : nullptr);
    if (!views1) return views1.error();
    if (dot_mode != TensorOps::DotMode::kFloat) {
      if (Status st = interleave_resident(*views0, *views1, m); !st) return st.error();
    }

    auto cache = ExpertCache::create(static_cast<std::size_t>(plan.slots), slot_bytes, *parse_cache_policy(point.cache_policy));
    if (!cache) return cache.error();
    auto io = open_io(point, *cache, streamed > 0 ? &staging : nullptr);
    if (!io) return io.error();
    StreamingSource source(tables, stripe, *cache, **io, point.prefetch, ctx.card.moe_layers(),
                           source_seed(ctx.seed, ctx.repetition));
    if (Status st = hold_hot_set(point, ctx, shape, plan.slots, source, m); !st) return st.error();
    TrunkStreamer streamer(**io, 0, layout_, pinned_loaded_, bufs, {&*views0, &*views1});
    Executor ex(ctx.card, *views0, source, **routing, ops, streamed > 0 ? &streamer : nullptr);
    ex.prepare(point.context_tokens, point.prompt_tokens + point.gen_tokens, ctx.seed);
    ExpertIo& io_ref = **io;
    ops.set_poll([&io_ref] { io_ref.flush(); });  // reap completions while matrices compute
    // run_tokens reads the counters before the prompt, at the first decode
    // step and after the last: the recorded reads between the second and the
    // third are the decode's (the record is cleared at the second, so only
    // the decode's reads are held). A run that stops before its decode takes
    // fewer readings and writes no log.
    std::vector<std::size_t> read_marks;
    auto counters = [&] {
      if (read_marks.size() == 1) io_ref.clear_recorded();
      read_marks.push_back(io_ref.recorded().size());
      EngineCounters c;
      c.read_bytes = io_ref.counters().bytes;
      c.hits = source.counts().hits;
      c.misses = source.counts().misses;
      c.misses_hidden = source.counts().misses_hidden;
      c.io_wait_s = source.io_wait_s + streamer.io_wait_s;
      c.io_busy_s = io_ref.counters().busy_s;
      c.trunk_read_bytes = streamer.bytes_read();
      return c;
    };
    const std::uint64_t trunk_before_prefill = streamer.bytes_read();
    Status st = run_tokens(ex, point, ctx, chunk_, counters, m);
    io_ref.drain();
    if (!st) return st.error();
    if (Status w = write_read_log(io_ref, read_marks, m); !w) return w.error();
    m.peak_rss_bytes = peak_rss_bytes();
    m.trunk_pinned_bytes = plan.pinned_bytes;
    m.cache_slots = static_cast<std::uint64_t>(plan.slots);
    if (m.io_busy_s_decode > 0) m.notes.push_back(decode_reads_note(m));
    const std::uint64_t prefill_trunk_read =
        streamer.bytes_read() - trunk_before_prefill - m.trunk_read_bytes_decode.value_or(0);
    m.notes.push_back(split_note(plan, total_layers, nbuf, buf_bytes, prefill_trunk_read));
    optimal_decode_hits(source, plan.slots, point, ctx.card, m);
    m.notes.push_back("cache " + std::to_string(plan.slots) + " slots x " + format_bytes(static_cast<double>(cache->slot_bytes())) +
                      " (" + point.cache_policy + "), " + std::to_string(cache->evictions()) + " evictions; I/O " +
                      io_ref.backend() + ", qd " + std::to_string(qd_) + (packed_ ? ", packed records" : ", split tensors"));
    m.notes.push_back("routing " + (*routing)->describe() + ", " + std::to_string(threads) + " threads, kernels " +
                      simd_description() + ": " + ops.kernel_description());
    return m;
  }

 private:
  // A cache slot: the largest aligned footprint of any expert.
  static std::uint64_t slot_bytes_of(const ModelCard& card, const std::vector<const ExpertTable*>& tables, bool stripe) {
    std::uint64_t slot = 0;
    for (int l = 0; l < card.moe_layers(); ++l) {
      for (int e = 0; e < card.moe.experts; ++e) slot = std::max(slot, plan_expert_read(tables, stripe, l, e).span);
    }
    return (slot + 4095) / 4096 * 4096;
  }

  // The memory plan (engines/cache/memory_plan.h) from what is resident once
  // an executor exists (head tensors, KV/state, the process) less the pinned
  // layers a previous run left loaded. A plan that does not fit marks the
  // row infeasible with its minimum budget and why.
  Expected<TrunkPlan> plan_memory(const Point& point, RunContext& ctx, TensorOps& ops, RoutingGenerator& routing,
                                  std::uint64_t slot_bytes, Measurement& m) {
    // A placeholder source lets the executor be built (and its KV/state
    // allocated) before the split is planned from what is then resident.
    struct NoExperts final : ExpertSource {
      Status layer_routed(int, const std::vector<int>&) override { return Status::success(); }
      Expected<ExpertWeights> acquire(int, int) override { return make_error("no expert source"); }
    } none;
    auto sizing_trunk = bind_views(ctx.card, pinned_loaded_, nullptr);
    if (!sizing_trunk) return sizing_trunk.error();
    Executor sizing(ctx.card, *sizing_trunk, none, routing, ops);
    sizing.prepare(point.context_tokens, point.prompt_tokens + point.gen_tokens, ctx.seed);
    TrunkPlanInput in;
    const std::uint64_t rss = current_rss_bytes();
    const std::uint64_t held = pinned_range_ ? pinned_range_->arena.size() : 0;
    in.fixed_bytes = rss > held ? rss - held : 0;
    in.budget_bytes = point.ram_budget_bytes;
    in.usable_bytes = point.ram_budget_bytes ? 0 : usable_memory_bytes() + held;
    for (const FileSpan& sp : layout_.layers) in.layer_bytes.push_back(sp.bytes);
    in.slot_bytes = slot_bytes;
    in.moe_layers = ctx.card.moe_layers();
    in.experts = ctx.card.moe.experts;
    in.k = ctx.card.moe.active;
    in.placement = placement_;
    in.split = split_;
    const TrunkPlan plan = plan_trunk_split(in);
    if (!plan.fits) {
      m.status = RowStatus::kInfeasible;
      if (point.ram_budget_bytes) m.min_budget_bytes = plan.min_budget_bytes;
      m.reason = infeasible_reason(plan, in, point, slot_bytes);
    }
    return plan;
  }

  // Why no expert cache fits: the budget's minimum and what it holds, or
  // usable memory's shortfall.
  std::string infeasible_reason(const TrunkPlan& plan, const TrunkPlanInput& in, const Point& point,
                                std::uint64_t slot_bytes) const {
    const int k = in.k;
    const std::string fixed = format_bytes(static_cast<double>(in.fixed_bytes));
    const std::string trunk_how =
        placement_ == TrunkPlacement::kResident
            ? "the whole per-layer trunk pinned (trunk=resident), " + format_bytes(static_cast<double>(plan.pinned_bytes))
            : "the per-layer trunk streamed through " + format_bytes(static_cast<double>(plan.buffer_bytes)) +
                  " of staging buffers" + (plan.pinned_layers ? " beside " + std::to_string(plan.pinned_layers) + " pinned layers" : "");
    if (!point.ram_budget_bytes) {
      return "usable memory " + format_bytes(static_cast<double>(in.usable_bytes)) + " holds fewer than " +
             std::to_string(k) + " expert slots beside the resident " + fixed + " and " + trunk_how;
    }
    return "budget " + format_bytes(static_cast<double>(*point.ram_budget_bytes)) + " leaves room for " +
           std::to_string(plan.slots) + " expert slots but one layer's top-" + std::to_string(k) + " needs " +
           std::to_string(k) + ": minimum budget " + format_bytes(static_cast<double>(plan.min_budget_bytes)) +
           " (resident " + fixed + " incl. embedding, lm_head and KV/state; " + trunk_how +
           "; margin 24 MiB + 1 % of the budget; " + std::to_string(k) + " x " +
           format_bytes(static_cast<double>(slot_bytes)) + ")";
  }

  // Pin the planned prefix of layers (reused while the plan keeps it).
  Status pin_layers(const TrunkPlan& plan, RunContext& ctx, Measurement& m) {
    if (plan.pinned_layers == pinned_loaded_) return Status::success();
    pinned_range_.reset();
    pinned_il_.reset();  // a new range: nothing in it is rewritten yet
    pinned_loaded_ = 0;
    if (plan.pinned_layers > 0) {
      ctx.progress.phase("loading pinned trunk layers", -1);
      auto r = load_range(trunk_gguf_->label, layout_.layers[0].offset,
                          layout_.layers[static_cast<std::size_t>(plan.pinned_layers) - 1].end(), false);
      if (!r) return r.error();
      m.load_s += r->load_s;
      m.load_reused = false;
      pinned_range_ = std::make_unique<LoadedRange>(std::move(*r));
    }
    pinned_loaded_ = plan.pinned_layers;
    return Status::success();
  }

  // The integer kernels' 8-row layout for what stays in RAM: the output
  // head (once per head load) and the pinned layers (once per pin); views1
  // aliases views0 there and is only marked. Streamed layers arrive in the
  // row layout every token and are computed as they are.
  Status interleave_resident(TrunkWeights& views0, TrunkWeights& views1, Measurement& m) {
    if (!head_il_) head_il_ = std::make_unique<Rows8Interleaver>();
    if (!pinned_il_) pinned_il_ = std::make_unique<Rows8Interleaver>();
    const double before_s = head_il_->seconds() + pinned_il_->seconds();
    for (TrunkWeights* v : {&views0, &views1}) {
      if (Status st = head_il_->apply_trunk(*v, true, 0); !st) return st;
      if (Status st = pinned_il_->apply_trunk(*v, false, pinned_loaded_); !st) return st;
    }
    m.load_s += head_il_->seconds() + pinned_il_->seconds() - before_s;  // what this run rewrote
    const std::uint64_t n = head_il_->matrices() + pinned_il_->matrices();
    if (n > 0) {
      m.notes.push_back("trunk: " + std::to_string(n) + " q4_0/q8_0/mxfp4/q4_k matrices of the head and pinned layers "
                        "rewritten into 8-row groups at load (" +
                        format_bytes(static_cast<double>(head_il_->bytes() + pinned_il_->bytes())) + ")");
    }
    return Status::success();
  }

  // The reads' engine over the drives: the cache's arena and the staging
  // buffers registered, the trunk file beside drive 0's experts.
  Expected<std::unique_ptr<ExpertIo>> open_io(const Point& point, ExpertCache& cache, HugeArena* staging) const {
    IoOptions io_opt;
    io_opt.paths = paths_;
    io_opt.throttle_bytes_s = point.drives.throttle_bytes_s;
    io_opt.queue_depth = qd_;
    io_opt.backend = backend_;
    io_opt.buffers = {{cache.arena().data(), static_cast<std::size_t>(cache.arena().size())}};
    if (staging != nullptr) {
      io_opt.buffers.push_back({staging->data(), static_cast<std::size_t>(staging->size())});
      io_opt.side_files.push_back({0, trunk_gguf_->label});  // the trunk lives on drive 0
    }
    io_opt.fault = fault_;
    io_opt.record_reads = !read_log_.empty();
    return ExpertIo::open(io_opt);
  }

  // read_log: the decode's reads (between the second and third counter
  // readings) as a fio iolog.
  Status write_read_log(ExpertIo& io, const std::vector<std::size_t>& marks, Measurement& m) const {
    if (read_log_.empty() || marks.size() != 3) return Status::success();
    auto log = fio_read_iolog(io.file_paths(), io.recorded(), marks[1], marks[2]);
    if (!log) return make_error("streaming: read_log " + read_log_ + ": " + log.error().message);
    if (Status w = write_file_atomic(read_log_, *log); !w) return make_error("streaming: read_log " + read_log_ + ": " + w.error().message);
    m.notes.push_back("decode reads written as a fio iolog: " + read_log_ + " (" + std::to_string(marks[2] - marks[1]) + " reads)");
    return Status::success();
  }

  // Staging for the streamed layers: one buffer, or two (double
  // buffering) when two or more layers stream; none when all are pinned.
  struct Staging {
    HugeArena arena;
    std::array<std::uint8_t*, 2> bufs{};
    int nbuf = 1;
    std::uint64_t buf_bytes = 0;
  };
  static Expected<Staging> allocate_staging(const TrunkPlan& plan, int streamed) {
    Staging st;
    st.nbuf = streamed >= 2 ? 2 : 1;
    st.buf_bytes = streamed > 0 ? plan.buffer_bytes / static_cast<std::uint64_t>(st.nbuf) : 0;
    if (streamed > 0) {
      auto a = HugeArena::allocate(plan.buffer_bytes);
      if (!a) return a.error();
      st.arena = std::move(*a);
    }
    st.bufs = {st.arena.data(), streamed >= 2 ? st.arena.data() + st.buf_bytes : st.arena.data()};
    return st;
  }

  // How fast the decode's reads ran while any was outstanding, and for what
  // share of the decode.
  static std::string decode_reads_note(const Measurement& m) {
    return "decode reads: " + format_rate(static_cast<double>(m.read_bytes_decode) / m.io_busy_s_decode) +
           " while reads were outstanding (" +
           format_fixed(100 * m.io_busy_s_decode / std::max(1e-9, m.token_times_s.back() - m.token_times_s.front()), 0) +
           " % of decode)";
  }

  // The trunk split as run: pinned layers, and the streamed ones with
  // their bytes per token, staging buffers and what the prefill read.
  std::string split_note(const TrunkPlan& plan, int total_layers, int nbuf, std::uint64_t buf_bytes,
                         std::uint64_t prefill_trunk_read) const {
    const int streamed = total_layers - plan.pinned_layers;
    std::string t = "trunk split " + split_.to_string() + " (trunk=" + to_string(placement_) + "): " +
                    std::to_string(pinned_loaded_) + " of " + std::to_string(total_layers) + " layers pinned (" +
                    format_bytes(static_cast<double>(plan.pinned_bytes)) + ")";
    if (streamed <= 0) return t;
    return t + ", " + std::to_string(streamed) + " streamed every token (" +
           format_bytes(static_cast<double>(plan.streamed_bytes_per_token)) + " per token through " +
           std::to_string(nbuf) + " staging buffer" + (nbuf > 1 ? "s" : "") + " of " +
           format_bytes(static_cast<double>(buf_bytes)) + "; prefill read " +
           format_bytes(static_cast<double>(prefill_trunk_read)) + " of trunk)";
  }

  // Belady's hits over the decode window (the trace's last (gen − 1)
  // forward passes, one routed step per MoE layer each), where the window
  // is the one the cache counted.
  static void optimal_decode_hits(const StreamingSource& source, std::size_t slots, const Point& point,
                                  const ModelCard& card, Measurement& m) {
    const std::size_t steps = source.trace().steps();
    const std::size_t decode_steps = static_cast<std::size_t>(std::max<std::int64_t>(0, point.gen_tokens - 1)) *
                                     static_cast<std::size_t>(card.moe_layers());
    if (decode_steps == 0 || decode_steps > steps) return;
    const OptimalCounts opt = optimal_hits(source.trace(), slots, steps - decode_steps, steps);
    if (opt.needs == m.expert_hits_decode + m.expert_misses_decode) m.expert_hits_optimal_decode = opt.hits;
  }

  // hot_set (engines/cache/hot_set.h): the learned experts loaded and pinned
  // before the first token; their reads are load time, not the run's.
  static Status hold_hot_set(const Point& point, RunContext& ctx, const RoutingShape& shape, std::size_t slots,
                             StreamingSource& source, Measurement& m) {
    auto spec = parse_hot_set(point.hot_set);
    if (!spec) return spec.error();
    if (spec->off()) return Status::success();
    auto set = learn_hot_set(*spec, point.routing, shape, routing_seed(ctx.seed, ctx.repetition),
                             point.prompt_tokens + point.gen_tokens, slots);
    if (!set) return set.error();
    ctx.progress.phase("loading the hot set", -1);
    const double t0 = ctx.clock.now_s();
    auto held = source.hold(set->experts);
    if (!held) return held.error();
    m.load_s += ctx.clock.now_s() - t0;
    m.notes.push_back(set->describe());
    return Status::success();
  }

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
    auto layout = trunk_layout(ctx.card, g0);
    if (!layout) return layout.error();
    layout_ = std::move(*layout);
    // The model-level tensors (embedding, lm_head, final norm) stay
    // resident; which layers are pinned is planned per run.
    ctx.progress.phase("loading trunk head", -1);
    auto r = load_range(g0.label, layout_.head.offset, layout_.head.end(), false);
    if (!r) return r.error();
    m.load_s = r->load_s;
    method_ = r->method + ", " + format_bytes(static_cast<double>(r->bytes_read)) + " of embedding, lm_head and final norm";
    head_range_ = std::make_unique<LoadedRange>(std::move(*r));
    return Status::success();
  }

  EngineSpec spec_;
  bool packed_ = false, make_ = true;
  int qd_ = 32;
  std::size_t chunk_ = 32;
  IoBackend backend_ = IoBackend::kAuto;
  FaultPlan fault_;
  std::string read_log_;  // where the decode's reads go as a fio iolog ("" none)
  std::string setup_key_, method_;
  std::vector<std::string> container_notes_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<GgufFile>> ggufs_;
  std::vector<std::unique_ptr<ExpertTable>> tables_;
  std::unique_ptr<GgufFile> trunk_gguf_;
  TrunkLayout layout_;
  std::unique_ptr<LoadedRange> head_range_;    // embedding, lm_head, final norm
  std::unique_ptr<LoadedRange> pinned_range_;  // layers 0..pinned_loaded_-1
  int pinned_loaded_ = 0;
  // What was rewritten into the 8-row layout, per loaded range.
  std::unique_ptr<Rows8Interleaver> head_il_, pinned_il_;
  TrunkPlacement placement_ = TrunkPlacement::kAuto;
  TrunkSplitPolicy split_;

  // The trunk with model-level tensors in the head range, layers below
  // `pinned` in the pinned range and the others in `buffer` (a staging
  // buffer; nullptr: a placeholder address, for an executor that only sizes
  // its KV/state and never reads those layers).
  Expected<TrunkWeights> bind_views(const ModelCard& card, int pinned, std::uint8_t* buffer) const {
    const GgufFile& g = *trunk_gguf_;
    return bind_trunk(card, g, [&](const std::string& name) -> Expected<TensorView> {
      const int l = trunk_tensor_layer(name);
      if (l < 0) return tensor_view(g, *head_range_, name);
      if (l < pinned) return tensor_view(g, *pinned_range_, name);
      const GgufTensorInfo* t = g.tensor(name);
      if (!t) return make_error(g.label + ": no tensor " + name + " (container made for another card?)");
      auto f = format_of(*t);
      if (!f) return f.error();
      const std::uint64_t at = g.data_offset + t->offset - layout_.layers[static_cast<std::size_t>(l)].offset;
      TensorView v;
      v.data = buffer ? buffer + at : head_range_->arena.data();
      v.format = *f;
      v.row_len = t->ne.empty() ? 1 : t->ne[0];
      v.rows = t->ne.size() < 2 ? 1 : t->elements() / v.row_len;
      return v;
    });
  }
};

}  // namespace

const OptionTable& streaming_engine_options() {
  static const OptionTable kTable = {
      {"packed", OptionKind::kFlag, "0", "container layout: one record per expert", 0, 0, {}, {}},
      {"make", OptionKind::kFlag, "1", "make the container if missing", 0, 0, {}, {}},
      {"qd", OptionKind::kCount, "32", "reads in flight", 1, 1024, {}, {}},
      {"io", OptionKind::kChoice, "auto", "read path", 0, 0, {"auto", "io_uring", "pread"}, {}},
      {"chunk", OptionKind::kCount, "32", "prefill chunk, tokens", 1, 4096, {}, {}},
      {"kernels", OptionKind::kChoice, "auto",
       "int8: integer-dot kernels with 8-bit activations where the format has one (as llama.cpp); q4_0/q8_0/mxfp4/q4_k "
       "experts stored in 8-row groups (a .rows8 container), head and pinned trunk rewritten so at load; float: "
       "dequantize to float for every format, row layout; auto: as int8, except row-layout matrices (streamed "
       "trunk layers) on the integer kernels only where they measured faster (q4_0/q8_0/q4_k at <= 4 rows; 2-4 "
       "with AVX-512)", 0, 0, {"auto", "int8", "float"}, {}},
      {"trunk", OptionKind::kChoice, "auto",
       "per-layer trunk: auto (the split decides what is pinned, the rest is read every token), resident (all "
       "pinned), stream (none pinned)", 0, 0, {"auto", "resident", "stream"}, {}},
      {"split", OptionKind::kText, "trunk-first",
       "with trunk=auto, how the budget left after fixed memory is split: trunk-first, experts-first, or F in "
       "(0,1), the share for pinned trunk", 0, 0, {},
       [](const std::string& v) -> std::string {
         return parse_split_policy(v) ? "" : "expected trunk-first, experts-first or a number strictly between 0 and 1, got \"" + v + "\"";
       }},
      {"read_log", OptionKind::kText, "",
       "write the decode's reads (file, offset, length, in order) as a fio iolog to this path, for fio --read_iolog to "
       "replay the same reads (bench-engines line 1'); meant for short runs: each decode read is held (24 bytes) until "
       "the run ends", 0, 0, {},
       [](const std::string& v) -> std::string { return v.empty() ? "a path to write the iolog to" : ""; }},
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
