// io_uring_backend.cpp — ExpertIo's fast read path: one io_uring of
// queue-depth entries. The caller's buffers (slot arena, staging) are
// registered as fixed buffers, split into iovecs of at most 1 GiB (the
// kernel's limit per registered buffer); a piece whose destination lies
// inside one iovec goes out as IORING_OP_READ_FIXED with that iovec's index,
// anything else as a plain IORING_OP_READ. When registration is refused
// (RLIMIT_MEMLOCK, EPERM, file-backed memory) every read is plain and
// describe() says why.
//
// Batching: start() only prepares an SQE. The SQ is handed to the kernel
// (one io_uring_submit for all queued SQEs) when the batch is full, when the
// device has nothing else in flight (a lone read never waits for company),
// on flush() (ExpertIo's done/wait/drain) and before reap() blocks — so a
// burst of submits costs a few syscalls, not one per read.
#include "engines/io/read_queue.h"

#if defined(MOEBENCH_HAVE_IO_URING)

#include <liburing.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#endif

namespace moebench::io_detail {

#if defined(MOEBENCH_HAVE_IO_URING)
namespace {

constexpr std::uint64_t kMaxFixedIovBytes = 1ull << 30;  // per registered iovec

struct FixedRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  int index = 0;  // buf_index for IORING_OP_READ_FIXED
};

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

std::string memlock_text() {
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return "?";
  if (rl.rlim_cur == RLIM_INFINITY) return "unlimited";
  return size_text(rl.rlim_cur);
}

class UringQueue final : public ReadQueue {
 public:
  UringQueue() = default;
  ~UringQueue() override {
    if (!initialised_) return;
    // The kernel may still be writing into the caller's buffers: let every
    // submitted read land before the ring goes away.
    flush();
    std::vector<Landed> sink;
    while (in_kernel_ > 0) {
      const unsigned before = in_kernel_;
      reap(sink, IoClock::time_point::max());
      if (in_kernel_ == before) break;  // the ring is broken; nothing more will land
    }
    io_uring_queue_exit(&ring_);
  }
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;

  // The ring is set up in place (liburing's struct is not meant to be copied).
  Status init(int depth) {
    const int rc = io_uring_queue_init(static_cast<unsigned>(depth), &ring_, 0);
    if (rc < 0) {
      return make_error("io_uring_queue_init failed: " + std::string(std::strerror(-rc)) +
                        (rc == -EPERM || rc == -ENOSYS
                             ? " (disabled by sysctl kernel.io_uring_disabled or seccomp?)"
                             : rc == -ENOMEM ? " (RLIMIT_MEMLOCK " + memlock_text() + ")" : std::string()));
    }
    initialised_ = true;
    batch_ = static_cast<unsigned>(std::clamp(depth / 4, 1, 8));
    if (io_uring_probe* probe = io_uring_get_probe_ring(&ring_)) {
      const bool ok = io_uring_opcode_supported(probe, IORING_OP_READ) != 0 &&
                      io_uring_opcode_supported(probe, IORING_OP_READ_FIXED) != 0;
      io_uring_free_probe(probe);
      if (!ok) return make_error("kernel io_uring lacks IORING_OP_READ (needs Linux 5.6 or newer)");
    }
    return Status::success();
  }

  Status register_buffers(const std::vector<std::pair<void*, std::size_t>>& buffers) {
    if (buffers.empty()) {
      mode_ = "buffers not registered: none given";
      return Status::success();
    }
    std::vector<iovec> iovs;
    std::uint64_t total = 0;
    for (const auto& [base, size] : buffers) {
      for (std::uint64_t done = 0; done < size; done += kMaxFixedIovBytes) {
        const std::uint64_t n = std::min<std::uint64_t>(kMaxFixedIovBytes, size - done);
        unsigned char* p = static_cast<unsigned char*>(base) + done;
        const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(p);
        ranges_.push_back(FixedRange{b, b + n, static_cast<int>(iovs.size())});
        iovs.push_back(iovec{p, n});
        total += n;
      }
    }
    const int rc = io_uring_register_buffers(&ring_, iovs.data(), static_cast<unsigned>(iovs.size()));
    if (rc < 0) {
      ranges_.clear();
      mode_ = "buffers not registered: io_uring_register_buffers: " + std::string(std::strerror(-rc));
      if (rc == -ENOMEM || rc == -EPERM) {
        mode_ += " (" + size_text(total) + " of buffers, RLIMIT_MEMLOCK " + memlock_text() +
                 "; raise `ulimit -l` or grant CAP_IPC_LOCK)";
      }
      mode_ += "; plain reads";
      return Status::success();
    }
    std::sort(ranges_.begin(), ranges_.end(),
              [](const FixedRange& a, const FixedRange& b) { return a.begin < b.begin; });
    mode_ = "fixed buffers";
    return Status::success();
  }

