// routing_internal.h — pieces shared by routing.cpp (the seeded generators
// and make_routing) and routing_trace.cpp (trace replay and writing); not
// part of the routing API.
//
// The PRNG is written out (xoshiro256** seeded through splitmix64, Lemire's
// multiply-shift for bounded integers) rather than taken from <random>, so a
// seed gives the same experts with every standard library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engines/routing/routing.h"
#include "vocab/expected.h"

namespace moebench::routing_detail {

inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A stream seed for (seed, purpose): distinct purposes give unrelated streams.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t purpose) {
  std::uint64_t s = seed ^ (purpose * 0xd1b54a32d192ed03ull);
  return splitmix64_next(s);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t sm = seed;
    for (std::uint64_t& w : s_) w = splitmix64_next(sm);
  }

  std::uint64_t next() {  // xoshiro256**
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n) for n >= 1, unbiased (Lemire's method with rejection).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    U128 m = static_cast<U128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<U128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  int below_int(int n) { return static_cast<int>(below(static_cast<std::uint64_t>(n))); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// The trace:FILE generator. `arg` is FILE as written in the spec (kept for
// describe()), `path` the resolved file. The shape has been validated.
Expected<std::unique_ptr<RoutingGenerator>> load_trace_routing(const std::string& arg,
                                                               const std::string& path,
                                                               const RoutingShape& shape);

}  // namespace moebench::routing_detail
