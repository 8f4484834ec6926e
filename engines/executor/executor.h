// executor.h — one forward pass of a (scaled) MoE model, shared by the
// resident and streaming engines: embedding row, per layer RMSNorm →
// attention (MLA / GQA / linear, attention.h) → RMSNorm → router matvec,
// softmax and top-k → shared experts → routed experts (gate, up, SiLU·mul,
// down through the quant kernels) or a dense FFN, then the final norm and
// the lm_head for the last token of the batch. Weights are the container's
// (synthetic values, real bytes); every multiply-add is done.
//
// Which routed experts a token visits comes from the routing model
// (routing.h), not from the synthetic router's scores: the router matvec
// and top-k still run (their cost is real) and their probabilities weight
// the chosen experts' outputs. A layer reveals its experts to the
// ExpertSource the moment its router has run (layer_routed), computes its
// shared experts, then takes the routed experts one by one (acquire): a
// streaming source can have every read of the layer in flight while the
// shared experts and the earlier experts compute. layer_begin comes before
// the layer's attention, for lookahead prefetch.
//
// A batch (prefill chunk) visits each distinct expert of a layer once and
// applies it to all the tokens routed to it (one read, one decode of its
// weights per chunk).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engines/container/gguf.h"
#include "engines/executor/attention.h"
#include "engines/executor/model_loader.h"
#include "engines/executor/tensor_ops.h"
#include "engines/routing/routing.h"
#include "vocab/model_card.h"

namespace moebench {

struct ExpertWeights {
  TensorView gate, up, down;
};

class ExpertSource {
 public:
  virtual ~ExpertSource() = default;
  virtual void layer_begin(int moe_layer) { (void)moe_layer; }
  // What a lookahead predictor could be asked about: the experts MoE layer
  // `moe_layer` will really use for the current batch, told before its
  // router runs (for layer 0 before its attention, otherwise right after the
  // previous layer's routing). Sources that simulate a predictor of limited
  // accuracy use it; the others ignore it.
  virtual void layer_upcoming(int moe_layer, const std::vector<int>& experts) {
    (void)moe_layer;
    (void)experts;
  }
  // The distinct experts of `moe_layer` the current batch needs.
  virtual Status layer_routed(int moe_layer, const std::vector<int>& experts) = 0;
  // Blocks until expert `expert` of `moe_layer` is in memory.
  virtual Expected<ExpertWeights> acquire(int moe_layer, int expert) = 0;
  // Among `candidates` (experts of `moe_layer` not yet computed), the index
  // of one whose weights are in memory now, or -1 if none is: the executor
  // computes experts in the order they land, not the order it listed them.
  virtual int pick_ready(int moe_layer, const std::vector<int>& candidates) {
    (void)moe_layer;
    return candidates.empty() ? -1 : 0;
  }
  virtual void release(int moe_layer, int expert) {
    (void)moe_layer;
    (void)expert;
  }
};

struct TrunkLayer {
  AttentionKind attention = AttentionKind::kGqa;
  FfnKind ffn = FfnKind::kMoe;
  std::uint64_t window = 0;  // sliding-window attention (LayerGroup::window; 0 none)
  int moe_index = -1;  // index among MoE layers (-1 for dense)
  TensorView attn_norm, ffn_norm;
  AttentionWeights attn;
  TensorView router, latent_in, latent_out, latent_norm, gate_sh, up_sh, down_sh;  // MoE
  TensorView gate, up, down;                                                       // dense
};

struct TrunkWeights {
  TensorView embedding, lm_head, output_norm;
  std::vector<TrunkLayer> layers;
};

// Names the card's trunk tensors in a loaded range of container `g`.
Expected<TrunkWeights> bind_trunk(const ModelCard& card, const GgufFile& g, const LoadedRange& r);
// The same with a resolver per tensor name (the streaming engine binds the
// head, the pinned layers and the streamed layers to different memory).
using TensorResolver = std::function<Expected<TensorView>(const std::string& name)>;
Expected<TrunkWeights> bind_trunk(const ModelCard& card, const GgufFile& g, const TensorResolver& view);

// Where a layer's trunk weights come from when they are not all resident
// (the streaming engine's trunk streaming). The executor asks before each
// layer runs and says when it is done; the source may start reading later
// layers meanwhile.
class TrunkSource {
 public:
  virtual ~TrunkSource() = default;
  // The weights of layer `layer` (index among all layers) for this pass;
  // blocks until they are in memory. nullptr: the bound trunk's own.
  virtual Expected<const TrunkLayer*> layer_weights(int layer) = 0;
  virtual void layer_done(int layer) { (void)layer; }
};

// The container's expert tensors: where expert e of MoE layer l lies in the
// file (split layout: three slices; packed: one record).
struct ExpertLocation {
  std::uint64_t offset[3] = {0, 0, 0};  // file offsets of gate, up, down
  std::uint64_t bytes[3] = {0, 0, 0};
  QuantFormat format{};
  std::uint64_t rows[3] = {0, 0, 0};
  std::uint64_t row_len[3] = {0, 0, 0};
};
struct ExpertTable {
  bool packed = false;
  bool rows8 = false;  // eligible matrices stored in the 8-row layout (moebench.expert_rows "rows8")
  int moe_layers = 0;
  int experts = 0;
  std::vector<int> held;  // experts this file holds (stripe) — all for replicate
  std::uint64_t expert_bytes = 0;  // gate + up + down, unpadded
  // loc[l * experts + e]; only held experts are valid.
  std::vector<ExpertLocation> loc;
  std::vector<char> present;
};
Expected<ExpertTable> expert_table(const ModelCard& card, const GgufFile& g);

class Executor {
 public:
  Executor(const ModelCard& card, const TrunkWeights& trunk, ExpertSource& experts, RoutingGenerator& routing,
           TensorOps& ops, TrunkSource* trunk_source = nullptr);
  // Reserves caches for context + run tokens and fills `context_tokens` of
  // synthetic history (outside every timing window).
  void prepare(std::int64_t context_tokens, std::int64_t run_tokens, std::uint64_t seed);
  // One forward pass over the next `batch` tokens.
  Status forward(std::size_t batch);
  std::uint64_t cache_bytes() const;
  // Attention work of every layer so far, summed (attention.h): the decode
  // window's KV positions visited and cache/state bytes read are the
  // difference of two readings.
  AttentionWork attention_work() const;
  TensorOps& ops() { return ops_; }
  // Seconds spent, over the run, from each MoE layer's routing decision to
  // its experts' summed output: the window in which that layer's expert
  // reads can overlap compute (shared experts, latent projection, experts
  // whose reads landed). The rest of a token (embedding, attention, router,
  // lm_head) runs before the router has chosen and cannot hide those reads.
  double routed_phase_s() const { return routed_phase_s_; }
  // Seconds spent, over the run, in each layer (by index among all layers,
  // waits for its streamed weights and expert reads included) and in the
  // per-token head (embedding rows, routing draw, final norm, lm_head,
  // greedy pick): the split that carries a scaled run to the full model.
  const std::vector<double>& layer_s() const { return layer_s_; }
  double head_s() const { return head_s_; }

