// kernel_throughput.cpp — see kernel_throughput.h.
#include "probes/kernel_throughput.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <utility>

#include "engines/quant/kernels.h"
#include "engines/quant/kernels_q8.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "engines/quant/quantize.h"

namespace moebench {
namespace {

constexpr std::size_t kRows = 3072;  // one K3 expert matrix: 3072 outputs x 3584 inputs
constexpr std::size_t kCols = 3584;
constexpr int kPrefillBatch = 32;
constexpr int kInt8Batch = 4;
constexpr std::size_t kWorkingSetBytes = 512u << 20;

struct Weights {
  QuantFormat fmt;
  std::size_t matrix_bytes = 0;
  std::size_t copies = 0;
  std::vector<unsigned char> data;  // `copies` back-to-back quantized matrices
};

Expected<std::shared_ptr<Weights>> make_weights(const std::string& quant) {
  auto w = std::make_shared<Weights>();
  w->fmt = *find_quant(quant);
  w->matrix_bytes = kRows * w->fmt.bytes_for(kCols);
  w->copies = std::max<std::size_t>(2, kWorkingSetBytes / w->matrix_bytes);
  w->data.resize(w->copies * w->matrix_bytes);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> row(kCols);
  for (std::size_t r = 0; r < kRows; ++r) {
    for (float& v : row) v = normal(rng);
    if (Status st = quantize(quant, row.data(), w->data.data() + r * w->fmt.bytes_for(kCols), kCols); !st) {
      return st.error();
    }
  }
  // The values do not change the speed; copies make the set exceed the caches.
  for (std::size_t c = 1; c < w->copies; ++c) {
    std::memcpy(w->data.data() + c * w->matrix_bytes, w->data.data(), w->matrix_bytes);
  }
  return w;
}

// Collects runs instead of printing them.
class Collector final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) collected.push_back(r);
    }
  }
  std::vector<Run> collected;
};

// The kernel family a product ran on, as the table names it: the float
// kernels have one NEON version at every NEON level; the row-layout integer
// kernels at neon-i8mm use SMMLA on tiles of 4 activation rows and SDOT
// below that (kernels_q8_neon.h).
std::string kernel_that_ran(SimdLevel level, bool int8, int batch) {
  if (!int8) return std::string(is_neon(level) ? "neon" : to_string(level)) + " float";
  if (level == SimdLevel::kNeonI8mm) return batch >= 4 ? "neon-i8mm int8 (SMMLA)" : "neon-dotprod int8 (SDOT)";
  if (level == SimdLevel::kNeonDotprod) return "neon-dotprod int8 (SDOT)";
  if (level == SimdLevel::kNeon) return "neon int8 (SMULL)";
  return std::string(q8_kernel_name(level)) + " int8";
}

}  // namespace

