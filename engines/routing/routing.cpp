// routing.cpp — the seeded routing generators (uniform, zipf:S, sticky:P,
// locality:P,S) and make_routing, which parses a routing spec and checks it against the
// card's shape. Trace replay and writing live in routing_trace.cpp.
//
// Cost per token: uniform and sticky are O(k) per MoE layer (a partial
// Fisher–Yates shuffle over a persistent permutation of the experts, so no
// duplicate rejection is ever needed, k == experts included); zipf draws
// by inverse CDF over an integer cumulative table of rank weights — binary
// search, sped up to expected O(1) by a guide table — rejecting ranks the
// layer already took; once those hold most of the mass it switches to an
// exact scan of the rest, so k close to (or equal to) E stays correct and
// cheap; locality is zipf's draws plus O(k) for the reused slots. The rank -> expert permutation is seeded per layer. Tables are
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
// per-layer zipf and locality permutations.
constexpr std::uint64_t kUniformStream = 1;
constexpr std::uint64_t kZipfStream = 2;
constexpr std::uint64_t kStickyStream = 3;
constexpr std::uint64_t kLocalityStream = 4;
constexpr std::uint64_t kZipfPermutationStream = 0x5a1f0000;
constexpr std::uint64_t kLocalityPermutationStream = 0x10ca0000;

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

// Integer rank weights for Zipf(S) over `experts` ranks, their prefix sums
// and a guide table: an exact, libm-light inverse CDF (see the file comment).
class ZipfTable {
 public:
  ZipfTable(int experts, double exponent) : weight_(to_size(experts)), cumulative_(to_size(experts)) {
    // Integer weights, so that "mass not yet taken" is exact: rank r (from 1)
    // gets scale / r^S, at least 1, the total staying below 2^60.
    const double scale = std::ldexp(1.0, 59) / experts;
    std::uint64_t sum = 0;
    for (int i = 0; i < experts; ++i) {
      const double w = std::floor(scale / std::pow(static_cast<double>(i + 1), exponent));
      weight_[to_size(i)] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(w));
      sum += weight_[to_size(i)];
      cumulative_[to_size(i)] = sum;
    }
    total_ = sum;
    build_guide();
  }

  int size() const { return static_cast<int>(weight_.size()); }
  std::uint64_t weight(int rank) const { return weight_[to_size(rank)]; }
  std::uint64_t total() const { return total_; }

  // The same answer as search_rank in expected O(1): the guide table holds
  // the binary search's answer for the bottom of u's bucket, and few
  // interval ends lie inside one bucket (~4x more buckets than ranks).
  int rank_of(std::uint64_t u) const {
    auto i = static_cast<std::size_t>(guide_[static_cast<std::size_t>(u >> guide_shift_)]);
    while (cumulative_[i] <= u) ++i;
    return static_cast<int>(i);
  }

 private:
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

  std::vector<std::uint64_t> weight_;      // by rank (0 = most popular)
  std::vector<std::uint64_t> cumulative_;  // inclusive prefix sums of weight_
  std::uint64_t total_ = 0;
  std::vector<std::uint32_t> guide_;       // bucket (u >> guide_shift_) -> first possible rank
  int guide_shift_ = 0;
};

// Ranks drawn without replacement within one layer of one token: begin()
// forgets the previous layer's, take() marks a rank used (drawn, or chosen
// some other way), draw() returns a rank not yet taken with probability
// proportional to its weight among those not taken.
class ZipfDraws {
 public:
  ZipfDraws(int experts, double exponent) : table_(experts, exponent), stamp_(to_size(experts), 0) {}

  const ZipfTable& table() const { return table_; }