 private:
  // expert → the batch tokens routed to it, with their normalized weights
  using Users = std::map<int, std::vector<std::pair<std::size_t, float>>>;
  // A MoE layer: route, the shared experts, the routed experts in groups
  // of those already in memory, the weighted sum.
  Status moe(const TrunkLayer& L, std::size_t batch, const float* h, float* out);
  Users route(const TrunkLayer& L, std::size_t batch, const float* h);
  void shared_experts(const TrunkLayer& L, std::size_t batch, const float* h, float* out);
  // The experts' input: the hidden state, or its normalized latent projection.
  const float* expert_input(const TrunkLayer& L, std::size_t batch, const float* h);
  // The next group: every listed expert whose weights are in memory now, or
  // the first listed (acquire then waits for it); taken off `remaining`.
  const std::vector<int>& ready_group(int moe_layer, std::vector<int>& remaining);
  // One group's gate/up, SiLU, down in one dispatch per matrix kind, added
  // into acc_ by each token's weights.
  Status compute_group(int moe_layer, const std::vector<int>& group, Users& users, const float* zin);
  void dense(const TrunkLayer& L, std::size_t batch, const float* h, float* out);
  std::vector<int> distinct_of(int moe_layer, std::size_t batch) const;

  const ModelCard& card_;
  const TrunkWeights& trunk_;
  ExpertSource& experts_;
  RoutingGenerator& routing_;
  TensorOps& ops_;
  TrunkSource* trunk_source_ = nullptr;
  std::vector<std::unique_ptr<AttentionLayer>> attention_;
  std::vector<std::vector<int>> token_routes_;  // per batch token: all layers' ids
  std::int32_t next_token_id_ = 1;
  double routed_phase_s_ = 0;
  std::vector<double> layer_s_;
  double head_s_ = 0;
  // scratch
  std::vector<float> x_, h_, a_, f_, logits_, router_, z_, zin_, g_, u_, y_, acc_, sh_g_, sh_u_;
  std::vector<int> group_;                      // the routed experts computed together
  std::vector<ExpertWeights> group_weights_;    // their weights, as acquired
  std::vector<std::size_t> group_first_;        // their first rows in the stacked buffers
  std::vector<TensorOps::Product> products_;    // one dispatch's matrix products
};

}  // namespace moebench
