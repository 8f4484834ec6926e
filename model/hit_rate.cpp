// hit_rate.cpp — see hit_rate.h.
#include "model/hit_rate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engines/cache/cache_model.h"
#include "engines/cache/hot_set.h"
#include "engines/cache/optimal_cache.h"
#include "engines/routing/routing.h"

namespace moebench {

namespace {

// P(N <= c − 1) for a count N with mean mu and variance var (normal, with
// continuity correction).
double below(double mu, double var, double c) {
  if (var <= 1e-12) return mu <= c - 1 + 1e-9 ? 1.0 : 0.0;
  return 0.5 * std::erfc(-((c - 0.5 - mu) / std::sqrt(var)) / std::sqrt(2.0));
}

// Per-token probabilities with how many experts (all layers) have each.
using Histogram = std::vector<std::pair<double, double>>;
Histogram histogram(const std::vector<std::vector<double>>& p) {
  std::map<double, double> h;
  for (const auto& layer : p) {
    for (double pe : layer) {
      if (pe > 0) h[std::min(pe, 1.0)] += 1;
    }
  }
  return {h.begin(), h.end()};
}

// The share of needs that hit, given per-gap survival probabilities
// survive[g−1]: Σ_e p_e Σ_g p_e (1−p_e)^(g−1) survive_g ÷ Σ_e p_e.
double weighted_hits(const Histogram& h, const std::vector<double>& survive) {
  double hit = 0, need = 0;
  for (const auto& [pc, n] : h) {
    double stay = 1, x = 0;  // (1 − p)^(g−1)
    for (double sv : survive) {
      x += pc * stay * sv;
      stay *= 1 - pc;
      if (stay < 1e-12) break;
    }
    hit += n * pc * x;
    need += n * pc;
  }
  return need > 0 ? hit / need : 0.0;
}

// Survival by gap g = 1, 2, ...: the expert is still cached when fewer than
// `slots` distinct other experts were used since its last use. Those are:
// the other layers' experts over g tokens; its own layer's over g − 1
// tokens; and the experts its layer used after it in the token it was last
// used (about half of the other k − 1, less those reused since). The count
// is a sum of nearly independent indicators: normal, mean and variance from
// the per-expert probabilities.
std::vector<double> survival(const CacheShape& s, const Histogram& h) {
  std::vector<double> out;
  const double L = std::max(1, s.moe_layers);
  const double c = static_cast<double>(s.slots);
  const double w_other = (L - 1) / L, w_own = 1 / L;
  for (int g = 1; g < 1000000; ++g) {
    double mu = 0, var = 0, stay_own = 0;
    for (const auto& [pc, n] : h) {
      const double other = 1 - std::pow(1 - pc, g), own = 1 - std::pow(1 - pc, g - 1);
      mu += n * (w_other * other + w_own * own);
      var += n * (w_other * other * (1 - other) + w_own * own * (1 - own));
      stay_own += n * pc * std::pow(1 - pc, g - 1);
    }
    mu += 0.5 * (static_cast<double>(s.k) - 1) * stay_own / L / std::max(1, s.k);
    const double surv = below(mu, var, c);
    out.push_back(surv);
    if (surv < 1e-9) break;
  }
  return out;
}

}  // namespace

double uniform_lru_hit_rate(const CacheShape& s) {
  if (s.slots >= static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts)) return 1.0;
  const std::vector<std::vector<double>> p(static_cast<std::size_t>(s.moe_layers),
                                           std::vector<double>(static_cast<std::size_t>(s.experts),
                                                               static_cast<double>(s.k) / s.experts));
  const Histogram h = histogram(p);
  return weighted_hits(h, survival(s, h));
}

double che_lru_hit_rate(const CacheShape& s, const std::vector<std::vector<double>>& p) {
  if (s.slots >= static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts)) return 1.0;
  const Histogram h = histogram(p);
  return weighted_hits(h, survival(s, h));
}

