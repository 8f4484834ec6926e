// probe_pairs_test.cpp — the probe's repeated storage cells: the
// interleaved pair schedule (driven by fake readers that record the order
// and return fixed figures; nothing is timed), the statistics over fixed
// sample vectors, the `noisy` decision, and the printed table row.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "vocab/machine_profile.h"
#include "probes/machine_probe.h"
#include "probes/read_pairs.h"

using namespace moebench;

namespace {

// A fake side: records each call as "<name><pair>" in a shared log and
// returns figures from a list, or an error where the list has NaN.
struct FakeReader {
  std::string name;
  std::vector<double> figures;
  std::vector<std::string>* log;
  int calls = 0;
  PairRunFn fn() {
    return [this](int pair) -> Expected<double> {
      log->push_back(name + std::to_string(pair));
      const double v = figures[static_cast<std::size_t>(calls++) % figures.size()];
      if (std::isnan(v)) return make_error(name + " failed");
      return v;
    };
  }
};

}  // namespace

TEST_CASE("pairs alternate their order: built-in first, then fio first", "[probe_pairs]") {
  std::vector<std::string> log;
  FakeReader builtin{"b", {1.0e9, 1.1e9, 1.2e9, 1.3e9}, &log};
  FakeReader fio{"f", {2.0e9, 2.1e9, 2.2e9, 2.3e9}, &log};
  const PairRun run = run_interleaved_pairs(4, builtin.fn(), fio.fn());
  CHECK(log == std::vector<std::string>{"b0", "f0", "f1", "b1", "b2", "f2", "f3", "b3"});
  CHECK(builtin.calls == 4);
  CHECK(fio.calls == 4);
  REQUIRE(run.order.size() == 8);
  CHECK(run.order[0] == PairSide::kBuiltin);
  CHECK(run.order[2] == PairSide::kFio);
  REQUIRE(run.pairs.size() == 4);
  CHECK(run.pairs[0].builtin_first);
  CHECK_FALSE(run.pairs[1].builtin_first);
  // Each pair keeps its own two figures, whichever ran first.
  CHECK(*run.pairs[1].builtin_bytes_s == 1.1e9);
  CHECK(*run.pairs[1].fio_bytes_s == 2.1e9);
  CHECK(run.errors.empty());
}

TEST_CASE("without fio the built-in side runs alone, once per pair", "[probe_pairs]") {
  std::vector<std::string> log;
  FakeReader builtin{"b", {1.0e9}, &log};
  const PairRun run = run_interleaved_pairs(3, builtin.fn(), PairRunFn{});
  CHECK(log == std::vector<std::string>{"b0", "b1", "b2"});
  REQUIRE(run.pairs.size() == 3);
  for (const PairRecord& p : run.pairs) {
    CHECK(p.builtin_first);
    CHECK_FALSE(p.fio_bytes_s.has_value());
  }
  // Fewer than one pair is still one pair.
  log.clear();
  CHECK(run_interleaved_pairs(0, builtin.fn(), PairRunFn{}).pairs.size() == 1);
  CHECK(log.size() == 1);
}

TEST_CASE("a failed run is recorded and the schedule goes on", "[probe_pairs]") {
  std::vector<std::string> log;
  const double nan = std::nan("");
  FakeReader builtin{"b", {1.0e9, 1.2e9, 1.1e9}, &log};
  FakeReader fio{"f", {1.0e9, nan, 1.0e9}, &log};
  const PairRun run = run_interleaved_pairs(3, builtin.fn(), fio.fn());
  CHECK(log.size() == 6);
  REQUIRE(run.errors.size() == 1);
  CHECK(run.errors[0].pair == 1);
  CHECK(run.errors[0].side == PairSide::kFio);
  CHECK(run.errors[0].message == "f failed");
  const PairedCellStats st = summarize_pairs(run.pairs);
  CHECK(st.builtin.size() == 3);
  CHECK(st.fio.size() == 2);
  CHECK(st.ratio == std::vector<double>{1.0, 1.1});  // only pairs where both ran
}

TEST_CASE("cell statistics: medians, ranges, per-pair ratios", "[probe_pairs]") {
  // The brief's example: built-in 1.10, 1.31, 1.45 GB/s against fio 1.34,
  // 1.20, 1.50 — pair by pair.
  std::vector<PairRecord> pairs = {{true, 1.10e9, 1.34e9}, {false, 1.31e9, 1.20e9}, {true, 1.45e9, 1.50e9}};
  const PairedCellStats st = summarize_pairs(pairs);
  CHECK(st.builtin == std::vector<double>{1.10e9, 1.31e9, 1.45e9});
  CHECK(st.builtin_summary.n == 3);
  CHECK(st.builtin_summary.median == 1.31e9);
  CHECK(st.builtin_summary.min == 1.10e9);
  CHECK(st.builtin_summary.max == 1.45e9);
  CHECK(st.fio_summary.median == 1.34e9);
  REQUIRE(st.ratio.size() == 3);
  CHECK(st.ratio_summary.median == Approx(1.45 / 1.50));
  CHECK(st.ratio_summary.min == Approx(1.10 / 1.34));
  CHECK(st.ratio_summary.max == Approx(1.31 / 1.20));
  // Built-in (1.45 − 1.10) / 1.31 = 0.267; fio (1.50 − 1.20) / 1.34 = 0.224.
  CHECK(st.relative_range == Approx(0.35 / 1.31));
  CHECK(cell_is_noisy(st));  // above 0.25
  CHECK_FALSE(cell_is_noisy(st, 0.30));
}