  void begin() {
    if (++epoch_ == 0) {  // stamps wrapped: forget them all
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
    taken_mass_ = 0;
    first_free_ = 0;
  }

  void take(int rank) {
    stamp_[to_size(rank)] = epoch_;
    taken_mass_ += table_.weight(rank);
    while (first_free_ < table_.size() && stamp_[to_size(first_free_)] == epoch_) ++first_free_;
  }

  bool taken(int rank) const { return stamp_[to_size(rank)] == epoch_; }

  int draw(Rng& rng) const {
    const std::uint64_t remaining_mass = table_.total() - taken_mass_;
    // Rejection costs total/remaining tries on average: cheap while the
    // taken ranks hold under 3/4 of the mass.
    if (remaining_mass >= table_.total() / 4) {
      for (int attempt = 0; attempt < 64; ++attempt) {
        const int rank = table_.rank_of(rng.below(table_.total()));
        if (stamp_[to_size(rank)] != epoch_) return rank;
      }
    }
    // Exact scan over the ranks not taken, from the most popular one left.
    // Taken mass is concentrated in the top ranks, so this stops early.
    std::uint64_t u = rng.below(remaining_mass);
    const int e = table_.size();
    int last_free = first_free_;
    for (int i = first_free_; i < e; ++i) {
      if (stamp_[to_size(i)] == epoch_) continue;
      if (u < table_.weight(i)) return i;
      u -= table_.weight(i);
      last_free = i;
    }
    return last_free;  // unreachable: remaining_mass is exact
  }

 private:
  ZipfTable table_;
  std::vector<std::uint32_t> stamp_;  // by rank: == epoch_ when taken
  std::uint32_t epoch_ = 0;
  std::uint64_t taken_mass_ = 0;
  int first_free_ = 0;                // ranks below it are all taken (this layer)
};

// Which expert holds which popularity rank: a seeded shuffle per layer.
std::vector<int> rank_permutations(const RoutingShape& shape, std::uint64_t seed, std::uint64_t stream) {
  const int e = shape.experts;
  std::vector<int> expert_of_rank(to_size(shape.moe_layers) * to_size(e));
  for (int l = 0; l < shape.moe_layers; ++l) {
    Rng perm_rng(derive_seed(seed, stream + static_cast<std::uint64_t>(l)));
    int* perm = expert_of_rank.data() + to_size(l * e);
    for (int i = 0; i < e; ++i) perm[i] = i;
    for (int i = e - 1; i > 0; --i) std::swap(perm[i], perm[perm_rng.below_int(i + 1)]);
  }
  return expert_of_rank;
}

class ZipfRouting final : public RoutingGenerator {
 public:
  ZipfRouting(const RoutingShape& shape, std::uint64_t seed, double exponent, std::string text)
      : shape_(shape),
        rng_(derive_seed(seed, kZipfStream)),
        text_(std::move(text)),
        draws_(shape.experts, exponent),
        expert_of_rank_(rank_permutations(shape, seed, kZipfPermutationStream)) {}

  void next_token(std::vector<int>& ids) override {
    const int k = shape_.k;
    const int e = shape_.experts;
    ids.resize(to_size(shape_.moe_layers * k));
    for (int l = 0; l < shape_.moe_layers; ++l) {
      draws_.begin();
      const int* perm = expert_of_rank_.data() + to_size(l * e);
      int* out = ids.data() + to_size(l * k);
      for (int j = 0; j < k; ++j) {
        const int rank = draws_.draw(rng_);
        draws_.take(rank);
        out[j] = perm[rank];
      }
    }
  }

  std::string describe() const override { return text_; }

 private:
  RoutingShape shape_;
  Rng rng_;
  std::string text_;
  ZipfDraws draws_;
  std::vector<int> expert_of_rank_;  // [layer * experts + rank]
};

// locality:P,S — temporal reuse (Markov stickiness) over popularity skew.
// Per layer, each of the k slots reuses, with probability P, one of the
// experts the previous token used in that layer (drawn uniformly among those
// not yet reused by this token); the other slots draw from Zipf(S) over a
// per-layer seeded permutation, without replacement and excluding the
// reused ones, so a layer's k stay distinct. A fresh draw may land on a
// previous expert by chance: the observed reuse share is P plus that chance
// ((1 − P)·k/E for S = 0). S = 0 is uniform popularity; P = 0 is zipf:S.
class LocalityRouting final : public RoutingGenerator {
 public:
  LocalityRouting(const RoutingShape& shape, std::uint64_t seed, double reuse, double exponent, std::string text)
      : shape_(shape),
        rng_(derive_seed(seed, kLocalityStream)),
        keep_below_(static_cast<std::uint64_t>(std::ceil(std::ldexp(reuse, 53)))),
        text_(std::move(text)),
        draws_(shape.experts, exponent),
        expert_of_rank_(rank_permutations(shape, seed, kLocalityPermutationStream)),
        rank_of_expert_(expert_of_rank_.size()),
        prev_(to_size(shape.moe_layers) * to_size(shape.k)),
        keep_(to_size(shape.k)),
        pool_(to_size(shape.k)) {
    const int e = shape.experts;
    for (int l = 0; l < shape.moe_layers; ++l) {
      for (int r = 0; r < e; ++r) {
        rank_of_expert_[to_size(l * e + expert_of_rank_[to_size(l * e + r)])] = r;
      }
    }
  }

