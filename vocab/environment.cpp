// environment.cpp — see environment.h. Reads /proc on Linux; on other
// systems the fields it cannot read say "unknown".
#include "vocab/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <random>
#include <thread>

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

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::string(trim(line.substr(colon + 1)));
    }
  }
  return "unknown";
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
  e.cpu_model = cpu_model_name();
  e.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  e.memory_total_bytes = mem_total_bytes();
  e.machine_profile = machine_profile.empty() ? "none" : machine_profile;
  e.command_line = command_line;
  return e;
}

Json environment_to_json(const Environment& e) {
  return Json{{"run_id", e.run_id},
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
    return e;
  } catch (const Json::exception& ex) {
    return make_error(std::string("malformed environment record: ") + ex.what());
  }
}

}  // namespace moebench
