// attention.cpp — see attention.h.
#include "engines/executor/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engines/quant/dequantize.h"

namespace moebench {
namespace {

inline std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float from_bf16(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float dot_bf16(const float* q, const std::uint16_t* c, std::size_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += q[i] * from_bf16(c[i]);
    s1 += q[i + 1] * from_bf16(c[i + 1]);
    s2 += q[i + 2] * from_bf16(c[i + 2]);
    s3 += q[i + 3] * from_bf16(c[i + 3]);
  }
  for (; i < n; ++i) s0 += q[i] * from_bf16(c[i]);
  return (s0 + s1) + (s2 + s3);
}

void axpy_bf16(float a, const std::uint16_t* c, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] += a * from_bf16(c[i]);
}

inline float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// Seeded, cheap, bounded values for synthetic history.
struct FillRng {
  std::uint64_t s;
  float next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<std::int32_t>(s >> 32)) * (1.0f / 2147483648.0f);
  }
};

std::vector<float> vector_of(TensorOps& ops, const TensorView& v) {
  std::vector<float> out(static_cast<std::size_t>(v.rows * v.row_len));
  if (v.valid()) ops.load_vector(v, out.data());
  return out;
}

// ---- MLA ----------------------------------------------------------------
class MlaLayer final : public AttentionLayer {
 public:
  MlaLayer(const ModelCard& card, const AttentionWeights& w) : p_(*card.mla), w_(w) {
    qk_ = p_.qk_nope_head_dim + p_.qk_rope_head_dim;
    row_ = p_.kv_lora_rank + p_.qk_rope_head_dim;
  }
  void reserve(std::int64_t max_tokens) override {
    cap_ = max_tokens;
    cache_.assign(static_cast<std::size_t>(cap_) * static_cast<std::size_t>(row_), 0);
    scores_.assign(static_cast<std::size_t>(p_.heads), std::vector<float>(static_cast<std::size_t>(cap_)));
  }
  void fill_context(std::int64_t tokens, std::uint64_t seed) override {
    if (tokens > cap_) reserve(tokens);
    FillRng r{seed};
    for (std::size_t i = 0; i < static_cast<std::size_t>(tokens) * static_cast<std::size_t>(row_); ++i) {
      cache_[i] = to_bf16(r.next());
    }
    tokens_ = tokens;
  }
  std::int64_t tokens() const override { return tokens_; }
  std::uint64_t cache_bytes() const override { return static_cast<std::uint64_t>(tokens_) * static_cast<std::uint64_t>(row_) * 2; }

