// read_engine.cpp — see read_engine.h.
#include "probes/read_engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#if defined(MOEBENCH_HAVE_IO_URING)
#include <liburing.h>
#endif

#include "vocab/file_io.h"
#include "vocab/stats.h"

namespace moebench {

const char* to_string(IoPath p) {
  switch (p) {
    case IoPath::kAuto: return "auto";
    case IoPath::kIoUring: return "io_uring";
    case IoPath::kPreadThreads: return "pread-threads";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// Offsets for one file: block-aligned random, or sequential with wrap-around.
class OffsetSource {
 public:
  OffsetSource(std::uint64_t size, std::uint64_t block, bool random, std::uint64_t seed)
      : blocks_(size / block), block_(block), random_(random), rng_(seed) {}
  std::uint64_t next() {
    if (random_) return std::uniform_int_distribution<std::uint64_t>(0, blocks_ - 1)(rng_) * block_;
    const std::uint64_t off = next_seq_ * block_;
    next_seq_ = (next_seq_ + 1) % blocks_;
    return off;
  }

 private:
  std::uint64_t blocks_, block_;
  bool random_;
  std::mt19937_64 rng_;
  std::uint64_t next_seq_ = 0;
};

struct WorkerResult {
  std::uint64_t bytes = 0;
  std::vector<double> lat_us;
  std::string error;
  bool direct = true;
  std::string fixed_refused;  // io_uring: why the buffers could not be registered ("" = registered)
};

#if defined(MOEBENCH_HAVE_IO_URING)
// Returns false with `why` set when io_uring cannot be used at all (then the
// caller falls back to pread threads); I/O errors go into r.error.
bool uring_worker(const ReadTarget& t, const ReadCellSpec& spec, Clock::time_point end, std::uint64_t seed,
                  WorkerResult& r, std::string& why) {
  io_uring ring{};
  const int rc = io_uring_queue_init(static_cast<unsigned>(spec.queue_depth), &ring, 0);
  if (rc < 0) {
    why = std::string("io_uring_queue_init failed: ") + std::strerror(-rc);
    return false;
  }
  const int fd = open_read_uncached(t.path, r.direct);
  if (fd < 0) {
    r.error = t.path + ": cannot open: " + std::strerror(errno);
    io_uring_queue_exit(&ring);
    return true;
  }
  const std::size_t qd = static_cast<std::size_t>(spec.queue_depth);
  std::vector<AlignedBytes> bufs;
  for (std::size_t i = 0; i < qd; ++i) {
    bufs.push_back(aligned_bytes(spec.block_bytes));
  }
  // Registered buffers (IORING_OP_READ_FIXED), as the streaming engine and
  // fio's best job read: the kernel pins the pages once, not on every read
  // (on this 2-core VM plain large reads ran at about half the rate).
  std::vector<iovec> iov(qd);
  for (std::size_t i = 0; i < qd; ++i) iov[i] = {bufs[i].get(), static_cast<std::size_t>(spec.block_bytes)};
  const int reg = io_uring_register_buffers(&ring, iov.data(), static_cast<unsigned>(qd));
  const bool fixed = reg == 0;
  if (!fixed) r.fixed_refused = std::string("io_uring_register_buffers: ") + std::strerror(-reg);
  std::vector<Clock::time_point> issued(qd);
  OffsetSource offsets(t.size_bytes, spec.block_bytes, spec.random, seed);
  auto submit = [&](std::size_t slot) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    if (fixed) {
      io_uring_prep_read_fixed(sqe, fd, bufs[slot].get(), static_cast<unsigned>(spec.block_bytes), offsets.next(),
                               static_cast<int>(slot));
    } else {
      io_uring_prep_read(sqe, fd, bufs[slot].get(), static_cast<unsigned>(spec.block_bytes), offsets.next());
    }
    io_uring_sqe_set_data64(sqe, slot);
    issued[slot] = Clock::now();
  };
  for (std::size_t s = 0; s < qd; ++s) submit(s);
  io_uring_submit(&ring);
  std::size_t in_flight = qd;
  r.lat_us.reserve(1 << 16);
  while (in_flight > 0) {
    io_uring_cqe* cqe = nullptr;
    const int w = io_uring_wait_cqe(&ring, &cqe);
    if (w < 0) {
      if (w == -EINTR) continue;
      r.error = std::string("io_uring_wait_cqe: ") + std::strerror(-w);
      break;
    }
    unsigned seen = 0;
    unsigned head = 0;
    bool resubmitted = false;
    const auto now = Clock::now();
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const std::size_t slot = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
      if (cqe->res < 0) {
        if (r.error.empty()) r.error = t.path + ": read failed: " + std::strerror(-cqe->res);
      } else if (static_cast<std::uint64_t>(cqe->res) != spec.block_bytes) {
        if (r.error.empty()) r.error = t.path + ": short read (" + std::to_string(cqe->res) + " bytes)";
      } else {
        r.bytes += spec.block_bytes;
        r.lat_us.push_back(std::chrono::duration<double, std::micro>(now - issued[slot]).count());
      }
      if (now < end && r.error.empty()) {
        submit(slot);
        resubmitted = true;
      } else {
        --in_flight;
      }
    }
    io_uring_cq_advance(&ring, seen);
    if (resubmitted) io_uring_submit(&ring);
  }
  ::close(fd);
  io_uring_queue_exit(&ring);
  return true;
}
#endif

void pread_worker(const ReadTarget& t, const ReadCellSpec& spec, Clock::time_point end, std::uint64_t seed,
                  WorkerResult& r) {
  const int fd = open_read_uncached(t.path, r.direct);
  if (fd < 0) {
    r.error = t.path + ": cannot open: " + std::strerror(errno);
    return;
  }
  std::mutex mu;
  std::atomic<std::uint64_t> seq{0};
  const std::uint64_t blocks = t.size_bytes / spec.block_bytes;
  std::vector<std::thread> threads;
  for (int q = 0; q < spec.queue_depth; ++q) {
    threads.emplace_back([&, q] {
      AlignedBytes buf = aligned_bytes(spec.block_bytes);
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(q) * 7919);
      std::vector<double> lat;
      std::uint64_t bytes = 0;
      std::string error;
      while (Clock::now() < end && error.empty()) {
        const std::uint64_t idx = spec.random ? std::uniform_int_distribution<std::uint64_t>(0, blocks - 1)(rng)
                                              : seq.fetch_add(1) % blocks;
        const auto t0 = Clock::now();
        const ssize_t n = pread(fd, buf.get(), spec.block_bytes, static_cast<off_t>(idx * spec.block_bytes));
        if (n < 0) {
          error = t.path + ": read failed: " + std::strerror(errno);
        } else if (static_cast<std::uint64_t>(n) != spec.block_bytes) {
          error = t.path + ": short read (" + std::to_string(n) + " bytes)";
        } else {
          bytes += spec.block_bytes;
          lat.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      r.bytes += bytes;
      r.lat_us.insert(r.lat_us.end(), lat.begin(), lat.end());
      if (r.error.empty()) r.error = error;
    });
  }
  for (std::thread& th : threads) th.join();
  ::close(fd);
}

}  // namespace

Expected<ReadCellResult> measure_reads(const std::vector<ReadTarget>& targets, const ReadCellSpec& spec,
                                       double duration_s, IoPath path, std::uint64_t seed) {
  if (targets.empty()) return make_error("no files to read");
  if (spec.block_bytes == 0 || spec.block_bytes % 4096 != 0) {
    return make_error("block size " + std::to_string(spec.block_bytes) +
                      " is not a multiple of 4096 (O_DIRECT needs aligned sizes)");
  }
  if (spec.queue_depth < 1 || spec.queue_depth > 4096) return make_error("queue depth must be 1..4096");
  for (const ReadTarget& t : targets) {
    if (t.size_bytes < spec.block_bytes) {
      return make_error(t.path + " (" + std::to_string(t.size_bytes) + " bytes) is smaller than one " +
                        std::to_string(spec.block_bytes) + "-byte read");
    }
  }
  ReadCellResult out;
  out.spec = spec;
  IoPath use = path;
#if !defined(MOEBENCH_HAVE_IO_URING)
  if (use != IoPath::kPreadThreads) out.notes.push_back("built without liburing: pread threads used");
  use = IoPath::kPreadThreads;
#else
  if (use == IoPath::kAuto) use = IoPath::kIoUring;
#endif
  std::vector<WorkerResult> results(targets.size());
  std::vector<std::string> refused(targets.size());
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration_s));
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    workers.emplace_back([&, i] {
      const std::uint64_t s = seed + i * 104729;
#if defined(MOEBENCH_HAVE_IO_URING)
      if (use == IoPath::kIoUring) {
        if (uring_worker(targets[i], spec, end, s, results[i], refused[i])) return;
      }
#endif
      pread_worker(targets[i], spec, end, s, results[i]);
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> lat;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].error.empty()) return make_error(results[i].error);
    if (!refused[i].empty()) {
      use = IoPath::kPreadThreads;
      out.notes.push_back(refused[i] + "; pread threads used instead");
    }
    if (!results[i].fixed_refused.empty() && use != IoPath::kPreadThreads) {
      out.notes.push_back(results[i].fixed_refused + ": plain io_uring reads (the page pinning on every read may cost throughput)");
    }
    out.bytes += results[i].bytes;
    out.direct = out.direct && results[i].direct;
    lat.insert(lat.end(), results[i].lat_us.begin(), results[i].lat_us.end());
  }
  if (!out.direct) out.notes.push_back("O_DIRECT refused by the filesystem: buffered reads (page cache may inflate the figures)");
  out.path = use;
  out.seconds = seconds;
  out.read_bytes_s = static_cast<double>(out.bytes) / seconds;
  out.iops = static_cast<double>(lat.size()) / seconds;
  out.lat_p50_us = quantile(lat, 0.50);
  out.lat_p99_us = quantile(lat, 0.99);
  return out;
}

}  // namespace moebench