Expected<std::vector<std::vector<double>>> routing_popularity(const std::string& routing, const CacheShape& s,
                                                              std::uint64_t seed, int tokens,
                                                              const std::string& base_dir) {
  std::vector<std::vector<double>> p(static_cast<std::size_t>(s.moe_layers),
                                     std::vector<double>(static_cast<std::size_t>(s.experts), 0.0));
  if (routing == "uniform") {
    for (auto& layer : p) std::fill(layer.begin(), layer.end(), static_cast<double>(s.k) / s.experts);
    return p;
  }
  auto gen = make_routing(routing, RoutingShape{s.moe_layers, s.experts, s.k}, seed, base_dir);
  if (!gen) return gen.error();
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {
    (*gen)->next_token(ids);
    for (int l = 0; l < s.moe_layers; ++l) {
      for (int j = 0; j < s.k; ++j) p[static_cast<std::size_t>(l)][static_cast<std::size_t>(ids[static_cast<std::size_t>(l * s.k + j)])] += 1;
    }
  }
  for (auto& layer : p) {
    for (double& v : layer) v /= std::max(1, tokens);
  }
  return p;
}

namespace {

// The streaming source's loader with every read landing at once: the slot
// is ready the moment it is claimed, so a need never waits for a slot.
class InstantLoader final : public CacheLoader {
 public:
  explicit InstantLoader(ExpertCache& cache) : cache_(cache) {}
  Status load(int slot, int, int) override {
    cache_.set_ready(slot);
    return Status::success();
  }

 private:
  ExpertCache& cache_;
};

// The hot set a replay holds from load (none when plan.hot_set is off).
Expected<std::vector<std::pair<int, int>>> held_experts(const CacheShape& s, const ReplayPlan& plan, std::size_t slots) {
  auto spec = parse_hot_set(plan.hot_set);
  if (!spec) return spec.error();
  if (spec->off()) return std::vector<std::pair<int, int>>{};
  auto set = learn_hot_set(*spec, plan.routing, RoutingShape{s.moe_layers, s.experts, s.k}, plan.seed,
                           std::max<std::int64_t>(1, plan.prompt_tokens) + std::max<std::int64_t>(1, plan.gen_tokens), slots,
                           plan.base_dir);
  if (!set) return set.error();
  return std::move(set->experts);
}

WindowCounts window(const CacheCounts& c) {
  WindowCounts w;
  w.hits = c.hits;
  w.misses = c.misses;
  w.misses_hidden = c.misses_hidden;
  w.reads = c.reads;
  w.prefetches = c.prefetches;
  w.prefetches_used = c.prefetches_used;
  w.wasted_reads = c.wasted_reads;
  return w;
}

}  // namespace

Expected<ReplayCounts> simulate_cache(const CacheShape& s, const ReplayPlan& plan) {
  if (s.slots < static_cast<std::size_t>(s.k)) {
    return make_error("cache simulation: " + std::to_string(s.slots) + " slots cannot hold one layer's " +
                      std::to_string(s.k) + " experts");
  }
  const std::size_t all = static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts);
  auto cache = ExpertCache::create(std::min(s.slots, all), 4096, plan.policy);
  if (!cache) return cache.error();
  auto gen = make_routing(plan.routing, RoutingShape{s.moe_layers, s.experts, s.k}, plan.seed, plan.base_dir);
  if (!gen) return gen.error();
  InstantLoader loader(*cache);
  CacheModel model(*cache, loader, plan.prefetch, s.moe_layers, s.experts, plan.source_seed);
  auto hot = held_experts(s, plan, cache->slots());
  if (!hot) return hot.error();
  for (const auto& [l, e] : *hot) {
    if (auto slot = model.hold(l, e); !slot) return slot.error();
  }
  std::vector<std::vector<int>> routes;
  auto distinct_of = [&](int l) {
    std::vector<int> ids;
    for (const auto& r : routes) ids.insert(ids.end(), r.begin() + static_cast<std::ptrdiff_t>(l * s.k),
                                            r.begin() + static_cast<std::ptrdiff_t>((l + 1) * s.k));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  };
  // The executor's calls, in its order (engines/executor/executor.cpp).
  auto forward = [&](std::size_t batch) -> Status {
    routes.assign(batch, {});
    for (auto& r : routes) (*gen)->next_token(r);
    for (int l = 0; l < s.moe_layers; ++l) {
      if (l == 0) model.upcoming(0, distinct_of(0));
      std::vector<int> remaining = distinct_of(l);
      if (Status st = model.routed(l, remaining); !st) return st;
      if (l + 1 < s.moe_layers) model.upcoming(l + 1, distinct_of(l + 1));
      while (!remaining.empty()) {
        const int ready = model.pick(l, remaining);
        const std::size_t at = ready >= 0 ? static_cast<std::size_t>(ready) : 0;
        const int e = remaining[at];
        remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(at));
        auto slot = model.acquire(l, e);
        if (!slot) return slot.error();
        model.count_use(*slot, l, e, true);  // every read landed before its need
        model.release(l, e);
      }
    }
    return Status::success();
  };
  ReplayCounts out;
  const std::int64_t prompt = std::max<std::int64_t>(1, plan.prompt_tokens);
  for (std::int64_t done = 0; done < prompt;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(std::max<std::size_t>(1, plan.chunk)), prompt - done));
    if (Status st = forward(n); !st) return st.error();
    done += static_cast<std::int64_t>(n);
  }
  out.prefill = window(model.counts);
  model.counts = {};
  const std::size_t decode_from = model.trace.steps();
  for (std::int64_t t = 1; t < std::max<std::int64_t>(1, plan.gen_tokens); ++t) {
    if (Status st = forward(1); !st) return st.error();
  }
  out.decode = window(model.counts);
  // Prefetched experts still cached unused when the run ends were read for
  // nothing in this run.
  out.decode.wasted_reads += model.unused_prefetches();
  out.decode.optimal_hits = optimal_hits(model.trace, cache->slots(), decode_from, model.trace.steps()).hits;
  const std::size_t half = decode_from + (model.trace.steps() - decode_from) / 2;
  // The held set leaves k slots free: a layer's misses need somewhere to land.
  const std::size_t held = cache->slots() > static_cast<std::size_t>(s.k) ? cache->slots() - static_cast<std::size_t>(s.k) : 0;
  const OptimalCounts learned = learned_set_hits(model.trace, held, decode_from, half, half, model.trace.steps());
  out.decode.learned_set_hits = learned.hits;
  out.decode.learned_set_needs = learned.needs;
  return out;
}

