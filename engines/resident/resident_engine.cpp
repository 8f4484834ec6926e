// resident_engine.cpp — see resident_engine.h.
#include "engines/resident/resident_engine.h"

#include <algorithm>

#include "engines/cache/memory_plan.h"
#include "engines/container/container_plan.h"
#include "engines/executor/executor.h"
#include "engines/executor/model_loader.h"
#include "engines/executor/run_support.h"
#include "engines/executor/thread_pool.h"
#include "engines/executor/weight_layout.h"
#include "engines/routing/routing.h"
#include "vocab/units.h"

namespace moebench {
namespace {

// Experts straight from the loaded files: always a hit, never a read.
class ResidentSource final : public ExpertSource {
 public:
  struct File {
    const LoadedRange* range;
    const ExpertTable* table;
    bool rows8;  // eligible matrices were rewritten at load (weight_layout.h)
  };
  explicit ResidentSource(std::vector<File> files, int drives, bool stripe)
      : files_(std::move(files)), drives_(drives), stripe_(stripe) {}
  Status layer_routed(int, const std::vector<int>&) override { return Status::success(); }
  Expected<ExpertWeights> acquire(int layer, int expert) override {
    const File& f = files_[stripe_ ? static_cast<std::size_t>(expert % drives_) : 0];
    const std::size_t i = static_cast<std::size_t>(layer) * static_cast<std::size_t>(f.table->experts) +
                          static_cast<std::size_t>(expert);
    if (i >= f.table->present.size() || !f.table->present[i]) {
      return make_error("expert " + std::to_string(expert) + " of MoE layer " + std::to_string(layer) +
                        " is not in the container");
    }
    const ExpertLocation& L = f.table->loc[i];
    ExpertWeights w;
    TensorView* views[3] = {&w.gate, &w.up, &w.down};
    for (int m = 0; m < 3; ++m) {
      views[m]->data = f.range->arena.data() + (L.offset[m] - f.range->file_offset);
      views[m]->format = L.format;
      views[m]->rows = L.rows[m];
      views[m]->row_len = L.row_len[m];
      views[m]->rows8 = (f.rows8 || f.table->rows8) && rows8_eligible(*views[m]);
    }
    ++hits;
    return w;
  }
  std::uint64_t hits = 0;

 private:
  std::vector<File> files_;
  int drives_;
  bool stripe_;
};

class ResidentEngine final : public Engine {
 public:
  explicit ResidentEngine(EngineSpec spec) : spec_(std::move(spec)) {
    const EngineOptions o(resident_engine_options(), spec_);  // checked when the sweep loaded
    packed_ = o.flag("packed");
    mlock_ = o.flag("mlock");
    chunk_ = static_cast<std::size_t>(o.count("chunk"));
    dot_mode_ = *TensorOps::parse_dot_mode(o.text("kernels"));  // a choice option: always valid
  }
  std::string_view name() const override { return "resident"; }
  void release() override {
    loaded_.clear();
    tables_.clear();
    ggufs_.clear();
    trunk_.reset();
    trunk_range_.reset();
    trunk_gguf_.reset();
    container_notes_.clear();
    layout_note_.clear();
    rows8_ = false;
    setup_key_.clear();
  }

