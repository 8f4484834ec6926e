// run_support.h — what the resident and streaming engines share around the
// executor: making (or reusing) the point's container, process readings
// (RSS, peak RSS, /proc/self/io, usable memory) and the timed token loop
// that turns forward passes into a Measurement's windows.
//
// Timing windows (vocab/measurement.h): t = 0 when the prompt is handed
// over; prefill runs the prompt in chunks; the logits of the prompt's last
// position give the first generated token, so token_times_s[0] (TTFT) is the
// end of prefill, cold reads included; every later token is one decode
// step. Decode counters (engine bytes, /proc/self/io, hits, misses, I/O
// wait, weight bytes) are the difference between their values at
// token_times_s[0] and at the last token.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engines/container/container.h"
#include "engines/engine.h"
#include "engines/executor/executor.h"

namespace moebench {

struct ContainerUse {
  ContainerFile trunk;               // the trunk file (drive 0)
  std::vector<ContainerFile> files;  // expert files, one per drive of the point
  ContainerSpec spec;
  double make_s = 0;                 // 0 when every file was reused
};

// The point's container spec: card, scale, quant, seed, layout and its first
// drives.count drive directories (an error when the sweep lists fewer).
Expected<ContainerSpec> container_spec_for(const Point& point, const RunContext& ctx, bool packed);
// The point's container, made on first use (same card, scale, quant, seed
// and layout: reused; the trunk file is shared by every quant).
Expected<ContainerUse> ensure_container(const Point& point, RunContext& ctx, bool packed);

// The container files as they are, for an engine told not to make them
// (make=0): an error naming the drive and file when one is missing.
Expected<ContainerUse> existing_container(const Point& point, const RunContext& ctx, bool packed);

// Opens the use's trunk file and checks its tensor table and that every
// expert file in `experts` (already checked) pairs with it; the trunk's
// header on success.
Expected<GgufFile> open_trunk(const ContainerUse& use, const std::vector<const GgufFile*>& experts);

// Notes for a row about the point's container files: the trunk file shared
// by quants, replicas hard-linked on one filesystem.
std::vector<std::string> container_notes(const ContainerUse& use);

// The containers the points' engines make on first use, for
// container_disk_need: one spec per point whose engine reads drives (the
// caller picks those) and may make its container (not make=0); card, scale,
// quant, seed, layout (packed=1: packed records) and the point's first
// drives.count drive directories, as container_spec_for gives them.
Expected<std::vector<ContainerSpec>> container_specs_for_points(
    const std::vector<Point>& points, const std::function<Expected<ModelCard>(const std::string&)>& card,
    std::uint64_t seed, const std::vector<std::string>& drive_dirs);

std::uint64_t current_rss_bytes();
std::uint64_t peak_rss_bytes();   // VmHWM
// /proc/self/clear_refs "5": VmHWM restarts from the current RSS. False
// where the kernel refuses (the peak then includes earlier points).
bool reset_peak_rss();
std::optional<std::uint64_t> proc_read_bytes();  // /proc/self/io read_bytes
// What this process could hold: its own RSS plus the binding limit on new
// allocations (MemAvailable, its cgroup's limit less usage, RLIMIT_AS,
// CommitLimit), the machine probe's definition (engines/executor/memory_limits.h).
std::uint64_t usable_memory_bytes();

// Why the point's drive reads did not measure a drive — a drive directory
// on tmpfs/ramfs, or on a filesystem refusing O_DIRECT (vocab/file_io.h
// reads_bypass_drive) — or "". run_tokens marks a point that read drive bytes
// there `invalid` with this reason (after prefill: decode is not run).
std::string drive_reads_bypass_reason(const Point& point, const RunContext& ctx);

// Counters an engine exposes to the token loop (absolute values).
struct EngineCounters {
  std::uint64_t read_bytes = 0;
  std::uint64_t hits = 0, misses = 0, misses_hidden = 0;
  double io_wait_s = 0;
  double io_busy_s = 0;
  // Of read_bytes: trunk bytes (streamed trunk layers); absent when the
  // engine streams no trunk.
  std::optional<std::uint64_t> trunk_read_bytes;
};

// Prefill in chunks of at most `chunk` tokens, then gen_tokens - 1 decode
// steps; fills the windows and the decode counters of `m`.
Status run_tokens(Executor& ex, const Point& point, RunContext& ctx, std::size_t chunk,
                  const std::function<EngineCounters()>& counters, Measurement& m);

}  // namespace moebench
