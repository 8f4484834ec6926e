// weight_layout.h — which loaded weights the engines rewrite into the 8-row
// interleaved layout of kernels_q8.h ("rows8"), and the rewrite, once per
// matrix, in the engine's own anonymous memory.
//
// Only matrices that nothing but matmul reads are rewritten: the routed and
// shared experts, dense FFNs, routers, and the attention projections — not
// the embedding table (read a row at a time), a tied output head, norms,
// convolution taps, or MLA's kv_b (sliced by head and read transposed).
// Byte counts are unchanged: a group of 8 rows keeps its 8 rows' bytes.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "engines/executor/executor.h"
#include "engines/executor/tensor_ops.h"
#include "vocab/expected.h"

namespace moebench {

// Whether `v`'s format and shape have the rows8 layout (q4_0/q8_0/mxfp4/
// q4_k, rows a multiple of 8, columns of 32; of 256 for q4_k).
bool rows8_eligible(const TensorView& v);

class Rows8Interleaver {
 public:
  // Rewrites v's bytes in place when eligible and marks v rows8; a view
  // whose bytes were already rewritten (an alias) is only marked.
  Status apply(TensorView& v);
  // The matmul-only matrices of the trunk (see above): the output head when
  // `head`, and those of layers [0, layers) (all: -1).
  Status apply_trunk(TrunkWeights& t, bool head = true, int layers = -1);
  // Every held expert of `table` in `range` (the file loaded at
  // range.file_offset); acquire() then marks the views with rows8_eligible().
  Status apply_experts(const ExpertTable& table, const LoadedRange& range);

  std::uint64_t matrices() const { return matrices_; }
  std::uint64_t bytes() const { return bytes_; }
  double seconds() const { return seconds_; }
  // "q4_0/q8_0/mxfp4/q4_k matrices rewritten into 8-row groups at load …: 1553 (1.29 GiB) in 1.1 s, in load_s"
  std::string note() const;

 private:
  std::unordered_set<const std::uint8_t*> done_;
  std::uint64_t matrices_ = 0, bytes_ = 0;
  double seconds_ = 0;
  Status rewrite(std::uint8_t* data, const QuantFormat& f, std::uint64_t rows, std::uint64_t cols);
};

}  // namespace moebench
