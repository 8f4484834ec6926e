// machine_profile.h — MachineProfile: what a machine offers, with the
// provenance of every figure.
//
// `moebench probe` writes one for this machine; configs/hardware/*.json use
// the same schema for machines moebench cannot measure. Each figure says
// whether it was `measured` (and how), taken from a `spec` sheet (and which),
// or is an `estimate` (and why) — a prediction built on a figure inherits
// that figure's standing. An optional range carries spec uncertainty.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json_reader.h"

namespace moebench {

enum class Provenance { kMeasured, kSpec, kEstimate };
const char* to_string(Provenance p);

struct Figure {
  double value = 0;
  Provenance provenance = Provenance::kEstimate;
  std::string source;                // who/what says so: a probe method, a URL, reasoning
  std::optional<double> low, high;   // uncertainty range, same unit as value
};

struct DriveReadPoint {
  std::uint64_t block_bytes = 0;
  int queue_depth = 1;
  std::string pattern;  // "random" | "sequential"
  Figure read_bytes_s;
};

struct DriveProfile {
  std::string name;
  std::optional<std::string> path;  // a directory on the drive, for measured profiles
  std::optional<Figure> capacity_bytes;
  Figure seq_read_bytes_s;
  std::vector<DriveReadPoint> read_curve;
};

struct KernelFigure {
  std::string quant;
  std::string shape;  // "matvec" (decode) | "matmul" (prefill)
  int threads = 1;
  Figure weight_bytes_s;
};

struct MachineProfile {
  std::string name;
  std::string description;
  std::string cpu_model;
  Figure cores;
  Figure memory_total_bytes;
  Figure memory_usable_bytes;
  Figure memory_read_bytes_s;  // all threads, read-only stream
  std::vector<DriveProfile> drives;
  std::vector<KernelFigure> kernels;
  int nodes = 1;                         // linked machines acting as one
  std::optional<Figure> interconnect_bytes_s;
  std::optional<Figure> sync_s_per_token;
  std::optional<Figure> price_usd;
  std::optional<std::string> price_basis;  // "purchase" | "hourly"
};

std::optional<MachineProfile> load_machine_profile(const Json& j, Diagnostics& d);
Expected<MachineProfile> load_machine_profile_file(const std::string& path);

}  // namespace moebench
