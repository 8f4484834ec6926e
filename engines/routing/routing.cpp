// routing.cpp — the seeded routing generators (uniform, zipf:S, sticky:P)
// and make_routing, which parses a routing spec and checks it against the
// card's shape. Trace replay and writing live in routing_trace.cpp.
//
// Cost per token: uniform and sticky are O(k) per MoE layer (a partial
// Fisher–Yates shuffle over a persistent permutation of the experts, so no
// duplicate rejection is ever needed, k == experts included); zipf draws
// by inverse CDF over an integer cumulative table of rank weights — binary
// search, sped up to expected O(1) by a guide table — rejecting ranks the
// layer already took; once those hold most of the mass it switches to an
// exact scan of the rest, so k close to (or equal to) E stays correct and
// cheap. The rank -> expert permutation is seeded per layer. Tables are
// built once at construction: next_token never allocates once `ids` has its
// size. Weights come from std::pow, whose last bit may differ between libm
// versions; the integer table makes that a ~2^-49 effect on any draw.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engines/routing/routing.h"
#include "engines/routing/routing_internal.h"
#include "vocab/sweep_spec.h"
#include "vocab/text.h"

namespace moebench {
namespace {

using routing_detail::derive_seed;
using routing_detail::Rng;

// Stream purposes (see derive_seed): one per generator kind, plus the
// per-layer zipf permutations.
constexpr std::uint64_t kUniformStream = 1;
constexpr std::uint64_t kZipfStream = 2;
constexpr std::uint64_t kStickyStream = 3;
constexpr std::uint64_t kZipfPermutationStream = 0x5a1f0000;

std::size_t to_size(int v) { return static_cast<std::size_t>(v); }

// A permutation of [0, n) and its inverse, kept across calls. draw(i)
// swaps a uniformly chosen entry of positions [i, n) into position i and
// returns it: drawing positions 0, 1, ..., m-1 in turn yields m distinct
// values, uniformly, whatever order the permutation was left in. pin(v, i)
// first parks a value that must be excluded at position i.
class DistinctSampler {
 public:
  explicit DistinctSampler(int n) : perm_(to_size(n)), pos_(to_size(n)) {
    for (int i = 0; i < n; ++i) perm_[to_size(i)] = pos_[to_size(i)] = i;
  }

  // Precondition: v is not among the values already at positions [0, i).
  void pin(int v, int i) { swap_positions(i, pos_[to_size(v)]); }

  int draw(int i, Rng& rng) {
    const int n = static_cast<int>(perm_.size());
    swap_positions(i, i + rng.below_int(n - i));
    return perm_[to_size(i)];
  }

 private:
  void swap_positions(int a, int b) {
    std::swap(perm_[to_size(a)], perm_[to_size(b)]);
    pos_[to_size(perm_[to_size(a)])] = a;
    pos_[to_size(perm_[to_size(b)])] = b;
  }

  std::vector<int> perm_;
  std::vector<int> pos_;
};

class UniformRouting final : public RoutingGenerator {
 public:
  UniformRouting(const RoutingShape& shape, std::uint64_t seed)
      : shape_(shape), rng_(derive_seed(seed, kUniformStream)), sampler_(shape.experts) {}

  void next_token(std::vector<int>& ids) override {
    const int k = shape_.k;
    ids.resize(to_size(shape_.moe_layers * k));
    for (int l = 0; l < shape_.moe_layers; ++l) {
      int* out = ids.data() + to_size(l * k);
      for (int j = 0; j < k; ++j) out[j] = sampler_.draw(j, rng_);
    }
  }

  std::string describe() const override { return "uniform"; }

 private:
  RoutingShape shape_;
  Rng rng_;
  DistinctSampler sampler_;
};

class StickyRouting final : public RoutingGenerator {
 public:
  StickyRouting(const RoutingShape& shape, std::uint64_t seed, double repeat_probability,
                std::string text)
      : shape_(shape),
        rng_(derive_seed(seed, kStickyStream)),
        sampler_(shape.experts),
        keep_below_(static_cast<std::uint64_t>(std::ceil(std::ldexp(repeat_probability, 53)))),
        text_(std::move(text)),
        prev_(to_size(shape.moe_layers) * to_size(shape.k)),
        kept_slot_(to_size(shape.k)),
        fresh_slot_(to_size(shape.k)) {}

  void next_token(std::vector<int>& ids) override {
    const int k = shape_.k;
    ids.resize(prev_.size());
    for (int l = 0; l < shape_.moe_layers; ++l) {
      int* out = ids.data() + to_size(l * k);
      const int* prev = prev_.data() + to_size(l * k);
      // Decide every slot first (branch-free: the decisions are coin flips),
      // then park the kept experts so that fresh draws come from the others.
      int kept = 0;
      int fresh = 0;
      for (int j = 0; j < k; ++j) {
        const bool keep = (rng_.next() >> 11) < keep_below_ && have_prev_;
        kept_slot_[to_size(kept)] = j;
        fresh_slot_[to_size(fresh)] = j;
        kept += keep ? 1 : 0;
        fresh += keep ? 0 : 1;
      }
      for (int i = 0; i < kept; ++i) {
        const int j = kept_slot_[to_size(i)];
        out[j] = prev[j];
        sampler_.pin(prev[j], i);
      }
      for (int i = 0; i < fresh; ++i) out[fresh_slot_[to_size(i)]] = sampler_.draw(kept + i, rng_);
    }
    std::copy(ids.begin(), ids.end(), prev_.begin());
    have_prev_ = true;
  }

