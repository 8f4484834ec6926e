// environment.cpp — see environment.h. Reads /proc on Linux; on other
// systems the fields it cannot read say "unknown".
#include "vocab/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "vocab/build_info.h"
#include "vocab/text.h"

namespace moebench {

std::string Environment::build_warning() const {
  std::string w;
  if (build_type != "Release" && build_type != "RelWithDebInfo") {
    w = "this is a " + build_type + " build: timings are not representative; build Release (make run)";
  }
  if (!sanitizers.empty()) {
    if (!w.empty()) w += "; ";
    w += "sanitizers (" + sanitizers + ") are on: timings are not representative";
  }
  if (!emulation.empty()) {
    if (!w.empty()) w += "; ";
    w += "emulated (" + emulation + "): timings describe the emulator, not a machine";
  }
  return w;
}

std::string Environment::build_label() const {
  return "moebench " + moebench_version + " (" + git_commit + ", " + build_type +
         (sanitizers.empty() ? "" : "+" + sanitizers) + ")";
}

std::string rfc3339_now_utc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string read_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Environment::cpu_model from the cpuinfo text and the emulation note.
std::string cpu_model_named(const std::string& cpuinfo, const std::string& emulation) {
  if (emulation.empty()) return cpuinfo_model(cpuinfo);
  return std::string("emulated ") + compiled_architecture() + " on " + cpuinfo_model(cpuinfo);
}

// "key : value" lines of /proc/cpuinfo text, in order.
std::vector<std::pair<std::string, std::string>> cpuinfo_fields(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    out.emplace_back(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  return out;
}

// Arm "CPU implementer" / "CPU part" numbers (Linux arch/arm64/include/asm/cputype.h).
struct ArmPart {
  unsigned implementer, part;
  const char* name;
};
constexpr ArmPart kArmParts[] = {
    {0x41, 0xd03, "Cortex-A53"},   {0x41, 0xd05, "Cortex-A55"},   {0x41, 0xd07, "Cortex-A57"},
    {0x41, 0xd08, "Cortex-A72"},   {0x41, 0xd0b, "Cortex-A76"},   {0x41, 0xd0c, "Neoverse-N1"},
    {0x41, 0xd40, "Neoverse-V1"},  {0x41, 0xd41, "Cortex-A78"},   {0x41, 0xd44, "Cortex-X1"},
    {0x41, 0xd46, "Cortex-A510"},  {0x41, 0xd47, "Cortex-A710"},  {0x41, 0xd48, "Cortex-X2"},
    {0x41, 0xd49, "Neoverse-N2"},  {0x41, 0xd4f, "Neoverse-V2"},  {0x41, 0xd80, "Cortex-A520"},
    {0x41, 0xd81, "Cortex-A720"},  {0x41, 0xd82, "Cortex-X4"},    {0x41, 0xd84, "Neoverse-V3"},
    {0x41, 0xd85, "Cortex-X925"},  {0x41, 0xd87, "Cortex-A725"},  {0x41, 0xd8e, "Neoverse-N3"},
    {0xc0, 0xac3, "AmpereOne"},    {0x61, 0x022, "Apple M1 Icestorm"}, {0x61, 0x023, "Apple M1 Firestorm"},
};

const char* implementer_name(unsigned id) {
  switch (id) {
    case 0x41: return "Arm";
    case 0x4e: return "NVIDIA";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    case 0x48: return "HiSilicon";
    default: return nullptr;
  }
}

std::string hex_id(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// The aarch64 cores of /proc/cpuinfo: "N x name" per distinct part, in order of first appearance.
std::string arm_model(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::vector<std::pair<std::string, int>> parts;
  unsigned implementer = 0;
  bool have_impl = false;
  for (const auto& [k, v] : fields) {
    if (k == "CPU implementer") {
      implementer = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 0));
      have_impl = true;
    } else if (k == "CPU part" && have_impl) {
      const unsigned part = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 0));
      std::string name;
      for (const ArmPart& p : kArmParts) {
        if (p.implementer == implementer && p.part == part) name = p.name;
      }
      if (name.empty()) {
        const char* impl = implementer_name(implementer);
        name = std::string(impl != nullptr ? impl : "implementer " + hex_id(implementer)) + " part " + hex_id(part);
      }
      bool found = false;
      for (auto& [n, count] : parts) {
        if (n == name) {
          ++count;
          found = true;
        }
      }
      if (!found) parts.emplace_back(name, 1);
    }
  }
  std::string out;
  for (const auto& [n, count] : parts) out += (out.empty() ? "" : " + ") + std::to_string(count) + " x " + n;
  return out;
}

std::uint64_t mem_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") return kib * 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string make_run_id(const std::string& started_at) {
  std::random_device rd;
  std::string compact;
  for (char c : started_at) {
    if (c != '-' && c != ':') compact += c;
  }
  return compact + "-" + hex64((static_cast<std::uint64_t>(rd()) << 32) ^ rd()).substr(0, 6);
}

}  // namespace

const char* compiled_architecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "other";
#endif
}

std::string cpuinfo_architecture(const std::string& cpuinfo) {
  for (const auto& [k, v] : cpuinfo_fields(cpuinfo)) {
    if (k == "vendor_id" || (k == "flags" && v.find("sse2") != std::string::npos)) return "x86_64";
    if (k == "CPU implementer" || (k == "Features" && v.find("asimd") != std::string::npos)) return "aarch64";
  }
  return "";
}

std::string cpuinfo_model(const std::string& cpuinfo) {
  const auto fields = cpuinfo_fields(cpuinfo);
  for (const auto& [k, v] : fields) {
    if (k == "model name" || k == "Model") return v;
  }
  if (std::string arm = arm_model(fields); !arm.empty()) return arm;
  return "unknown";
}

