// topology.cpp — see topology.h. One hwloc topology is loaded per call;
// pinning keeps a process-wide topology for the life of the process.
#include "engines/executor/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

namespace moebench {
namespace {

struct TopologyHandle {
  hwloc_topology_t topo = nullptr;
  ~TopologyHandle() {
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
};

Status load(TopologyHandle& h, bool with_io) {
  if (hwloc_topology_init(&h.topo) != 0) return make_error("hwloc: cannot initialise a topology");
  if (with_io) hwloc_topology_set_io_types_filter(h.topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(h.topo) != 0) return make_error("hwloc: cannot load this machine's topology");
  return Status::success();
}

std::string cache_kind(hwloc_obj_cache_type_t t) {
  switch (t) {
    case HWLOC_OBJ_CACHE_DATA: return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION: return "instruction";
    default: return "unified";
  }
}

}  // namespace

std::uint64_t Topology::last_level_cache_bytes() const {
  int top = 0;
  for (const CacheLevel& c : caches) {
    if (c.kind != "instruction") top = std::max(top, c.level);
  }
  std::uint64_t total = 0;
  for (const CacheLevel& c : caches) {
    if (c.level == top && c.kind != "instruction") total += c.size_bytes * static_cast<std::uint64_t>(c.instances);
  }
  return total;
}

Expected<Topology> probe_topology() {
  TopologyHandle h;
  if (Status st = load(h, true); !st) return st.error();
  Topology t;
  t.packages = hwloc_get_nbobjs_by_type(h.topo, HWLOC_OBJ_PACKAGE);
  t.cores = hwloc_get_nbobjs_by_type(h.topo, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(h.topo, HWLOC_OBJ_PU);
  const int numa = hwloc_get_nbobjs_by_type(h.topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < numa; ++i) {
    hwloc_obj_t n = hwloc_get_obj_by_type(h.topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    t.numa_memory_bytes.push_back(n->attr != nullptr ? n->attr->numanode.local_memory : 0);
  }
  const hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                          HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE,
                                          HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
  for (hwloc_obj_type_t type : cache_types) {
    const int n = hwloc_get_nbobjs_by_type(h.topo, type);
    if (n <= 0) continue;
    hwloc_obj_t first = hwloc_get_obj_by_type(h.topo, type, 0);
    CacheLevel c;
    c.level = static_cast<int>(first->attr->cache.depth);
    c.kind = cache_kind(first->attr->cache.type);
    c.size_bytes = first->attr->cache.size;
    c.instances = n;
    t.caches.push_back(c);
  }
  for (hwloc_obj_t os = hwloc_get_next_osdev(h.topo, nullptr); os != nullptr;
       os = hwloc_get_next_osdev(h.topo, os)) {
    if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_BLOCK) continue;
    BlockDevice b;
    b.name = os->name != nullptr ? os->name : "";
    hwloc_obj_t parent = os->parent;
    for (; parent != nullptr && parent->type != HWLOC_OBJ_PCI_DEVICE; parent = parent->parent) {
    }
    if (parent != nullptr && parent->type == HWLOC_OBJ_PCI_DEVICE) {
      b.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.{:01x}", parent->attr->pcidev.domain,
                                 parent->attr->pcidev.bus, parent->attr->pcidev.dev, parent->attr->pcidev.func);
      b.pci_link_gb_s = parent->attr->pcidev.linkspeed;
    }
    t.block_devices.push_back(b);
  }
  const unsigned v = hwloc_get_api_version();
  t.hwloc_version = fmt::format("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
  return t;
}

Status pin_this_thread_to_core(int core_index) {
  static std::mutex mu;
  static TopologyHandle shared;
  static Status loaded = load(shared, false);
  std::lock_guard<std::mutex> lock(mu);
  if (!loaded) return loaded;
  hwloc_obj_t core = hwloc_get_obj_by_type(shared.topo, HWLOC_OBJ_CORE, static_cast<unsigned>(core_index));
  if (core == nullptr) return make_error("no core " + std::to_string(core_index) + " on this machine");
  if (hwloc_set_cpubind(shared.topo, core->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    return make_error("hwloc could not bind a thread to core " + std::to_string(core_index) +
                      " (binding is not supported on every OS)");
  }
  return Status::success();
}

}  // namespace moebench
