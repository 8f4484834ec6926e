// cost_model.cpp — see cost_model.h.
#include "model/cost_model.h"

#include "engines/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "model/hit_rate.h"
#include "model/setup_model.h"
#include "engines/cache/memory_plan.h"
#include "vocab/quant_format.h"
#include "vocab/card_tensors.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {

constexpr double kAlign = 4096;
// What the engines' process holds beside weights and KV when the streaming
// engine sizes its cache (binary, thread stacks, scratch vectors, I/O
// rings): 25 MiB (beside the KV/state) reproduces the slot counts of every streaming row of the
// quick sweep on the build machine (46-94 slots, two quants).
constexpr double kProcessOverheadBytes = 25.0 * 1048576;
double align_up(double v) { return std::ceil(v / kAlign) * kAlign; }

std::string gbps(double b) { return format_rate(b); }

// Read bandwidth from a curve: random reads; at each block size the point
// with the largest queue depth <= qd (else the smallest depth measured);
// between block sizes, interpolated on a log scale (clamped at the ends).
std::optional<double> curve_bw(const std::vector<DriveReadPoint>& curve, std::uint64_t block, int qd) {
  std::map<std::uint64_t, std::pair<int, double>> by_block;  // block -> (qd, bw)
  for (const DriveReadPoint& p : curve) {
    if (p.pattern != "random") continue;
    auto it = by_block.find(p.block_bytes);
    if (it == by_block.end()) {
      by_block[p.block_bytes] = {p.queue_depth, p.read_bytes_s.value};
      continue;
    }
    const int have = it->second.first;
    const bool better = p.queue_depth <= qd ? (have > qd || p.queue_depth > have) : (have > qd && p.queue_depth < have);
    if (better) it->second = {p.queue_depth, p.read_bytes_s.value};
  }
  if (by_block.empty()) return std::nullopt;
  if (block <= by_block.begin()->first) return by_block.begin()->second.second;
  if (block >= by_block.rbegin()->first) return by_block.rbegin()->second.second;
  auto hi = by_block.lower_bound(block);
  auto lo = std::prev(hi);
  const double x = (std::log(static_cast<double>(block)) - std::log(static_cast<double>(lo->first))) /
                   (std::log(static_cast<double>(hi->first)) - std::log(static_cast<double>(lo->first)));
  return lo->second.second + x * (hi->second.second - lo->second.second);
}

// Random reads of 1 MiB and more with several in flight run at the drive's
// sequential rate (sequential figures are measured at 128 KiB - 1 MiB blocks,
// deep queues); past a curve's largest block the rate rises towards it.
constexpr double kSequentialBlockBytes = 1048576;

double one_drive_bw(const DriveProfile& d, std::uint64_t block, int qd, std::string* how) {
  if (auto c = curve_bw(d.read_curve, block, qd)) {
    if (how) *how = d.name + ": read curve at " + format_bytes(static_cast<double>(block)) + " QD" + std::to_string(qd);
    double top_block = 0;
    for (const DriveReadPoint& p : d.read_curve) {
      if (p.pattern == "random") top_block = std::max(top_block, static_cast<double>(p.block_bytes));
    }
    const double seq = d.seq_read_bytes_s.value;
    if (qd > 1 && static_cast<double>(block) > top_block && top_block < kSequentialBlockBytes && seq > *c) {
      const double x = std::min(1.0, std::log(static_cast<double>(block) / top_block) / std::log(kSequentialBlockBytes / top_block));
      if (how) *how += x >= 1 ? " (past the curve: the sequential rate)" : " (past the curve: towards the sequential rate)";
      return *c + x * (seq - *c);
    }
    return *c;
  }
  if (how) *how = d.name + ": sequential read figure × 0.85 (large random reads, no curve in the profile)";
  return d.seq_read_bytes_s.value * 0.85;
}

}  // namespace

double drive_set_read_bw(const MachineProfile& profile, int drives, std::uint64_t block_bytes, int queue_depth,
                         std::optional<double> throttle_bytes_s, std::string* how) {
  if (profile.drives.empty()) {
    if (how) *how = "no drives in the profile";
    return 0;
  }
  std::string part;
  // A measured all-drives curve answers directly when the counts match.
  for (const DriveSetProfile& set : profile.drive_sets) {
    if (static_cast<int>(set.drives.size()) != drives || throttle_bytes_s) continue;
    if (auto c = curve_bw(set.read_curve, block_bytes, queue_depth)) {
      if (how) *how = "all " + std::to_string(drives) + " drives read together (probe), " +
                      format_bytes(static_cast<double>(block_bytes)) + " QD" + std::to_string(queue_depth);
      return *c;
    }
  }
  // Otherwise: drives beyond the profile's are copies of the first; drives
  // on one device share its bandwidth (a throttle caps each directory).
  std::map<std::string, std::pair<double, int>> devices;  // device -> (bw, directories)
  for (int i = 0; i < drives; ++i) {
    const bool copy = i >= static_cast<int>(profile.drives.size());
    const DriveProfile& d = profile.drives[static_cast<std::size_t>(copy ? 0 : i)];
    std::string dev = d.device && !d.device->disk.empty() ? d.device->disk : d.name;
    if (copy) dev += "#copy" + std::to_string(i);
    auto& entry = devices[dev];
    entry.first = one_drive_bw(d, block_bytes, queue_depth, &part);
    entry.second += 1;
  }
  double total = 0;
  for (const auto& [dev, e] : devices) {
    const double capped = throttle_bytes_s ? std::min(e.first, *throttle_bytes_s * e.second) : e.first;
    total += capped;
  }
  if (how) {
    *how = part + "; " + std::to_string(drives) + " director" + (drives == 1 ? "y" : "ies") + " on " +
           std::to_string(devices.size()) + " device" + (devices.size() == 1 ? "" : "s") +
           (throttle_bytes_s ? ", each capped at " + gbps(*throttle_bytes_s) : "");
  }
  return total;
}