  std::string describe() const override { return text_; }

 private:
  RoutingShape shape_;
  Rng rng_;
  DistinctSampler sampler_;
  std::uint64_t keep_below_;  // keep a slot when 53 random bits are below P * 2^53
  std::string text_;
  std::vector<int> prev_;  // the previous token's ids, same layout as `ids`
  std::vector<int> kept_slot_;   // this layer's kept slots, in order
  std::vector<int> fresh_slot_;  // and the others
  bool have_prev_ = false;
};

class ZipfRouting final : public RoutingGenerator {
 public:
  ZipfRouting(const RoutingShape& shape, std::uint64_t seed, double exponent, std::string text)
      : shape_(shape),
        rng_(derive_seed(seed, kZipfStream)),
        text_(std::move(text)),
        weight_(to_size(shape.experts)),
        cumulative_(to_size(shape.experts)),
        expert_of_rank_(to_size(shape.moe_layers) * to_size(shape.experts)),
        stamp_(to_size(shape.experts), 0) {
    // Integer weights, so that "mass not yet taken" is exact: rank r (from 1)
    // gets scale / r^S, at least 1, the total staying below 2^60.
    const int e = shape.experts;
    const double scale = std::ldexp(1.0, 59) / e;
    std::uint64_t sum = 0;
    for (int i = 0; i < e; ++i) {
      const double w = std::floor(scale / std::pow(static_cast<double>(i + 1), exponent));
      weight_[to_size(i)] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(w));
      sum += weight_[to_size(i)];
      cumulative_[to_size(i)] = sum;
    }
    total_ = sum;
    build_guide();
    // Which expert holds which popularity rank: a seeded shuffle per layer.
    for (int l = 0; l < shape.moe_layers; ++l) {
      Rng perm_rng(derive_seed(seed, kZipfPermutationStream + static_cast<std::uint64_t>(l)));
      int* perm = expert_of_rank_.data() + to_size(l * e);
      for (int i = 0; i < e; ++i) perm[i] = i;
      for (int i = e - 1; i > 0; --i) std::swap(perm[i], perm[perm_rng.below_int(i + 1)]);
    }
  }

  void next_token(std::vector<int>& ids) override {
    const int k = shape_.k;
    const int e = shape_.experts;
    ids.resize(to_size(shape_.moe_layers * k));
    for (int l = 0; l < shape_.moe_layers; ++l) {
      if (++epoch_ == 0) {  // stamps wrapped: forget them all
        std::fill(stamp_.begin(), stamp_.end(), 0);
        epoch_ = 1;
      }
      const int* perm = expert_of_rank_.data() + to_size(l * e);
      int* out = ids.data() + to_size(l * k);
      std::uint64_t taken_mass = 0;
      first_free_ = 0;
      for (int j = 0; j < k; ++j) {
        const int rank = draw_rank(total_ - taken_mass);
        stamp_[to_size(rank)] = epoch_;
        taken_mass += weight_[to_size(rank)];
        out[j] = perm[rank];
        while (first_free_ < e && stamp_[to_size(first_free_)] == epoch_) ++first_free_;
      }
    }
  }

  std::string describe() const override { return text_; }

 private:
  // A rank not yet taken in this layer, with probability proportional to its
  // weight among those not taken (sampling without replacement).
  int draw_rank(std::uint64_t remaining_mass) {
    // Rejection costs total/remaining tries on average: cheap while the
    // taken ranks hold under 3/4 of the mass.
    if (remaining_mass >= total_ / 4) {
      for (int attempt = 0; attempt < 64; ++attempt) {
        const int rank = rank_of(rng_.below(total_));
        if (stamp_[to_size(rank)] != epoch_) return rank;
      }
    }
    // Exact scan over the ranks not taken, from the most popular one left.
    // Taken mass is concentrated in the top ranks, so this stops early.
    std::uint64_t u = rng_.below(remaining_mass);
    const int e = shape_.experts;
    int last_free = first_free_;
    for (int i = first_free_; i < e; ++i) {
      if (stamp_[to_size(i)] == epoch_) continue;
      if (u < weight_[to_size(i)]) return i;
      u -= weight_[to_size(i)];
      last_free = i;
    }
    return last_free;  // unreachable: remaining_mass is exact
  }