Expected<std::vector<KernelThroughput>> probe_kernel_throughput(const KernelThroughputOptions& o, Progress& progress) {
  const SimdLevel level = best_simd_level();
  std::vector<std::shared_ptr<Weights>> keep;
  struct Meta {
    std::string quant, shape;
    int threads, batch;
    std::size_t matrix_bytes;
    bool int8;
  };
  std::vector<Meta> metas;
  benchmark::ClearRegisteredBenchmarks();
  for (const std::string& q : o.quants) {
    if (!find_quant(q)) return make_error("kernel throughput: unknown quant \"" + q + "\"");
    progress.phase("kernels: preparing " + q + " weights", -1);
    auto w = make_weights(q);
    if (!w) return w.error();
    keep.push_back(*w);
    std::vector<std::pair<bool, int>> shapes = {{false, 1}, {false, kPrefillBatch}};  // (int8, batch)
    if (o.include_integer_dot && has_q8_kernel(q, kCols)) {
      shapes.push_back({true, 1});
      shapes.push_back({true, kInt8Batch});
    }
    for (const auto& [int8, batch] : shapes) {
      for (int threads : {1, o.max_threads}) {
        if (threads == 1 && o.max_threads == 1 && !metas.empty() && metas.back().quant == q &&
            metas.back().batch == batch && metas.back().int8 == int8) {
          continue;  // one core: one thread count
        }
        const std::string shape = batch == 1 ? "matvec" : "matmul";
        const std::string name = q + "/" + shape + (int8 ? "-int8" : "") + "/threads:" + std::to_string(threads);
        metas.push_back({q, shape, threads, batch, (*w)->matrix_bytes, int8});
        std::shared_ptr<Weights> weights = *w;
        benchmark::RegisterBenchmark(name.c_str(), [weights, batch, level, q, int8 = int8](benchmark::State& state) {
          // Each thread computes its share of the rows, from its own copy.
          const std::size_t share = kRows / static_cast<std::size_t>(state.threads());
          const std::size_t row0 = share * static_cast<std::size_t>(state.thread_index());
          std::vector<float> x(kCols * static_cast<std::size_t>(batch), 0.5f);
          std::vector<float> y(kRows * static_cast<std::size_t>(batch));
          Q8Activations acts;
          const std::size_t row_bytes = weights->fmt.bytes_for(kCols);
          std::size_t copy = static_cast<std::size_t>(state.thread_index());
          for (auto _ : state) {
            const unsigned char* wp = weights->data.data() + copy * weights->matrix_bytes + row0 * row_bytes;
            Status st = Status::success();
            if (int8) {
              quantize_activations(x.data(), kCols, static_cast<std::size_t>(batch), acts);
              st = matmul_q8(q, wp, share, kCols, acts, y.data(), level);
            } else {
              st = batch == 1 ? matvec(q, wp, share, kCols, x.data(), y.data(), level)
                              : matmul(q, wp, share, kCols, x.data(), static_cast<std::size_t>(batch), y.data(), level);
            }
            if (!st) {
              state.SkipWithError(st.error().message.c_str());
              break;
            }
            benchmark::DoNotOptimize(y.data());
            copy = (copy + 1) % weights->copies;
          }
          state.counters["weight_bytes"] = benchmark::Counter(
              static_cast<double>(state.iterations()) * static_cast<double>(share * row_bytes),
              benchmark::Counter::kIsRate);
        })->Threads(threads)->MinTime(o.min_time_s)->UseRealTime();
      }
    }
  }
  progress.phase("kernels: running " + std::to_string(metas.size()) + " Google Benchmark runs", -1);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  std::vector<KernelThroughput> out;
  for (std::size_t i = 0; i < metas.size() && i < collector.collected.size(); ++i) {
    const auto& run = collector.collected[i];
    const Meta& m = metas[i];
    KernelThroughput k;
    k.quant = m.quant;
    k.shape = m.shape;
    k.threads = m.threads;
    k.batch = m.batch;
    k.simd = to_string(level);
    k.dot = m.int8 ? "int8" : "float";
    k.kernel = kernel_that_ran(level, m.int8, m.batch);
    auto it = run.counters.find("weight_bytes");
    k.weight_bytes_s = it != run.counters.end() ? static_cast<double>(it->second) : 0;
    // Two flops (multiply, add) per weight per batch row.
    const QuantFormat fmt = *find_quant(m.quant);
    const double weights_per_byte = static_cast<double>(fmt.block_weights) / static_cast<double>(fmt.block_bytes);
    k.gflop_s = k.weight_bytes_s * weights_per_byte * 2.0 * m.batch / 1e9;
    k.iterations = static_cast<long long>(run.iterations);
    k.seconds = run.real_accumulated_time;
    out.push_back(k);
  }
  if (out.size() != metas.size()) {
    return make_error("kernel throughput: Google Benchmark reported " + std::to_string(collector.collected.size()) +
                      " of " + std::to_string(metas.size()) + " runs");
  }
  return out;
}

std::string kernel_table_markdown(const std::vector<KernelThroughput>& rows, const std::string& cpu,
                                  const std::string& emulation) {
  std::string s = "Kernel throughput on " + cpu + " (3072 x 3584 weights per matrix, streamed from DRAM)\n";
  if (!emulation.empty()) {
    s += "EMULATED: " + emulation + ". These figures describe the emulator, not a machine; they show which kernels "
         "ran.\n";
  }
  s += "\n| quant | shape | batch | threads | kernel | weight GB/s | GFLOP/s | iterations |\n"
       "|---|---|---:|---:|---|---:|---:|---:|\n";
  for (const KernelThroughput& k : rows) {
    s += "| " + k.quant + " | " + k.shape + " | " + std::to_string(k.batch) + " | " + std::to_string(k.threads) + " | " +
         k.kernel + " | " + format_fixed(k.weight_bytes_s / 1e9, 3) + " | " + format_fixed(k.gflop_s, 3) + " | " +
         std::to_string(k.iterations) + " |\n";
  }
  return s;
}

}  // namespace moebench
