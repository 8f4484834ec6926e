// thread_pool.h — a persistent pool of compute threads for the executor.
//
// Threads are created once per engine (never per token or per matvec) and
// wait on a condition variable between jobs. parallel_for(n, fn) runs
// fn(i) for i in [0, n) across the pool and the calling thread, dealing
// indices out through an atomic counter, and returns when all are done.
// One job at a time; the caller is a single engine thread. Workers may be
// pinned to cores (topology probe's helper) so runs are repeatable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace moebench {

class ThreadPool {
 public:
  // `threads` counts the calling thread: 1 = no workers (everything inline).
  explicit ThreadPool(int threads, bool pin = false);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

 private:
  void worker_loop(int index);
  void run_items();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_cv_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t job_size_ = 0;
  std::uint64_t generation_ = 0;
  int busy_ = 0;
  bool stop_ = false;
  std::atomic<std::size_t> next_{0};
};

}  // namespace moebench
