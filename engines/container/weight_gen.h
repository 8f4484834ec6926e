// weight_gen.h — seeded synthetic weights with a realistic distribution.
//
// Each row of each tensor is a deterministic function of (seed, tensor,
// row): Gaussian values (a 4,096-entry inverse-CDF table, so generation is
// a table lookup, not a transcendental), a per-row scale drawn log-normally
// around 1/sqrt(row_len) (as trained weight matrices vary by row), and rare
// outliers (about 1 in 1,024 values at 6x) that stress the quantizers'
// block scales. The same seed always yields the same container bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace moebench {

class WeightGenerator {
 public:
  explicit WeightGenerator(std::uint64_t seed);
  // Fills `n` weights of row `row` of tensor `tensor_id` (a hash of its name
  // and, for experts, the expert index).
  void fill_row(std::uint64_t tensor_id, std::uint64_t row, float* out, std::size_t n) const;
  // The same, forcing the portable path (simd = false) or allowing AVX-512;
  // both give identical values (tested).
  void fill_row_with(std::uint64_t tensor_id, std::uint64_t row, float* out, std::size_t n, bool simd) const;
  // Small tensors (norms): values around 1 with a little spread.
  void fill_norm(std::uint64_t tensor_id, float* out, std::size_t n) const;

 private:
  std::uint64_t seed_;
};

std::uint64_t tensor_id(std::string_view name, std::uint64_t expert = 0);

}  // namespace moebench
