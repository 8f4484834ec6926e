// thread_pool.cpp — see thread_pool.h.
#include "engines/executor/thread_pool.h"

#include <chrono>

#include "engines/executor/topology.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MOEBENCH_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define MOEBENCH_PAUSE() __asm__ __volatile__("yield")
#else
#define MOEBENCH_PAUSE() ((void)0)
#endif

namespace moebench {

namespace {
thread_local bool in_job = false;  // this thread is running a job's items
}

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
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_items() {
  in_job = true;
  for (;;) {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= job_size_) break;
    (*job_)(i);
  }
  in_job = false;
}

// Spins until the generation moves past `seen` (true) or stop (false);
// after kSpinMicros without a job, sleeps on the condition variable.
bool ThreadPool::wait_for_job(std::uint64_t seen) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::microseconds(kSpinMicros);
  for (unsigned spins = 0;; ++spins) {
    if (generation_.load(std::memory_order_acquire) != seen) return true;
    if (stop_.load(std::memory_order_relaxed)) return false;
    MOEBENCH_PAUSE();
    if ((spins & 1023u) == 1023u && Clock::now() > until) break;
  }
  std::unique_lock<std::mutex> lock(mu_);
  sleepers_.fetch_add(1);  // seq_cst: pairs with parallel_for's generation bump, then sleepers_ load
  wake_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
  sleepers_.fetch_sub(1);
  return !stop_.load();
}

void ThreadPool::worker_loop(int) {
  std::uint64_t seen = 0;
  for (;;) {
    if (!wait_for_job(seen)) return;
    seen = generation_.load(std::memory_order_acquire);
    run_items();
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (n == 0) return;
  if (workers_.empty() || n == 1 || in_job) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  job_ = &fn;
  job_size_ = n;
  next_.store(0, std::memory_order_relaxed);
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1);  // seq_cst: publishes the job; see wait_for_job
  if (sleepers_.load() > 0) {
    { std::lock_guard<std::mutex> lock(mu_); }
    wake_.notify_all();
  }
  run_items();
  // Every worker checks in before the job (and fn) may go out of scope.
  while (pending_.load(std::memory_order_acquire) != 0) MOEBENCH_PAUSE();
  job_ = nullptr;
}

}  // namespace moebench
