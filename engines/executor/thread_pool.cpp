// thread_pool.cpp — see thread_pool.h.
#include "engines/executor/thread_pool.h"

#include "engines/executor/topology.h"

namespace moebench {

ThreadPool::ThreadPool(int threads, bool pin) {
  if (pin) (void)pin_this_thread_to_core(0);
  for (int i = 1; i < threads; ++i) {
    workers_.emplace_back([this, i, pin] {
      if (pin) (void)pin_this_thread_to_core(i);
      worker_loop(i);
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_items() {
  for (;;) {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= job_size_) return;
    (*job_)(i);
  }
}

void ThreadPool::worker_loop(int) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++busy_;
    }
    run_items();
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
    done_cv_.notify_one();
  }
}

void ThreadPool::parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_size_ = n;
    next_.store(0, std::memory_order_relaxed);
    ++generation_;
  }
  wake_.notify_all();
  run_items();
  std::unique_lock<std::mutex> lock(mu_);
  // Workers that have not woken yet find no items left and return at once;
  // wait until every worker that joined this generation has left it.
  done_cv_.wait(lock, [&] { return busy_ == 0 && next_.load() >= job_size_; });
  job_ = nullptr;
}

}  // namespace moebench
