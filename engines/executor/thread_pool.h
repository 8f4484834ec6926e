// thread_pool.h — a persistent pool of compute threads for the executor.
//
// Threads are created once per engine (never per token or per matvec).
// Between jobs a worker spins on the job generation counter (with a pause
// instruction) for up to kSpinMicros, then sleeps on a condition variable:
// a decode token dispatches a hundred or more short jobs back to back, and
// waking a sleeping thread for each costs more than many of those jobs take
// (the mutex + condition-variable hand-off per matvec was measured at
// several microseconds; llama.cpp's threads spin on a barrier too). The
// fallback to sleeping keeps an idle engine from burning its cores.
//
// parallel_for(n, fn) runs fn(i) for i in [0, n) across the pool and the
// calling thread, dealing indices out through an atomic counter, and returns
// when all are done and every worker has left the job. One job at a time;
// the caller is a single engine thread. A parallel_for called from inside a
// job (a worker or the caller running fn) runs inline. Workers may be pinned
// to cores (topology probe's helper) so runs are repeatable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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
  // Jobs dispatched to the workers so far (not the inline ones): what a test
  // counts to check that work was batched into fewer dispatches.
  std::uint64_t dispatches() const { return generation_.load(std::memory_order_relaxed); }

  static constexpr int kSpinMicros = 2000;

 private:
  void worker_loop(int index);
  void run_items();
  bool wait_for_job(std::uint64_t seen);

  std::vector<std::thread> workers_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t job_size_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};  // workers that have not finished the current job
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable wake_;
};

}  // namespace moebench
