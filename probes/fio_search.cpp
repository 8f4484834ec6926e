// fio_search.cpp — see fio_search.h.
#include "probes/fio_search.h"

#include <algorithm>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {

class Searcher {
 public:
  Searcher(const FioRunFn& run, double min_gain) : run_(run), min_gain_(min_gain) {}

  // Runs `cell` once (the same job is never run twice) and keeps the best.
  double attempt(const FioCell& cell) {
    for (const FioTry& t : out.tried) {
      if (fio_job_label(t.cell) == fio_job_label(cell)) return t.read_bytes_s;
    }
    FioTry t;
    t.cell = cell;
    auto r = run_(cell);
    if (r) {
      t.read_bytes_s = r->read_bytes_s;
    } else {
      t.error = r.error().message;
    }
    out.tried.push_back(t);
    if (t.read_bytes_s > out.best_bytes_s) {
      out.best_bytes_s = t.read_bytes_s;
      out.best = cell;
    }
    return t.read_bytes_s;
  }

  // Doubles one dimension of the best job while that gains enough.
  template <class Grow>
  void climb(Grow grow) {
    for (;;) {
      FioCell next = out.best;
      if (!grow(next)) return;
      const double before = out.best_bytes_s;
      if (attempt(next) <= before * (1 + min_gain_)) return;  // a small gain is kept; the climb stops
    }
  }

  FioSearch out;

 private:
  const FioRunFn& run_;
  double min_gain_;
};

}  // namespace

std::string fio_job_label(const FioCell& cell) {
  std::string s = cell.ioengine;
  if (cell.ioengine == "io_uring" && cell.fixed_buffers) s += " fixedbufs";
  s += " " + format_bytes(static_cast<double>(cell.block_bytes));
  if (cell.ioengine == "psync") {
    s += " " + std::to_string(std::max(1, cell.jobs)) + (cell.jobs > 1 ? " jobs" : " job");
  } else {
    s += " QD" + std::to_string(std::max(1, cell.queue_depth));
    if (cell.jobs > 1) s += " x" + std::to_string(cell.jobs) + " jobs";
  }
  return s;
}

std::string FioSearch::best_label() const { return fio_job_label(best); }

std::string FioSearch::summary() const {
  std::string s = "best of " + std::to_string(tried.size()) + " fio jobs: " + best_label() + " " + format_rate(best_bytes_s);
  std::vector<std::string> others;
  for (const FioTry& t : tried) {
    if (fio_job_label(t.cell) == best_label()) continue;
    others.push_back(fio_job_label(t.cell) + " " + (t.error.empty() ? format_rate(t.read_bytes_s) : std::string("failed")));
  }
  if (!others.empty()) s += " (" + join(others, ", ") + ")";
  return s;
}

Expected<FioSearch> search_fio(const FioCell& base, const FioSearchOptions& options, const FioRunFn& run) {
  Searcher s(run, options.min_gain);
  const int depth = std::max(1, base.queue_depth);
  // 1. engines at the cell's block size and depth.
  for (const char* engine : {"io_uring+fixedbufs", "io_uring", "libaio", "psync"}) {
    FioCell c = base;
    const std::string e = engine;
    c.ioengine = e == "io_uring+fixedbufs" ? "io_uring" : e;
    c.fixed_buffers = e == "io_uring+fixedbufs";
    c.queue_depth = e == "psync" ? 1 : depth;
    c.jobs = e == "psync" ? depth : 1;
    s.attempt(c);
  }
  if (s.out.best_bytes_s <= 0) {
    return make_error("every fio job failed (" + std::to_string(s.out.tried.size()) + " tried); the first: " +
                      s.out.tried.front().error);
  }
  // 2. depth (psync: jobs) doubled while it gains.
  if (options.search_depth) {
    s.climb([&](FioCell& c) {
      int& d = c.ioengine == "psync" ? c.jobs : c.queue_depth;
      if (d * 2 > options.max_queue_depth) return false;
      d *= 2;
      return true;
    });
  }
  // 3. block size doubled while it gains (the engine's reads only).
  if (options.search_blocks) {
    s.climb([&](FioCell& c) {
      if (c.block_bytes * 2 > options.max_block_bytes) return false;
      c.block_bytes *= 2;
      return true;
    });
  }
  return std::move(s.out);
}

}  // namespace moebench