  void next_token(std::vector<int>& ids) override {
    const int k = shape_.k;
    const int e = shape_.experts;
    ids.resize(prev_.size());
    for (int l = 0; l < shape_.moe_layers; ++l) {
      draws_.begin();
      const int* perm = expert_of_rank_.data() + to_size(l * e);
      const int* rank_of = rank_of_expert_.data() + to_size(l * e);
      int* out = ids.data() + to_size(l * k);
      // The coin flips first, then the reused experts (so that the fresh
      // draws exclude them), then the fresh draws.
      for (int j = 0; j < k; ++j) keep_[to_size(j)] = have_prev_ && (rng_.next() >> 11) < keep_below_ ? 1 : 0;
      std::copy(prev_.begin() + static_cast<std::ptrdiff_t>(l * k), prev_.begin() + static_cast<std::ptrdiff_t>((l + 1) * k),
                pool_.begin());
      int pool_n = k;
      for (int j = 0; j < k; ++j) {
        if (keep_[to_size(j)] == 0) continue;
        const int at = rng_.below_int(pool_n);
        const int expert = pool_[to_size(at)];
        std::swap(pool_[to_size(at)], pool_[to_size(pool_n - 1)]);
        --pool_n;
        out[j] = expert;
        draws_.take(rank_of[expert]);
      }
      for (int j = 0; j < k; ++j) {
        if (keep_[to_size(j)] != 0) continue;
        const int rank = draws_.draw(rng_);
        draws_.take(rank);
        out[j] = perm[rank];
      }
    }
    std::copy(ids.begin(), ids.end(), prev_.begin());
    have_prev_ = true;
  }

  std::string describe() const override { return text_; }

 private:
  RoutingShape shape_;
  Rng rng_;
  std::uint64_t keep_below_;  // reuse a slot when 53 random bits are below P * 2^53
  std::string text_;
  ZipfDraws draws_;
  std::vector<int> expert_of_rank_;  // [layer * experts + rank]
  std::vector<int> rank_of_expert_;  // its inverse, same layout
  std::vector<int> prev_;            // the previous token's ids, same layout as `ids`
  std::vector<char> keep_;           // this layer's slots: reuse (1) or draw (0)
  std::vector<int> pool_;            // the previous experts not yet reused by this token
  bool have_prev_ = false;
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

// Shortest round-trip form of a number ("0.60" -> "0.6").
std::string shortest(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

bool parse_number(const std::string& text, double& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(out);
}

}  // namespace

bool is_locality_routing(const std::string& spec) {
  return spec == "locality" || spec.rfind("locality:", 0) == 0;
}

std::string check_locality_routing(const std::string& spec, double* reuse, double* exponent) {
  const std::string usage =
      "locality needs a reuse probability P in [0, 1] and a popularity exponent S >= 0, e.g. \"locality:0.3,0.8\"";
  if (!is_locality_routing(spec) || spec.size() <= 9) return usage;
  const std::string arg = spec.substr(9);
  const auto comma = arg.find(',');
  if (comma == std::string::npos) return usage;
  double p = 0, s = 0;
  if (!parse_number(arg.substr(0, comma), p) || !parse_number(arg.substr(comma + 1), s)) return usage;
  if (p < 0 || p > 1 || s < 0) return usage;
  if (reuse != nullptr) *reuse = p;
  if (exponent != nullptr) *exponent = s;
  return "";
}

std::string canonical_locality_routing(double reuse, double exponent) {
  return "locality:" + shortest(reuse) + "," + shortest(exponent);
}

Expected<std::unique_ptr<RoutingGenerator>> make_routing(const std::string& spec, const RoutingShape& shape,
                                                         std::uint64_t seed, const std::string& base_dir) {
  if (is_locality_routing(spec)) {
    double reuse = 0, exponent = 0;
    if (const std::string problem = check_locality_routing(spec, &reuse, &exponent); !problem.empty()) {
      return make_error("routing \"" + spec + "\": " + problem);
    }
    if (Status st = check_shape(shape); !st) {
      return make_error("routing \"" + spec + "\": " + st.error().message);
    }
    std::unique_ptr<RoutingGenerator> gen =
        std::make_unique<LocalityRouting>(shape, seed, reuse, exponent, canonical_locality_routing(reuse, exponent));
    return gen;
  }
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
