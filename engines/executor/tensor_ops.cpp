// tensor_ops.cpp — see tensor_ops.h.
#include "engines/executor/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engines/quant/dequantize.h"

namespace moebench {

TensorView TensorView::slice_rows(std::uint64_t r0, std::uint64_t n) const {
  TensorView v = *this;
  v.data = data + r0 * row_bytes();
  v.rows = n;
  return v;
}

namespace {
// Rows per task: enough tasks to balance the pool, few enough that the
// dispatch cost stays far below the work (a task is at least ~64 KiB).
std::uint64_t rows_per_task(const TensorView& w, int threads) {
  const std::uint64_t by_bytes = std::max<std::uint64_t>(1, (64u << 10) / std::max<std::uint64_t>(1, w.row_bytes()));
  const std::uint64_t by_threads = (w.rows + static_cast<std::uint64_t>(threads) * 4 - 1) /
                                   (static_cast<std::uint64_t>(threads) * 4);
  return std::max(by_bytes, by_threads);
}
}  // namespace

void TensorOps::matvec(const TensorView& w, const float* x, float* y) {
  const std::uint64_t per = rows_per_task(w, pool_.threads());
  const std::size_t tasks = static_cast<std::size_t>((w.rows + per - 1) / per);
  pool_.parallel_for(tasks, [&](std::size_t t) {
    const std::uint64_t r0 = t * per;
    const std::uint64_t n = std::min(per, w.rows - r0);
    (void)moebench::matvec(w.format.name, w.data + r0 * w.row_bytes(), n, w.row_len, x, y + r0, level_);
    maybe_poll();
  });
  weight_bytes_touched += w.bytes();
}

void TensorOps::matmul(const TensorView& w, const float* x, std::size_t batch, float* y) {
  if (batch == 1) {
    matvec(w, x, y);
    return;
  }
  // Kernels write Y as batch × rows; split rows into blocks computed into a
  // per-task buffer, then scattered into place.
  const std::uint64_t per = rows_per_task(w, pool_.threads());
  const std::size_t tasks = static_cast<std::size_t>((w.rows + per - 1) / per);
  if (scratch_.size() < tasks) scratch_.resize(tasks);
  pool_.parallel_for(tasks, [&](std::size_t t) {
    const std::uint64_t r0 = t * per;
    const std::uint64_t n = std::min(per, w.rows - r0);
    std::vector<float>& buf = scratch_[t];
    buf.resize(static_cast<std::size_t>(n) * batch);
    (void)moebench::matmul(w.format.name, w.data + r0 * w.row_bytes(), n, w.row_len, x, batch, buf.data(), level_);
    for (std::size_t b = 0; b < batch; ++b) {
      std::copy_n(buf.data() + b * n, n, y + b * w.rows + r0);
    }
    maybe_poll();
  });
  weight_bytes_touched += w.bytes();
}

void TensorOps::matvec_transposed(const TensorView& w, const float* x, float* y) {
  // Split the rows; each task sums its rows' contributions into its own
  // partial vector, reduced at the end.
  const int threads = pool_.threads();
  const std::size_t tasks = static_cast<std::size_t>(std::min<std::uint64_t>(w.rows, static_cast<std::uint64_t>(threads)));
  if (scratch_.size() < 2 * tasks) scratch_.resize(2 * tasks);
  const std::uint64_t per = (w.rows + tasks - 1) / tasks;
  const std::size_t len = static_cast<std::size_t>(w.row_len);
  pool_.parallel_for(tasks, [&](std::size_t t) {
    std::vector<float>& acc = scratch_[2 * t];
    std::vector<float>& row = scratch_[2 * t + 1];
    acc.assign(len, 0.0f);
    row.resize(len);
    const std::uint64_t r0 = t * per;
    const std::uint64_t r1 = std::min(w.rows, r0 + per);
    for (std::uint64_t r = r0; r < r1; ++r) {
      (void)dequantize(w.format.name, w.data + r * w.row_bytes(), row.data(), len);
      const float xr = x[r];
      for (std::size_t c = 0; c < len; ++c) acc[c] += xr * row[c];
    }
  });
  std::fill_n(y, len, 0.0f);
  for (std::size_t t = 0; t < tasks; ++t) {
    for (std::size_t c = 0; c < len; ++c) y[c] += scratch_[2 * t][c];
  }
  weight_bytes_touched += w.bytes();
}

void TensorOps::load_vector(const TensorView& w, float* out) {
  (void)dequantize(w.format.name, w.data, out, static_cast<std::size_t>(w.rows * w.row_len));
  weight_bytes_touched += w.bytes();
}

void rms_norm(float* x, std::size_t n, const float* gain) {
  double ss = 0;
  for (std::size_t i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + 1e-6));
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] * inv * (gain ? gain[i] : 1.0f);
}

void silu_mul(float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
}

void softmax(float* x, std::size_t n) {
  if (n == 0) return;
  const float m = *std::max_element(x, x + n);
  float sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - m);
    sum += x[i];
  }
  const float inv = 1.0f / sum;
  for (std::size_t i = 0; i < n; ++i) x[i] *= inv;
}

void top_k(const float* x, std::size_t n, std::size_t k, std::vector<int>& out) {
  out.resize(n);
  std::iota(out.begin(), out.end(), 0);
  k = std::min(k, n);
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(),
                    [&](int a, int b) { return x[a] > x[b] || (x[a] == x[b] && a < b); });
  out.resize(k);
}

}  // namespace moebench
