// read_queue.h — internal to engines/io: the small interface between
// ExpertIo's bookkeeping (expert_io.cpp: drives, tags, throttle, faults,
// retries, the FIFO beyond the queue depth) and the two ways of getting bytes
// off the disk (io_uring_backend.cpp, pread_backend.cpp). A backend moves
// "pieces" — one contiguous read each — and reports what landed; it knows
// nothing about tags, drives or throttling.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vocab/expected.h"

namespace moebench::io_detail {

using IoClock = std::chrono::steady_clock;

struct Piece {
  std::uint64_t id = 0;  // unique per piece, never reused
  int fd = -1;
  void* dest = nullptr;
  std::uint64_t bytes = 0;
  std::uint64_t offset = 0;
};

struct Landed {
  std::uint64_t id = 0;
  std::int64_t result = 0;  // bytes read, or -errno
};

class ReadQueue {
 public:
  virtual ~ReadQueue() = default;
  virtual std::string describe() const = 0;
  // Queues one piece. The caller never has more than the queue depth
  // outstanding (started and not yet reaped).
  virtual void start(const Piece& piece) = 0;
  // Hands every queued piece to the device now.
  virtual void flush() = 0;
  // Appends landed pieces to `out`. Waits until at least one has landed or
  // `until` has passed; an `until` in the past polls without blocking,
  // IoClock::time_point::max() waits with no time limit. A poll leaves
  // queued pieces queued; before blocking, everything queued is flushed.
  virtual void reap(std::vector<Landed>& out, IoClock::time_point until) = 0;
};

// io_uring with `depth` entries; `buffers` registered as fixed buffers when
// the kernel allows it. An error means io_uring cannot be used at all (the
// caller falls back to pread threads and reports why).
Expected<std::unique_ptr<ReadQueue>> make_uring_queue(int depth,
                                                      const std::vector<std::pair<void*, std::size_t>>& buffers);

// `depth` pread threads, started here and kept until destruction. `why`
// (why not io_uring) goes into describe().
std::unique_ptr<ReadQueue> make_pread_queue(int depth, const std::string& why);

}  // namespace moebench::io_detail
