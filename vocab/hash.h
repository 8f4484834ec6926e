// hash.h — XXH64, the checksum of container tensors and expert records:
// fast enough (~10 GB/s a core) that `container verify` runs at disk speed,
// and streaming, so a tensor is hashed as it is written or read. Implemented
// from the public xxHash specification (XXH64, seed 0 unless given).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace moebench {

class Xxh64 {
 public:
  explicit Xxh64(std::uint64_t seed = 0);
  void update(const void* data, std::size_t n);
  std::uint64_t digest() const;

 private:
  std::uint64_t v_[4];
  std::uint64_t seed_;
  std::uint64_t total_ = 0;
  unsigned char buf_[32];
  std::size_t buffered_ = 0;
};

std::uint64_t xxh64(const void* data, std::size_t n, std::uint64_t seed = 0);

}  // namespace moebench
