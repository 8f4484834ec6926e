// kernel_throughput.h — how fast this machine's quant kernels run, measured
// with Google Benchmark registered inside moebench (no second binary).
//
// For each format: decode shape (matvec over one K3 expert matrix, 3584 x
// 3072) and prefill shape (matmul, batch 32), with one thread and with all
// cores (each thread owns a share of the rows, as the engines split a
// matrix), at the best SIMD level. The weights span 512 MiB of copies so
// they stream from DRAM, as an engine's experts do. Reported as weight
// bytes/s and GFLOP/s — the cost model's compute figures.
#pragma once

#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/progress.h"

namespace moebench {

struct KernelThroughput {
  std::string quant;
  std::string shape;     // "matvec" | "matmul"
  int threads = 1;
  int batch = 1;
  std::string simd;      // "avx512", "avx2", "scalar"
  double weight_bytes_s = 0;
  double gflop_s = 0;
  double seconds = 0;    // measured time
  long long iterations = 0;
};

struct KernelThroughputOptions {
  std::vector<std::string> quants;   // formats to measure
  int max_threads = 1;
  double min_time_s = 0.1;           // per benchmark
};

Expected<std::vector<KernelThroughput>> probe_kernel_throughput(const KernelThroughputOptions& options,
                                                                Progress& progress);

}  // namespace moebench
