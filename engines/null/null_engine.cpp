// null_engine.cpp — see null_engine.h.
#include "engines/null/null_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "engines/engine_options.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

constexpr double kDriveBytesS = 1.5e9;      // nominal per-drive read rate
constexpr double kMemBytesS = 20e9;         // nominal memory read rate
constexpr double kAttnSPerCtxTokenLayer = 1e-6;
constexpr double kLoadS = 0.5;              // synthetic load time of a new set-up
constexpr double kJitter = 0.03;            // ± half of this, per token
constexpr std::uint64_t kRuntimeBytes = 64ull << 20;

constexpr std::uint64_t kMaxIndex = 999'999'999'999'999'999ull;  // 18 digits

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double unit_from(std::uint64_t x) { return static_cast<double>(splitmix64(x) >> 11) * 0x1.0p-53; }

struct NullOptions {
  double sleep_s = 0;
  double slowdown = 0;  // MOEBENCH_NULL_SLOWDOWN
  std::string slowdown_error;  // its value cannot be read: every point fails with this
  std::optional<std::uint64_t> fail_at, throw_at, hang_at, hang_hard_at, infeasible_below;
  bool over_budget = false;
  std::string fail_while;  // a file: the point fails while it exists
};

NullOptions parse_options(const EngineSpec& spec) {
  const EngineOptions o(null_engine_options(), spec);
  NullOptions n;
  n.sleep_s = static_cast<double>(o.count("sleep_ms")) / 1e3;
  n.fail_at = o.count_if_given("fail_at");
  n.throw_at = o.count_if_given("throw_at");
  n.hang_at = o.count_if_given("hang_at");
  n.hang_hard_at = o.count_if_given("hang_hard_at");
  n.infeasible_below = o.size_if_given("infeasible_below");
  n.over_budget = o.flag("over_budget");
  n.fail_while = o.text("fail_while");
  if (const char* slow = std::getenv("MOEBENCH_NULL_SLOWDOWN"); slow != nullptr && *slow != '\0') {
    char* end = nullptr;
    const double f = std::strtod(slow, &end);
    if (end == nullptr || *end != '\0' || !(f >= 0 && f <= 10)) {
      n.slowdown_error = std::string("MOEBENCH_NULL_SLOWDOWN=\"") + slow +
                         "\": expected a number from 0 to 10 (the share of extra time per token); unset it or fix it";
    } else {
      n.slowdown = f;
    }
  }
  return n;
}

class NullEngine final : public Engine {
 public:
  explicit NullEngine(const EngineSpec& spec) : opts_(parse_options(spec)) {}
  std::string_view name() const override { return "null"; }