double matvec_rate(const MachineProfile& profile, const std::string& quant, std::string* how) {
  const KernelFigure* best = nullptr;
  for (const KernelFigure& k : profile.kernels) {
    if (k.quant != quant || k.shape != "matvec") continue;
    if (!best || k.threads > best->threads) best = &k;
  }
  if (best) {
    if (how) *how = quant + " matvec, " + std::to_string(best->threads) + " threads (probe): " + gbps(best->weight_bytes_s.value);
    return best->weight_bytes_s.value;
  }
  // A catalog machine: its spec figures. A decode matvec reads each weight
  // once and does 2 flops with it, so it runs at the lower of the memory
  // stream and the CPU cores' FLOP peak in weight bytes, both at the
  // machine's decode efficiency (the profile's compute block, with its source).
  const auto f = find_quant(quant);
  const double bytes_per_weight = f ? f->bits_per_weight() / 8 : 2.0;
  if (profile.compute) {
    const double eff = profile.compute->efficiency.decode.value;
    const double mem = profile.memory_read_bytes_s.value * eff;
    const double flop = profile.compute->cpu_flops.value * eff * bytes_per_weight / 2;
    if (how) {
      *how = "no " + quant + " kernel figure: min(memory read " + gbps(profile.memory_read_bytes_s.value) + ", CPU peak " +
             format_fixed(profile.compute->cpu_flops.value / 1e12, 2) + " TFLOP/s as " + quant + " weight bytes " + gbps(flop / eff) +
             ") × the decode efficiency " + format_fixed(eff, 2) + " (profile compute block)";
    }
    return std::min(mem, flop);
  }
  if (how) *how = "memory read bandwidth × 0.8 (no " + quant + " kernel figure and no compute block in the profile; estimate)";
  return profile.memory_read_bytes_s.value * 0.8;
}

namespace {
// GFLOP/s of a matvec in `quant`, all threads (2 flops per weight at the
// weight rate when the probe gave no flop figure).
double matvec_gflops(const MachineProfile& profile, const std::string& quant) {
  const KernelFigure* best = nullptr;
  for (const KernelFigure& k : profile.kernels) {
    if (k.quant == quant && k.shape == "matvec" && (!best || k.threads > best->threads)) best = &k;
  }
  if (best && best->gflop_s) return *best->gflop_s;
  const auto f = find_quant(quant);
  const double bytes_per_weight = f ? f->bits_per_weight() / 8 : 2.0;
  return matvec_rate(profile, quant, nullptr) / bytes_per_weight * 2 / 1e9;
}

double matmul_gflops(const MachineProfile& profile, const std::string& quant) {
  double best = 0;
  int threads = 0;
  for (const KernelFigure& k : profile.kernels) {
    if (k.quant == quant && k.shape == "matmul" && k.gflop_s && k.threads >= threads) {
      threads = k.threads;
      best = *k.gflop_s;
    }
  }
  return best;
}
}  // namespace

// Per-layer trunk bytes as the container lays them out (each tensor 4 KiB
// aligned): what pinning a layer holds and streaming it reads.
std::vector<std::uint64_t> trunk_layer_bytes(const ModelCard& card) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(std::max(0, card.total_layers())), 0);
  const auto tf = find_quant(card.trunk_quant);
  const auto sf = find_quant(card_small_quant(card));
  if (!tf || !sf) return out;
  for (const CardTensor& t : card_trunk_tensors(card)) {
    if (t.layer < 0 || t.layer >= static_cast<int>(out.size())) continue;
    const QuantFormat& f = t.small ? *sf : *tf;
    out[static_cast<std::size_t>(t.layer)] += static_cast<std::uint64_t>(align_up(static_cast<double>(t.rows) * static_cast<double>(f.bytes_for(t.row_len))));
  }
  return out;
}

Efficiency profile_efficiency(const MachineProfile& profile) {
  Efficiency e;
  if (profile.calibration) {
    e.io = profile.calibration->io_efficiency;
    e.compute = profile.calibration->compute_efficiency;
    e.overlap = profile.calibration->overlap;
  }
  return e;
}

