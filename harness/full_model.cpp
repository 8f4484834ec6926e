// full_model.cpp — a scaled run carried to a deeper card (see full_model.h).
#include "harness/full_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "model/hit_rate.h"
#include "vocab/text.h"

namespace moebench {
namespace {

using Kind = std::pair<AttentionKind, FfnKind>;

std::vector<Kind> layer_kinds(const ModelCard& c) {
  std::vector<Kind> out;
  for (const LayerGroup& g : c.layers) {
    for (int i = 0; i < g.count; ++i) out.push_back({g.attention, g.ffn});
  }
  return out;
}

std::string kind_name(const Kind& k) { return std::string(to_string(k.first)) + "/" + to_string(k.second); }

// Tokens per prefill forward pass: the engine's `chunk` option (default 32).
std::size_t prefill_chunk(const Point& p) {
  const auto chunk = p.engine.options.find("chunk");
  return chunk != p.engine.options.end() ? static_cast<std::size_t>(std::max(1L, std::atol(chunk->second.c_str()))) : 32;
}

// Expert records read per MoE layer, per window, for a card's cache shape.
struct ReadsPerLayer {
  double prefill = 0, decode = 0;
};
Expected<ReadsPerLayer> replay_reads(const ModelCard& c, std::size_t slots, const Point& p) {
  const CacheShape shape{c.moe_layers(), c.moe.experts, c.moe.active, slots};
  ReplayPlan plan;
  plan.routing = p.routing;
  plan.prefetch = p.prefetch;
  plan.policy = p.cache_policy == "lfu" ? CachePolicy::kLfu : CachePolicy::kLru;
  plan.prompt_tokens = std::max<std::int64_t>(1, p.prompt_tokens);
  plan.gen_tokens = std::max<std::int64_t>(1, p.gen_tokens);
  plan.chunk = prefill_chunk(p);
  plan.hot_set = p.hot_set;
  auto r = fast_replay(shape, plan);
  if (!r) return r.error();
  const double L = std::max(1, c.moe_layers());
  return ReadsPerLayer{static_cast<double>(r->prefill.reads) / L, static_cast<double>(r->decode.reads) / L};
}

// One window (prefill or decode) carried to the target: per-token seconds.
struct Window {
  const char* name;
  double seconds = 0;   // the window's length
  double tokens = 1;    // tokens it covers (decode: per token; prefill: the window)
  const std::vector<double>* layer_s = nullptr;
  double head_s = 0;
  double io_wait_s = 0;
  double miss_ratio = 1;
  double routed_s = 0;       // routed-expert compute over the window, all MoE layers (I/O waits excluded)
  double routed_scale = 1;   // the target's routed compute per MoE layer ÷ the run's
};

double carry(const Window& w, const std::vector<Kind>& ran, const std::vector<Kind>& target, int moe_ran,
             std::vector<std::string>& steps) {
  const double per = 1 / w.tokens;
  const double io_layer = moe_ran > 0 ? w.io_wait_s / moe_ran * per : 0;
  const double routed_layer = moe_ran > 0 ? w.routed_s / moe_ran * per : 0;
  std::map<Kind, std::pair<double, int>> compute;  // kind -> (sum of per-layer compute seconds, layers)
  double layers_sum = 0;
  for (std::size_t i = 0; i < ran.size(); ++i) {
    const double t = (*w.layer_s)[i] * per;
    layers_sum += t;
    auto& e = compute[ran[i]];
    e.first += std::max(0.0, t - (ran[i].second == FfnKind::kMoe ? io_layer : 0));
    e.second += 1;
  }
  const double head = w.head_s * per;
  const double residual = std::max(0.0, w.seconds * per - head - layers_sum);
  std::map<Kind, int> counts;
  for (const Kind& k : target) counts[k] += 1;
  double total = head + residual;
  for (const auto& [k, n] : counts) {
    double each = 0;
    std::string how;
    if (auto it = compute.find(k); it != compute.end()) {
      each = it->second.first / it->second.second;
      how = "measured";
    } else {
      // The kind did not run: a layer with the same attention, else any.
      double sum = 0;
      int m = 0;
      for (const auto& [rk, v] : compute) {
        if (rk.first == k.first) sum += v.first, m += v.second;
      }
      if (m == 0) {
        for (const auto& [rk, v] : compute) sum += v.first, m += v.second;
      }
      each = m > 0 ? sum / m : 0;
      how = "not in the scaled card: a measured layer with " + std::string(m > 0 ? "the same attention" : "any kind");
    }
    const double io = k.second == FfnKind::kMoe ? io_layer * w.miss_ratio : 0;
    if (k.second == FfnKind::kMoe && w.routed_scale != 1) {
      each = std::max(0.0, each - routed_layer) + routed_layer * w.routed_scale;
      how += ", routed experts ×" + format_fixed(w.routed_scale, 3);
    }
    total += n * (each + io);
    steps.push_back(std::string(w.name) + ": " + std::to_string(n) + " × " + kind_name(k) + " layer(s) at " +
                    format_fixed(1e3 * each, 3) + " ms compute (" + how + ")" +
                    (io > 0 ? " + " + format_fixed(1e3 * io, 3) + " ms expert-read wait" : std::string()));
  }
  steps.push_back(std::string(w.name) + ": head " + format_fixed(1e3 * head, 3) + " ms + outside the forward pass " +
                  format_fixed(1e3 * residual, 3) + " ms; expert-read wait " + format_fixed(1e3 * io_layer, 3) +
                  " ms per MoE layer measured, × " + format_fixed(w.miss_ratio, 3) + " for the target's cache");
  return total;
}

// A prefill pass computes each distinct expert once (its weights streamed,
// α per expert) and each token routed to it (β per token-expert pair); a
// decode token is one pass of one token: k·(α + β). The run's decode and
// prefill routed-expert times give α and β; the target's prefill is then
// α·(its distinct experts) + β·(tokens × k), summed over passes of the
// engine's chunk. Returns the target's routed prefill time per MoE layer ÷
// the run's (1 when the measurement cannot say).
double prefill_routed_scale(const ModelCard& ran, const ModelCard& target, const Measurement& m, const Point& p,
                            double decode_tokens, std::vector<std::string>& steps) {
  const int moe = ran.moe_layers();
  const double k = ran.moe.active;
  if (moe <= 0 || k <= 0 || decode_tokens <= 0 || m.routed_phase_s_prefill <= 0 || m.routed_phase_s_decode <= 0) return 1;
  const double r_dec = std::max(0.0, m.routed_phase_s_decode - m.io_wait_s_decode) / (moe * decode_tokens);
  const double r_pre = std::max(0.0, m.routed_phase_s_prefill - m.io_wait_s_prefill) / moe;
  if (r_dec <= 0 || r_pre <= 0) return 1;
  const double chunk = static_cast<double>(prefill_chunk(p));
  const double prompt = std::max<std::int64_t>(1, p.prompt_tokens);
  double d_ran = 0, d_target = 0;
  for (double done = 0; done < prompt; done += chunk) {
    const double n = std::min(chunk, prompt - done);
    d_ran += distinct_experts_uniform(ran.moe.experts, ran.moe.active, n);
    d_target += distinct_experts_uniform(target.moe.experts, target.moe.active, n);
  }
  const double pairs = prompt * k;
  const double u = r_dec / k;  // α + β
  double alpha = pairs - d_ran > 1e-9 ? (pairs * u - r_pre) / (pairs - d_ran) : u;
  alpha = std::clamp(alpha, 0.0, u);
  const double beta = u - alpha;
  const double target_pre = alpha * d_target + beta * pairs;
  const double scale = target_pre / r_pre;
  steps.push_back("prefill routed experts: " + format_fixed(1e3 * r_pre, 3) + " ms per MoE layer over " +
                  format_fixed(d_ran, 1) + " distinct experts (uniform routing) and " + format_fixed(pairs, 0) +
                  " token-expert pairs; decode " + format_fixed(1e3 * r_dec, 3) + " ms per layer per token for " +
                  format_fixed(k, 0) + " pairs: per distinct expert " + format_fixed(1e3 * alpha, 4) + " ms, per pair " +
                  format_fixed(1e3 * beta, 4) + " ms; the target's " + format_fixed(d_target, 1) +
                  " distinct experts make it ×" + format_fixed(scale, 3));
  return scale;
}

}  // namespace

Expected<FullModelFigures> full_model_figures(const ModelCard& ran, const ModelCard& target, const Measurement& m,
                                              const Point& point, std::optional<std::size_t> known_target_slots) {
  const std::vector<Kind> ran_kinds = layer_kinds(ran), target_kinds = layer_kinds(target);
  if (m.layer_s_decode.size() != ran_kinds.size() || m.layer_s_prefill.size() != ran_kinds.size() || !m.head_s_decode ||
      !m.head_s_prefill) {
    return make_error("the measurement has no per-layer timings for the " + std::to_string(ran_kinds.size()) +
                      " layers of " + ran.name + " (only the executor engines record them)");
  }
  if (m.token_times_s.size() < 2) return make_error("the measurement has no decode window");
  FullModelFigures f;
  f.steps.push_back("from " + std::to_string(ran_kinds.size()) + " layers (" + std::to_string(ran.moe_layers()) + " MoE, " +
                    std::to_string(ran.moe.experts) + " experts) to " + std::to_string(target_kinds.size()) + " (" +
                    std::to_string(target.moe_layers()) + " MoE, " + std::to_string(target.moe.experts) + " experts)");
  // The expert cache at the target's size: slots scaled with the pool.
  if (m.cache_slots && *m.cache_slots > 0 && ran.moe_layers() > 0 && target.moe_layers() > 0) {
    const double pool_ratio = static_cast<double>(target.moe.experts) * target.moe_layers() /
                              (static_cast<double>(ran.moe.experts) * ran.moe_layers());
    const auto target_slots = known_target_slots.value_or(
        static_cast<std::size_t>(std::llround(static_cast<double>(*m.cache_slots) * pool_ratio)));
    auto r = replay_reads(ran, static_cast<std::size_t>(*m.cache_slots), point);
    auto t = r ? replay_reads(target, std::max<std::size_t>(target_slots, static_cast<std::size_t>(target.moe.active)), point)
               : Expected<ReadsPerLayer>(r.error());
    if (!t) {
      f.steps.push_back("expert reads per layer kept as measured: the replay failed (" + t.error().message + ")");
    } else {
      if (r->decode > 0) f.decode_miss_ratio = t->decode / r->decode;
      if (r->prefill > 0) f.prefill_miss_ratio = t->prefill / r->prefill;
      f.steps.push_back("expert cache " + std::to_string(*m.cache_slots) + " → " + std::to_string(target_slots) +
                        " slots (" + std::string(known_target_slots ? "the target run's" : "× the expert pool") + "); replayed reads per MoE layer, routing " + point.routing +
                        ", prefetch " + point.prefetch + ": decode " + format_fixed(r->decode, 1) + " → " +
                        format_fixed(t->decode, 1) + ", prefill " + format_fixed(r->prefill, 1) + " → " +
                        format_fixed(t->prefill, 1));
    }
  }
  const double decode_tokens = static_cast<double>(m.token_times_s.size() - 1);
  const double prefill_scale = prefill_routed_scale(ran, target, m, point, decode_tokens, f.steps);
  Window dec{"decode", m.token_times_s.back() - m.token_times_s.front(), decode_tokens, &m.layer_s_decode,
             *m.head_s_decode, m.io_wait_s_decode, f.decode_miss_ratio};
  Window pre{"prefill", m.prefill_s, 1, &m.layer_s_prefill, *m.head_s_prefill, m.io_wait_s_prefill, f.prefill_miss_ratio,
             std::max(0.0, m.routed_phase_s_prefill - m.io_wait_s_prefill), prefill_scale};
  f.decode_s_per_token = carry(dec, ran_kinds, target_kinds, ran.moe_layers(), f.steps);
  f.ttft_s = carry(pre, ran_kinds, target_kinds, ran.moe_layers(), f.steps);
  f.steps.push_back("target: " + format_fixed(f.decode_s_per_token, 4) + " s/token decode (" +
                    format_fixed(1 / std::max(1e-12, f.decode_s_per_token), 4) + " tok/s), TTFT " +
                    format_fixed(f.ttft_s, 3) + " s");
  return f;
}

}  // namespace moebench
