// weight_gen.cpp — see weight_gen.h.
#include "engines/container/weight_gen.h"

#include <array>
#include <cmath>
#include <cstring>

#include "vocab/text.h"

namespace moebench {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Inverse of the standard normal CDF (Acklam's rational approximation,
// relative error < 1.2e-9), used once to build the lookup table.
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// 4,096 quantiles (16 KiB: stays in L1, so generation is a few cycles a
// value); the per-row scale spreads them further, and the quantizers'
// 16-or-fewer levels per block are far coarser than this resolution.
constexpr std::size_t kTableBits = 12;
constexpr std::size_t kTableSize = std::size_t{1} << kTableBits;

const std::array<float, kTableSize>& gaussian_table() {
  static const std::array<float, kTableSize> table = [] {
    std::array<float, kTableSize> t{};
    for (std::size_t i = 0; i < t.size(); ++i) {
      t[i] = static_cast<float>(normal_quantile((static_cast<double>(i) + 0.5) / static_cast<double>(kTableSize)));
    }
    return t;
  }();
  return table;
}

}  // namespace

std::uint64_t tensor_id(std::string_view name, std::uint64_t expert) {
  return fnv1a64(name) ^ splitmix64(expert + 0x51ed270b27f1ull);
}

WeightGenerator::WeightGenerator(std::uint64_t seed) : seed_(seed) { (void)gaussian_table(); }

#if defined(MOEBENCH_X86_SIMD)
namespace detail {
void fill_row_avx512(const float* table, const std::uint64_t counters[8], float row_scale, float* out, std::size_t n);
}
#endif

namespace {

// Eight splitmix64 streams per row in counter mode: at step t each counter
// c_k advances by the golden gamma and yields w_k = mix(c_k) (splitmix64's
// finaliser), read as two little-endian 32-bit words h_{2k}, h_{2k+1}.
// Step t yields 32 values: value 32t + m is table[h_m & 4095] and value
// 32t + 16 + m is table[(h_m >> 12) & 4095], both times the row scale; the
// latter is a 6x outlier when m is even and h_m's top byte is zero (1 value
// in 1,024). The AVX-512 path computes exactly this.
void fill_row_scalar(const float* table, const std::uint64_t counters_in[8], float row_scale, float* out,
                     std::size_t n) {
  std::uint64_t ctr[8];
  for (int k = 0; k < 8; ++k) ctr[k] = counters_in[k];
  std::uint32_t h[16];
  for (std::size_t base = 0; base < n; base += 32) {
    for (int k = 0; k < 8; ++k) {
      const std::uint64_t w = splitmix64(ctr[k]);  // = mix(ctr + gamma)
      ctr[k] += 0x9e3779b97f4a7c15ull;
      h[2 * k] = static_cast<std::uint32_t>(w);
      h[2 * k + 1] = static_cast<std::uint32_t>(w >> 32);
    }
    for (std::size_t m = 0; m < 32 && base + m < n; ++m) {
      const std::uint32_t word = h[m & 15];
      float v = table[(m < 16 ? word : word >> 12) & (kTableSize - 1)] * row_scale;
      if (m >= 16 && (m & 1) == 0 && (word >> 24) == 0) v *= 6.0f;
      out[base + m] = v;
    }
  }
}

// aarch64 runs fill_row_scalar: the two things the AVX-512 path vectorises,
// 64-bit lane multiplies (splitmix64) and gathers from the table, are not
// NEON instructions, and the scalar loop's eight independent counters
// already keep a core's multipliers busy.
bool use_avx512() {
#if defined(MOEBENCH_X86_SIMD)
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return yes;
#else
  return false;
#endif
}

}  // namespace

void WeightGenerator::fill_row(std::uint64_t tid, std::uint64_t row, float* out, std::size_t n) const {
  fill_row_with(tid, row, out, n, use_avx512());
}

void WeightGenerator::fill_row_with(std::uint64_t tid, std::uint64_t row, float* out, std::size_t n, bool simd) const {
  const auto& table = gaussian_table();
  const std::uint64_t base = splitmix64(seed_ ^ splitmix64(tid) ^ (row * 0x9e3779b97f4a7c15ull));
  // Row scale: log-normal (sigma 0.25) around 1/sqrt(n).
  const float row_scale =
      static_cast<float>(std::exp(0.25 * table[static_cast<std::size_t>(base & (kTableSize - 1))]) /
                         std::sqrt(static_cast<double>(n)));
  std::uint64_t lanes[8];
  for (int k = 0; k < 8; ++k) lanes[k] = splitmix64(base ^ (static_cast<std::uint64_t>(k + 1) * 0xd1b54a32d192ed03ull));
#if defined(MOEBENCH_X86_SIMD)
  if (simd && use_avx512()) {
    detail::fill_row_avx512(table.data(), lanes, row_scale, out, n);
    return;
  }
#else
  (void)simd;
#endif
  fill_row_scalar(table.data(), lanes, row_scale, out, n);
}

void WeightGenerator::fill_norm(std::uint64_t tid, float* out, std::size_t n) const {
  const auto& table = gaussian_table();
  std::uint64_t state = splitmix64(seed_ ^ splitmix64(tid));
  for (std::size_t i = 0; i < n; ++i) {
    state = splitmix64(state);
    out[i] = 1.0f + 0.05f * table[static_cast<std::size_t>(state & (kTableSize - 1))];
  }
}

}  // namespace moebench