namespace {

// The CacheModel's steps with every read landing at once (InstantLoader),
// over per-expert state instead of ExpertCache slots. Each step below names
// the CacheModel / ExpertCache code it mirrors; the victim is the smallest
// (uses, last use) among ready, unpinned experts of the partition — what
// ExpertCache::claim's scan picks (uses = 0 under LRU) — kept in an ordered
// set. Clocks tick on claim and touch as the cache's do, so ties never occur.
class FastCache {
 public:
  FastCache(const CacheShape& s, std::size_t per_partition, bool per_layer, CachePolicy policy,
            const std::string& prefetch, std::uint64_t source_seed)
      : layers_(s.moe_layers),
        experts_(s.experts),
        per_layer_(per_layer),
        lfu_(policy == CachePolicy::kLfu),
        prefetch_(parse_prefetch(prefetch)),
        rng_(source_seed * 0x9e3779b97f4a7c15ull + 1) {
    const std::size_t keys = static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts);
    present_.assign(keys, 0);
    pins_.assign(keys, 0);
    origin_.assign(keys, CacheModel::Origin::kNone);
    last_use_.assign(keys, 0);
    uses_.assign(keys, 0);
    const std::size_t parts = per_layer ? static_cast<std::size_t>(s.moe_layers) : 1;
    free_.assign(parts, per_partition);
    evictable_.resize(parts);
    last_.assign(static_cast<std::size_t>(std::max(0, s.moe_layers)), {});
  }

  CacheCounts counts;

  // CacheModel::hold: claimed before the first token and pinned for good.
  void hold(int layer, int expert) {
    const std::size_t k = key(layer, expert);
    if (present_[k] != 0 || !claim(k)) return;
    ++pins_[k];
  }

  std::uint64_t unused_prefetches() const {
    return static_cast<std::uint64_t>(std::count(origin_.begin(), origin_.end(), CacheModel::Origin::kPrefetch));
  }

