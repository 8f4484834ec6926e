// kernel_throughput.h — how fast this machine's quant kernels run, measured
// with Google Benchmark registered inside moebench (no second binary).
//
// For each format: decode shape (matvec over one K3 expert matrix, 3584 x
// 3072) and prefill shape (matmul, batch 32), with one thread and with all
// cores (each thread owns a share of the rows, as the engines split a
// matrix), at the best SIMD level. The weights span 512 MiB of copies so
// they stream from DRAM, as an engine's experts do. Reported as weight
// bytes/s and GFLOP/s — the cost model's compute figures.
//
// With include_integer_dot, the formats with integer-dot kernels
// (kernels_q8.h) are measured through them too (activations quantized in
// the loop, as the engines do once per product): matvec and a 4-row matmul
// (the batch the engines send them, and the one aarch64's SMMLA tile
// takes). Those rows say which kernel family ran; they are for the kernel
// table (`moebench probe --kernels-only`), not the profile.
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
  std::string simd;      // the SIMD level: "avx512", "avx2", "neon-i8mm", ..., "scalar"
  std::string dot = "float";  // "float" (kernels.h) or "int8" (kernels_q8.h)
  std::string kernel;    // what ran: "avx512 float", "neon-i8mm int8", ...
  double weight_bytes_s = 0;
  double gflop_s = 0;
  double seconds = 0;    // measured time
  long long iterations = 0;
};

struct KernelThroughputOptions {
  std::vector<std::string> quants;   // formats to measure
  int max_threads = 1;
  double min_time_s = 0.1;           // per benchmark
  bool include_integer_dot = false;
};

// The measurements as a markdown table (quant, shape, batch, threads,
// kernel, weight GB/s, GFLOP/s), headed by the CPU and, on an emulated run,
// a line saying the figures describe the emulator.
std::string kernel_table_markdown(const std::vector<KernelThroughput>& rows, const std::string& cpu,
                                  const std::string& emulation);

Expected<std::vector<KernelThroughput>> probe_kernel_throughput(const KernelThroughputOptions& options,
                                                                Progress& progress);

}  // namespace moebench
