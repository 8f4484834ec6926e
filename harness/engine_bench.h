// engine_bench.h — `moebench bench-engines` as a library: the engines' five
// speed benchmarks, each measured side by side with its reference in one
// run, so the ratios carry the machine's conditions of that moment.
// Benchmarks 1-3 repeat `reps` times, each repetition beside its own
// reference; a line reports the median ratio and the range:
//   1. streaming decode reads (minimum budget, uniform routing): bytes read
//      ÷ time with reads outstanding, against fio random reads (registered
//      buffers, as the engine) at the engine's read size and queue depth on
//      the same container file, run just before;
//   2. overlap, on a deeper card (the overlap scale) so the lm_head does not
//      dominate the trunk: streaming decode time per token against
//      max(I/O time = bytes per token ÷ fio's bandwidth, compute time =
//      resident decode time per token at the same routing); with no
//      lookahead also against the causal bound (compute before the router
//      has chosen + max(I/O, compute after)), since reads cannot start
//      before the router names the experts;
//   3. resident decode: weight bytes per token ÷ time per token against the
//      memory read bandwidth of one process (all threads), measured now
//      over arrays of 4 × the last-level cache and at least 1 GiB (DRAM,
//      not cache), the median of 5 as the probe reports it;
//   4. bytes read per decode token at 0 % hits (a cyclic trace no cache
//      below the whole model can hit) against the card's figure, from the
//      engine's counters and from /proc/self/io;
//   5. drive scaling: each drive directory throttled to 200 MB/s, 1 → 2 → 4
//      directories (replicate), decode tok/s ratios;
//   6. scale extrapolation: the main card's resident and streaming runs
//      carried to the deeper overlap card (harness/full_model.h) against the
//      overlap card's own runs of the same repetition;
//   7. the expert cache's decode hit rate against Belady's offline optimum
//      on the same needs and slots, per routing model (harness/cache_bench.h).
// run_engine_benchmarks returns typed results (one struct per benchmark,
// each with its table line(s)); write_engine_bench_table and
// engine_bench_record are the pure writers. Nothing here is a unit test of
// the engines: figures and targets, and an error only when a benchmark
// could not be measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/json_reader.h"
#include "vocab/model_card.h"
#include "vocab/point.h"
#include "vocab/progress.h"
#include "vocab/scale_fit.h"

namespace moebench {

struct EngineBenchSetup {
  std::vector<std::string> drive_dirs;  // 4 unless skip_scaling; created when missing
  std::string model;                    // card name (the points name it)
  std::string scale_text, overlap_scale_text;  // as given, for the table's header
  ModelCard card, overlap_card;         // already scaled
  Scale scale, overlap_scale;
  std::string quant;
  int tokens = 9;  // generated tokens per run
  int reps = 3;    // repetitions of benchmarks 1-3
  bool skip_scaling = false;
};

// One table line: a ratio measured once per repetition, its median against
// a target ("<= limit" or ">= limit").
struct BenchLine {
  std::string name, measured, reference, target;
  std::vector<double> ratios;
  bool at_most = true;  // target is "<= limit" (else ">= limit")
  double limit = 0;
  double median_ratio() const;
  bool pass() const;
  std::string range() const;  // "lo–hi" over the repetitions, "" with one
};

// 1. streaming decode reads at the minimum budget against fio.
struct StreamingReadsBench {
  std::uint64_t budget_bytes = 0;
  std::uint64_t fio_block_bytes = 0;
  std::string fio_job;     // the yardstick: fio's best job over the experts (probes/fio_search.h)
  std::string fio_search;  // the jobs the search tried, with their rates
  std::vector<double> engine_bytes_s, fio_bytes_s;  // per repetition
  BenchLine line;
  // 1': the same decode reads replayed by fio (the engine's iolog, same
  // files, offsets, sizes, order and depth), a reference that meets the
  // same cache state as the engine did: engine ÷ replay.
  std::vector<double> replay_bytes_s;
  std::string replay_job;
  std::string replay_search;  // every replay tried, with its rate
  std::vector<std::string> replay_notes;  // replays that failed or read nothing
  BenchLine replay_line;
};

// 2. overlap on the deeper card: seconds per token against max(I/O, compute).
struct OverlapBench {
  std::uint64_t budget_bytes = 0, more_slots_budget_bytes = 0;
  std::vector<double> fio_bytes_s;
  // Per repetition: uniform (t, I/O, compute, compute before routing), sticky
  // + prefetch (t, I/O, compute), as that with k more slots (t, I/O), pregate (t, I/O).
  std::vector<double> t_uniform, io_uniform, compute_uniform, before_routing;
  std::vector<double> t_sticky, io_sticky, compute_sticky, t_slots, io_slots, t_pregate, io_pregate;
  BenchLine uniform, causal_bound, sticky_prefetch, more_slots, pregate;
};

// 3. resident decode weight bytes ÷ time against memory read bandwidth.
struct ResidentBench {
  int threads = 0;
  std::uint64_t bytes_per_token = 0;
  std::uint64_t array_bytes = 0, llc_bytes = 0;  // the reference's arrays; the LLC hwloc reported (0: none)
  std::vector<double> weight_bytes_s, memory_read_bytes_s;  // per repetition
  BenchLine line;
};

// 4. bytes per decode token at 0 % hits against the card's figure.
struct ZeroHitBench {
  std::uint64_t hits = 0;
  double engine_bytes_per_token = 0, proc_bytes_per_token = 0, card_bytes_per_token = 0;
  BenchLine line;
};

// 5. decode tok/s with 1, 2 and 4 throttled drive directories.
struct DriveScalingBench {
  double tok_s[3] = {0, 0, 0};  // 1, 2, 4 directories
  BenchLine two, four;
};

// 6. the full-model arithmetic (harness/full_model.h) checked by
// measurement: the main card's runs carried to the deeper overlap card
// against that card's own runs in the same repetition. Ratios are the worse
// of predicted ÷ measured and its inverse, so "<= 1.10" is "within 10 %".
struct ScaleBench {
  std::vector<double> resident_predicted_s, resident_measured_s, streaming_predicted_s, streaming_measured_s;
  BenchLine resident_decode, resident_ttft, streaming_decode;
};

struct EngineBenchResults {
  StreamingReadsBench reads;
  OverlapBench overlap;
  ResidentBench resident;
  ZeroHitBench zero_hits;
  ScaleBench scale;
  std::optional<DriveScalingBench> scaling;  // absent with skip_scaling
  std::vector<BenchLine> cache_optimum;      // 7, one line per routing model (harness/cache_bench.h)
  std::vector<BenchLine> lines() const;      // in table order
};

// Runs the five benchmarks (fio must be on PATH); progress on `progress`.
Expected<EngineBenchResults> run_engine_benchmarks(const EngineBenchSetup& setup, Progress& progress);

// The header line and the markdown table `bench-engines` prints.
std::string write_engine_bench_table(const EngineBenchSetup& setup, const EngineBenchResults& results,
                                     const std::string& build_label);
// The JSON record `bench-engines --out` writes.
Json engine_bench_record(const EngineBenchSetup& setup, const EngineBenchResults& results,
                         const std::string& build_label);

// Line 6's ratios as one check of the full-model arithmetic
// (configs/fits/scale.json); none when scaling was skipped or nothing ran.
std::optional<ScaleCheck> scale_check_of(const EngineBenchSetup& setup, const EngineBenchResults& results,
                                         const std::string& taken_at, const std::string& host, const std::string& cpu);

}  // namespace moebench
