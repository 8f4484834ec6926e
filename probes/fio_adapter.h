// fio_adapter.h — fio as a second opinion on storage figures.
//
// fio has no library API, so moebench writes a job file, runs the fio binary
// with --output-format=json, and parses the JSON. Reading and parsing are
// separate so the parser is tested against real fio outputs captured on a
// machine (tests/data/fio/*.json). A missing or failing fio is an error
// value, never a crash: the probe then reports built-in figures only and
// says so in the profile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vocab/expected.h"

namespace moebench {

struct FioCell {
  std::string file_path;       // an existing, fully written test file
  std::uint64_t file_bytes = 0;  // bytes to use (from file_offset); 0 = the whole file
  std::uint64_t file_offset = 0; // start of the region read (4096-aligned)
  std::uint64_t block_bytes = 0;
  int queue_depth = 1;
  bool random = true;          // randread vs read
  double runtime_s = 3;        // time-based run length (sub-second runs are written in ms, at least 100 ms)
  std::string ioengine = "io_uring";  // "io_uring", "libaio" or "psync"
  bool direct = true;          // O_DIRECT
  bool fixed_buffers = false;  // io_uring registered buffers (fixedbufs=1), as the streaming engine reads
  int jobs = 1;                // numjobs, reported as one group; sequential jobs read disjoint ranges
  double kill_slack_s = 30;    // fio is killed (SIGKILL) this long after its runtime
};

struct FioResult {
  double read_bytes_s = 0;     // jobs[0].read.bw_bytes
  double iops = 0;             // jobs[0].read.iops
  double clat_mean_ns = 0;     // jobs[0].read.clat_ns.mean
  double clat_p50_ns = 0;      // clat_ns.percentile["50.000000"]
  double clat_p99_ns = 0;      // clat_ns.percentile["99.000000"]
  std::uint64_t io_bytes = 0;  // jobs[0].read.io_bytes
  double runtime_s = 0;        // jobs[0].read.runtime (ms) / 1000
  // jobs[0].read.total_ios (0 when absent): every read issued. A replay's
  // io_bytes and bw_bytes leave out the first depth − 1 reads (fio's
  // accounting of the batch it starts with), total_ios does not.
  std::uint64_t total_ios = 0;
  std::string fio_version;     // top-level "fio version"
};

// The job file text for one cell (one job, time based, no write).
std::string fio_job_text(const FioCell& cell);

// Parses fio's --output-format=json output. `label` names the source in
// errors. Fails with a precise message when a field is missing or the job
// reported an error.
Expected<FioResult> parse_fio_json(const std::string& json_text, const std::string& label);

// Path of the fio binary on PATH, or nullopt.
std::optional<std::string> find_fio();

// Writes the job file into `scratch_dir`, runs fio (killed after
// cell.runtime_s + cell.kill_slack_s), parses its output. Errors name the command and
// include fio's stderr.
Expected<FioResult> run_fio(const std::string& fio_path, const FioCell& cell, const std::string& scratch_dir);

// A replay of recorded reads (an iolog, version 2: engines/io/expert_io.h
// fio_read_iolog): fio issues the log's reads, in order, at `queue_depth`,
// with O_DIRECT, as fast as they complete (replay_no_stall) — the same
// reads an engine made, through fio's own read path. Its bw_bytes leaves
// out the first depth − 1 reads (total_ios counts them): a log of fewer
// than a few dozen reads per depth says little.
struct FioReplay {
  std::string iolog_path;
  int queue_depth = 32;
  std::string ioengine = "io_uring";
  bool fixed_buffers = true;
  int batch_submit = 1;    // reads handed to the kernel at once (iodepth_batch_submit)
  double timeout_s = 300;  // fio is killed (SIGKILL) after this
};
// "io_uring fixedbufs QD32 batch 8": how a replay reads, for tables.
std::string fio_replay_label(const FioReplay& replay);
std::string fio_replay_job_text(const FioReplay& replay);
Expected<FioResult> run_fio_replay(const std::string& fio_path, const FioReplay& replay, const std::string& scratch_dir);

// Sequential O_DIRECT write bandwidth (bytes/s, jobs[0].write.bw_bytes) of
// `bytes` written in `block_bytes` blocks with `queue_depth` in flight
// (io_uring) to a scratch file in `dir`, fsynced at the end and deleted
// after: the baseline `container make --fio-baseline` compares itself with.
Expected<double> run_fio_seq_write(const std::string& fio_path, const std::string& dir, std::uint64_t bytes,
                                   std::uint64_t block_bytes, int queue_depth);

}  // namespace moebench