  // One forward pass over `routes` (one vector per token), in the
  // executor's order as simulate_cache drives it.
  Status forward(const std::vector<std::vector<int>>& routes, int k) {
    distinct_.assign(static_cast<std::size_t>(layers_), {});
    for (int l = 0; l < layers_; ++l) {
      auto& d = distinct_[static_cast<std::size_t>(l)];
      for (const auto& r : routes) d.insert(d.end(), r.begin() + l * k, r.begin() + (l + 1) * k);
      std::sort(d.begin(), d.end());
      d.erase(std::unique(d.begin(), d.end()), d.end());
    }
    for (int l = 0; l < layers_; ++l) {
      if (l == 0) upcoming(0, distinct_[0]);
      std::vector<int> remaining = distinct_[static_cast<std::size_t>(l)];
      if (Status st = routed(l, remaining); !st) return st;
      if (l + 1 < layers_) upcoming(l + 1, distinct_[static_cast<std::size_t>(l + 1)]);
      while (!remaining.empty()) {
        std::size_t at = 0;  // CacheModel::pick: the first with a slot (all reads have landed)
        for (std::size_t i = 0; i < remaining.size(); ++i) {
          if (present_[key(l, remaining[i])] != 0) {
            at = i;
            break;
          }
        }
        const int e = remaining[at];
        remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(at));
        if (Status st = acquire(l, e); !st) return st;
        count_use(l, e);
        release(l, e);
      }
    }
    return Status::success();
  }

 private:
  struct Entry {
    std::uint64_t uses, last_use;
    std::size_t key;
    bool operator<(const Entry& o) const {
      return uses != o.uses ? uses < o.uses : last_use != o.last_use ? last_use < o.last_use : key < o.key;
    }
  };

  std::size_t key(int layer, int expert) const {
    return static_cast<std::size_t>(layer) * static_cast<std::size_t>(experts_) + static_cast<std::size_t>(expert);
  }
  std::size_t part(std::size_t k) const { return per_layer_ ? k / static_cast<std::size_t>(experts_) : 0; }
  Entry entry(std::size_t k) const { return {lfu_ ? uses_[k] : 0, last_use_[k], k}; }
  void make_evictable(std::size_t k) { evictable_[part(k)].insert(entry(k)); }
  void make_unevictable(std::size_t k) { evictable_[part(k)].erase(entry(k)); }

  void pin(std::size_t k) {
    if (pins_[k]++ == 0) make_unevictable(k);
  }
  void unpin(std::size_t k) {
    if (pins_[k] > 0 && --pins_[k] == 0) make_evictable(k);
  }

  // CacheModel::claim over ExpertCache::claim: an empty slot, else evict the
  // victim (a prefetch evicted before any need was a wasted read). The
  // claimed expert is loading: not evictable until its read lands.
  bool claim(std::size_t k) {
    const std::size_t p = part(k);
    if (free_[p] > 0) {
      --free_[p];
    } else {
      auto& ev = evictable_[p];
      if (ev.empty()) return false;
      const std::size_t victim = ev.begin()->key;
      ev.erase(ev.begin());
      present_[victim] = 0;
      if (origin_[victim] == CacheModel::Origin::kPrefetch) ++counts.wasted_reads;
      origin_[victim] = CacheModel::Origin::kNone;
    }
    present_[k] = 1;
    origin_[k] = CacheModel::Origin::kNone;
    last_use_[k] = ++clock_;
    return true;
  }

  // CacheModel::load with InstantLoader: ready at once; a need's slot pinned.
  void load(std::size_t k, CacheModel::Origin why) {
    origin_[k] = why;
    ++counts.reads;
    if (why == CacheModel::Origin::kPrefetch) {
      ++counts.prefetches;
      make_evictable(k);
    } else {
      ++pins_[k];  // not indexed yet: its read had not landed
    }
  }

  void issue_prefetches() {
    std::size_t done = 0;
    for (; done < queue_.size(); ++done) {
      const std::size_t k = key(prefetch_layer_, queue_[done]);
      if (present_[k] != 0) continue;
      if (!claim(k)) break;
      load(k, CacheModel::Origin::kPrefetch);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(done));
  }

  Status routed(int layer, const std::vector<int>& experts) {
    if (layer == prefetch_layer_) queue_.clear();
    std::vector<int> missing;
    for (int e : experts) {
      const std::size_t k = key(layer, e);
      if (present_[k] == 0) {
        missing.push_back(e);
      } else {
        pin(k);
      }
    }
    unslotted_ = 0;
    for (int e : missing) {
      const std::size_t k = key(layer, e);
      if (!claim(k)) {
        ++unslotted_;
        continue;
      }
      load(k, CacheModel::Origin::kNeed);
    }
    if (prefetch_.on && prefetch_.pregate < 0 && layers_ > 0) {
      prefetch_layer_ = (layer + 1) % layers_;
      queue_ = last_[static_cast<std::size_t>(prefetch_layer_)];
      issue_prefetches();
    }
    last_[static_cast<std::size_t>(layer)] = experts;
    return Status::success();
  }

  std::uint64_t next_random() {  // CacheModel::next_random
    rng_ += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = rng_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  void upcoming(int layer, const std::vector<int>& experts) {  // CacheModel::upcoming
    if (prefetch_.pregate < 0) return;
    std::vector<int> guess;
    for (int e : experts) {
      if (static_cast<double>(next_random() >> 11) * 0x1.0p-53 < prefetch_.pregate) {
        guess.push_back(e);
      } else {
        int wrong = e;
        for (int tries = 0; tries < 64 && (wrong == e || std::find(experts.begin(), experts.end(), wrong) != experts.end());
             ++tries) {
          wrong = static_cast<int>(next_random() % static_cast<std::uint64_t>(experts_));
        }
        guess.push_back(wrong);
      }
    }
    prefetch_layer_ = layer;
    queue_ = std::move(guess);
    issue_prefetches();
  }

  Status acquire(int layer, int expert) {
    const std::size_t k = key(layer, expert);
    if (present_[k] != 0) return Status::success();
    if (!claim(k)) {
      return make_error("expert cache: every slot is in use; the budget leaves fewer slots than one layer needs");
    }
    if (unslotted_ > 0) --unslotted_;
    load(k, CacheModel::Origin::kNeed);
    return Status::success();
  }

  void count_use(int layer, int expert) {  // CacheModel::count_use, every read landed
    const std::size_t k = key(layer, expert);
    switch (origin_[k]) {
      case CacheModel::Origin::kNone: ++counts.hits; break;
      case CacheModel::Origin::kNeed: ++counts.misses; break;
      case CacheModel::Origin::kPrefetch:
        ++counts.misses;
        ++counts.prefetches_used;
        ++counts.misses_hidden;
        break;
    }
    origin_[k] = CacheModel::Origin::kNone;
    // ExpertCache::touch: a need pins its expert, so it is not in the index.
    const bool indexed = pins_[k] == 0;
    if (indexed) make_unevictable(k);
    last_use_[k] = ++clock_;
    ++uses_[k];
    if (indexed) make_evictable(k);
  }

  void release(int layer, int expert) {
    const std::size_t k = key(layer, expert);
    if (present_[k] != 0) unpin(k);
    if (prefetch_.on && unslotted_ == 0 && !queue_.empty()) issue_prefetches();
  }

  int layers_, experts_;
  bool per_layer_, lfu_;
  PrefetchSpec prefetch_;
  std::uint64_t rng_;
  std::uint64_t clock_ = 0;
  std::vector<char> present_;
  std::vector<int> pins_;
  std::vector<CacheModel::Origin> origin_;
  std::vector<std::uint64_t> last_use_, uses_;
  std::vector<std::size_t> free_;
  std::vector<std::set<Entry>> evictable_;
  std::vector<std::vector<int>> last_;  // per layer: the experts the previous batch used
  std::vector<std::vector<int>> distinct_;
  int prefetch_layer_ = -1;
  std::vector<int> queue_;
  int unslotted_ = 0;
};

