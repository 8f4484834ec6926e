// tensor_ops.h — the executor's arithmetic on quantized weights: matvec and
// matmul split by rows across the thread pool, the transposed product MLA's
// weight absorption needs, RMSNorm, SiLU·mul, softmax, top-k. Every weight
// byte of a view is read and every multiply-add done; nothing is skipped
// because the values are synthetic.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <string>
#include <vector>

#include "engines/executor/thread_pool.h"
#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"
#include "vocab/quant_format.h"
#include "vocab/expected.h"

namespace moebench {

// A 2-D weight in memory: `rows` rows of `row_len` weights in `quant`.
struct TensorView {
  const std::uint8_t* data = nullptr;
  QuantFormat format{};
  std::uint64_t rows = 0;
  std::uint64_t row_len = 0;
  // The 8-row interleaved layout of kernels_q8.h (rewritten in place at
  // load by interleave_rows8()): the same bytes per 8 rows, read only by the
  // integer-dot kernels; the other products take rows back out of it.
  bool rows8 = false;
  std::uint64_t row_bytes() const { return format.bytes_for(row_len); }
  std::uint64_t bytes() const { return rows * row_bytes(); }
  bool valid() const { return data != nullptr && rows > 0; }
  // Rows [r0, r0 + n) as a view (rows8: r0 and n multiples of 8, or up to the end).
  TensorView slice_rows(std::uint64_t r0, std::uint64_t n) const;
};

class TensorOps {
 public:
  TensorOps(ThreadPool& pool, SimdLevel level)
      : pool_(pool), level_(level), owner_(std::this_thread::get_id()) {}
  ThreadPool& pool() { return pool_; }
  // Which products use the integer-dot kernels of kernels_q8.h
  // (activations quantized to 8 bits once per product, or once per group of
  // products sharing an input, as llama.cpp computes) instead of the float
  // kernels of kernels.h:
  //   kFloat  none;
  //   kInt8   every product whose format has an integer kernel;
  //   kAuto   where they measured faster (docs/llama-cpp.md): every rows8 matrix (q4_0, q8_0, mxfp4, q4_k stored
  //           so); q4_0, q8_0 and q4_k in the row layout with at most 4
  //           activation rows (2 to 4 with AVX-512); the float kernels
  //           elsewhere.
  // A rows8 matrix takes the integer kernels in every mode: nothing else
  // reads that layout (kFloat engines do not interleave).
  enum class DotMode { kAuto, kInt8, kFloat };
  void set_dot_mode(DotMode m) { dot_mode_ = m; }
  DotMode dot_mode() const { return dot_mode_; }
  static Expected<DotMode> parse_dot_mode(const std::string& s);
  // Which kernels the engine runs, for its rows' notes: "integer-dot
  // avx512-vnni for q4_0/q8_0/mxfp4/q4_k (8-bit activations), float
  // kernels for the rest".
  std::string kernel_description() const;
  // Called by the engine thread between its row tasks of every matvec and
  // matmul: a streaming engine reaps read completions there, so they are
  // seen (and the next reads issued) while long matrices compute.
  void set_poll(std::function<void()> poll) { poll_ = std::move(poll); }

  // y = W x. Counts W's bytes in weight_bytes_touched.
  void matvec(const TensorView& w, const float* x, float* y);
  // Y[b] = W X[b] for b < batch (weights decoded once per row block).
  void matmul(const TensorView& w, const float* x, std::size_t batch, float* y);
  // Several independent products in one dispatch: the row blocks of every
  // job are dealt out to the pool together (a layer's routed experts: all
  // gate and up matrices in one job, all down matrices in the next), so a
  // decode token pays one pool hand-off per group, not one per matrix.
  struct Product {
    const TensorView* w;
    const float* x;
    std::size_t batch;
    float* y;  // batch × w->rows
  };
  void matmul_many(const std::vector<Product>& products);
  // y = Wᵀ x (x has w.rows entries, y has w.row_len): MLA's absorbed query
  // and output. Rows are decoded into a float scratch row by row.
  void matvec_transposed(const TensorView& w, const float* x, float* y);
  // The 16-bit vector of a norm (or any 1-row tensor) as floats.
  void load_vector(const TensorView& w, float* out);
  // Row r of w as floats (an embedding lookup). Counts the row's bytes.
  void load_row(const TensorView& w, std::uint64_t r, float* out);

  std::uint64_t weight_bytes_touched = 0;

 private:
  ThreadPool& pool_;
  SimdLevel level_;
  std::vector<std::vector<float>> scratch_;  // per task, for the transposed product
  struct Task {
    std::uint32_t product;
    std::uint64_t r0, n;
  };
  std::vector<Task> tasks_;
  DotMode dot_mode_ = DotMode::kAuto;
  bool uses_integer_dot(const TensorView& w, std::size_t batch) const;
  // Quantized inputs of the current dispatch, one per distinct input.
  struct QuantizedInput {
    const float* x;
    std::size_t batch, cols;
    Q8Activations acts;
  };
  std::deque<QuantizedInput> qin_;  // deque: growing it keeps earlier entries in place
  std::size_t qin_used_ = 0;
  const Q8Activations* quantized(const TensorView& w, const float* x, std::size_t batch);
  std::thread::id owner_;
  std::function<void()> poll_;
  void matvec_float(const TensorView& w, const float* x, float* y);
  void matmul_float(const TensorView& w, const float* x, std::size_t batch, float* y);
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