  Expected<Measurement> run(const Point& point, RunContext& ctx) override {
    Measurement m;
    m.budget_enforced = point.ram_budget_bytes.has_value();
    if (!reset_peak_rss()) {
      // Without a reset the peak includes earlier points: not a check of this budget.
      m.budget_enforced = false;
      m.notes.push_back("peak RSS could not be reset (/proc/self/clear_refs refused): it may include earlier points");
    }
    double load_s = 0;
    if (point.setup_key() + ":" + spec_.to_string() != setup_key_) {
      release();
      auto loaded = set_up(point, ctx, m);
      if (!loaded) return loaded.error();
      if (m.status == RowStatus::kInfeasible) return m;
      load_s = *loaded;
      setup_key_ = point.setup_key() + ":" + spec_.to_string();
    } else {
      m.load_reused = true;
    }
    m.load_s = load_s;
    m.notes.push_back("weights: " + method_);
    for (const std::string& n : container_notes_) m.notes.push_back(n);
    if (!layout_note_.empty()) m.notes.push_back(layout_note_);

    std::vector<ResidentSource::File> files;
    for (std::size_t i = 0; i < loaded_.size(); ++i) files.push_back({loaded_[i].get(), tables_[i].get(), rows8_});
    ResidentSource source(std::move(files), point.drives.count, point.drives.layout == "stripe");
    RoutingShape shape{ctx.card.moe_layers(), ctx.card.moe.experts, ctx.card.moe.active};
    auto routing = make_routing(point.routing, shape, routing_seed(ctx.seed, ctx.repetition));
    if (!routing) return routing.error();
    const int threads = point.threads > 0 ? point.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ThreadPool pool(threads);
    TensorOps ops(pool, best_simd_level());
    ops.set_dot_mode(dot_mode_);
    Executor ex(ctx.card, *trunk_, source, **routing, ops);
    ex.prepare(point.context_tokens, point.prompt_tokens + point.gen_tokens, ctx.seed);
    auto counters = [&] {
      EngineCounters c;
      c.hits = source.hits;
      return c;
    };
    if (Status st = run_tokens(ex, point, ctx, chunk_, counters, m); !st) return st.error();
    m.peak_rss_bytes = peak_rss_bytes();
    m.notes.push_back("routing " + (*routing)->describe() + ", " + std::to_string(threads) + " threads, kernels " +
                      simd_description() + ": " + ops.kernel_description());
    return m;
  }

 private:
  // Loads the point's container whole (one copy of replicas; every part of
  // a stripe; the trunk file beside them) where the plan says it fits, and
  // rewrites it for the integer kernels: the load's seconds. A plan that
  // does not fit marks the row infeasible and loads nothing.
  Expected<double> set_up(const Point& point, RunContext& ctx, Measurement& m) {
    auto use = ensure_container(point, ctx, packed_);
    if (!use) return use.error();
    if (use->make_s > 0) m.notes.push_back("container made in " + format_duration_s(use->make_s) + " (not in load_s)");
    if (point.drives.layout != "stripe") use->files.resize(1);
    if (!fits(point, ctx.card, *use, m)) return 0.0;
    double load_s = 0;
    for (const ContainerFile& f : use->files) {
      ctx.progress.phase("loading " + f.path, -1);
      auto g = read_gguf(f.path);
      if (!g) return g.error();
      // A reused file's tensor table must be the card's before anything binds to it.
      if (Status st = check_tensor_table(*g, use->spec, ContainerPart::kExperts, f.drive); !st) return st.error();
      auto r = load_range(f.path, 0, f.bytes, mlock_);
      if (!r) return r.error();
      load_s += r->load_s;
      method_ = r->method;
      auto t = expert_table(ctx.card, *g);
      if (!t) return t.error();
      ggufs_.push_back(std::make_unique<GgufFile>(std::move(*g)));
      loaded_.push_back(std::make_unique<LoadedRange>(std::move(*r)));
      tables_.push_back(std::make_unique<ExpertTable>(std::move(*t)));
    }
    std::vector<const GgufFile*> experts;
    for (const auto& g : ggufs_) experts.push_back(g.get());
    ctx.progress.phase("loading " + use->trunk.path, -1);
    auto trunk_file = open_trunk(*use, experts);
    if (!trunk_file) return trunk_file.error();
    auto tr = load_range(use->trunk.path, 0, use->trunk.bytes, mlock_);
    if (!tr) return tr.error();
    load_s += tr->load_s;
    trunk_gguf_ = std::make_unique<GgufFile>(std::move(*trunk_file));
    trunk_range_ = std::make_unique<LoadedRange>(std::move(*tr));
    auto trunk = bind_trunk(ctx.card, *trunk_gguf_, *trunk_range_);
    if (!trunk) return trunk.error();
    container_notes_ = container_notes(*use);
    trunk_ = std::make_unique<TrunkWeights>(std::move(*trunk));
    // The integer kernels' 8-row layout: the experts come so from their
    // .rows8 container (apply_experts skips them), the trunk is rewritten
    // once per load. The float kernels read the row layout: kernels=float
    // keeps it, from a row-layout container.
    rows8_ = dot_mode_ != TensorOps::DotMode::kFloat;
    if (rows8_) {
      ctx.progress.phase("rewriting q4_0/q8_0/mxfp4/q4_k matrices into 8-row groups", -1);
      Rows8Interleaver il;
      if (Status st = il.apply_trunk(*trunk_); !st) return st.error();
      for (std::size_t i = 0; i < loaded_.size(); ++i) {
        if (Status st = il.apply_experts(*tables_[i], *loaded_[i]); !st) return st.error();
      }
      load_s += il.seconds();
      if (il.matrices() > 0) layout_note_ = il.note();
    }
    return load_s;
  }

