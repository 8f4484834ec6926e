// topology.h — what hwloc says about this machine: packages, cores, PUs,
// NUMA nodes and their memory, caches, and block devices with their PCI
// links. Also the one place that pins threads to cores (probes pin their
// worker threads so bandwidth figures do not depend on the scheduler).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vocab/expected.h"

namespace moebench {

struct CacheLevel {
  int level = 0;                  // 1, 2, 3, ...
  std::string kind;               // "data", "unified", "instruction"
  std::uint64_t size_bytes = 0;   // per instance
  int instances = 0;
};

struct BlockDevice {
  std::string name;               // "nvme0n1", "vda"
  std::string pci_bus_id;         // "0000:00:04.0" or ""
  double pci_link_gb_s = 0;       // hwloc's PCI link speed (GB/s), 0 if unknown
};

struct Topology {
  int packages = 0;
  int cores = 0;
  int pus = 0;
  std::vector<std::uint64_t> numa_memory_bytes;  // one per NUMA node
  std::vector<CacheLevel> caches;
  std::vector<BlockDevice> block_devices;
  std::string hwloc_version;

  // Total size of the last-level cache (all instances): arrays for memory
  // bandwidth must be several times larger than this.
  std::uint64_t last_level_cache_bytes() const;
};

Expected<Topology> probe_topology();

// Pins the calling thread to core `core_index` (0-based, in hwloc's logical
// order). Returns an error when the platform refuses (e.g. macOS).
Status pin_this_thread_to_core(int core_index);

}  // namespace moebench
