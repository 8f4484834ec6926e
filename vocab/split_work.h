// split_work.h — a loop over independent items shared between this thread
// and one worker thread: each takes the next chunk of items from a shared
// counter until none are left, so a slow item does not leave the other
// thread idle. For the few large, pure loops of the readers and writers
// (decoding 10^5 journal lines, writing four results files at once) on a
// machine of two cores or more. With one chunk of work, one CPU, or no
// thread to be had, the whole loop runs here: the same calls on the same
// items, whose results go to the same slots.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <future>
#include <system_error>
#include <thread>

namespace moebench {

// Calls work(from, to) on chunks [k·chunk, min((k+1)·chunk, n)) that
// together cover [0, n) once. `work` must touch only its own items (it runs
// on two threads at once); an exception from it is rethrown here once both
// threads have stopped.
template <class Work>
void share_work(std::size_t n, std::size_t chunk, const Work& work) {
  chunk = std::max<std::size_t>(chunk, 1);
  if (n <= chunk || std::thread::hardware_concurrency() < 2) {
    if (n > 0) work(std::size_t{0}, n);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto take = [&next, &work, n, chunk] {
    try {
      for (std::size_t from; (from = next.fetch_add(chunk)) < n;) work(from, std::min(n, from + chunk));
    } catch (...) {
      next.store(n);  // the other thread takes no new chunk
      throw;
    }
  };
  std::future<void> other;
  try {
    other = std::async(std::launch::async, take);
  } catch (const std::system_error&) {  // no thread to be had: all of it here
  }
  try {
    take();
  } catch (...) {
    if (other.valid()) other.wait();  // it reads what this frame owns
    throw;
  }
  if (other.valid()) other.get();
}

}  // namespace moebench
