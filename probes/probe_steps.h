// probe_steps.h — the named steps `moebench probe` runs in order
// (machine_probe.cpp: run_probe), and what they share: the profile's notes,
// the phase clock, a measured figure.
//
//   probe_topology_step   hwloc: packages, cores, caches (machine_probe.cpp)
//   probe_memory_limits   the limits, then the usable-memory touch in a child
//   probe_memory_rate     read bandwidth per thread count, sysbench beside it
//   probe_storage         each drive's read curve, then all drives at once
//                         (drive_probe.cpp)
//   probe_kernels         the quantized kernels' rates, package energy beside
//
// A step that cannot run leaves a note and returns; the next step runs.
// Internal to probes/: the public entry is machine_probe.h.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "vocab/machine_profile.h"
#include "vocab/progress.h"
#include "probes/probe_options.h"
#include "probes/read_engine.h"

namespace moebench {

struct Topology;

// The profile's notes: each said once, and shown as it is said.
struct ProbeNotes {
  std::vector<std::string>& list;
  Progress& progress;
  void add(const std::string& s);
};

// The wall time of each step, for the profile's "phase durations" note.
class PhaseClock {
 public:
  // Ends the current phase as `what` ("memory 14.2 s") and starts the next.
  void lap(const std::string& what);
  const std::vector<std::string>& laps() const { return laps_; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<std::string> laps_;
};

// A figure this probe measured, with its method.
Figure measured_figure(double value, std::string source);

// Storage: each drive directory's test file, device and read curve (N
// interleaved built-in/fio pairs per cell), its repeatability verdict, then
// every drive at once where there are several. One lap per drive.
void probe_storage(MachineProfile& m, const ProbeOptions& o, const Topology* topo, Progress& progress,
                   ProbeNotes& notes, PhaseClock& clock);

// The storage cells the probe measures (documented in machine_probe.h).
std::vector<ReadCellSpec> probe_cells(bool quick, const std::vector<std::uint64_t>& record_bytes);

// The storage phase's expected seconds per drive (estimated_probe_seconds).
double storage_seconds_per_drive(const ProbeOptions& o);

}  // namespace moebench
