// read_engine.h — the built-in O_DIRECT read path used by the storage probe
// (and, later, by the streaming engine's tests): keeps `queue_depth` reads
// of `block_bytes` in flight against one or more files for a fixed time and
// reports throughput, IOPS and per-read latency percentiles.
//
// Paths: io_uring (liburing, Linux) with registered buffers
// (IORING_OP_READ_FIXED, as the streaming engine reads; plain reads, with a
// note, when registration is refused) or a pread thread pool (one thread
// per in-flight read) when io_uring is missing or refused; the path used is
// always reported. Random reads pick block-aligned offsets uniformly (as
// fio's randread does); sequential reads walk the file in order, wrapping.
// Several files are read at once by one worker per file (aggregate of a
// drive set), each with its own queue depth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

enum class IoPath { kAuto, kIoUring, kPreadThreads };
const char* to_string(IoPath p);

struct ReadTarget {
  std::string path;
  std::uint64_t size_bytes = 0;
};

struct ReadCellSpec {
  std::uint64_t block_bytes = 1 << 20;
  int queue_depth = 1;
  bool random = true;
};

struct ReadCellResult {
  ReadCellSpec spec;
  IoPath path = IoPath::kAuto;  // the path actually used
  bool direct = true;           // O_DIRECT (or F_NOCACHE) was honoured
  double read_bytes_s = 0;
  double iops = 0;
  double lat_p50_us = 0;
  double lat_p99_us = 0;
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::vector<std::string> notes;  // e.g. why io_uring was not used
};

Expected<ReadCellResult> measure_reads(const std::vector<ReadTarget>& targets, const ReadCellSpec& spec,
                                       double duration_s, IoPath path, std::uint64_t seed);

}  // namespace moebench