  void forward(TensorOps& ops, const float* x, std::size_t batch, float* out) override {
    const std::size_t heads = static_cast<std::size_t>(p_.heads);
    const std::size_t qk = static_cast<std::size_t>(qk_), nope = static_cast<std::size_t>(p_.qk_nope_head_dim);
    const std::size_t vd = static_cast<std::size_t>(p_.v_head_dim), kv = static_cast<std::size_t>(p_.kv_lora_rank);
    const std::size_t row = static_cast<std::size_t>(row_);
    if (tokens_ + static_cast<std::int64_t>(batch) > cap_) reserve(tokens_ + static_cast<std::int64_t>(batch));
    q_.resize(batch * heads * qk);
    if (w_.q_a.valid()) {
      qa_.resize(batch * w_.q_a.rows);
      ops.matmul(w_.q_a, x, batch, qa_.data());
      const std::vector<float> g = vector_of(ops, w_.q_a_norm);
      for (std::size_t b = 0; b < batch; ++b) rms_norm(qa_.data() + b * w_.q_a.rows, w_.q_a.rows, g.data());
      ops.matmul(w_.q_b, qa_.data(), batch, q_.data());
    } else {
      ops.matmul(w_.q, x, batch, q_.data());
    }
    kva_.resize(batch * row);
    ops.matmul(w_.kv_a, x, batch, kva_.data());
    const std::vector<float> kvg = vector_of(ops, w_.kv_a_norm);
    const std::int64_t first = tokens_;
    for (std::size_t b = 0; b < batch; ++b) {
      float* c = kva_.data() + b * row;
      rms_norm(c, kv, kvg.data());
      std::uint16_t* dst = cache_.data() + static_cast<std::size_t>(tokens_) * row;
      for (std::size_t i = 0; i < row; ++i) dst[i] = to_bf16(c[i]);
      ++tokens_;
    }
    attn_.assign(batch * heads * vd, 0.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(qk));
    const std::uint64_t kvb_row_bytes = w_.kv_b.row_bytes();
    ops.pool().parallel_for(heads, [&](std::size_t h) {
      std::vector<float> q_lat(batch * kv, 0.0f), wrow(kv), o_lat(kv), qcat(row);
      // q_lat[b] = W_UK_hᵀ q_nope[b]: each W_UK row decoded once for the batch.
      for (std::size_t d = 0; d < nope; ++d) {
        const std::size_t r = h * (nope + vd) + d;
        (void)dequantize(w_.kv_b.format.name, w_.kv_b.data + r * kvb_row_bytes, wrow.data(), kv);
        for (std::size_t b = 0; b < batch; ++b) {
          const float qv = q_[b * heads * qk + h * qk + d];
          float* ql = q_lat.data() + b * kv;
          for (std::size_t c = 0; c < kv; ++c) ql[c] += qv * wrow[c];
        }
      }
      std::vector<float>& s = scores_[h];
      for (std::size_t b = 0; b < batch; ++b) {
        const std::size_t visible = static_cast<std::size_t>(first) + b + 1;
        const float* ql = q_lat.data() + b * kv;
        const float* qr = q_.data() + b * heads * qk + h * qk + nope;
        // Scores over the whole context in one bf16 matvec: each cached row
        // is [c_t, kr_t], the query [q_lat, q_rope].
        std::copy_n(ql, kv, qcat.data());
        std::copy_n(qr, row - kv, qcat.data() + kv);
        (void)moebench::matvec("bf16", cache_.data(), visible, row, qcat.data(), s.data(), best_simd_level());
        for (std::size_t t = 0; t < visible; ++t) s[t] *= scale;
        softmax(s.data(), visible);
        std::fill(o_lat.begin(), o_lat.end(), 0.0f);
        for (std::size_t t = 0; t < visible; ++t) axpy_bf16(s[t], cache_.data() + t * row, o_lat.data(), kv);
        // v_h = W_UV_h o_lat: the head's value rows of kv_b.
        const TensorView uv = w_.kv_b.slice_rows(h * (nope + vd) + nope, vd);
        (void)moebench::matvec(uv.format.name, uv.data, vd, kv, o_lat.data(), attn_.data() + b * heads * vd + h * vd,
                               best_simd_level());
      }
    });
    ops.weight_bytes_touched += w_.kv_b.bytes();
    for (std::size_t b = 0; b < batch; ++b) {
      const std::uint64_t visible = static_cast<std::uint64_t>(first) + b + 1;
      work_.kv_positions += visible;
      work_.kv_bytes += visible * row * sizeof(std::uint16_t);  // each [c_t, kr_t] row, bf16
    }
    if (w_.gate.valid()) {
      gate_.resize(batch * heads * vd);
      ops.matmul(w_.gate, x, batch, gate_.data());
      for (std::size_t i = 0; i < gate_.size(); ++i) attn_[i] *= sigmoid(gate_[i]);
    }
    ops.matmul(w_.output, attn_.data(), batch, out);
  }

 private:
  MlaParams p_;
  AttentionWeights w_;

 public:
  void rebind(const AttentionWeights& w) override { w_ = w; }
  int qk_ = 0, row_ = 0;
  std::int64_t tokens_ = 0, cap_ = 0;
  std::vector<std::uint16_t> cache_;
  std::vector<std::vector<float>> scores_;
  std::vector<float> q_, qa_, kva_, attn_, gate_;
};