TrunkSplit trunk_split(const ModelCard& card) {
  TrunkSplit s;
  const auto tf = find_quant(card.trunk_quant);
  const auto sf = find_quant(card_small_quant(card));
  if (!tf || !sf) return s;
  for (const CardTensor& t : card_trunk_tensors(card)) {
    const QuantFormat& f = t.small ? *sf : *tf;
    const double bytes = static_cast<double>(t.rows) * static_cast<double>(f.bytes_for(t.row_len));
    switch (t.role) {
      case TensorRole::kEmbedding: s.pre_bytes += static_cast<double>(f.bytes_for(t.row_len)); break;  // one row
      case TensorRole::kShared: s.post_bytes += bytes; break;
      case TensorRole::kLatent:
        (t.name.find("latent_in") != std::string::npos ? s.post_bytes : s.pre_bytes) += bytes;
        break;
      default: s.pre_bytes += bytes; break;
    }
  }
  if (card.tied_embeddings) {  // the lm_head is the embedding table, read whole
    s.pre_bytes += static_cast<double>(card.trunk().embedding);
  }
  return s;
}

namespace {

void add_step(Prediction& pr, std::string name, double v, std::string unit, std::string how) {
  pr.steps.push_back({std::move(name), v, std::move(unit), std::move(how)});
}

// What predict_point works out, step by step, for the steps after it.
struct PointWork {
  // point_bytes: what a token reads
  QuantFormat qf;
  bool streaming = false;
  int L = 0, E = 0, k = 0;
  std::int64_t prompt = 1, gen = 1, decode_tokens = 0;
  double expert_bytes = 0, record = 0, read_block = 0;
  TrunkBytes tb;
  TrunkSplit split;
  double kv_bytes = 0, kv_read = 0, routed_active = 0, attn_flops = 0;
  // plan_memory: where it lives
  double usable = 0, container = 0;
  std::size_t slots = 0;
  double trunk_streamed_tok = 0, trunk_pinned = 0, trunk_buffers = 0;
  bool cliff = false;
  double paged_share = 0;
  // cache_counts: hits and reads
  WindowCounts dec, pre;
  std::optional<std::uint64_t> optimal_hits;  // Belady's MIN, decode (replayed runs only)
  std::string hit_how;
  // decode_token: rates and a token's time
  double rate_trunk = 0, rate_expert = 0, io_bw = 0, t_pre = 0, t_post = 0, t_io = 0, t_tok = 0, read_bytes_tok = 0;
  // prefill_time
  double prefill_s = 0, prefill_reads = 0;
};

// What a token reads: the expert record, the trunk before and after
// routing, the KV and the attention over the context.
Status point_bytes(const ModelCard& card, const Point& point, PointWork& W, Prediction& pr) {
  const auto qf = find_quant(point.quant);
  if (!qf) return make_error("unknown quant \"" + point.quant + "\"");
  W.qf = *qf;
  const bool streaming = W.streaming = point.engine.name == "streaming";
  if (!streaming && point.engine.name != "resident") {
    return make_error("the analytic engine models the resident and streaming engines, not \"" + point.engine.name + "\"");
  }
  W.E = card.moe.experts;
  const int L = W.L = card.moe_layers(), k = W.k = card.moe.active;
  const std::int64_t prompt = W.prompt = std::max<std::int64_t>(1, point.prompt_tokens);
  const std::int64_t gen = W.gen = std::max<std::int64_t>(1, point.gen_tokens);
  W.decode_tokens = gen - 1;
  const double expert_bytes = W.expert_bytes = static_cast<double>(card.expert_bytes(point.quant));
  const bool packed = engine_flag(point.engine, "packed", false);
  // Aligned read per expert: one record, or three slices each padded.
  const double ed = card.moe.expert_dim, inter = card.moe.expert_intermediate;
  const double slice_gu = inter * static_cast<double>(qf->bytes_for(static_cast<std::uint64_t>(ed)));
  const double slice_d = ed * static_cast<double>(qf->bytes_for(static_cast<std::uint64_t>(inter)));
  const double record = W.record = packed ? align_up(expert_bytes) : 2 * align_up(slice_gu) + align_up(slice_d);
  W.read_block = packed ? record : std::max(slice_gu, slice_d);
  add_step(pr, "expert record", record, "B", packed ? "one aligned record per expert" : "gate, up, down slices, each 4 KiB aligned");

  W.tb = card.trunk();
  const TrunkSplit split = W.split = trunk_split(card);
  const double context = static_cast<double>(point.context_tokens);
  W.kv_bytes = static_cast<double>(card.cache_bytes(static_cast<std::uint64_t>(point.context_tokens + prompt + gen)));
  // KV read per decode token: every cached token of every MLA/GQA layer,
  // and the linear state read and written.
  const double ctx_avg = context + static_cast<double>(prompt) + static_cast<double>(gen) / 2;
  const double kv_read = W.kv_read = static_cast<double>(card.kv_bytes_at(static_cast<std::uint64_t>(ctx_avg))) +
                         2.0 * static_cast<double>(card.linear_state_bytes());
  const double routed_active = W.routed_active = static_cast<double>(k) * L * expert_bytes;
  // Attention over the cached context is arithmetic on the cache, not a
  // weight read (ModelCard::attention_flops_at).
  W.attn_flops = static_cast<double>(card.attention_flops_at(static_cast<std::uint64_t>(ctx_avg)));
  add_step(pr, "trunk bytes before routing / token", split.pre_bytes, "B", "attention, routers, norms, dense FFNs, lm_head, embedding row");
  add_step(pr, "trunk bytes after routing / token", split.post_bytes, "B", "shared experts, latent projection in");
  add_step(pr, "routed expert bytes / token", routed_active, "B", std::to_string(k) + " × " + std::to_string(L) + " layers × expert");
  add_step(pr, "KV/state read / token", kv_read, "B", "cache at context " + std::to_string(point.context_tokens));

  return {};
}

// The engine's memory plan on predicted sizes: resident, or the trunk split
// and the expert cache. False when the point is infeasible (the row says
// why).
bool plan_memory(const MachineProfile& profile, const ModelCard& card, const Point& point, PointWork& W, Prediction& pr) {
  Measurement& m = pr.m;
  const bool streaming = W.streaming;
  const int L = W.L, E = W.E, k = W.k;
  const double record = W.record, kv_bytes = W.kv_bytes;
  const TrunkBytes& tb = W.tb;
  const double usable = W.usable = profile.memory_usable_bytes.value;
  const double container = W.container = static_cast<double>(card.container_bytes(point.quant));
  std::size_t& slots = W.slots;
  double &trunk_streamed_tok = W.trunk_streamed_tok, &trunk_pinned = W.trunk_pinned, &trunk_buffers = W.trunk_buffers;
  bool& cliff = W.cliff;
  double& paged_share = W.paged_share;
  if (!streaming) {
    // The resident engine's plan (engines/cache/memory_plan.h): container +
    // KV/state + working margin (24 MiB + 1 % of the container).
    ResidentPlanInput in;
    in.budget_bytes = point.ram_budget_bytes;
    in.usable_bytes = static_cast<std::uint64_t>(usable);
    in.file_bytes = static_cast<std::uint64_t>(container);
    in.state_bytes = static_cast<std::uint64_t>(kv_bytes);
    const ResidentPlan plan = plan_resident(in);
    const double need = static_cast<double>(plan.need_bytes);
    add_step(pr, "resident memory", need, "B", "container + KV/state + working margin (24 MiB + 1 % of the container)");
    if (!plan.within_usable) {
      m.status = RowStatus::kInfeasible;
      m.min_budget_bytes = plan.min_budget_bytes();  // more than this machine can hold
      m.reason = "the container (" + format_bytes(container) + ") plus KV/state (" + format_bytes(kv_bytes) +
                 ") and working memory does not fit usable memory (" + format_bytes(usable) + ")";
      return false;
    }
    if (!plan.within_budget) {
      m.status = RowStatus::kInfeasible;
      m.min_budget_bytes = plan.min_budget_bytes();
      m.reason = "budget " + format_bytes(static_cast<double>(*point.ram_budget_bytes)) + " is below the resident engine's " +
                 format_bytes(need) + " (container + KV/state + working memory)";
      return false;
    }
  } else {
    // The engine's plan (engines/cache/memory_plan.h: plan_trunk_split), on
    // predicted sizes: the head, KV/state and the process stay; a prefix of
    // layers' trunk is pinned as the split policy allows; the rest streams.
    const double head = static_cast<double>(sat_add(sat_add(tb.embedding, tb.lm_head), tb.output_norm));
    const double resident = head + kv_bytes + kProcessOverheadBytes;
    const double slot = align_up(record);
    TrunkPlanInput in;
    in.budget_bytes = point.ram_budget_bytes;
    in.usable_bytes = static_cast<std::uint64_t>(usable);
    in.fixed_bytes = static_cast<std::uint64_t>(resident);
    in.layer_bytes = trunk_layer_bytes(card);
    in.slot_bytes = static_cast<std::uint64_t>(slot);
    in.moe_layers = L;
    in.experts = E;
    in.k = k;
    const std::string trunk_opt = point.engine.options.count("trunk") ? point.engine.options.at("trunk") : "auto";
    in.placement = trunk_opt == "resident" ? TrunkPlacement::kResident : trunk_opt == "stream" ? TrunkPlacement::kStream
                                                                                                : TrunkPlacement::kAuto;
    if (point.engine.options.count("split")) {
      if (auto sp = parse_split_policy(point.engine.options.at("split"))) in.split = *sp;
    }
    const TrunkPlan plan = plan_trunk_split(in);
    trunk_streamed_tok = static_cast<double>(plan.streamed_bytes_per_token);
    trunk_pinned = static_cast<double>(plan.pinned_bytes);
    trunk_buffers = static_cast<double>(plan.buffer_bytes);
    const double n = static_cast<double>(plan.slots);
    if (!plan.fits) {
      m.status = RowStatus::kInfeasible;
      if (point.ram_budget_bytes) {
        const double budget = static_cast<double>(*point.ram_budget_bytes);
        const double min_budget = static_cast<double>(plan.min_budget_bytes);
        m.min_budget_bytes = plan.min_budget_bytes;
        m.reason = "budget " + format_bytes(budget) + " leaves room for " + std::to_string(plan.slots) +
                   " expert slots but one layer's top-" + std::to_string(k) + " needs " + std::to_string(k) +
                   ": minimum budget " + format_bytes(min_budget) + " (predicted: head " + format_bytes(head) +
                   ", KV/state " + format_bytes(kv_bytes) + ", trunk " + trunk_opt + ")";
      } else {
        m.reason = "usable memory " + format_bytes(usable) + " holds fewer than " + std::to_string(k) +
                   " expert slots beside the resident " + format_bytes(resident) + " (predicted)";
      }
      return false;
    }
    add_step(pr, "trunk pinned", trunk_pinned, "B",
         std::to_string(plan.pinned_layers) + " of " + std::to_string(card.total_layers()) + " layers; " +
             format_bytes(trunk_streamed_tok) + " streamed per token through " + format_bytes(trunk_buffers) + " of buffers");
    if (point.ram_budget_bytes && static_cast<double>(*point.ram_budget_bytes) > usable) {
      const double budget = static_cast<double>(*point.ram_budget_bytes);
      cliff = true;
      const double fits = static_cast<double>(streaming_slots(in.usable_bytes, in.fixed_bytes + plan.pinned_bytes + plan.buffer_bytes,
                                                              in.slot_bytes, std::numeric_limits<std::uint64_t>::max()));
      paged_share = n > 0 ? std::max(0.0, (n - fits) / n) : 0;
      m.notes.push_back("WARNING: budget " + format_bytes(budget) + " is beyond usable memory (" + format_bytes(usable) +
                        "): " + format_fixed(100 * paged_share, 0) +
                        " % of the cache would page, so those hits become page-fault reads (predicted collapse)");
    }
    slots = static_cast<std::size_t>(n);
    m.cache_slots = plan.slots;
    add_step(pr, "cache slots", n, "slots", "budget − head − pinned trunk − buffers − KV/state − process − margin, ÷ slot " + format_bytes(slot));
  }

  return true;
}

// Hits, misses and reads of the run: replayed when it is small enough,
// else from the steady-state hit rate.
Status cache_counts(const Point& point, const PredictContext& ctx, PointWork& W, Prediction& pr) {
  const bool streaming = W.streaming;
  const int L = W.L, E = W.E, k = W.k;
  const std::int64_t prompt = W.prompt, gen = W.gen, decode_tokens = W.decode_tokens;
  const std::size_t slots = W.slots;
  WindowCounts &dec = W.dec, &pre = W.pre;
  std::string& hit_how = W.hit_how;
  // Hits, misses, reads: replay the run when it is small enough.
  if (streaming) {
    const CacheShape shape{L, E, k, slots};
    const double ops = static_cast<double>(L) * k * static_cast<double>(prompt + gen) * static_cast<double>(slots);
    ReplayPlan plan;
    plan.routing = point.routing;
    plan.prefetch = point.prefetch;
    plan.policy = point.cache_policy == "lfu" ? CachePolicy::kLfu : CachePolicy::kLru;
    plan.seed = routing_seed(ctx.seed, ctx.repetition);
    plan.source_seed = source_seed(ctx.seed, ctx.repetition);
    plan.prompt_tokens = prompt;
    plan.gen_tokens = gen;
    plan.chunk = point.engine.options.count("chunk") ? std::stoul(point.engine.options.at("chunk")) : 32;
    plan.base_dir = ctx.base_dir;
    plan.hot_set = point.hot_set;
    if (ops <= ctx.replay_limit) {
      auto r = simulate_cache(shape, plan);
      if (!r) return r.error();
      dec = r->decode;
      pre = r->prefill;
      W.optimal_hits = dec.optimal_hits;
      hit_how = "replay of this run through the engine's cache (" + std::to_string(slots) + " slots, cold start)";
    } else if (point.hot_set != "off") {
      // A held set is no steady-state LRU: the run replayed over an ordered
      // index (O(log slots) per need).
      auto r = fast_replay(shape, plan);
      if (!r) return r.error();
      dec = r->decode;
      pre = r->prefill;
      hit_how = "fast replay of this run through the engine's cache (" + std::to_string(slots) + " slots, hot set " +
                point.hot_set + ", cold start)";
    } else {
      double h = 0;
      if (point.routing == "uniform") {
        h = uniform_lru_hit_rate(shape);
        hit_how = "closed form, uniform routing, LRU, steady state";
      } else {
        auto p = routing_popularity(point.routing, shape, routing_seed(ctx.seed, 0), 2000, ctx.base_dir);
        if (!p) return p.error();
        h = che_lru_hit_rate(shape, *p);
        hit_how = "Che's computation over the routing's popularity, LRU, steady state";
      }
      const double needs = static_cast<double>(decode_tokens) * L * k;
      dec.hits = static_cast<std::uint64_t>(std::llround(needs * h));
      dec.misses = static_cast<std::uint64_t>(std::llround(needs)) - dec.hits;
      dec.reads = dec.misses;
      if (point.prefetch.rfind("pregate:", 0) == 0) {
        dec.misses_hidden = static_cast<std::uint64_t>(std::llround(static_cast<double>(dec.misses) * std::stod(point.prefetch.substr(8))));
      }
      // Prefill: each chunk reads its distinct experts once (uniform).
      const double chunk = point.engine.options.count("chunk") ? std::stod(point.engine.options.at("chunk")) : 32;
      double distinct = 0;
      for (double done = 0; done < static_cast<double>(prompt); done += chunk) {
        const double c = std::min(chunk, static_cast<double>(prompt) - done);
        distinct += L * distinct_experts_uniform(E, k, c);
      }
      pre.reads = static_cast<std::uint64_t>(std::llround(distinct * (1 - h)));
      pre.misses = pre.reads;
    }
    pr.hit_rate_decode = dec.needs() ? static_cast<double>(dec.hits) / static_cast<double>(dec.needs()) : 0;
    add_step(pr, "decode hit rate", pr.hit_rate_decode, "", hit_how);
  }

  return {};
}

// The rates of this machine's kernels and drives, and a decode token's time.
Status decode_token(const MachineProfile& profile, const ModelCard& card, const Point& point, const Efficiency& eff,
                    PointWork& W, Prediction& pr) {
  const bool streaming = W.streaming;
  const int L = W.L;
  const std::int64_t decode_tokens = W.decode_tokens;
  const double record = W.record, read_block = W.read_block, kv_read = W.kv_read, routed_active = W.routed_active,
               attn_flops = W.attn_flops, trunk_streamed_tok = W.trunk_streamed_tok, paged_share = W.paged_share;
  const bool cliff = W.cliff;
  const TrunkSplit& split = W.split;
  const WindowCounts& dec = W.dec;
  // Rates.
  std::string how_t, how_e, how_d;
  const double rate_trunk = W.rate_trunk = matvec_rate(profile, card.trunk_quant, &how_t) * eff.compute;
  const double rate_expert = W.rate_expert = matvec_rate(profile, point.quant, &how_e) * eff.compute;
  add_step(pr, "trunk matvec rate", rate_trunk, "B/s", how_t + (eff.compute != 1 ? " × compute efficiency " + format_fixed(eff.compute, 3) : ""));
  add_step(pr, "expert matvec rate", rate_expert, "B/s", how_e);
  const int qd = point.engine.options.count("qd") ? std::stoi(point.engine.options.at("qd")) : 32;
  double& io_bw = W.io_bw;
  if (streaming) {
    io_bw = drive_set_read_bw(profile, point.drives.count, static_cast<std::uint64_t>(read_block), qd,
                              point.drives.throttle_bytes_s, &how_d) * eff.io;
    if (!(io_bw > 0)) return make_error("the profile has no drive figures: cannot predict a streaming point");
    add_step(pr, "drive set read bandwidth", io_bw, "B/s", how_d + (eff.io != 1 ? " × I/O efficiency " + format_fixed(eff.io, 3) : ""));
  }

  // Decode token.
  const double per_tok = decode_tokens > 0 ? static_cast<double>(decode_tokens) : 1.0;
  const double attn_gflops = matvec_gflops(profile, card.kv_dtype) * eff.compute;
  const double t_attn = attn_flops > 0 ? attn_flops / (attn_gflops * 1e9) : 0;
  const double t_pre = W.t_pre = (split.pre_bytes + kv_read) / rate_trunk + t_attn;
  if (attn_flops > 0) {
    add_step(pr, "attention over the context / token", t_attn, "s",
         format_fixed(attn_flops / 1e9, 2) + " GFLOP at the " + card.kv_dtype + " matvec rate " + format_fixed(attn_gflops, 1) + " GFLOP/s");
  }
  const double t_post = W.t_post = split.post_bytes / rate_trunk + routed_active / rate_expert;
  double& read_bytes_tok = W.read_bytes_tok;
  read_bytes_tok = streaming ? static_cast<double>(dec.reads) * record / per_tok + trunk_streamed_tok : 0;
  double& t_io = W.t_io;
  t_io = read_bytes_tok / std::max(1.0, io_bw);
  if (cliff && paged_share > 0) {
    // Hits in the paged part of the cache fault in 4 KiB pages at QD1.
    std::string how_pf;
    const double pf_bw = std::max(1.0, drive_set_read_bw(profile, 1, 4096, 1, std::nullopt, &how_pf));
    const double faulted = static_cast<double>(dec.hits) / per_tok * paged_share * record;
    t_io += faulted / pf_bw;
    read_bytes_tok += faulted;
    add_step(pr, "page-fault reads / token", faulted, "B", "hits in the paged part at " + gbps(pf_bw) + " (" + how_pf + ")");
  }
  if (streaming && point.drives.layout == "stripe" && point.drives.count > 1 && dec.misses > 0) {
    // Each expert has a home drive: a layer's misses land on the drives
    // like balls in bins, and the layer waits for the busiest drive. The
    // expected maximum of m reads over n drives ≈ m/n + sqrt(2 (m/n) ln n).
    const double n = point.drives.count;
    const double reads_per_layer = static_cast<double>(dec.misses) / per_tok / std::max(1, L);
    const double busiest = reads_per_layer / n + std::sqrt(2 * (reads_per_layer / n) * std::log(n));
    const double factor = std::max(1.0, busiest / (reads_per_layer / n));
    t_io *= factor;
    add_step(pr, "stripe imbalance", factor, "×", format_fixed(reads_per_layer, 1) + " reads per layer over " + format_fixed(n, 0) +
                                            " home drives: the busiest carries ×" + format_fixed(factor, 2) + " its share");
  }
  const double hidden = dec.misses ? static_cast<double>(dec.misses_hidden) / static_cast<double>(dec.misses) : 0;
  const double t_tok = W.t_tok = decode_token_time_s(t_pre, t_post, t_io, hidden, eff.overlap);
  pr.t_pre_s = t_pre;
  pr.t_post_s = t_post;
  pr.t_io_s = t_io;
  pr.t_token_s = t_tok;
  pr.hidden_share = hidden;
  add_step(pr, "compute before routing / token", t_pre, "s", "trunk-before bytes + KV ÷ trunk rate");
  add_step(pr, "compute after routing / token", t_post, "s", "shared ÷ trunk rate + routed experts ÷ expert rate");
  if (streaming) add_step(pr, "I/O / token", t_io, "s", "read bytes ÷ drive set bandwidth");
  add_step(pr, "decode time / token", t_tok, "s",
       "max(pre + post, pre + (1 − hidden " + format_fixed(hidden, 2) + ") × I/O, I/O) + (1 − overlap " +
           format_fixed(eff.overlap, 2) + ") × min(I/O, post)");

  return {};
}

// The prompt in chunks: the trunk once per chunk, each distinct expert once,
// compute at the matmul rate, reads overlapped as in decode.
void prefill_time(const MachineProfile& profile, const ModelCard& card, const Point& point, const Efficiency& eff,
                  PointWork& W, Prediction& pr) {
  const bool streaming = W.streaming;
  const int L = W.L, E = W.E, k = W.k;
  const std::int64_t prompt = W.prompt;
  const double expert_bytes = W.expert_bytes, record = W.record, trunk_streamed_tok = W.trunk_streamed_tok,
               rate_trunk = W.rate_trunk, rate_expert = W.rate_expert, io_bw = W.io_bw;
  const TrunkSplit& split = W.split;
  const QuantFormat* qf = &W.qf;
  const WindowCounts& pre = W.pre;
  // Prefill: chunks; trunk once per chunk, compute at the matmul rate.
  const double chunk = point.engine.options.count("chunk") ? std::stod(point.engine.options.at("chunk")) : 32;
  const double gflops_t = matmul_gflops(profile, card.trunk_quant) * eff.compute;
  const double gflops_e = matmul_gflops(profile, point.quant) * eff.compute;
  double& prefill_s = W.prefill_s;
  const double n_chunks = std::ceil(static_cast<double>(prompt) / chunk);
  // Each prefill chunk is one forward pass: the streamed trunk is read once per chunk.
  const double prefill_reads = W.prefill_reads =
      streaming ? static_cast<double>(pre.reads) * record + trunk_streamed_tok * std::ceil(static_cast<double>(prompt) / chunk) : 0;
  const double w = std::clamp(eff.overlap, 0.0, 1.0);
  for (double done = 0; done < static_cast<double>(prompt); done += chunk) {
    const double c = std::min(chunk, static_cast<double>(prompt) - done);
    // Memory: trunk weights once per chunk, each distinct expert once;
    // compute: 2 flops per weight per token. Before routing as in decode.
    const double distinct = streaming ? static_cast<double>(pre.needs()) / n_chunks
                                      : L * distinct_experts_uniform(E, k, c);
    const double tbpw = static_cast<double>(find_quant(card.trunk_quant)->bits_per_weight()) / 8;
    const double flops_pre = 2.0 * c * split.pre_bytes / tbpw, flops_post = 2.0 * c * split.post_bytes / tbpw;
    const double flops_e = 2.0 * c * static_cast<double>(k) * L * expert_bytes / (qf->bits_per_weight() / 8);
    const double pre_c = std::max(split.pre_bytes / rate_trunk, gflops_t > 0 ? flops_pre / (gflops_t * 1e9) : 0.0);
    const double post_c = std::max(split.post_bytes / rate_trunk + distinct * expert_bytes / rate_expert,
                                   (gflops_t > 0 ? flops_post / (gflops_t * 1e9) : 0.0) +
                                       (gflops_e > 0 ? flops_e / (gflops_e * 1e9) : 0.0));
    const double io_c = streaming ? prefill_reads / n_chunks / std::max(1.0, io_bw) : 0;
    prefill_s += pre_c + std::max(post_c, io_c) + (1 - w) * std::min(post_c, io_c);
  }
  const double chunks = n_chunks;
  add_step(pr, "prefill", prefill_s, "s", std::to_string(prompt) + " tokens in " + format_fixed(chunks, 0) + " chunk(s) of " +
                                      format_fixed(chunk, 0) + "; reads " + format_bytes(prefill_reads));

}

}  // namespace

