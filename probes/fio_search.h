// fio_search.h — the best fio job for a read, found by a small search: the
// yardstick the built-in read path (probe cells, the streaming engine's
// reads) is judged against. One fio job is one of fio's ways to read a
// file, not fio's best; a built-in path can only claim "at the device's
// limit" against the best.
//
// The search is coordinate-wise from the cell as given (its block size,
// queue depth and io_uring):
//   1. engines   io_uring with registered buffers (fixedbufs), io_uring,
//                libaio, and psync with as many jobs as the queue depth
//                (psync has no queue: parallel jobs are its only depth);
//   2. depth     only with `search_depth`: from the best, the queue depth
//                (psync: jobs) doubled while that gains more than
//                `min_gain`, up to `max_queue_depth`;
//   3. blocks    only with `search_blocks`: the block size doubled while it
//                gains, up to `max_block_bytes`.
// A probe cell is a point of the read curve at its block size and depth
// and keeps both (fio's best engine there); the streaming engine's reads
// may be of any size and depth it chooses, so its yardstick searches all.
// Every job tried is kept with its rate or its error, so a row can say
// which job won and what it beat. The runner is a callable: tests drive the
// search with fakes and check the jobs and their order, never a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probes/fio_adapter.h"
#include "vocab/expected.h"

namespace moebench {

struct FioSearchOptions {
  double min_gain = 0.05;              // a step is taken when it reads this much faster
  bool search_depth = false;
  int max_queue_depth = 64;
  bool search_blocks = false;
  std::uint64_t max_block_bytes = 16ull << 20;
};

struct FioTry {
  FioCell cell;
  double read_bytes_s = 0;  // 0 when it failed
  std::string error;        // why it failed, else empty
};

struct FioSearch {
  FioCell best;
  double best_bytes_s = 0;
  std::vector<FioTry> tried;  // in the order run
  // "io_uring fixedbufs 5.58 MiB QD32" — the winning job.
  std::string best_label() const;
  // "best of 7 fio jobs: …; others …" for a row's reference column.
  std::string summary() const;
};

// A job's short name: ioengine (fixedbufs), block size, depth or jobs.
std::string fio_job_label(const FioCell& cell);

using FioRunFn = std::function<Expected<FioResult>(const FioCell&)>;

// The search from `base`. Fails only when every job failed (the errors of
// the first, with the count).
Expected<FioSearch> search_fio(const FioCell& base, const FioSearchOptions& options, const FioRunFn& run);

}  // namespace moebench