// ---- GQA ----------------------------------------------------------------
class GqaLayer final : public AttentionLayer {
 public:
  GqaLayer(const ModelCard& card, const AttentionWeights& w, std::uint64_t window) : p_(*card.gqa), w_(w), window_(window) {}
  void reserve(std::int64_t max_tokens) override {
    cap_ = max_tokens;
    const std::size_t kvw = static_cast<std::size_t>(p_.kv_heads) * static_cast<std::size_t>(p_.head_dim);
    k_.assign(static_cast<std::size_t>(cap_) * kvw, 0);
    v_.assign(static_cast<std::size_t>(cap_) * kvw, 0);
    scores_.assign(static_cast<std::size_t>(p_.heads), std::vector<float>(static_cast<std::size_t>(cap_)));
  }
  void fill_context(std::int64_t tokens, std::uint64_t seed) override {
    if (tokens > cap_) reserve(tokens);
    FillRng r{seed};
    const std::size_t n = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(p_.kv_heads) *
                          static_cast<std::size_t>(p_.head_dim);
    for (std::size_t i = 0; i < n; ++i) {
      k_[i] = to_bf16(r.next());
      v_[i] = to_bf16(r.next());
    }
    tokens_ = tokens;
  }
  std::int64_t tokens() const override { return tokens_; }
  std::uint64_t cache_bytes() const override {
    return static_cast<std::uint64_t>(tokens_) * static_cast<std::uint64_t>(p_.kv_heads) *
           static_cast<std::uint64_t>(p_.head_dim) * 4;
  }
  void forward(TensorOps& ops, const float* x, std::size_t batch, float* out) override {
    const std::size_t heads = static_cast<std::size_t>(p_.heads), kvh = static_cast<std::size_t>(p_.kv_heads);
    const std::size_t hd = static_cast<std::size_t>(p_.head_dim), kvw = kvh * hd;
    if (tokens_ + static_cast<std::int64_t>(batch) > cap_) reserve(tokens_ + static_cast<std::int64_t>(batch));
    q_.resize(batch * heads * hd);
    kn_.resize(batch * kvw);
    vn_.resize(batch * kvw);
    ops.matmul_many({{&w_.q, x, batch, q_.data()}, {&w_.k, x, batch, kn_.data()}, {&w_.v, x, batch, vn_.data()}});
    const std::int64_t first = tokens_;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t i = 0; i < kvw; ++i) {
        k_[static_cast<std::size_t>(tokens_) * kvw + i] = to_bf16(kn_[b * kvw + i]);
        v_[static_cast<std::size_t>(tokens_) * kvw + i] = to_bf16(vn_[b * kvw + i]);
      }
      ++tokens_;
    }
    attn_.assign(batch * heads * hd, 0.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const std::size_t group = std::max<std::size_t>(1, heads / kvh);
    ops.pool().parallel_for(heads, [&](std::size_t h) {
      const std::size_t g = std::min(h / group, kvh - 1);
      std::vector<float>& s = scores_[h];
      for (std::size_t b = 0; b < batch; ++b) {
        // A sliding window attends to the last window_ positions only.
        const std::size_t end = static_cast<std::size_t>(first) + b + 1;
        const std::size_t from = window_ > 0 && end > window_ ? end - static_cast<std::size_t>(window_) : 0;
        const std::size_t visible = end - from;
        const float* qh = q_.data() + b * heads * hd + h * hd;
        const std::uint16_t* kb = k_.data() + from * kvw + g * hd;
        const std::uint16_t* vb = v_.data() + from * kvw + g * hd;
        for (std::size_t t = 0; t < visible; ++t) s[t] = dot_bf16(qh, kb + t * kvw, hd) * scale;
        softmax(s.data(), visible);
        float* o = attn_.data() + b * heads * hd + h * hd;
        for (std::size_t t = 0; t < visible; ++t) axpy_bf16(s[t], vb + t * kvw, o, hd);
      }
    });
    for (std::size_t b = 0; b < batch; ++b) {
      const std::uint64_t end = static_cast<std::uint64_t>(first) + b + 1;
      const std::uint64_t visible = window_ > 0 ? std::min(end, window_) : end;
      work_.kv_positions += visible;
      work_.kv_bytes += visible * kvw * 2 * sizeof(std::uint16_t);  // K and V rows of every KV head, bf16
    }
    ops.matmul(w_.output, attn_.data(), batch, out);
  }

 private:
  GqaParams p_;
  AttentionWeights w_;
  std::uint64_t window_ = 0;  // LayerGroup::window

 public:
  void rebind(const AttentionWeights& w) override { w_ = w; }
  std::int64_t tokens_ = 0, cap_ = 0;
  std::vector<std::uint16_t> k_, v_;
  std::vector<std::vector<float>> scores_;
  std::vector<float> q_, kn_, vn_, attn_;
};

