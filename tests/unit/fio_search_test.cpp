// fio_search_test.cpp — the best fio job as the read path's yardstick: the
// jobs the search runs and in what order (a fake fio that reads at a rate
// the test sets per job), what it keeps, its failures, and one search with
// the real fio on a small file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "probes/fio_search.h"
#include "test_support.h"
#include "vocab/text.h"

using namespace moebench;

namespace {

FioCell cell_1mib_qd4() {
  FioCell c;
  c.file_path = "/data/test-file";
  c.file_bytes = 64u << 20;
  c.block_bytes = 1u << 20;
  c.queue_depth = 4;
  c.random = true;
  c.runtime_s = 1;
  return c;
}

// A fake fio: the rate of a job by its label (unknown jobs read 1 MB/s);
// every call is recorded.
struct FakeFio {
  std::map<std::string, double> rate;
  std::vector<std::string> calls;
  FioRunFn fn() {
    return [this](const FioCell& c) -> Expected<FioResult> {
      calls.push_back(fio_job_label(c));
      auto it = rate.find(calls.back());
      if (it != rate.end() && it->second < 0) return make_error("fio: job failed");
      FioResult r;
      r.read_bytes_s = it == rate.end() ? 1e6 : it->second;
      return r;
    };
  }
};

}  // namespace

TEST_CASE("fio search at a probe cell: the four engines at its block size and depth, the best kept", "[fio][search]") {
  FakeFio fio;
  fio.rate = {{"io_uring fixedbufs 1.00 MiB QD4", 2.0e9}, {"io_uring 1.00 MiB QD4", 1.9e9},
              {"libaio 1.00 MiB QD4", 2.2e9}, {"psync 1.00 MiB 4 jobs", 1.5e9}};
  auto s = search_fio(cell_1mib_qd4(), FioSearchOptions{}, fio.fn());
  REQUIRE(s);
  CHECK(fio.calls == std::vector<std::string>{"io_uring fixedbufs 1.00 MiB QD4", "io_uring 1.00 MiB QD4",
                                              "libaio 1.00 MiB QD4", "psync 1.00 MiB 4 jobs"});
  CHECK(s->best_label() == "libaio 1.00 MiB QD4");
  CHECK(s->best_bytes_s == 2.2e9);
  CHECK(s->best.queue_depth == 4);  // a cell keeps its depth and block size
  CHECK(s->best.block_bytes == 1u << 20);
  CHECK_THAT(s->summary(), Catch::StartsWith("best of 4 fio jobs: libaio 1.00 MiB QD4 2.20 GB/s (io_uring fixedbufs"));
}

TEST_CASE("fio search for the engine's reads climbs depth, then block size, while it gains 5 %", "[fio][search]") {
  FakeFio fio;
  fio.rate = {{"io_uring fixedbufs 1.00 MiB QD4", 2.0e9}, {"io_uring fixedbufs 1.00 MiB QD8", 2.5e9},
              {"io_uring fixedbufs 1.00 MiB QD16", 2.6e9},   // +4 %: kept as the best, the climb stops
              {"io_uring fixedbufs 2.00 MiB QD16", 3.0e9}, {"io_uring fixedbufs 4.00 MiB QD16", 3.05e9}};
  FioSearchOptions o;
  o.search_depth = true;
  o.search_blocks = true;
  o.max_block_bytes = 4u << 20;
  auto s = search_fio(cell_1mib_qd4(), o, fio.fn());
  REQUIRE(s);
  CHECK(fio.calls == std::vector<std::string>{"io_uring fixedbufs 1.00 MiB QD4", "io_uring 1.00 MiB QD4",
                                              "libaio 1.00 MiB QD4", "psync 1.00 MiB 4 jobs",
                                              "io_uring fixedbufs 1.00 MiB QD8", "io_uring fixedbufs 1.00 MiB QD16",
                                              "io_uring fixedbufs 2.00 MiB QD16", "io_uring fixedbufs 4.00 MiB QD16"});
  CHECK(s->best_label() == "io_uring fixedbufs 4.00 MiB QD16");  // +1.7 %: kept, and no 8 MiB (above the cap)
  CHECK(s->tried.size() == 8);
}

TEST_CASE("fio search: psync climbs in jobs, failed jobs are kept with their error, all failed is an error", "[fio][search]") {
  FakeFio fio;
  fio.rate = {{"io_uring fixedbufs 1.00 MiB QD4", -1}, {"io_uring 1.00 MiB QD4", -1}, {"libaio 1.00 MiB QD4", -1},
              {"psync 1.00 MiB 4 jobs", 1.0e9}, {"psync 1.00 MiB 8 jobs", 1.5e9}};
  FioSearchOptions o;
  o.search_depth = true;
  o.max_queue_depth = 8;
  auto s = search_fio(cell_1mib_qd4(), o, fio.fn());
  REQUIRE(s);
  CHECK(s->best_label() == "psync 1.00 MiB 8 jobs");
  CHECK(s->best.jobs == 8);
  CHECK(s->tried[0].error == "fio: job failed");
  CHECK_THAT(s->summary(), Catch::Contains("io_uring fixedbufs 1.00 MiB QD4 failed"));
  FakeFio dead;
  for (const char* j : {"io_uring fixedbufs 1.00 MiB QD4", "io_uring 1.00 MiB QD4", "libaio 1.00 MiB QD4", "psync 1.00 MiB 4 jobs"}) {
    dead.rate[j] = -1;
  }
  auto none = search_fio(cell_1mib_qd4(), o, dead.fn());
  REQUIRE_FALSE(none);
  CHECK_THAT(none.error().message, Catch::Contains("every fio job failed (4 tried)"));
}

TEST_CASE("fio job text: several jobs report as one group and sequential ones read disjoint ranges", "[fio][search]") {
  FioCell c = cell_1mib_qd4();
  c.ioengine = "psync";
  c.queue_depth = 1;
  c.jobs = 4;
  const std::string r = fio_job_text(c);
  CHECK_THAT(r, Catch::Contains("numjobs=4\n") && Catch::Contains("size=67108864\n") && Catch::Contains("group_reporting"));
  c.random = false;
  const std::string s = fio_job_text(c);
  CHECK_THAT(s, Catch::Contains("size=16777216\n") && Catch::Contains("offset_increment=16777216\n"));
}

TEST_CASE("fio search with the real fio on a small file: every job ran and the best is among them", "[fio][search]") {
  const auto fio = find_fio();
  if (!fio) {
    WARN("fio is not on PATH: this test was skipped (install fio to run it)");
    return;
  }
  testing::TempDir dir;
  const std::string file = dir.file("test-file");
  {
    std::ofstream out(file, std::ios::binary);
    std::string block(1u << 20, 'x');
    for (int i = 0; i < 16; ++i) out << block;
  }
  FioCell c = cell_1mib_qd4();
  c.file_path = file;
  c.file_bytes = 16u << 20;
  c.runtime_s = 0.2;
  c.direct = false;  // a tmpfs TempDir may refuse O_DIRECT; the search is the same
  int runs = 0;
  auto s = search_fio(c, FioSearchOptions{}, [&](const FioCell& fc) {
    ++runs;
    return run_fio(*fio, fc, dir.file("scratch"));
  });
  if (!s) FAIL(s.error().message);
  CHECK(runs == 4);
  CHECK(s->tried.size() == 4);
  double best = 0;
  for (const FioTry& t : s->tried) best = std::max(best, t.read_bytes_s);
  CHECK(s->best_bytes_s == best);
  CHECK(best > 0);
}