  Expected<Measurement> run(const Point& p, RunContext& ctx) override {
    if (!opts_.slowdown_error.empty()) return make_error("null engine: " + opts_.slowdown_error);
    const std::uint64_t index = p.index;
    if (opts_.fail_at && *opts_.fail_at == index) {
      return make_error("null engine: injected failure at point " + std::to_string(index));
    }
    if (std::error_code ec; !opts_.fail_while.empty() && std::filesystem::exists(opts_.fail_while, ec)) {
      return make_error("null engine: injected failure while " + opts_.fail_while + " exists (an environmental fault)");
    }
    if (opts_.throw_at && *opts_.throw_at == index) {
      throw std::runtime_error("null engine: injected exception at point " + std::to_string(index));
    }
    if (opts_.hang_hard_at && *opts_.hang_hard_at == index) {
      for (;;) ctx.clock.sleep_for_s(0.05);  // ignores cancellation on purpose
    }
    if (opts_.hang_at && *opts_.hang_at == index) {
      while (!ctx.cancelled()) ctx.clock.sleep_for_s(0.01);
      return make_error("null engine: cancelled while hanging (injected)");
    }

    Measurement m;
    m.provenance = "synthetic";
    const ModelCard& card = ctx.card;
    if (opts_.infeasible_below && p.ram_budget_bytes && *p.ram_budget_bytes < *opts_.infeasible_below) {
      m.status = RowStatus::kInfeasible;
      m.min_budget_bytes = *opts_.infeasible_below;
      m.reason = "budget " + format_bytes(static_cast<double>(*p.ram_budget_bytes)) +
                 " is below the minimum " + format_bytes(static_cast<double>(*opts_.infeasible_below));
      return m;
    }
    const double routed_token = static_cast<double>(card.routed_bytes_per_token(p.quant));
    const double routed_total = static_cast<double>(card.routed_bytes_total(p.quant));
    const double cache = p.ram_budget_bytes ? static_cast<double>(*p.ram_budget_bytes) : routed_total;
    const double hit = std::min(1.0, cache / routed_total);
    const double read_token = (1.0 - hit) * routed_token;
    double drive_bw = kDriveBytesS;
    if (p.drives.throttle_bytes_s) drive_bw = std::min(drive_bw, *p.drives.throttle_bytes_s);
    drive_bw *= p.drives.count;
    const double io_s = read_token / drive_bw;
    const double mem_s = routed_token / kMemBytesS;
    const double attn_s = kAttnSPerCtxTokenLayer * static_cast<double>(p.context_tokens) * card.total_layers();
    const double token_s = (std::max(io_s, mem_s) + attn_s) * (1.0 + opts_.slowdown);

    m.load_reused = p.setup_key() == last_setup_;
    m.load_s = m.load_reused ? 0 : kLoadS;
    last_setup_ = p.setup_key();
    m.prompt_tokens = p.prompt_tokens;
    m.prefill_s = 0.2 * token_s * static_cast<double>(p.prompt_tokens);
    const std::uint64_t base = fnv1a64(p.id()) ^ (ctx.seed * 0x100000001b3ull) ^
                               (static_cast<std::uint64_t>(ctx.repetition) << 48) ^ (ctx.warmup ? 1ull << 63 : 0);
    double t = m.prefill_s;
    for (std::int64_t i = 0; i < p.gen_tokens; ++i) {
      if (opts_.sleep_s > 0) {
        ctx.clock.sleep_for_s(opts_.sleep_s);
        if (ctx.cancelled()) return make_error("null engine: cancelled at token " + std::to_string(i));
      }
      t += token_s * (1.0 + kJitter * (unit_from(base + static_cast<std::uint64_t>(i)) - 0.5));
      m.token_times_s.push_back(t);
    }
    const double decode_tokens = static_cast<double>(p.gen_tokens - 1);
    const double needed = decode_tokens * card.moe.active * card.moe_layers();
    m.expert_hits_decode = static_cast<std::uint64_t>(std::llround(needed * hit));
    m.expert_misses_decode = static_cast<std::uint64_t>(needed) - m.expert_hits_decode;
    m.read_bytes_decode = static_cast<std::uint64_t>(std::llround(read_token * decode_tokens));
    m.mem_weight_bytes_decode = static_cast<std::uint64_t>(std::llround(routed_token * decode_tokens));
    m.io_wait_s_decode = std::max(0.0, io_s - mem_s) * decode_tokens;
    m.peak_rss_bytes = static_cast<std::uint64_t>(std::min(cache, routed_total)) + kRuntimeBytes;
    if (opts_.over_budget && p.ram_budget_bytes) {
      m.budget_enforced = true;
      m.peak_rss_bytes = *p.ram_budget_bytes + *p.ram_budget_bytes / 2;
    }
    return m;
  }

 private:
  NullOptions opts_;
  std::string last_setup_;
};

}  // namespace

const OptionTable& null_engine_options() {
  static const OptionTable kTable = {
      {"sleep_ms", OptionKind::kCount, "0", "ms of injectable clock time per generated token", 0, kMaxIndex, {}, {}},
      {"fail_at", OptionKind::kCount, "", "point index that returns an error", 0, kMaxIndex, {}, {}},
      {"throw_at", OptionKind::kCount, "", "point index that throws", 0, kMaxIndex, {}, {}},
      {"hang_at", OptionKind::kCount, "", "point index that waits until cancelled", 0, kMaxIndex, {}, {}},
      {"hang_hard_at", OptionKind::kCount, "", "point index that ignores cancellation", 0, kMaxIndex, {}, {}},
      {"infeasible_below", OptionKind::kSize, "", "budgets below it are infeasible", 0, 0, {}, {}},
      {"over_budget", OptionKind::kFlag, "0", "report a peak RSS 1.5x the budget", 0, 0, {}, {}},
      {"fail_while", OptionKind::kText, "", "every point fails while this file exists (a fault a retry clears)", 0, 0,
       {}, [](const std::string& v) { return v.empty() ? std::string("a file path") : std::string(); }},
  };
  return kTable;
}

std::unique_ptr<Engine> make_null_engine(const EngineSpec& spec) {
  return std::make_unique<NullEngine>(spec);
}

}  // namespace moebench