// ---- linear (gated delta rule) -------------------------------------------
class LinearLayer final : public AttentionLayer {
 public:
  LinearLayer(const ModelCard& card, const AttentionWeights& w) : p_(*card.linear), w_(w) {
    heads_ = static_cast<std::size_t>(p_.heads);
    dk_ = static_cast<std::size_t>(p_.key_head_dim);
    dv_ = static_cast<std::size_t>(p_.value_head_dim);
    channels_ = 2 * heads_ * dk_ + heads_ * dv_;
    state_.assign(heads_ * dk_ * dv_, 0.0f);
    hist_.assign(static_cast<std::size_t>(std::max(0, p_.conv_kernel - 1)) * channels_, 0.0f);
  }
  void reserve(std::int64_t) override {}
  void fill_context(std::int64_t tokens, std::uint64_t seed) override {
    FillRng r{seed};
    // A state that has absorbed `tokens` updates: bounded, non-zero values.
    const float amp = tokens > 0 ? 0.05f : 0.0f;
    for (float& s : state_) s = amp * r.next();
    for (float& h : hist_) h = tokens > 0 ? r.next() : 0.0f;
    tokens_ = tokens;
  }
  std::int64_t tokens() const override { return tokens_; }
  std::uint64_t cache_bytes() const override { return (state_.size() + hist_.size()) * 4; }

  void forward(TensorOps& ops, const float* x, std::size_t batch, float* out) override {
    const std::size_t hk = heads_ * dk_, hv = heads_ * dv_;
    project_inputs(ops, x, batch);
    const std::vector<float> bias = vector_of(ops, w_.decay_bias);
    const std::vector<float> taps = vector_of(ops, w_.conv);  // channels × kernel
    const std::vector<float> onorm = vector_of(ops, w_.output_norm);
    const std::size_t kernel = static_cast<std::size_t>(std::max(0, p_.conv_kernel));
    const bool conv = kernel > 0 && !taps.empty();
    o_.assign(batch * hv, 0.0f);
    for (std::size_t b = 0; b < batch; ++b) {
      float* ch = qkv_.data() + b * channels_;
      // No cached positions: the fixed state (and the conv history) is read
      // whole, whatever the context.
      work_.kv_bytes += (state_.size() + (conv ? hist_.size() : 0)) * sizeof(float);
      if (conv) conv_silu(ch, taps, kernel);
      const float* bb = beta_.data() + b * heads_;
      const float* dg = decay_.data() + b * hk;
      float* ob = o_.data() + b * hv;
      ops.pool().parallel_for(heads_, [&](std::size_t h) { delta_rule(h, ch, bb[h], dg, bias, onorm, ob + h * dv_); });
      ++tokens_;
    }
    if (w_.gate.valid() || w_.gate_a.valid()) {
      for (std::size_t i = 0; i < o_.size(); ++i) o_[i] *= sigmoid(gate_[i]);
    }
    ops.matmul(w_.output, o_.data(), batch, out);
  }

 private:
  // The token's projections: q, k, v into one channel vector per token
  // ([q | k | v]), beta per head, the decay (full or low rank; 4 without
  // one) and the output gate (full or low rank; none).
  void project_inputs(TensorOps& ops, const float* x, std::size_t batch) {
    const std::size_t hk = heads_ * dk_, hv = heads_ * dv_;
    qkv_.resize(batch * channels_);
    tmp_.resize(batch * std::max(hk, hv));
    auto project = [&](const TensorView& wv, std::size_t offset, std::size_t width) {
      ops.matmul(wv, x, batch, tmp_.data());
      for (std::size_t b = 0; b < batch; ++b) {
        std::copy_n(tmp_.data() + b * width, width, qkv_.data() + b * channels_ + offset);
      }
    };
    project(w_.q, 0, hk);
    project(w_.k, hk, hk);
    project(w_.v, 2 * hk, hv);
    beta_.resize(batch * heads_);
    ops.matmul(w_.beta, x, batch, beta_.data());
    decay_.resize(batch * hk);
    if (w_.decay.valid()) {
      ops.matmul(w_.decay, x, batch, decay_.data());
    } else if (w_.decay_a.valid()) {
      low_.resize(batch * w_.decay_a.rows);
      ops.matmul(w_.decay_a, x, batch, low_.data());
      ops.matmul(w_.decay_b, low_.data(), batch, decay_.data());
    } else {
      std::fill(decay_.begin(), decay_.end(), 4.0f);
    }
    gate_.assign(batch * hv, 0.0f);
    if (w_.gate.valid()) {
      ops.matmul(w_.gate, x, batch, gate_.data());
    } else if (w_.gate_a.valid()) {
      low_.resize(batch * w_.gate_a.rows);
      ops.matmul(w_.gate_a, x, batch, low_.data());
      ops.matmul(w_.gate_b, low_.data(), batch, gate_.data());
    }
  }

