// unified_memory.cpp — recognising unified memory (see memory_limits.h): the
// signals read from the machine (DMI product name, PCI ids, the CPU model)
// and the note that says the CPU and GPU share one pool, with why.
#include "probes/memory_limits.h"

#include <cctype>
#include <filesystem>

#include "vocab/file_io.h"
#include "vocab/text.h"

namespace moebench {

namespace {
std::string lower_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

UnifiedMemorySignals read_unified_memory_signals(const std::string& cpu_model) {
  UnifiedMemorySignals s;
  s.cpu_model = cpu_model;
  if (auto t = read_file("/sys/class/dmi/id/product_name")) s.dmi_product_name = std::string(trim(*t));
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec)) {
    auto vendor = read_file(dev.path().string() + "/vendor");
    auto device = read_file(dev.path().string() + "/device");
    if (!vendor || !device) continue;
    std::string v(trim(*vendor)), d(trim(*device));
    if (v.rfind("0x", 0) == 0) v = v.substr(2);
    if (d.rfind("0x", 0) == 0) d = d.substr(2);
    s.pci_ids.push_back(lower_ascii(v) + ":" + lower_ascii(d));
  }
  return s;
}

std::string unified_memory_note(const UnifiedMemorySignals& s) {
  std::string why;
  const std::string product = lower_ascii(s.dmi_product_name);
  if (product.find("dgx_spark") != std::string::npos || product.find("dgx spark") != std::string::npos) {
    why = "DMI product name \"" + s.dmi_product_name + "\"";
  } else if (s.cpu_model.find("Cortex-X925") != std::string::npos && s.cpu_model.find("Cortex-A725") != std::string::npos) {
    why = "the CPU's Cortex-X925 + Cortex-A725 cores (NVIDIA GB10)";
  } else {
    for (const std::string& id : s.pci_ids) {
      if (id == "10de:22ce" || id == "10de:22d0") {
        why = "an NVIDIA GB10 PCIe host bridge (" + id + ")";
        break;
      }
    }
  }
  if (why.empty()) return "";
  return "unified memory (" + why + "): CPU and GPU share one LPDDR5x pool (128 GB on a DGX Spark); the usable "
         "figure is what one CPU process could hold when probed, and GPU allocations come out of the same pool and "
         "lower it";
}

}  // namespace moebench