  // The resident plan: the files, KV/state and working memory within the
  // budget and usable memory; a row that does not fit says what it needs.
  static bool fits(const Point& point, const ModelCard& card, const ContainerUse& use, Measurement& m) {
    std::uint64_t file_bytes = use.trunk.bytes;
    for (const ContainerFile& f : use.files) file_bytes += f.bytes;
    const std::uint64_t state =
        card.cache_bytes(static_cast<std::uint64_t>(point.context_tokens + point.prompt_tokens + point.gen_tokens));
    ResidentPlanInput in;
    in.budget_bytes = point.ram_budget_bytes;
    in.usable_bytes = usable_memory_bytes();
    in.file_bytes = file_bytes;
    in.state_bytes = state;
    const ResidentPlan plan = plan_resident(in);
    if (plan.within_budget && plan.within_usable) return true;
    const std::string needs = format_bytes(static_cast<double>(plan.need_bytes)) + " (container " +
                              format_bytes(static_cast<double>(file_bytes)) + " + KV/state " +
                              format_bytes(static_cast<double>(state)) + " + working memory " +
                              format_bytes(static_cast<double>(plan.working_bytes)) + ")";
    m.status = RowStatus::kInfeasible;
    m.min_budget_bytes = plan.min_budget_bytes();  // past usable memory: more than this machine can hold
    m.reason = !plan.within_budget ? "the resident engine holds every weight: it needs " + needs + " but the budget is " +
                                         format_bytes(static_cast<double>(*point.ram_budget_bytes))
                                   : "the resident engine needs " + needs + " but usable memory is " +
                                         format_bytes(static_cast<double>(in.usable_bytes));
    return false;
  }

  EngineSpec spec_;
  bool packed_ = false, mlock_ = false, rows8_ = false;
  TensorOps::DotMode dot_mode_ = TensorOps::DotMode::kAuto;
  std::string layout_note_;
  std::size_t chunk_ = 32;
  std::string setup_key_, method_;
  std::vector<std::unique_ptr<GgufFile>> ggufs_;
  std::vector<std::unique_ptr<LoadedRange>> loaded_;
  std::vector<std::unique_ptr<ExpertTable>> tables_;
  std::unique_ptr<GgufFile> trunk_gguf_;
  std::unique_ptr<LoadedRange> trunk_range_;
  std::unique_ptr<TrunkWeights> trunk_;
  std::vector<std::string> container_notes_;
};

}  // namespace

const OptionTable& resident_engine_options() {
  static const OptionTable kTable = {
      {"packed", OptionKind::kFlag, "0", "container layout: one record per expert", 0, 0, {}, {}},
      {"mlock", OptionKind::kFlag, "0", "lock the weights in RAM", 0, 0, {}, {}},
      {"chunk", OptionKind::kCount, "32", "prefill chunk, tokens", 1, 4096, {}, {}},
      {"kernels", OptionKind::kChoice, "auto",
       "int8: integer-dot kernels with 8-bit activations where the format has one (as llama.cpp); q4_0/q8_0/mxfp4/q4_k "
       "experts stored in 8-row groups (the .rows8 container the streaming engine reads), trunk rewritten so at load; "
       "float: dequantize to float for every format, row layout; auto: "
       "as int8, except row-layout matrices on the integer kernels only where they measured faster (q4_0/q8_0/q4_k "
       "at <= 4 rows; 2-4 with AVX-512)", 0, 0, {"auto", "int8", "float"}, {}},
  };
  return kTable;
}

std::unique_ptr<Engine> make_resident_engine(const EngineSpec& spec) { return std::make_unique<ResidentEngine>(spec); }

}  // namespace moebench
