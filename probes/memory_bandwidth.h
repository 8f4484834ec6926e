// memory_bandwidth.h — how fast this machine streams memory, per thread count.
//
// Three kernels in the STREAM tradition over arrays of doubles, each array
// several times the last-level cache (so DRAM, not cache, is measured):
//   read  : s += a[i]              counts 8 bytes per element
//   copy  : c[i] = a[i]            counts 16 bytes per element (read + write)
//   triad : a[i] = b[i] + q*c[i]   counts 24 bytes per element
// Byte-counting convention: bytes the program asks for; write-allocate
// traffic (a cache line read before it is written) is not counted, as in
// STREAM. Threads 1..N are pinned to cores with hwloc and each first-touches
// its own slice, so pages live where they are used. Each (kernel, threads)
// cell reports the best and the median of its repetitions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/progress.h"

namespace moebench {

struct MemoryBandwidthOptions {
  std::uint64_t array_bytes = 1ull << 30;  // per array
  std::vector<int> thread_counts;          // e.g. {1, 2}
  int repetitions = 5;
};

// One (kernel, threads) result: the profile's own record type.
using BandwidthCell = BandwidthFigure;

inline constexpr const char* kByteConvention =
    "STREAM convention: read counts 8 B/element, copy 16 B, triad 24 B; write-allocate traffic not counted";

Expected<std::vector<BandwidthCell>> probe_memory_bandwidth(const MemoryBandwidthOptions& options,
                                                            Progress& progress);

// sysbench's memory read figure taken in the same run as a cross-check, when
// sysbench is installed: bytes/s, or an error saying why there is none.
Expected<double> sysbench_memory_read_bytes_s(int threads, std::uint64_t block_bytes,
                                              const std::string& scratch_dir);

}  // namespace moebench