struct FastSetup {
  std::unique_ptr<RoutingGenerator> gen;
  std::unique_ptr<FastCache> cache;
};

Expected<FastSetup> fast_setup(const CacheShape& s, const std::string& routing, const std::string& prefetch,
                               CachePolicy policy, std::uint64_t seed, std::uint64_t source_seed,
                               const std::string& base_dir, CachePartition partition) {
  const bool per_layer = partition == CachePartition::kPerLayer;
  const std::size_t all = static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.experts);
  const std::size_t per_part = per_layer ? s.slots / static_cast<std::size_t>(std::max(1, s.moe_layers)) : s.slots;
  if (per_part < static_cast<std::size_t>(s.k)) {
    return make_error("cache simulation: " + std::to_string(per_part) + (per_layer ? " slots per layer" : " slots") +
                      " cannot hold one layer's " + std::to_string(s.k) + " experts");
  }
  auto gen = make_routing(routing, RoutingShape{s.moe_layers, s.experts, s.k}, seed, base_dir);
  if (!gen) return gen.error();
  FastSetup f;
  f.gen = std::move(*gen);
  f.cache = std::make_unique<FastCache>(s, std::min(per_part, per_layer ? static_cast<std::size_t>(s.experts) : all),
                                        per_layer, policy, prefetch, source_seed);
  return f;
}