std::string host_kernel_architecture() {
  std::ifstream arch("/proc/sys/kernel/arch");
  std::string a;
  if (arch >> a) {
    if (a == "x86_64" || a == "aarch64") return a;
    if (a == "arm64") return "aarch64";
  }
  std::ifstream alias("/sys/devices/system/cpu/modalias");
  std::string m;
  if (alias >> m) {
    if (m.rfind("cpu:type:x86", 0) == 0) return "x86_64";
    if (m.rfind("cpu:type:aarch64", 0) == 0 || m.rfind("cpu:type:arm64", 0) == 0) return "aarch64";
  }
  return "";
}

std::string emulation_note(const std::string& cpuinfo, const std::string& kernel_arch) {
  const std::string host = kernel_arch.empty() ? cpuinfo_architecture(cpuinfo) : kernel_arch;
  const std::string self = compiled_architecture();
  if (host.empty() || self == "other" || host == self) return "";
  // The model only when the cpuinfo text describes the host (newer qemu-user fakes it).
  const std::string model = cpuinfo_architecture(cpuinfo) == host ? " (" + cpuinfo_model(cpuinfo) + ")" : "";
  return self + " code on an " + (host == "x86_64" ? std::string("x86-64") : host) + " CPU" + model +
         ": a user-mode emulator such as qemu-user runs this binary";
}

std::string host_cpu_model() {
  const std::string cpuinfo = read_cpuinfo();
  return cpu_model_named(cpuinfo, emulation_note(cpuinfo, host_kernel_architecture()));
}

Environment capture_environment(const std::string& machine_profile, const std::string& command_line) {
  Environment e;
  e.started_at = rfc3339_now_utc();
  e.run_id = make_run_id(e.started_at);
  e.moebench_version = build_info::kVersion;
  e.git_commit = build_info::kGitCommit;
  e.compiler = build_info::kCompiler;
  e.compiler_flags = build_info::kCompilerFlags;
  e.build_type = build_info::kBuildType;
  e.sanitizers = build_info::sanitizers();
  utsname u{};
  if (uname(&u) == 0) {
    e.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
    e.hostname = u.nodename;
  } else {
    e.kernel = e.hostname = "unknown";
  }
  const std::string cpuinfo = read_cpuinfo();
  e.emulation = emulation_note(cpuinfo, host_kernel_architecture());
  e.cpu_model = cpu_model_named(cpuinfo, e.emulation);
  e.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  e.memory_total_bytes = mem_total_bytes();
  e.machine_profile = machine_profile.empty() ? "none" : machine_profile;
  e.command_line = command_line;
  return e;
}

ProfileRef profile_ref(const Environment& e) {
  if (!e.machine_name.empty() || !e.machine_source.empty()) return {e.machine_name, e.machine_source};
  const std::string& label = e.machine_profile;
  if (label.empty() || label == "none") return {};
  const std::size_t open = label.find(" (");  // a name has no " (", a path may
  if (open == std::string::npos || label.back() != ')') return {label, ""};
  return {label.substr(0, open), label.substr(open + 2, label.size() - open - 3)};
}

Json environment_to_json(const Environment& e) {
  Json j{{"run_id", e.run_id},
              {"moebench_version", e.moebench_version},
              {"git_commit", e.git_commit},
              {"compiler", e.compiler},
              {"compiler_flags", e.compiler_flags},
              {"build_type", e.build_type},
              {"sanitizers", e.sanitizers},
              {"kernel", e.kernel},
              {"cpu_model", e.cpu_model},
              {"logical_cpus", e.logical_cpus},
              {"memory_total_bytes", e.memory_total_bytes},
              {"hostname", e.hostname},
              {"started_at", e.started_at},
              {"machine_profile", e.machine_profile},
              {"command_line", e.command_line}};
  if (!e.machine_name.empty()) j["machine_name"] = e.machine_name;
  if (!e.machine_source.empty()) j["machine_source"] = e.machine_source;
  if (!e.emulation.empty()) j["emulation"] = e.emulation;  // only emulated runs carry the key
  return j;
}

Expected<Environment> environment_from_json(const Json& j) {
  try {
    Environment e;
    e.run_id = j.at("run_id").get<std::string>();
    e.moebench_version = j.at("moebench_version").get<std::string>();
    e.git_commit = j.at("git_commit").get<std::string>();
    e.compiler = j.at("compiler").get<std::string>();
    e.compiler_flags = j.at("compiler_flags").get<std::string>();
    e.build_type = j.at("build_type").get<std::string>();
    e.sanitizers = j.at("sanitizers").get<std::string>();
    e.kernel = j.at("kernel").get<std::string>();
    e.cpu_model = j.at("cpu_model").get<std::string>();
    e.logical_cpus = j.at("logical_cpus").get<int>();
    e.memory_total_bytes = j.at("memory_total_bytes").get<std::uint64_t>();
    e.hostname = j.at("hostname").get<std::string>();
    e.started_at = j.at("started_at").get<std::string>();
    e.machine_profile = j.at("machine_profile").get<std::string>();
    e.command_line = j.at("command_line").get<std::string>();
    e.emulation = j.value("emulation", std::string());  // absent before aarch64 builds
    e.machine_name = j.value("machine_name", std::string());  // absent in older results
    e.machine_source = j.value("machine_source", std::string());
    return e;
  } catch (const Json::exception& ex) {
    return make_error(std::string("malformed environment record: ") + ex.what());
  }
}

}  // namespace moebench
