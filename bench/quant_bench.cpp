// quant_bench.cpp — kernel and quantizer throughput, one thread.
//
// For every format × available SIMD level: decode (matvec over one K3
// expert matrix, 3584 rows × 3072 columns) and prefill (matmul, batch 32,
// same matrix), reporting weight_GB_s (weight bytes / time) and GFLOP_s
// (2·rows·cols·batch / time). Each iteration uses the next of enough copies
// of the matrix to span ≥ 1 GiB, so weights stream from DRAM as cold experts
// do, not from a last-level cache that could hold one matrix. Then
// quantize() throughput per format (output GB/s), and quantize_fast/<fmt>:
// the same with QuantSearch::kFast for the k-quants. For the formats with
// integer-dot kernels (kernels_q8.h), int8/<fmt>/<level>/b<rows> at 1, 4
// and 16 activation rows (activation quantization included, as the engines
// pay it once per product), and rows8/<fmt>/... on the 8-row interleaved
// layout where the format has it — beside float/<fmt>/... at the same rows.
//
//   ./build/bench/moebench_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"
#include "vocab/quant_format.h"
#include "engines/quant/quantize.h"

namespace {

using namespace moebench;

constexpr std::size_t kRows = 3584, kCols = 3072, kPrefillBatch = 32;
constexpr std::size_t kSpanBytes = std::size_t{1} << 30;

std::vector<float> gaussian(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// The quantized matrix of one format, replicated; one format at a time is
// kept (benchmarks are registered format by format).
struct Weights {
  std::string quant;
  std::vector<unsigned char> data;
  std::size_t matrix_bytes = 0, copies = 0;
};

const Weights* weights_for(const QuantFormat& f, bool rows8 = false) {
  static const std::vector<float> source = gaussian(kRows * kCols, 42);
  static Weights w;
  const std::string key = std::string(f.name) + (rows8 ? "/rows8" : "");
  if (w.quant != key) {
    w = Weights{};
    w.matrix_bytes = f.bytes_for(kRows * kCols);
    w.copies = (kSpanBytes + w.matrix_bytes - 1) / w.matrix_bytes;
    w.data.resize(w.matrix_bytes * w.copies);
    if (!quantize(f.name, source.data(), w.data.data(), source.size()).ok()) return nullptr;
    if (rows8 && !interleave_rows8(f.name, w.data.data(), kRows, kCols).ok()) return nullptr;
    for (std::size_t c = 1; c < w.copies; ++c) std::memcpy(&w.data[c * w.matrix_bytes], w.data.data(), w.matrix_bytes);
    w.quant = key;
  }
  return &w;
}

enum class Kernel { kFloat, kInt8, kRows8 };

// Float kernels, integer-dot kernels on the row layout, or on rows8, at
// `batch` activation rows.
void bench_dot(benchmark::State& state, QuantFormat f, SimdLevel level, std::size_t batch, Kernel kind) {
  const Weights* w = weights_for(f, kind == Kernel::kRows8);
  if (w == nullptr) {
    state.SkipWithError("quantize failed");
    return;
  }
  const std::vector<float> x = gaussian(batch * kCols, 7);
  std::vector<float> y(batch * kRows);
  Q8Activations acts;
  std::size_t k = 0;
  for (auto _ : state) {
    const unsigned char* m = w->data.data() + (k++ % w->copies) * w->matrix_bytes;
    Status s = Status::success();
    if (kind == Kernel::kFloat) {
      s = batch == 1 ? matvec(f.name, m, kRows, kCols, x.data(), y.data(), level)
                     : matmul(f.name, m, kRows, kCols, x.data(), batch, y.data(), level);
    } else {
      quantize_activations(x.data(), kCols, batch, acts);
      s = kind == Kernel::kInt8 ? matmul_q8(f.name, m, kRows, kCols, acts, y.data(), level)
                                : matmul_q8_rows8(f.name, m, kRows, kCols, acts, y.data(), level);
    }
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  const auto iters = static_cast<double>(state.iterations());
  state.counters["weight_GB_s"] =
      benchmark::Counter(iters * static_cast<double>(w->matrix_bytes) / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP_s"] = benchmark::Counter(iters * 2.0 * kRows * kCols * static_cast<double>(batch) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void bench_quantize(benchmark::State& state, QuantFormat f, QuantSearch search) {
  const std::size_t n = std::size_t{1} << 20;
  const std::vector<float> src = gaussian(n, 3);
  std::vector<unsigned char> out(f.bytes_for(n));
  const SimdLevel level = best_simd_level();
  for (auto _ : state) {
    if (!quantize(f.name, src.data(), out.data(), n, level, search).ok()) {
      state.SkipWithError("quantize failed");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const auto iters = static_cast<double>(state.iterations());
  state.counters["out_GB_s"] =
      benchmark::Counter(iters * static_cast<double>(out.size()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["Mweights_s"] = benchmark::Counter(iters * static_cast<double>(n) / 1e6, benchmark::Counter::kIsRate);
}

void register_all() {
  const std::string shape = std::to_string(kRows) + "x" + std::to_string(kCols);
  for (const QuantFormat& f : quant_formats()) {
    const std::string q(f.name);
    for (SimdLevel level : available_simd_levels()) {
      const std::string lv = to_string(level);
      benchmark::RegisterBenchmark(("decode/" + q + "/" + lv + "/" + shape).c_str(), bench_dot, f, level, std::size_t{1}, Kernel::kFloat)
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("prefill_b" + std::to_string(kPrefillBatch) + "/" + q + "/" + lv + "/" + shape).c_str(),
                                   bench_dot, f, level, kPrefillBatch, Kernel::kFloat)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const QuantFormat& f : quant_formats()) {
    const std::string q(f.name);
    if (!has_q8_kernel(q, kCols)) continue;
    for (SimdLevel level : available_simd_levels()) {
      const std::string lv = to_string(level);
      for (std::size_t batch : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
        const std::string tail = "/" + q + "/" + lv + "/b" + std::to_string(batch);
        benchmark::RegisterBenchmark(("float" + tail).c_str(), bench_dot, f, level, batch, Kernel::kFloat)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("int8" + tail).c_str(), bench_dot, f, level, batch, Kernel::kInt8)
            ->Unit(benchmark::kMicrosecond);
        if (has_rows8_layout(q, kRows, kCols)) {
          benchmark::RegisterBenchmark(("rows8" + tail).c_str(), bench_dot, f, level, batch, Kernel::kRows8)
              ->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
  for (const QuantFormat& f : quant_formats()) {
    benchmark::RegisterBenchmark(("quantize/" + std::string(f.name)).c_str(), bench_quantize, f, QuantSearch::kGgml)
        ->Unit(benchmark::kMillisecond);
  }
  // QuantSearch::kFast differs from kGgml only for the k-quants.
  for (std::string_view q : {"q4_k", "q3_k", "q2_k"}) {
    benchmark::RegisterBenchmark(("quantize_fast/" + std::string(q)).c_str(), bench_quantize, *find_quant(q),
                                 QuantSearch::kFast)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
