// pread_backend.cpp — ExpertIo's portable read path: a pool of queue-depth
// threads, created once when the engine opens (never per read), each taking
// one piece at a time from a FIFO and doing a blocking pread() into the
// caller's buffer. Results go back through a completion list the engine
// thread reaps, waiting on a condition variable (with a deadline when a
// throttled read's finish time is what it is waiting for).
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "engines/io/read_queue.h"

namespace moebench::io_detail {
namespace {

class PreadQueue final : public ReadQueue {
 public:
  PreadQueue(int depth, std::string why) : why_(std::move(why)) {
    threads_.reserve(static_cast<std::size_t>(depth));
    for (int i = 0; i < depth; ++i) threads_.emplace_back([this] { worker(); });
  }
  ~PreadQueue() override {
    {
      std::lock_guard<std::mutex> lock(jobs_mu_);
      stop_ = true;
    }
    jobs_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  PreadQueue(const PreadQueue&) = delete;
  PreadQueue& operator=(const PreadQueue&) = delete;

  std::string describe() const override { return "pread threads (" + why_ + ")"; }

  void start(const Piece& piece) override {
    {
      std::lock_guard<std::mutex> lock(jobs_mu_);
      jobs_.push_back(piece);
    }
    jobs_cv_.notify_one();
  }

  void flush() override {}  // every start() is already visible to the pool

  void reap(std::vector<Landed>& out, IoClock::time_point until) override {
    std::unique_lock<std::mutex> lock(done_mu_);
    if (done_.empty() && until > IoClock::now()) {
      if (until == IoClock::time_point::max()) {
        done_cv_.wait(lock, [this] { return !done_.empty(); });
      } else {
        done_cv_.wait_until(lock, until, [this] { return !done_.empty(); });
      }
    }
    out.insert(out.end(), done_.begin(), done_.end());
    done_.clear();
  }

 private:
  void worker() {
    for (;;) {
      Piece p;
      {
        std::unique_lock<std::mutex> lock(jobs_mu_);
        jobs_cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stop_ and nothing left
        p = jobs_.front();
        jobs_.pop_front();
      }
      ssize_t n = 0;
      do {
        n = ::pread(p.fd, p.dest, p.bytes, static_cast<off_t>(p.offset));
      } while (n < 0 && errno == EINTR);
      const std::int64_t result = n < 0 ? -static_cast<std::int64_t>(errno) : static_cast<std::int64_t>(n);
      {
        std::lock_guard<std::mutex> lock(done_mu_);
        done_.push_back(Landed{p.id, result});
      }
      done_cv_.notify_one();
    }
  }

  std::string why_;
  std::mutex jobs_mu_;
  std::condition_variable jobs_cv_;
  std::deque<Piece> jobs_;
  bool stop_ = false;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::vector<Landed> done_;
  std::vector<std::thread> threads_;  // last: started after the members they use
};

}  // namespace

std::unique_ptr<ReadQueue> make_pread_queue(int depth, const std::string& why) {
  return std::make_unique<PreadQueue>(depth, why);
}

}  // namespace moebench::io_detail
