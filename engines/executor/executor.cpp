// executor.cpp — see executor.h.
#include "engines/executor/executor.h"

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <map>

#include "engines/quant/dequantize.h"

namespace moebench {

#ifdef MOEBENCH_INJECT_SLOWDOWN
namespace {
// Benchmark-only build (cmake -DMOEBENCH_INJECT_SLOWDOWN=ON): each layer's
// time stretched by MOEBENCH_INJECT_SLOWDOWN_PCT percent of itself, spinning
// on the calling thread — a calibrated, known slowdown of every engine that
// runs this executor, for measuring the CI gate's power (bench/gate_power.sh).
double injected_fraction() {
  static const double f = [] {
    const char* pct = std::getenv("MOEBENCH_INJECT_SLOWDOWN_PCT");
    const double v = pct != nullptr ? std::strtod(pct, nullptr) : 0.0;
    return v > 0 && v < 1000 ? v / 100 : 0.0;
  }();
  return f;
}

std::chrono::steady_clock::time_point stretched(std::chrono::steady_clock::time_point start,
                                               std::chrono::steady_clock::time_point end) {
  const double f = injected_fraction();
  if (f <= 0) return end;
  const auto until = end + std::chrono::duration_cast<std::chrono::steady_clock::duration>((end - start) * f);
  auto now = std::chrono::steady_clock::now();
  while (now < until) now = std::chrono::steady_clock::now();
  return now;
}
}  // namespace
#endif

namespace {
std::string blk(int layer, const char* suffix) { return "blk." + std::to_string(layer) + "." + suffix; }
}  // namespace

Expected<TrunkWeights> bind_trunk(const ModelCard& card, const GgufFile& g, const LoadedRange& r) {
  return bind_trunk(card, g, [&](const std::string& name) { return tensor_view(g, r, name); });
}

Expected<TrunkWeights> bind_trunk(const ModelCard& card, const GgufFile& g, const TensorResolver& view) {
  TrunkWeights t;
  std::string err;
  auto need = [&](const std::string& name) -> TensorView {
    auto v = view(name);
    if (!v) {
      if (err.empty()) err = v.error().message;
      return {};
    }
    return *v;
  };
  auto maybe = [&](const std::string& name) -> TensorView {
    if (!g.tensor(name)) return {};
    return need(name);
  };
  t.embedding = need("token_embd.weight");
  t.lm_head = card.tied_embeddings ? t.embedding : need("output.weight");
  t.output_norm = need("output_norm.weight");
  int layer = 0, moe_index = 0;
  for (const LayerGroup& grp : card.layers) {
    for (int k = 0; k < grp.count; ++k, ++layer) {
      TrunkLayer L;
      L.attention = grp.attention;
      L.ffn = grp.ffn;
      L.window = grp.window;
      L.attn_norm = need(blk(layer, "attn_norm.weight"));
      L.ffn_norm = need(blk(layer, "ffn_norm.weight"));
      AttentionWeights& a = L.attn;
      a.kind = grp.attention;
      if (grp.attention == AttentionKind::kMla) {
        a.q_a = maybe(blk(layer, "attn_q_a.weight"));
        a.q_a_norm = maybe(blk(layer, "attn_q_a_norm.weight"));
        a.q_b = maybe(blk(layer, "attn_q_b.weight"));
        if (!a.q_a.valid()) a.q = need(blk(layer, "attn_q.weight"));
        a.kv_a = need(blk(layer, "attn_kv_a_mqa.weight"));
        a.kv_a_norm = need(blk(layer, "attn_kv_a_norm.weight"));
        a.kv_b = need(blk(layer, "attn_kv_b.weight"));
        a.output = need(blk(layer, "attn_output.weight"));
        a.gate = maybe(blk(layer, "attn_gate.weight"));
      } else if (grp.attention == AttentionKind::kGqa) {
        a.q = need(blk(layer, "attn_q.weight"));
        a.k = need(blk(layer, "attn_k.weight"));
        a.v = need(blk(layer, "attn_v.weight"));
        a.output = need(blk(layer, "attn_output.weight"));
      } else {
        a.q = need(blk(layer, "attn_q.weight"));
        a.k = need(blk(layer, "attn_k.weight"));
        a.v = need(blk(layer, "attn_v.weight"));
        a.output = need(blk(layer, "attn_output.weight"));
        a.beta = need(blk(layer, "attn_beta.weight"));
        a.decay = maybe(blk(layer, "attn_decay.weight"));
        a.decay_a = maybe(blk(layer, "attn_decay_a.weight"));
        a.decay_b = maybe(blk(layer, "attn_decay_b.weight"));
        a.decay_bias = maybe(blk(layer, "attn_decay_bias.weight"));
        a.gate = maybe(blk(layer, "attn_gate.weight"));
        a.gate_a = maybe(blk(layer, "attn_gate_a.weight"));
        a.gate_b = maybe(blk(layer, "attn_gate_b.weight"));
        a.conv = maybe(blk(layer, "ssm_conv1d.weight"));
        a.output_norm = maybe(blk(layer, "attn_output_norm.weight"));
      }
      if (grp.ffn == FfnKind::kMoe) {
        L.moe_index = moe_index++;
        L.router = need(blk(layer, "ffn_gate_inp.weight"));
        L.latent_in = maybe(blk(layer, "ffn_latent_in.weight"));
        L.latent_out = maybe(blk(layer, "ffn_latent_out.weight"));
        L.latent_norm = maybe(blk(layer, "ffn_latent_norm.weight"));
        L.gate_sh = maybe(blk(layer, "ffn_gate_shexp.weight"));
        L.up_sh = maybe(blk(layer, "ffn_up_shexp.weight"));
        L.down_sh = maybe(blk(layer, "ffn_down_shexp.weight"));
      } else {
        L.gate = need(blk(layer, "ffn_gate.weight"));
        L.up = need(blk(layer, "ffn_up.weight"));
        L.down = need(blk(layer, "ffn_down.weight"));
      }
      t.layers.push_back(L);
    }
  }
  if (!err.empty()) return make_error(err);
  return t;
}

Expected<ExpertTable> expert_table(const ModelCard& card, const GgufFile& g) {
  ExpertTable t;
  t.moe_layers = card.moe_layers();
  t.experts = card.moe.experts;
  const auto quant = g.get_string("moebench.quant");
  if (!quant) return make_error(g.label + ": no moebench.quant metadata (not a moebench container?)");
  const auto fmt = find_quant(*quant);
  if (!fmt) return make_error(g.label + ": unknown expert quant \"" + *quant + "\"");
  if (const GgufKv* kv = g.find("moebench.experts_held"); kv && kv->value.is_array()) {
    for (const Json& e : kv->value) t.held.push_back(e.get<int>());
  } else {
    return make_error(g.label + ": no moebench.experts_held metadata");
  }
  t.rows8 = g.get_string("moebench.expert_rows") == std::optional<std::string>("rows8");
  const std::uint64_t ed = static_cast<std::uint64_t>(card.moe.expert_dim);
  const std::uint64_t inter = static_cast<std::uint64_t>(card.moe.expert_intermediate);
  const std::uint64_t rows[3] = {inter, inter, ed}, lens[3] = {ed, ed, inter};
  std::uint64_t slice[3];
  for (int m = 0; m < 3; ++m) slice[m] = rows[m] * fmt->bytes_for(lens[m]);
  t.expert_bytes = slice[0] + slice[1] + slice[2];
  t.loc.assign(static_cast<std::size_t>(t.moe_layers) * static_cast<std::size_t>(t.experts), {});
  t.present.assign(t.loc.size(), 0);
  int layer = 0, moe = 0;
  for (const LayerGroup& grp : card.layers) {
    for (int k = 0; k < grp.count; ++k, ++layer) {
      if (grp.ffn != FfnKind::kMoe) continue;
      const GgufTensorInfo* packed = g.tensor(blk(layer, "ffn_exps_packed.weight"));
      const GgufTensorInfo* split[3] = {g.tensor(blk(layer, "ffn_gate_exps.weight")),
                                        g.tensor(blk(layer, "ffn_up_exps.weight")),
                                        g.tensor(blk(layer, "ffn_down_exps.weight"))};
      t.packed = packed != nullptr;
      if (!packed && (!split[0] || !split[1] || !split[2])) {
        return make_error(g.label + ": layer " + std::to_string(layer) + " has no expert tensors");
      }
      for (std::size_t i = 0; i < t.held.size(); ++i) {
        const int e = t.held[i];
        if (e < 0 || e >= t.experts) return make_error(g.label + ": experts_held names expert " + std::to_string(e));
        ExpertLocation& L = t.loc[static_cast<std::size_t>(moe) * static_cast<std::size_t>(t.experts) +
                                  static_cast<std::size_t>(e)];
        L.format = *fmt;
        std::uint64_t at = 0;
        if (packed) {
          const std::uint64_t rec = packed->ne[0];
          at = g.data_offset + packed->offset + i * rec;
        }
        for (int m = 0; m < 3; ++m) {
          L.rows[m] = rows[m];
          L.row_len[m] = lens[m];
          L.bytes[m] = slice[m];
          if (packed) {
            L.offset[m] = at;
            at += slice[m];
          } else {
            L.offset[m] = g.data_offset + split[m]->offset + i * slice[m];
          }
        }
        t.present[static_cast<std::size_t>(moe) * static_cast<std::size_t>(t.experts) + static_cast<std::size_t>(e)] = 1;
      }
      ++moe;
    }
  }
  return t;
}

Executor::Executor(const ModelCard& card, const TrunkWeights& trunk, ExpertSource& experts,
                   RoutingGenerator& routing, TensorOps& ops, TrunkSource* trunk_source)
    : card_(card), trunk_(trunk), experts_(experts), routing_(routing), ops_(ops), trunk_source_(trunk_source) {
  for (const TrunkLayer& L : trunk_.layers) attention_.push_back(make_attention(card_, L.attention, L.attn, L.window));
  layer_s_.assign(trunk_.layers.size(), 0.0);
}

void Executor::prepare(std::int64_t context_tokens, std::int64_t run_tokens, std::uint64_t seed) {
  for (std::size_t i = 0; i < attention_.size(); ++i) {
    attention_[i]->reserve(context_tokens + run_tokens);
    attention_[i]->fill_context(context_tokens, seed + 977 * i);
  }
}

std::uint64_t Executor::cache_bytes() const {
  std::uint64_t b = 0;
  for (const auto& a : attention_) b += a->cache_bytes();
  return b;
}

AttentionWork Executor::attention_work() const {
  AttentionWork w;
  for (const auto& a : attention_) w += a->work();
  return w;
}

Status Executor::forward(std::size_t batch) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  Clock::time_point mark = Clock::now();
  const std::size_t hidden = static_cast<std::size_t>(card_.hidden_size);
  x_.assign(batch * hidden, 0.0f);
  h_.resize(batch * hidden);
  a_.resize(batch * hidden);
  token_routes_.resize(batch);
  for (std::size_t b = 0; b < batch; ++b) {
    routing_.next_token(token_routes_[b]);
    // Embedding: one row of the table per token.
    const std::uint64_t row = static_cast<std::uint64_t>(next_token_id_) % trunk_.embedding.rows;
    ops_.load_row(trunk_.embedding, row, x_.data() + b * hidden);
    next_token_id_ = static_cast<std::int32_t>((static_cast<std::uint64_t>(next_token_id_) * 48271u + 11u) % 2147483647u);
  }
  std::vector<float> gain(hidden);
  Clock::time_point now = Clock::now();
  head_s_ += seconds(mark, now);
  mark = now;
  for (std::size_t li = 0; li < trunk_.layers.size(); ++li) {
    const TrunkLayer* lp = &trunk_.layers[li];
    if (trunk_source_ != nullptr) {
      auto got = trunk_source_->layer_weights(static_cast<int>(li));
      if (!got) return got.error();
      if (*got != nullptr) {  // a streamed layer: its weights sit in a staging buffer this pass
        lp = *got;
        attention_[li]->rebind(lp->attn);
      }
    }
    const TrunkLayer& L = *lp;
    if (L.moe_index >= 0) {
      experts_.layer_begin(L.moe_index);
      if (L.moe_index == 0) experts_.layer_upcoming(0, distinct_of(0, batch));
    }
    ops_.load_vector(L.attn_norm, gain.data());
    std::copy(x_.begin(), x_.end(), h_.begin());
    for (std::size_t b = 0; b < batch; ++b) rms_norm(h_.data() + b * hidden, hidden, gain.data());
    attention_[li]->forward(ops_, h_.data(), batch, a_.data());
    for (std::size_t i = 0; i < x_.size(); ++i) x_[i] += a_[i];
    ops_.load_vector(L.ffn_norm, gain.data());
    std::copy(x_.begin(), x_.end(), h_.begin());
    for (std::size_t b = 0; b < batch; ++b) rms_norm(h_.data() + b * hidden, hidden, gain.data());
    if (L.ffn == FfnKind::kMoe) {
      if (Status st = moe(L, batch, h_.data(), a_.data()); !st) return st;
    } else {
      dense(L, batch, h_.data(), a_.data());
    }
    if (trunk_source_ != nullptr) trunk_source_->layer_done(static_cast<int>(li));
    for (std::size_t i = 0; i < x_.size(); ++i) x_[i] += a_[i];
    now = Clock::now();
#ifdef MOEBENCH_INJECT_SLOWDOWN
    now = stretched(mark, now);
#endif
    layer_s_[li] += seconds(mark, now);
    mark = now;
  }
  // Logits for the last token only (prefill needs no more), greedy pick.
  ops_.load_vector(trunk_.output_norm, gain.data());
  float* last = x_.data() + (batch - 1) * hidden;
  rms_norm(last, hidden, gain.data());
  logits_.resize(trunk_.lm_head.rows);
  ops_.matvec(trunk_.lm_head, last, logits_.data());
  const auto best = std::max_element(logits_.begin(), logits_.end()) - logits_.begin();
  next_token_id_ = static_cast<std::int32_t>(best);
  head_s_ += seconds(mark, Clock::now());
  return Status::success();
}

