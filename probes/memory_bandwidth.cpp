// memory_bandwidth.cpp — see memory_bandwidth.h.
#include "probes/memory_bandwidth.h"

#include <sys/mman.h>

#include <algorithm>
#include <barrier>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
#include <thread>

#include "vocab/file_io.h"
#include "vocab/stats.h"
#include "vocab/subprocess.h"
#include "engines/executor/topology.h"

namespace moebench {
namespace {

// An anonymous mapping, unmapped when the array goes.
struct Unmap {
  std::size_t bytes = 0;
  void operator()(double* p) const {
    if (p != nullptr) ::munmap(p, bytes);
  }
};
using Array = std::unique_ptr<double[], Unmap>;

// Mapped but not touched: the owning thread's first write places pages.
// Transparent huge pages where the kernel offers them (madvise mode too), as
// the engines' weights and expert cache use: with 4 KiB pages the first
// touch of three arrays of several GiB is millions of page faults — 70 s of
// a quick probe's memory phase on a VM that reports a 1 GiB last-level cache
// — and the kernels would measure TLB misses the engines do not have.
Array allocate_untouched(std::size_t n) {
  const std::size_t bytes = (n * sizeof(double) + (2u << 20) - 1) / (2u << 20) * (2u << 20);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return Array(nullptr, Unmap{0});
#if defined(MADV_HUGEPAGE)
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return Array(static_cast<double*>(p), Unmap{bytes});
}

double read_kernel(const double* a, std::size_t begin, std::size_t end) {
  // Eight independent sums so the loop is not latency-bound on one adder.
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    for (int k = 0; k < 8; ++k) s[k] += a[i + static_cast<std::size_t>(k)];
  }
  for (; i < end; ++i) s[0] += a[i];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

struct Cell {
  const char* name;
  double bytes_per_element;
};
constexpr Cell kKernels[] = {{"read", 8}, {"copy", 16}, {"triad", 24}};

}  // namespace

Expected<std::vector<BandwidthCell>> probe_memory_bandwidth(const MemoryBandwidthOptions& options,
                                                            Progress& progress) {
  const std::size_t n = options.array_bytes / sizeof(double);
  if (n < 1024) return make_error("memory bandwidth: arrays of " + std::to_string(options.array_bytes) +
                                  " bytes are too small to measure anything");
  std::vector<BandwidthCell> out;
  for (int threads : options.thread_counts) {
    Array a = allocate_untouched(n), b = allocate_untouched(n), c = allocate_untouched(n);
    if (!a || !b || !c) {
      return make_error("memory bandwidth: cannot allocate 3 arrays of " + std::to_string(options.array_bytes) +
                        " bytes; lower the array size");
    }
    const int reps = options.repetitions;
    // samples[kernel][rep] in seconds
    std::vector<std::vector<double>> seconds(std::size(kKernels), std::vector<double>(static_cast<std::size_t>(reps)));
    std::barrier sync(threads + 1);
    std::vector<int> pinned(static_cast<std::size_t>(threads), 0);
    std::vector<double> sinks(static_cast<std::size_t>(threads), 0);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        pinned[static_cast<std::size_t>(t)] = pin_this_thread_to_core(t).ok() ? 1 : 0;
        const std::size_t begin = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
        const std::size_t end = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
        for (std::size_t i = begin; i < end; ++i) {  // first touch by the owner
          a[i] = 1.0;
          b[i] = 2.0;
          c[i] = 0.5;
        }
        sync.arrive_and_wait();
        double sink = 0;
        for (std::size_t k = 0; k < std::size(kKernels); ++k) {
          for (int r = 0; r < reps; ++r) {
            sync.arrive_and_wait();  // start together
            if (k == 0) {
              sink += read_kernel(a.get(), begin, end);
            } else if (k == 1) {
              std::memcpy(c.get() + begin, a.get() + begin, (end - begin) * sizeof(double));
            } else {
              const double q = 3.0;
              for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + q * c[i];
            }
            sync.arrive_and_wait();  // end together
          }
        }
        sinks[static_cast<std::size_t>(t)] = sink;
      });
    }
    sync.arrive_and_wait();  // first touch done
    for (std::size_t k = 0; k < std::size(kKernels); ++k) {
      for (int r = 0; r < reps; ++r) {
        progress.phase(std::string("memory ") + kKernels[k].name + ", " + std::to_string(threads) + " thread(s)",
                       static_cast<double>(k * static_cast<std::size_t>(reps) + static_cast<std::size_t>(r)) /
                           static_cast<double>(std::size(kKernels) * static_cast<std::size_t>(reps)));
        sync.arrive_and_wait();
        const auto t0 = std::chrono::steady_clock::now();
        sync.arrive_and_wait();
        seconds[k][static_cast<std::size_t>(r)] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
    }
    for (std::thread& w : workers) w.join();
    volatile double keep = 0;
    for (double s : sinks) keep = keep + s;
    (void)keep;
    for (std::size_t k = 0; k < std::size(kKernels); ++k) {
      std::vector<double> rates;
      for (double s : seconds[k]) rates.push_back(kKernels[k].bytes_per_element * static_cast<double>(n) / s);
      BandwidthCell cell;
      cell.kernel = kKernels[k].name;
      cell.threads = threads;
      cell.best_bytes_s = *std::max_element(rates.begin(), rates.end());
      cell.median_bytes_s = median(rates);
      cell.repetitions = reps;
      cell.array_bytes = options.array_bytes;
      cell.pinned = std::all_of(pinned.begin(), pinned.end(), [](int p) { return p != 0; });
      out.push_back(cell);
    }
  }
  return out;
}

Expected<double> sysbench_memory_read_bytes_s(int threads, std::uint64_t block_bytes,
                                              const std::string& scratch_dir) {
  auto sysbench = find_program("sysbench");
  if (!sysbench) return make_error("sysbench is not installed (apt-get install sysbench) — no cross-check");
  const std::uint64_t total = block_bytes * static_cast<std::uint64_t>(threads) * 8;
  const std::vector<std::string> argv = {*sysbench, "memory", "--memory-oper=read",
                                         "--memory-block-size=" + std::to_string(block_bytes),
                                         "--memory-total-size=" + std::to_string(total),
                                         "--threads=" + std::to_string(threads), "run"};
  ProcessOptions po;
  po.timeout_s = 120;
  po.scratch_dir = scratch_dir;
  auto r = run_process(argv, po);
  if (!r) return r.error();
  if (!r->ok()) {
    return make_error("\"" + command_line(argv) + "\" " + r->describe() + ": " + last_lines(r->err + r->out, 3));
  }
  // "16384.00 MiB transferred (10333.27 MiB/sec)"
  std::smatch m;
  static const std::regex kRate(R"(\(([0-9.]+) MiB/sec\))");
  if (!std::regex_search(r->out, m, kRate)) {
    return make_error("cannot find \"(N MiB/sec)\" in the output of \"" + command_line(argv) + "\"");
  }
  const std::string digits = m[1].str();
  double mib_s = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), mib_s);  // locale-independent
  return mib_s * 1048576.0;
}

}  // namespace moebench