  // Short causal conv over the last `kernel` inputs of each channel, SiLU;
  // the history shifts by one.
  void conv_silu(float* ch, const std::vector<float>& taps, std::size_t kernel) {
    for (std::size_t c = 0; c < channels_; ++c) {
      const float cur = ch[c];
      float acc = taps[c * kernel + kernel - 1] * cur;
      for (std::size_t j = 0; j + 1 < kernel; ++j) acc += taps[c * kernel + j] * hist_[j * channels_ + c];
      for (std::size_t j = 0; j + 2 < kernel; ++j) hist_[j * channels_ + c] = hist_[(j + 1) * channels_ + c];
      hist_[(kernel - 2) * channels_ + c] = cur;
      ch[c] = acc / (1.0f + std::exp(-acc));
    }
  }

  static void l2_normalize(float* a, std::size_t n) {
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += static_cast<double>(a[i]) * a[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss + 1e-6));
    for (std::size_t i = 0; i < n; ++i) a[i] *= inv;
  }

  // One head's gated delta rule: decay the state per key channel, predict v
  // from k, write beta × the error back, read the output with q; the output
  // RMS-normalized into o.
  void delta_rule(std::size_t h, float* ch, float beta_logit, const float* dg, const std::vector<float>& bias,
                  const std::vector<float>& onorm, float* o) {
    const std::size_t hk = heads_ * dk_;
    float* q = ch + h * dk_;
    float* k = ch + hk + h * dk_;
    const float* v = ch + 2 * hk + h * dv_;
    l2_normalize(q, dk_);
    l2_normalize(k, dk_);
    const float beta = sigmoid(beta_logit);
    float* S = state_.data() + h * dk_ * dv_;  // dk × dv
    float pred[512];
    float* pr = dv_ <= 512 ? pred : nullptr;
    std::vector<float> big;
    if (!pr) {
      big.resize(dv_);
      pr = big.data();
    }
    std::fill_n(pr, dv_, 0.0f);
    for (std::size_t i = 0; i < dk_; ++i) {
      const std::size_t c = h * dk_ + i;
      const float g = dg[c] + (bias.size() > heads_ + c ? bias[heads_ + c] : 0.0f);
      const float decay = std::exp(-std::log1p(std::exp(g)) * 0.1f);  // per-channel forget gate in (0, 1)
      float* Si = S + i * dv_;
      for (std::size_t j = 0; j < dv_; ++j) {
        Si[j] *= decay;
        pr[j] += Si[j] * k[i];
      }
    }
    for (std::size_t j = 0; j < dv_; ++j) pr[j] = beta * (v[j] - pr[j]);
    for (std::size_t i = 0; i < dk_; ++i) {
      float* Si = S + i * dv_;
      const float ki = k[i], qi = q[i];
      for (std::size_t j = 0; j < dv_; ++j) {
        Si[j] += ki * pr[j];
        o[j] += qi * Si[j];
      }
    }
    rms_norm(o, dv_, onorm.size() == dv_ ? onorm.data() : nullptr);
  }

  LinearParams p_;
  AttentionWeights w_;

 public:
  void rebind(const AttentionWeights& w) override { w_ = w; }
  std::size_t heads_ = 0, dk_ = 0, dv_ = 0, channels_ = 0;
  std::int64_t tokens_ = 0;
  std::vector<float> state_, hist_;
  std::vector<float> qkv_, tmp_, beta_, decay_, low_, gate_, o_;
};

}  // namespace

std::unique_ptr<AttentionLayer> make_attention(const ModelCard& card, AttentionKind kind, const AttentionWeights& w,
                                               std::uint64_t window) {
  switch (kind) {
    case AttentionKind::kMla: return std::make_unique<MlaLayer>(card, w);
    case AttentionKind::kGqa: return std::make_unique<GqaLayer>(card, w, window);
    case AttentionKind::kLinear: return std::make_unique<LinearLayer>(card, w);
  }
  return nullptr;
}

}  // namespace moebench
