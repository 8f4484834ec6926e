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
// Row r of w as floats, from either layout.
void dequantize_row(const TensorView& w, std::uint64_t r, float* out) {
  const std::size_t len = static_cast<std::size_t>(w.row_len);
  if (!w.rows8) {
    (void)dequantize(w.format.name, w.data + r * w.row_bytes(), out, len);
    return;
  }
  thread_local std::vector<std::uint8_t> bytes;
  bytes.resize(static_cast<std::size_t>(w.row_bytes()));
  deinterleave_row(w.format.name, w.data, static_cast<std::size_t>(r), len, bytes.data());
  (void)dequantize(w.format.name, bytes.data(), out, len);
}

// Rows per task: enough tasks to balance the pool, few enough that the
// dispatch cost stays far below the work (a task is at least ~64 KiB).
std::uint64_t rows_per_task(const TensorView& w, int threads) {
  const std::uint64_t by_bytes = std::max<std::uint64_t>(1, (64u << 10) / std::max<std::uint64_t>(1, w.row_bytes()));
  const std::uint64_t by_threads = (w.rows + static_cast<std::uint64_t>(threads) * 4 - 1) /
                                   (static_cast<std::uint64_t>(threads) * 4);
  return std::max(by_bytes, by_threads);
}

// Rows per task of one product in a dispatch of several with more than one
// activation row: a batched kernel call repacks its activations (and sets up
// its accumulators) once per call, so tasks are made as large as the
// balance of the whole dispatch allows — about 8 per thread over all
// products, at least 64 KiB and at most 1 MiB of weights each. A prefill
// chunk's experts (hundreds of products of a few rows each) then repack
// their activations a few times per matrix, not once per 64 KiB.
std::uint64_t rows_per_batched_task(const TensorView& w, std::uint64_t dispatch_bytes, int threads) {
  const std::uint64_t target = std::clamp<std::uint64_t>(dispatch_bytes / (static_cast<std::uint64_t>(threads) * 8),
                                                         64u << 10, 1u << 20);
  return std::clamp<std::uint64_t>(target / std::max<std::uint64_t>(1, w.row_bytes()), 1, std::max<std::uint64_t>(1, w.rows));
}
}  // namespace

Expected<TensorOps::DotMode> TensorOps::parse_dot_mode(const std::string& s) {
  if (s == "auto") return DotMode::kAuto;
  if (s == "int8") return DotMode::kInt8;
  if (s == "float") return DotMode::kFloat;
  return make_error("kernels: \"" + s + "\" is not auto, int8 or float");
}

bool TensorOps::uses_integer_dot(const TensorView& w, std::size_t batch) const {
  if (w.rows8) return true;  // only the integer kernels read the layout
  if (dot_mode_ == DotMode::kFloat || !has_q8_kernel(w.format.name, static_cast<std::size_t>(w.row_len))) return false;
  if (dot_mode_ == DotMode::kInt8) return true;
  // kAuto, from measurements (docs/llama-cpp.md): over
  // DRAM-sized matrices the integer kernels win at ≤ 4 activation rows for
  // q4_0, q8_0 and q4_k on AVX2 (×1.05–1.68), lose for mxfp4, and lose to
  // the float register tiles from about 16 rows on; with AVX-512 the float
  // matvec (1 row) was as fast or faster single-threaded and faster at 2
  // threads in the engine (bench-peer decode ×0.73–0.88 of llama.cpp with
  // the integer matvec, ×0.94–1.23 with the float one).
  const std::string_view f = w.format.name;
  if (batch > 4 || (f != "q4_0" && f != "q8_0" && f != "q4_k")) return false;
  return !(batch == 1 && level_ == SimdLevel::kAvx512);
}

std::string TensorOps::kernel_description() const {
  std::string q8 = q8_kernel_name(level_);
  if (level_ == SimdLevel::kNeonI8mm) q8 += " (SMMLA on 4 × 4 row-layout tiles, SDOT elsewhere)";
  switch (dot_mode_) {
    case DotMode::kFloat: return "float kernels for every format";
    case DotMode::kInt8:
      return "integer-dot " + q8 + " (8-bit activations) for q4_0/q8_0/mxfp4/q4_k (in 8-row groups where "
             "stored so), float kernels for the rest";
    case DotMode::kAuto: break;
  }
  return "integer-dot " + q8 + " (8-bit activations) for q4_0/q8_0/mxfp4/q4_k in 8-row groups, row-layout q4_0/q8_0/q4_k "
         "at " + std::string(level_ == SimdLevel::kAvx512 ? "2-4" : "<= 4") + " activation rows; float kernels for the "
         "rest (kernels=auto)";
}

