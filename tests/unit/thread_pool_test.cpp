// thread_pool_test.cpp — the executor's thread pool and batched products:
// every index of every job runs exactly once, job after job, whether the
// workers are spinning or have gone to sleep; a parallel_for inside a job
// runs inline; and TensorOps::matmul_many computes many products (a layer's
// experts) in one dispatch with the results of separate products, in both
// kernel modes.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "engines/executor/tensor_ops.h"
#include "engines/executor/thread_pool.h"
#include "engines/quant/quantize.h"
#include "vocab/quant_format.h"

using namespace moebench;

TEST_CASE("thread pool: every index exactly once, job after job", "[thread_pool]") {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    for (std::size_t n : {1u, 2u, 7u, 64u, 1000u}) {
      for (int job = 0; job < 200; ++job) {
        std::vector<std::atomic<int>> seen(n);
        pool.parallel_for(n, [&](std::size_t i) { seen[i].fetch_add(1); });
        for (std::size_t i = 0; i < n; ++i) REQUIRE(seen[i].load() == 1);
      }
    }
  }
}

TEST_CASE("thread pool: sleeping workers wake for the next job", "[thread_pool]") {
  ThreadPool pool(3);
  for (int job = 0; job < 3; ++job) {
    // Longer than the spin window: the workers are asleep when the job comes.
    std::this_thread::sleep_for(std::chrono::microseconds(ThreadPool::kSpinMicros * 3));
    std::atomic<int> sum{0};
    pool.parallel_for(100, [&](std::size_t i) { sum += static_cast<int>(i); });
    CHECK(sum.load() == 4950);
  }
  CHECK(pool.dispatches() == 3);
}

TEST_CASE("thread pool: a parallel_for inside a job runs inline", "[thread_pool]") {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.parallel_for(8, [&](std::size_t) { pool.parallel_for(4, [&](std::size_t) { inner.fetch_add(1); }); });
  CHECK(inner.load() == 32);
  CHECK(pool.dispatches() == 1);  // the inner ones were not dispatched
}

TEST_CASE("matmul_many: a layer's expert products in one dispatch, equal to separate products", "[thread_pool][kernels]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 1.f);
  const std::size_t rows = 96, cols = 256;
  const QuantFormat f = *find_quant("q4_0");
  constexpr int kExperts = 8;
  std::vector<std::vector<unsigned char>> bytes(kExperts);
  std::vector<TensorView> views(kExperts);
  for (int e = 0; e < kExperts; ++e) {
    std::vector<float> src(rows * cols);
    for (float& v : src) v = nd(rng);
    bytes[e].resize(f.bytes_for(src.size()));
    REQUIRE(quantize("q4_0", src.data(), bytes[e].data(), src.size()).ok());
    views[e] = TensorView{bytes[e].data(), f, rows, cols};
  }
  for (std::size_t batch : {1u, 3u}) {
    std::vector<float> x(batch * cols);
    for (float& v : x) v = nd(rng);
    for (auto mode : {TensorOps::DotMode::kFloat, TensorOps::DotMode::kInt8, TensorOps::DotMode::kAuto}) {
      ThreadPool pool(2);
      TensorOps ops(pool, best_simd_level());
      ops.set_dot_mode(mode);
      std::vector<std::vector<float>> separate(kExperts, std::vector<float>(batch * rows));
      for (int e = 0; e < kExperts; ++e) ops.matmul(views[e], x.data(), batch, separate[e].data());
      const std::uint64_t before = pool.dispatches();
      const std::uint64_t bytes_before = ops.weight_bytes_touched;
      std::vector<std::vector<float>> together(kExperts, std::vector<float>(batch * rows, -1.f));
      std::vector<TensorOps::Product> products;
      for (int e = 0; e < kExperts; ++e) products.push_back({&views[e], x.data(), batch, together[e].data()});
      ops.matmul_many(products);
      CHECK(pool.dispatches() - before == 1);
      CHECK(ops.weight_bytes_touched - bytes_before == kExperts * f.bytes_for(rows * cols));
      for (int e = 0; e < kExperts; ++e) CHECK(together[e] == separate[e]);
    }
  }
}