Status run_tokens(FastSetup& f, std::int64_t tokens, std::size_t batch, int k) {
  std::vector<std::vector<int>> routes;
  for (std::int64_t done = 0; done < tokens;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(batch), tokens - done));
    routes.resize(n);
    for (auto& r : routes) f.gen->next_token(r);
    if (Status st = f.cache->forward(routes, k); !st) return st;
    done += static_cast<std::int64_t>(n);
  }
  return Status::success();
}

}  // namespace

Expected<ReplayCounts> fast_replay(const CacheShape& s, const ReplayPlan& plan, CachePartition partition) {
  auto f = fast_setup(s, plan.routing, plan.prefetch, plan.policy, plan.seed, plan.source_seed, plan.base_dir, partition);
  if (!f) return f.error();
  if (plan.hot_set != "off" && partition == CachePartition::kPerLayer) {
    return make_error("cache replay: a hot set is held in the shared cache, not one split per layer");
  }
  auto held = held_experts(s, plan, s.slots);
  if (!held) return held.error();
  for (const auto& [l, e] : *held) f->cache->hold(l, e);
  ReplayCounts out;
  const std::int64_t prompt = std::max<std::int64_t>(1, plan.prompt_tokens);
  if (Status st = run_tokens(*f, prompt, std::max<std::size_t>(1, plan.chunk), s.k); !st) return st.error();
  out.prefill = window(f->cache->counts);
  f->cache->counts = {};
  if (Status st = run_tokens(*f, std::max<std::int64_t>(1, plan.gen_tokens) - 1, 1, s.k); !st) return st.error();
  out.decode = window(f->cache->counts);
  out.decode.wasted_reads += f->cache->unused_prefetches();
  return out;
}

Expected<HitEstimate> estimate_hits(const CacheShape& s, const std::string& routing, const std::string& prefetch,
                                    CachePolicy policy, std::uint64_t seed, const std::string& base_dir,
                                    const EstimateBudget& budget, CachePartition partition) {
  auto f = fast_setup(s, routing, prefetch, policy, seed, seed + 1, base_dir, partition);
  if (!f) return f.error();
  const double per_token = static_cast<double>(s.moe_layers) * s.k;
  HitEstimate h;
  h.routing = f->gen->describe();
  h.warmup_tokens = static_cast<std::int64_t>(std::ceil((2.0 * static_cast<double>(s.slots) + 32 * per_token) / per_token));
  h.measured_tokens = std::max<std::int64_t>(32, static_cast<std::int64_t>(std::ceil(static_cast<double>(budget.measured_needs) / per_token)));
  if (Status st = run_tokens(*f, h.warmup_tokens, 1, s.k); !st) return st.error();
  f->cache->counts = {};
  if (Status st = run_tokens(*f, h.measured_tokens, 1, s.k); !st) return st.error();
  const CacheCounts& c = f->cache->counts;
  const std::uint64_t needs = c.hits + c.misses;
  const double n = std::max<double>(1, static_cast<double>(needs));
  h.needs = needs;
  h.hit_rate = static_cast<double>(c.hits) / n;
  h.hidden_share = c.misses ? static_cast<double>(c.misses_hidden) / static_cast<double>(c.misses) : 0;
  h.reads_per_need = static_cast<double>(c.reads) / n;
  h.prefetch_per_need = static_cast<double>(c.prefetches) / n;
  // In steady state every prefetch is used or wasted; over a window the
  // ones issued before it and used in it offset those issued in it and used
  // after, so issued − used is the window's wasted reads.
  h.wasted_per_need = c.prefetches > c.prefetches_used ? static_cast<double>(c.prefetches - c.prefetches_used) / n : 0;
  h.method = "steady-state replay of " + h.routing + " through the engine's cache policy (" +
             std::string(policy == CachePolicy::kLfu ? "lfu" : "lru") + ", " + std::to_string(s.slots) + " slots" +
             (partition == CachePartition::kPerLayer ? " split per layer" : "") + ", prefetch " + prefetch + "): " +
             std::to_string(h.warmup_tokens) + " warm-up + " + std::to_string(h.measured_tokens) + " counted tokens";
  return h;
}

double distinct_experts_uniform(double experts, double active, double tokens) {
  return experts > 0 ? experts * (1 - std::pow(1 - active / experts, tokens)) : 0;
}

}  // namespace moebench
