// tensor_ops.h — the executor's arithmetic on quantized weights: matvec and
// matmul split by rows across the thread pool, the transposed product MLA's
// weight absorption needs, RMSNorm, SiLU·mul, softmax, top-k. Every weight
// byte of a view is read and every multiply-add done; nothing is skipped
// because the values are synthetic.
#pragma once

#include <cstdint>
#include <functional>
#include <thread>
#include <string>
#include <vector>

#include "engines/executor/thread_pool.h"
#include "engines/quant/kernels.h"
#include "vocab/quant_format.h"
#include "vocab/expected.h"

namespace moebench {

// A 2-D weight in memory: `rows` rows of `row_len` weights in `quant`.
struct TensorView {
  const std::uint8_t* data = nullptr;
  QuantFormat format{};
  std::uint64_t rows = 0;
  std::uint64_t row_len = 0;
  std::uint64_t row_bytes() const { return format.bytes_for(row_len); }
  std::uint64_t bytes() const { return rows * row_bytes(); }
  bool valid() const { return data != nullptr && rows > 0; }
  // Rows [r0, r0 + n) as a view.
  TensorView slice_rows(std::uint64_t r0, std::uint64_t n) const;
};

class TensorOps {
 public:
  TensorOps(ThreadPool& pool, SimdLevel level)
      : pool_(pool), level_(level), owner_(std::this_thread::get_id()) {}
  ThreadPool& pool() { return pool_; }
  // Called by the engine thread between its row tasks of every matvec and
  // matmul: a streaming engine reaps read completions there, so they are
  // seen (and the next reads issued) while long matrices compute.
  void set_poll(std::function<void()> poll) { poll_ = std::move(poll); }

  // y = W x. Counts W's bytes in weight_bytes_touched.
  void matvec(const TensorView& w, const float* x, float* y);
  // Y[b] = W X[b] for b < batch (weights decoded once per row block).
  void matmul(const TensorView& w, const float* x, std::size_t batch, float* y);
  // y = Wᵀ x (x has w.rows entries, y has w.row_len): MLA's absorbed query
  // and output. Rows are decoded into a float scratch row by row.
  void matvec_transposed(const TensorView& w, const float* x, float* y);
  // The 16-bit vector of a norm (or any 1-row tensor) as floats.
  void load_vector(const TensorView& w, float* out);

  std::uint64_t weight_bytes_touched = 0;

 private:
  ThreadPool& pool_;
  SimdLevel level_;
  std::vector<std::vector<float>> scratch_;  // per task, for the transposed product
  std::thread::id owner_;
  std::function<void()> poll_;
  void maybe_poll() {
    if (poll_ && std::this_thread::get_id() == owner_) poll_();
  }
};

// x = x / rms(x) * gain (gain may be null: unit gain).
void rms_norm(float* x, std::size_t n, const float* gain);
// a[i] = silu(a[i]) * b[i].
void silu_mul(float* a, const float* b, std::size_t n);
void softmax(float* x, std::size_t n);
// Indices of the k largest of x[0..n) (ties: lower index), in descending order.
void top_k(const float* x, std::size_t n, std::size_t k, std::vector<int>& out);

}  // namespace moebench
