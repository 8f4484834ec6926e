// machine_probe.h — `moebench probe`: measure this machine and describe it
// as a MachineProfile (the schema of configs/hardware), every figure marked
// `measured` with its method.
//
// Order: topology (hwloc) → usable memory (limits, then the active probe in
// a child) → memory bandwidth → per-drive storage (test file, device
// mapping, built-in O_DIRECT cells, the same cells through fio) → all
// drives at once. A part that cannot run leaves a note in the profile and
// the rest goes on; the profile is written with what was measured.
//
// Each storage cell runs as N interleaved built-in/fio pairs, the order
// alternating (probes/read_pairs.h); a curve point is the median of its
// repeats and carries their spread, and a drive whose repeats disagree by
// more than kNoisyRelativeRange is marked noisy.
//
// Cell sets (built-in and fio alike):
//   full : block {4 KiB, 128 KiB, 1 MiB, every card's expert record} ×
//          queue depth {1, 4, 16, 32} × {random, sequential}, 5 pairs of
//          1-s runs each
//   quick: random 4 KiB QD32, random 1 MiB QD1, random 1 MiB QD16,
//          sequential 1 MiB QD16, random K3 record (17,547,264 B) QD4,
//          3 pairs of 0.4-s runs each;
//          memory bandwidth at 1 and N threads, 3 repetitions; the usable-
//          memory probe touches for at most 15 s (its figure is then a lower
//          bound, and says so)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/progress.h"
#include "probes/probe_options.h"
#include "probes/read_engine.h"

namespace moebench {


// Rough duration, stated before a run starts.
double estimated_probe_seconds(const ProbeOptions& options);

// Whether a profile may be measured here: an error under emulation
// (Environment::emulation), where a profile would describe the emulator as
// the machine. run_probe() checks it too; callers ask first to refuse before
// announcing a probe.
Status probe_allowed();

Expected<MachineProfile> run_probe(const ProbeOptions& options, Progress& progress);

// `moebench probe --kernels-only`: the kernel phase alone, float and
// integer-dot kernels for every format (quick: a subset, shorter runs), as
// a markdown table that names the kernels that ran and, under emulation,
// says its figures are the emulator's. Writes no profile.
Expected<std::string> run_kernel_table(bool quick, Progress& progress);

// Readable summary of a profile (what the probe prints).
std::string profile_summary(const MachineProfile& profile);

// "1.31 GB/s (1.10–1.45, n=3)": the median and its range in the median's
// unit; just the rate without a spread.
std::string format_rate_spread(double median_bytes_s, const std::optional<RepeatSpread>& spread);

// The larger of the point's built-in and fio (max − min) / median; 0 without
// repeats.
double point_relative_range(const DriveReadPoint& point);

// One row of the printed storage table:
// "random 1.00 MiB QD16 | 1.31 GB/s (1.10–1.45, n=3) | fio 1.34 GB/s (…) |
//  ratio 0.98 (0.81–1.20) | p50 812 us", and "| noisy" when the point's
// repeats disagree by more than kNoisyRelativeRange.
std::string curve_point_row(const DriveReadPoint& point);

}  // namespace moebench