TEST_CASE("repeats that agree are not noisy, and one sample cannot disagree", "[probe_pairs]") {
  const PairedCellStats quiet = summarize_pairs({{true, 1.00e9, 1.02e9}, {false, 1.05e9, 1.01e9}, {true, 0.98e9, 1.0e9}});
  CHECK(quiet.relative_range == Approx(0.07 / 1.00));
  CHECK_FALSE(cell_is_noisy(quiet));
  const PairedCellStats one = summarize_pairs({{true, 1.0e9, 3.0e9}});
  CHECK(one.relative_range == 0);
  CHECK_FALSE(cell_is_noisy(one));
  CHECK(one.ratio == std::vector<double>{1.0 / 3.0});
  const PairedCellStats none = summarize_pairs({});
  CHECK(none.builtin_summary.n == 0);
  CHECK(none.relative_range == 0);
}

TEST_CASE("the representative run is the one nearest the median", "[probe_pairs]") {
  CHECK(index_nearest_median({5, 1, 3}) == 2);
  CHECK(index_nearest_median({1, 2, 3, 10}) == 1);  // median 2.5: 2 and 3 tie, the first wins
  CHECK(index_nearest_median({7}) == 0);
  CHECK(index_nearest_median({}) == 0);
}

TEST_CASE("a drive is noisy when its worst cell disagrees beyond the threshold", "[probe_pairs]") {
  // This machine's swing: 0.3 to 0.7 GB/s within one cell.
  const NoiseVerdict noisy = judge_drive_noise({0.05, (0.7 - 0.3) / 0.5, 0.10});
  CHECK(noisy.noisy);
  CHECK(noisy.worst_cell == 1);
  CHECK(noisy.worst_relative_range == Approx(0.8));
  const NoiseVerdict quiet = judge_drive_noise({0.05, 0.12, std::nan("")});
  CHECK_FALSE(quiet.noisy);
  CHECK(quiet.worst_cell == 1);
  CHECK_FALSE(judge_drive_noise({0.25}).noisy);  // "more than" the threshold
  CHECK_FALSE(judge_drive_noise({}).noisy);
  CHECK(kNoisyRelativeRange == 0.25);
}

TEST_CASE("the table row shows medians, ranges, n and the per-pair ratio", "[probe_pairs]") {
  DriveReadPoint p;
  p.block_bytes = 1 << 20;
  p.queue_depth = 16;
  p.pattern = "random";
  p.read_bytes_s.value = 1.31e9;
  p.read_spread = RepeatSpread{3, 1.31e9, 1.10e9, 1.45e9, {1.10e9, 1.31e9, 1.45e9}};
  FioFigures f;
  f.read_bytes_s = 1.34e9;
  f.read_spread = RepeatSpread{3, 1.34e9, 1.20e9, 1.50e9, {}};
  f.pair_ratio = RepeatSpread{3, 0.98, 0.81, 1.20, {}};
  p.fio = f;
  const std::string row = curve_point_row(p);
  CHECK(row ==
        "random 1.00 MiB QD16       | 1.31 GB/s (1.10–1.45, n=3) | fio 1.34 GB/s (1.20–1.50, n=3) | "
        "ratio 0.98 (0.81–1.20) | noisy");
  CHECK(point_relative_range(p) == Approx(0.35 / 1.31));
  // Agreeing repeats: no "noisy"; a range in MB/s stays in MB/s.
  p.read_bytes_s.value = 450e6;
  p.read_spread = RepeatSpread{3, 450e6, 440e6, 460e6, {}};
  p.fio.reset();
  CHECK(curve_point_row(p) == "random 1.00 MiB QD16       | 450.00 MB/s (440.00–460.00, n=3)");
  // An old profile's point (no repeats) prints as before: one figure, one ratio.
  p.read_spread.reset();
  FioFigures old;
  old.read_bytes_s = 500e6;
  p.fio = old;
  CHECK(curve_point_row(p) == "random 1.00 MiB QD16       | 450.00 MB/s | fio 500.00 MB/s | ratio 0.900");
}