  // The rank whose cumulative interval holds u (< total_): the first with
  // cumulative_ > u, by binary search. Branch-free: the comparisons are coin
  // flips, so a branchy search would mispredict about every step.
  int search_rank(std::uint64_t u) const {
    const std::uint64_t* c = cumulative_.data();
    std::size_t base = 0;
    std::size_t len = cumulative_.size();
    while (len > 1) {
      const std::size_t half = len / 2;
      base = c[base + half - 1] <= u ? base + half : base;
      len -= half;
    }
    return static_cast<int>(base + (c[base] <= u ? 1 : 0));
  }

  // The same answer in expected O(1): the guide table holds the binary
  // search's answer for the bottom of u's bucket, and few interval ends lie
  // inside one bucket (there are ~4x more buckets than ranks).
  int rank_of(std::uint64_t u) const {
    auto i = static_cast<std::size_t>(guide_[static_cast<std::size_t>(u >> guide_shift_)]);
    while (cumulative_[i] <= u) ++i;
    return static_cast<int>(i);
  }

  void build_guide() {
    int bits = 1;  // buckets = 2^bits >= 4 * experts
    while ((std::size_t{1} << bits) < 4 * cumulative_.size()) ++bits;
    int total_bits = 0;
    while (total_bits < 64 && (total_ - 1) >> total_bits != 0) ++total_bits;
    guide_shift_ = std::max(0, total_bits - bits);
    const std::size_t buckets = static_cast<std::size_t>((total_ - 1) >> guide_shift_) + 1;
    guide_.resize(buckets);
    for (std::size_t b = 0; b < buckets; ++b) {
      guide_[b] = static_cast<std::uint32_t>(search_rank(static_cast<std::uint64_t>(b) << guide_shift_));
    }
  }

  RoutingShape shape_;
  Rng rng_;
  std::string text_;
  std::vector<std::uint64_t> weight_;      // by rank (0 = most popular)
  std::vector<std::uint64_t> cumulative_;  // inclusive prefix sums of weight_
  std::uint64_t total_ = 0;
  std::vector<std::uint32_t> guide_;       // bucket (u >> guide_shift_) -> first possible rank
  int guide_shift_ = 0;
  std::vector<int> expert_of_rank_;        // [layer * experts + rank]
  std::vector<std::uint32_t> stamp_;       // by rank: == epoch_ when taken
  std::uint32_t epoch_ = 0;
  int first_free_ = 0;                     // ranks below it are all taken (this layer)
};

Status check_shape(const RoutingShape& s) {
  if (s.moe_layers <= 0) {
    return make_error("needs at least one MoE layer, got moe_layers=" +
                      std::to_string(s.moe_layers) + " (check the model card)");
  }
  if (s.experts <= 0) {
    return make_error("needs at least one expert per MoE layer, got experts=" +
                      std::to_string(s.experts) + " (check the model card)");
  }
  if (s.k <= 0) {
    return make_error("needs k >= 1 active experts per token per MoE layer, got k=" +
                      std::to_string(s.k) + " (check the card's active expert count)");
  }
  if (s.k > s.experts) {
    return make_error("cannot pick k=" + std::to_string(s.k) + " distinct experts out of " +
                      std::to_string(s.experts) +
                      " per MoE layer; k must be at most the expert count (check the card and "
                      "its scale)");
  }
  return Status::success();
}

}  // namespace

Expected<std::unique_ptr<RoutingGenerator>> make_routing(const std::string& spec, const RoutingShape& shape,
                                                         std::uint64_t seed, const std::string& base_dir) {
  // Same wording as the sweep validator, so a bad spec reads the same
  // wherever it is caught.
  const std::string problem = check_routing(spec, base_dir);
  if (!problem.empty()) {
    // "unknown routing \"x\"..." names the spec already.
    const bool names_spec = problem.rfind("unknown routing", 0) == 0;
    return make_error(names_spec ? problem : "routing \"" + spec + "\": " + problem);
  }
  if (Status st = check_shape(shape); !st) {
    return make_error("routing \"" + spec + "\": " + st.error().message);
  }

  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  // check_routing accepted the number; std::strtod would depend on the locale.
  // The canonical name prints the number shortest-round-trip ("0.60" -> "0.6").
  double value = 0;
  [[maybe_unused]] const auto parsed = std::from_chars(arg.data(), arg.data() + arg.size(), value);
  auto canonical = [&kind, value]() {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc() ? kind + ":" + std::string(buf, end) : kind;
  };
  std::unique_ptr<RoutingGenerator> gen;
  if (kind == "uniform") {
    gen = std::make_unique<UniformRouting>(shape, seed);
  } else if (kind == "zipf") {
    gen = std::make_unique<ZipfRouting>(shape, seed, value, canonical());
  } else if (kind == "sticky") {
    gen = std::make_unique<StickyRouting>(shape, seed, value, canonical());
  } else {  // trace (check_routing knows no other kind)
    std::filesystem::path p(arg);
    if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
    return routing_detail::load_trace_routing(arg, p.string(), shape);
  }
  return gen;
}

}  // namespace moebench