Expected<Prediction> predict_point(const MachineProfile& profile, const ModelCard& card, const Point& point,
                                   const Efficiency& eff, const PredictContext& ctx) {
  Prediction pr;
  Measurement& m = pr.m;
  m.provenance = "predicted";
  PointWork W;
  if (Status st = point_bytes(card, point, W, pr); !st) return st.error();
  if (!plan_memory(profile, card, point, W, pr)) return pr;
  if (Status st = cache_counts(point, ctx, W, pr); !st) return st.error();
  if (Status st = decode_token(profile, card, point, eff, W, pr); !st) return st.error();
  prefill_time(profile, card, point, eff, W, pr);
  const bool streaming = W.streaming;
  const std::int64_t prompt = W.prompt, gen = W.gen, decode_tokens = W.decode_tokens;
  const double record = W.record, kv_bytes = W.kv_bytes, routed_active = W.routed_active, container = W.container,
               trunk_streamed_tok = W.trunk_streamed_tok, trunk_pinned = W.trunk_pinned, trunk_buffers = W.trunk_buffers,
               read_bytes_tok = W.read_bytes_tok, t_pre = W.t_pre, t_post = W.t_post, t_io = W.t_io, t_tok = W.t_tok,
               prefill_s = W.prefill_s, prefill_reads = W.prefill_reads;
  const std::size_t slots = W.slots;
  const TrunkBytes& tb = W.tb;
  const TrunkSplit& split = W.split;
  const WindowCounts& dec = W.dec;
  const std::string& hit_how = W.hit_how;
  // Load: the trunk (streaming) or the container (resident) at sequential speed.
  const double load_bytes = streaming ? static_cast<double>(tb.total()) : container;
  double seq = 0;
  for (const DriveProfile& d : profile.drives) seq = std::max(seq, d.seq_read_bytes_s.value);
  m.load_s = seq > 0 ? load_bytes / seq : 0;
  add_step(pr, "load", m.load_s, "s", format_bytes(load_bytes) + " at the fastest drive's sequential read");

  m.prompt_tokens = prompt;
  m.prefill_s = prefill_s;
  m.token_times_s.push_back(prefill_s);
  for (std::int64_t t = 1; t < gen; ++t) m.token_times_s.push_back(prefill_s + static_cast<double>(t) * t_tok);
  m.read_bytes_prefill = static_cast<std::uint64_t>(prefill_reads);
  m.read_bytes_decode = static_cast<std::uint64_t>(std::llround(read_bytes_tok * static_cast<double>(decode_tokens)));
  m.proc_read_bytes_decode = m.read_bytes_decode;
  m.mem_weight_bytes_decode =
      static_cast<std::uint64_t>((split.pre_bytes + split.post_bytes + routed_active) * static_cast<double>(decode_tokens));
  m.expert_hits_decode = dec.hits;
  m.expert_misses_decode = dec.misses;
  m.expert_misses_hidden_decode = dec.misses_hidden;
  m.expert_hits_optimal_decode = W.optimal_hits;
  m.io_wait_s_decode = std::max(0.0, t_tok - t_pre - t_post) * static_cast<double>(decode_tokens);
  m.io_busy_s_decode = t_io * static_cast<double>(decode_tokens);
  m.routed_phase_s_decode = (t_tok - t_pre) * static_cast<double>(decode_tokens);
  m.peak_rss_bytes = static_cast<std::uint64_t>(
      streaming ? static_cast<double>(sat_add(sat_add(tb.embedding, tb.lm_head), tb.output_norm)) + trunk_pinned + trunk_buffers +
                      kv_bytes + kProcessOverheadBytes + static_cast<double>(slots) * align_up(record)
                : container + kv_bytes + kProcessOverheadBytes);
  if (streaming) {
    m.trunk_pinned_bytes = static_cast<std::uint64_t>(trunk_pinned);
    m.trunk_read_bytes_decode = static_cast<std::uint64_t>(std::llround(trunk_streamed_tok * static_cast<double>(decode_tokens)));
  }
  m.budget_enforced = false;
  m.notes.push_back("predicted on " + profile.name + " (efficiency io " + format_fixed(eff.io, 3) + ", compute " +
                    format_fixed(eff.compute, 3) + ", overlap " + format_fixed(eff.overlap, 3) + ")");
  if (streaming) m.notes.push_back("hits: " + hit_how);
  return pr;
}

}  // namespace moebench