std::vector<int> Executor::distinct_of(int moe_layer, std::size_t batch) const {
  const std::size_t k = static_cast<std::size_t>(card_.moe.active);
  std::vector<int> ids;
  for (std::size_t b = 0; b < batch; ++b) {
    const int* r = token_routes_[b].data() + static_cast<std::size_t>(moe_layer) * k;
    ids.insert(ids.end(), r, r + k);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void Executor::dense(const TrunkLayer& L, std::size_t batch, const float* h, float* out) {
  const std::size_t inter = static_cast<std::size_t>(L.gate.rows);
  g_.resize(batch * inter);
  u_.resize(batch * inter);
  ops_.matmul(L.gate, h, batch, g_.data());
  ops_.matmul(L.up, h, batch, u_.data());
  silu_mul(g_.data(), u_.data(), g_.size());
  ops_.matmul(L.down, g_.data(), batch, out);
}

Executor::Users Executor::route(const TrunkLayer& L, std::size_t batch, const float* h) {
  const std::size_t experts = static_cast<std::size_t>(card_.moe.experts);
  const std::size_t k = static_cast<std::size_t>(card_.moe.active);
  // Router: logits, softmax, top-k (real work; the routing model picks).
  router_.resize(batch * experts);
  ops_.matmul(L.router, h, batch, router_.data());
  std::vector<int> top;
  Users users;
  for (std::size_t b = 0; b < batch; ++b) {
    float* p = router_.data() + b * experts;
    softmax(p, experts);
    top_k(p, experts, k, top);
    const int* ids = token_routes_[b].data() + static_cast<std::size_t>(L.moe_index) * k;
    float sum = 0;
    for (std::size_t j = 0; j < k; ++j) sum += p[ids[j]];
    for (std::size_t j = 0; j < k; ++j) users[ids[j]].push_back({b, sum > 0 ? p[ids[j]] / sum : 1.0f / static_cast<float>(k)});
  }
  return users;
}

void Executor::shared_experts(const TrunkLayer& L, std::size_t batch, const float* h, float* out) {
  if (!L.gate_sh.valid()) return;
  const std::size_t si = static_cast<std::size_t>(L.gate_sh.rows);
  sh_g_.resize(batch * si);
  sh_u_.resize(batch * si);
  ops_.matmul(L.gate_sh, h, batch, sh_g_.data());
  ops_.matmul(L.up_sh, h, batch, sh_u_.data());
  silu_mul(sh_g_.data(), sh_u_.data(), sh_g_.size());
  ops_.matmul(L.down_sh, sh_g_.data(), batch, out);
}

const float* Executor::expert_input(const TrunkLayer& L, std::size_t batch, const float* h) {
  if (!L.latent_in.valid()) return h;
  const std::size_t ed = static_cast<std::size_t>(card_.moe.expert_dim);
  z_.resize(batch * ed);
  ops_.matmul(L.latent_in, h, batch, z_.data());
  std::vector<float> g(ed);
  if (L.latent_norm.valid()) ops_.load_vector(L.latent_norm, g.data());
  for (std::size_t b = 0; b < batch; ++b) rms_norm(z_.data() + b * ed, ed, L.latent_norm.valid() ? g.data() : nullptr);
  return z_.data();
}

const std::vector<int>& Executor::ready_group(int l, std::vector<int>& remaining) {
  std::vector<int>& group = group_;
  group.clear();
  for (int ready; !remaining.empty() && (ready = experts_.pick_ready(l, remaining)) >= 0;) {
    group.push_back(remaining[static_cast<std::size_t>(ready)]);
    remaining.erase(remaining.begin() + ready);
  }
  if (group.empty()) {
    group.push_back(remaining.front());
    remaining.erase(remaining.begin());
  }
  return group;
}

Status Executor::compute_group(int l, const std::vector<int>& group, Users& users, const float* zin) {
  const std::size_t ed = static_cast<std::size_t>(card_.moe.expert_dim);
  std::vector<ExpertWeights>& weights = group_weights_;
  std::vector<std::size_t>& first = group_first_;  // per group member: its first row in the stacked buffers
  weights.clear();
  first.clear();
  std::size_t rows = 0, inter = 0;
  for (const int e : group) {
    auto w = experts_.acquire(l, e);
    if (!w) return w.error();
    weights.push_back(*w);
    first.push_back(rows);
    rows += users[e].size();
    inter = std::max<std::size_t>(inter, static_cast<std::size_t>(w->gate.rows));
  }
  zin_.resize(rows * ed);
  g_.resize(rows * inter);
  u_.resize(rows * inter);
  y_.resize(rows * ed);
  // Each expert's input rows: a single token's row in place (then every
  // expert of a decode step reads one input, quantized once), several
  // tokens' rows gathered.
  std::vector<TensorOps::Product>& products = products_;
  products.clear();
  for (std::size_t i = 0; i < group.size(); ++i) {
    const auto& us = users[group[i]];
    const float* in = zin + us[0].first * ed;
    if (us.size() > 1) {
      for (std::size_t j = 0; j < us.size(); ++j) {
        std::copy_n(zin + us[j].first * ed, ed, zin_.data() + (first[i] + j) * ed);
      }
      in = zin_.data() + first[i] * ed;
    }
    products.push_back({&weights[i].gate, in, us.size(), g_.data() + first[i] * inter});
    products.push_back({&weights[i].up, in, us.size(), u_.data() + first[i] * inter});
  }
  ops_.matmul_many(products);
  silu_mul(g_.data(), u_.data(), rows * inter);
  products.clear();
  for (std::size_t i = 0; i < group.size(); ++i) {
    const std::size_t n = users[group[i]].size();
    products.push_back({&weights[i].down, g_.data() + first[i] * inter, n, y_.data() + first[i] * ed});
  }
  ops_.matmul_many(products);
  // Each token's output: the sum of its experts' outputs, by their weights.
  for (std::size_t i = 0; i < group.size(); ++i) {
    experts_.release(l, group[i]);
    const auto& us = users[group[i]];
    for (std::size_t j = 0; j < us.size(); ++j) {
      float* dst = acc_.data() + us[j].first * ed;
      const float wt = us[j].second;
      const float* src = y_.data() + (first[i] + j) * ed;
      for (std::size_t c = 0; c < ed; ++c) dst[c] += wt * src[c];
    }
  }
  return Status::success();
}

Status Executor::moe(const TrunkLayer& L, std::size_t batch, const float* h, float* out) {
  const std::size_t hidden = static_cast<std::size_t>(card_.hidden_size);
  const int l = L.moe_index;
  Users users = route(L, batch, h);
  std::vector<int> distinct;
  for (const auto& [e, u] : users) distinct.push_back(e);
  const auto routed_at = std::chrono::steady_clock::now();
  if (Status st = experts_.layer_routed(l, distinct); !st) return st;
  if (l + 1 < card_.moe_layers()) experts_.layer_upcoming(l + 1, distinct_of(l + 1, batch));
  // Shared experts while the routed experts' reads are in flight.
  std::fill(out, out + batch * hidden, 0.0f);
  shared_experts(L, batch, h, out);
  const float* zin = expert_input(L, batch, h);
  acc_.assign(batch * static_cast<std::size_t>(card_.moe.expert_dim), 0.0f);
  // Every expert whose weights are in memory now, computed together in one
  // dispatch per matrix kind; when none is, the first listed (acquire then
  // waits for it). A resident source has them all at once.
  for (std::vector<int> remaining = distinct; !remaining.empty();) {
    if (Status st = compute_group(l, ready_group(l, remaining), users, zin); !st) return st;
  }
  routed_phase_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - routed_at).count();
  if (L.latent_out.valid()) {
    y_.resize(batch * hidden);
    ops_.matmul(L.latent_out, acc_.data(), batch, y_.data());
    for (std::size_t i = 0; i < batch * hidden; ++i) out[i] += y_[i];
  } else {
    for (std::size_t i = 0; i < batch * hidden; ++i) out[i] += acc_[i];
  }
  return Status::success();
}

}  // namespace moebench
