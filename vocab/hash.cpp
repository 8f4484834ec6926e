// hash.cpp — XXH64 (see hash.h).
#include "vocab/hash.h"

#include <cstring>

namespace moebench {
namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t P2 = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t P3 = 0x165667B19E3779F9ull;
constexpr std::uint64_t P4 = 0x85EBCA77C2B2AE63ull;
constexpr std::uint64_t P5 = 0x27D4EB2F165667C5ull;

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
std::uint64_t read64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts (x86-64, aarch64)
}
std::uint32_t read32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
  acc += input * P2;
  acc = rotl(acc, 31);
  return acc * P1;
}
std::uint64_t merge(std::uint64_t acc, std::uint64_t val) {
  acc ^= round(0, val);
  return acc * P1 + P4;
}

}  // namespace

Xxh64::Xxh64(std::uint64_t seed) : v_{seed + P1 + P2, seed + P2, seed, seed - P1}, seed_(seed) {}

void Xxh64::update(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += n;
  if (buffered_ + n < 32) {
    std::memcpy(buf_ + buffered_, p, n);
    buffered_ += n;
    return;
  }
  if (buffered_ > 0) {
    const std::size_t fill = 32 - buffered_;
    std::memcpy(buf_ + buffered_, p, fill);
    for (int i = 0; i < 4; ++i) v_[i] = round(v_[i], read64(buf_ + 8 * i));
    p += fill;
    n -= fill;
    buffered_ = 0;
  }
  while (n >= 32) {
    v_[0] = round(v_[0], read64(p));
    v_[1] = round(v_[1], read64(p + 8));
    v_[2] = round(v_[2], read64(p + 16));
    v_[3] = round(v_[3], read64(p + 24));
    p += 32;
    n -= 32;
  }
  std::memcpy(buf_, p, n);
  buffered_ = n;
}

std::uint64_t Xxh64::digest() const {
  std::uint64_t h;
  if (total_ >= 32) {
    h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
    for (int i = 0; i < 4; ++i) h = merge(h, v_[i]);
  } else {
    h = seed_ + P5;
  }
  h += total_;
  const unsigned char* p = buf_;
  std::size_t n = buffered_;
  while (n >= 8) {
    h ^= round(0, read64(p));
    h = rotl(h, 27) * P1 + P4;
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    h ^= static_cast<std::uint64_t>(read32(p)) * P1;
    h = rotl(h, 23) * P2 + P3;
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    h ^= (*p) * P5;
    h = rotl(h, 11) * P1;
    ++p;
    --n;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

std::uint64_t xxh64(const void* data, std::size_t n, std::uint64_t seed) {
  Xxh64 h(seed);
  h.update(data, n);
  return h.digest();
}

}  // namespace moebench