  std::string describe() const override { return "io_uring (" + mode_ + ")"; }

  void start(const Piece& p) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {  // SQ full (cannot happen within the depth; be safe)
      flush();
      sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) {
        ready_.push_back(Landed{p.id, -EAGAIN});  // ExpertIo retries it
        return;
      }
    }
    const unsigned n = static_cast<unsigned>(p.bytes);  // pieces are at most 1 GiB
    const int index = fixed_index(p.dest, p.bytes);
    if (index >= 0) {
      io_uring_prep_read_fixed(sqe, p.fd, p.dest, n, p.offset, index);
    } else {
      io_uring_prep_read(sqe, p.fd, p.dest, n, p.offset);
    }
    io_uring_sqe_set_data64(sqe, p.id);
    collect(ready_);  // fresh view of what the device is still doing
    if (in_kernel_ == 0 || io_uring_sq_ready(&ring_) >= batch_) flush();
  }

  void flush() override {
    while (io_uring_sq_ready(&ring_) > 0) {
      const int rc = io_uring_submit(&ring_);
      if (rc > 0) {
        in_kernel_ += static_cast<unsigned>(rc);
        continue;
      }
      if (rc == -EINTR) continue;
      return;  // -EAGAIN/-EBUSY: the kernel is short of room; retried at the next reap
    }
  }

  void reap(std::vector<Landed>& out, IoClock::time_point until) override {
    const std::size_t before = out.size();
    out.insert(out.end(), ready_.begin(), ready_.end());
    ready_.clear();
    collect(out);
    if (out.size() > before) return;
    const auto now = IoClock::now();
    if (until <= now) return;  // a poll: queued SQEs stay queued
    flush();                   // about to block: everything must be on its way
    if (in_kernel_ == 0) {
      if (io_uring_sq_ready(&ring_) > 0) {
        // Submission was refused for lack of room: back off briefly.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      } else if (until != IoClock::time_point::max()) {
        std::this_thread::sleep_until(until);  // nothing can land before then
      }
      return;
    }
    io_uring_cqe* cqe = nullptr;
    if (until == IoClock::time_point::max()) {
      int rc = 0;
      do {
        rc = io_uring_wait_cqe(&ring_, &cqe);
      } while (rc == -EINTR);
    } else {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(until - now).count();
      __kernel_timespec ts{};
      ts.tv_sec = ns / 1000000000;
      ts.tv_nsec = ns % 1000000000;
      (void)io_uring_wait_cqe_timeout(&ring_, &cqe, &ts);  // -ETIME: deadline passed
    }
    collect(out);
  }

 private:
  int fixed_index(void* dest, std::uint64_t bytes) const {
    if (ranges_.empty()) return -1;
    const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(dest);
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), b,
                               [](std::uintptr_t v, const FixedRange& r) { return v < r.begin; });
    if (it == ranges_.begin()) return -1;
    --it;
    if (b >= it->begin && b + bytes <= it->end) return it->index;
    return -1;  // outside, or straddling two 1 GiB iovecs: a plain read
  }

  void collect(std::vector<Landed>& out) {
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_cqe* cqe = nullptr;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      const std::uint64_t id = io_uring_cqe_get_data64(cqe);
      if (id == LIBURING_UDATA_TIMEOUT) continue;  // liburing's own timeout (old kernels)
      out.push_back(Landed{id, cqe->res});
      if (in_kernel_ > 0) --in_kernel_;
    }
    if (seen > 0) io_uring_cq_advance(&ring_, seen);
  }

  io_uring ring_{};
  bool initialised_ = false;
  unsigned batch_ = 1;
  unsigned in_kernel_ = 0;      // submitted, completion not yet collected
  std::vector<Landed> ready_;   // collected in start(), handed out by reap()
  std::vector<FixedRange> ranges_;
  std::string mode_;
};

}  // namespace

Expected<std::unique_ptr<ReadQueue>> make_uring_queue(int depth,
                                                      const std::vector<std::pair<void*, std::size_t>>& buffers) {
  auto queue = std::make_unique<UringQueue>();
  Status st = queue->init(depth);
  if (!st.ok()) return st.error();
  st = queue->register_buffers(buffers);
  if (!st.ok()) return st.error();
  return std::unique_ptr<ReadQueue>(std::move(queue));
}

#else

Expected<std::unique_ptr<ReadQueue>> make_uring_queue(int, const std::vector<std::pair<void*, std::size_t>>&) {
  return make_error("not built in (liburing was not found at configure time)");
}

#endif

}  // namespace moebench::io_detail
