// powercap.cpp — RAPL package energy through Linux powercap (powercap.h).
#include "probes/powercap.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace moebench {
namespace {

std::optional<std::uint64_t> read_u64(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// A top-level zone: "<driver>:<n>" with exactly one colon.
bool top_level_zone(const std::string& name) {
  return std::count(name.begin(), name.end(), ':') == 1 && name.find("rapl") != std::string::npos;
}

}  // namespace

Expected<std::unique_ptr<PowercapMeter>> PowercapMeter::open(const std::string& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    return make_error("energy not measured: " + root + " does not exist (no powercap driver on this kernel or VM)");
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (top_level_zone(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) return make_error("energy not measured: " + root + " has no RAPL package zone (intel-rapl:N)");
  auto meter = std::unique_ptr<PowercapMeter>(new PowercapMeter());
  for (const std::string& n : names) {
    Zone z;
    z.energy_path = root + "/" + n + "/energy_uj";
    z.name = read_line(root + "/" + n + "/name");
    if (z.name.empty()) z.name = n;
    const auto e = read_u64(z.energy_path);
    if (!e) {
      return make_error("energy not measured: " + z.energy_path +
                        " is not readable (root only on most kernels since CVE-2020-8694; run as root or grant read access)");
    }
    z.last_uj = *e;
    z.range_uj = read_u64(root + "/" + n + "/max_energy_range_uj").value_or(0);
    meter->zones_.push_back(z);
  }
  return meter;
}

std::optional<double> PowercapMeter::joules() {
  for (Zone& z : zones_) {
    const auto e = read_u64(z.energy_path);
    if (!e) return std::nullopt;
    std::uint64_t delta = *e >= z.last_uj ? *e - z.last_uj : (z.range_uj > z.last_uj ? z.range_uj - z.last_uj + *e : *e);
    z.last_uj = *e;
    total_j_ += static_cast<double>(delta) * 1e-6;
  }
  return total_j_;
}

std::string PowercapMeter::what() const {
  std::string names;
  for (const Zone& z : zones_) names += (names.empty() ? "" : ", ") + z.name;
  return "RAPL package energy (" + names + ") through Linux powercap: the CPU packages, not DRAM, drives or the board";
}

}  // namespace moebench