// The input of a product as 8-bit blocks when its weights have an integer
// kernel (else nullptr): quantized once per dispatch and input.
const Q8Activations* TensorOps::quantized(const TensorView& w, const float* x, std::size_t batch) {
  if (!uses_integer_dot(w, batch)) return nullptr;
  const std::size_t cols = static_cast<std::size_t>(w.row_len);
  for (std::size_t i = 0; i < qin_used_; ++i) {
    if (qin_[i].x == x && qin_[i].batch == batch && qin_[i].cols == cols) return &qin_[i].acts;
  }
  if (qin_.size() <= qin_used_) qin_.resize(qin_used_ + 1);
  QuantizedInput& q = qin_[qin_used_++];
  q.x = x;
  q.batch = batch;
  q.cols = cols;
  quantize_activations(x, cols, batch, q.acts);
  return &q.acts;
}

void TensorOps::matvec(const TensorView& w, const float* x, float* y) {
  matmul_many({{&w, x, 1, y}});
}

void TensorOps::matvec_float(const TensorView& w, const float* x, float* y) {
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
  matmul_many({{&w, x, batch, y}});
}

void TensorOps::matmul_float(const TensorView& w, const float* x, std::size_t batch, float* y) {
  if (batch == 1) {
    matvec_float(w, x, y);
    return;
  }
  // Kernels write Y as batch × rows; split rows into blocks computed into a
  // per-task buffer, then scattered into place.
  const std::uint64_t per = rows_per_batched_task(w, w.bytes(), pool_.threads());
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

void TensorOps::matmul_many(const std::vector<Product>& products) {
  qin_used_ = 0;
  std::vector<const Q8Activations*> acts(products.size());
  bool any = false;
  for (std::size_t p = 0; p < products.size(); ++p) {
    acts[p] = quantized(*products[p].w, products[p].x, products[p].batch);
    any = any || acts[p] != nullptr;
  }
  if (products.size() == 1 && !any) {
    matmul_float(*products[0].w, products[0].x, products[0].batch, products[0].y);
    return;
  }
  tasks_.clear();
  std::uint64_t dispatch_bytes = 0;
  for (const Product& p : products) dispatch_bytes += p.w->bytes();
  for (std::size_t p = 0; p < products.size(); ++p) {
    const TensorView& w = *products[p].w;
    std::uint64_t per = products[p].batch > 1 ? rows_per_batched_task(w, dispatch_bytes, pool_.threads())
                                              : rows_per_task(w, pool_.threads());
    if (w.rows8) per = (per + kRows8 - 1) / kRows8 * kRows8;  // whole groups of 8 rows
    for (std::uint64_t r0 = 0; r0 < w.rows; r0 += per) {
      tasks_.push_back({static_cast<std::uint32_t>(p), r0, std::min(per, w.rows - r0)});
    }
    weight_bytes_touched += w.bytes();
  }
  if (scratch_.size() < tasks_.size()) scratch_.resize(tasks_.size());
  pool_.parallel_for(tasks_.size(), [&](std::size_t t) {
    const Task& task = tasks_[t];
    const Product& p = products[task.product];
    const TensorView& w = *p.w;
    const std::uint8_t* rows = w.data + task.r0 * w.row_bytes();
    if (acts[task.product] != nullptr) {
      std::vector<float>& buf = scratch_[t];
      float* out = p.y + task.r0;
      if (p.batch > 1) {
        buf.resize(static_cast<std::size_t>(task.n) * p.batch);
        out = buf.data();
      }
      if (w.rows8) {
        (void)matmul_q8_rows8(w.format.name, rows, task.n, w.row_len, *acts[task.product], out, level_);
      } else {
        (void)matmul_q8(w.format.name, rows, task.n, w.row_len, *acts[task.product], out, level_);
      }
      if (p.batch > 1) {
        for (std::size_t b = 0; b < p.batch; ++b) std::copy_n(buf.data() + b * task.n, task.n, p.y + b * w.rows + task.r0);
      }
    } else if (p.batch == 1) {
      (void)moebench::matvec(w.format.name, rows, task.n, w.row_len, p.x, p.y + task.r0, level_);
    } else {
      std::vector<float>& buf = scratch_[t];
      buf.resize(static_cast<std::size_t>(task.n) * p.batch);
      (void)moebench::matmul(w.format.name, rows, task.n, w.row_len, p.x, p.batch, buf.data(), level_);
      for (std::size_t b = 0; b < p.batch; ++b) std::copy_n(buf.data() + b * task.n, task.n, p.y + b * w.rows + task.r0);
    }
    maybe_poll();
  });
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
      dequantize_row(w, r, row.data());
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
  if (w.rows8) {
    for (std::uint64_t r = 0; r < w.rows; ++r) dequantize_row(w, r, out + r * w.row_len);
  } else {
    (void)dequantize(w.format.name, w.data, out, static_cast<std::size_t>(w.rows * w.row_len));
  }
  weight_bytes_touched += w.bytes();
}

void TensorOps::load_row(const TensorView& w, std::uint64_t r, float* out) {
  dequantize_row(w, r, out);
  weight_bytes_touched += w.row_bytes();
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
