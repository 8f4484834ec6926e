// memory_cgroup.cpp — see memory_cgroup.h.
#include "engines/llamacpp/memory_cgroup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace moebench {
namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool write_text(const std::string& path, const std::string& value, std::string& why) {
  std::ofstream out(path);
  if (!out) {
    why = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  out << value;
  out.flush();
  if (!out) {
    why = path + ": write of \"" + value + "\" failed";
    return false;
  }
  return true;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::uint64_t> read_u64(const std::string& path) {
  const auto t = read_text(path);
  if (!t) return std::nullopt;
  try {
    return static_cast<std::uint64_t>(std::stoull(*t));
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

Expected<std::pair<std::string, std::string>> own_memory_cgroup() {
  const auto self = read_text("/proc/self/cgroup");
  if (!self) return make_error("/proc/self/cgroup is not readable: no cgroups to enforce a RAM budget with");
  std::string v2_path, v1_path;
  std::istringstream lines(*self);
  for (std::string line; std::getline(lines, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers.empty()) v2_path = path;
    std::istringstream cs(controllers);
    for (std::string c; std::getline(cs, c, ',');) {
      if (c == "memory") v1_path = path;
    }
  }
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    const std::string dir = std::string(root) + v2_path;
    const auto ctl = read_text(dir + "/cgroup.controllers");
    if (!v2_path.empty() && ctl && ctl->find("memory") != std::string::npos) return std::make_pair(dir, std::string("v2"));
  }
  if (!v1_path.empty() && is_dir("/sys/fs/cgroup/memory" + v1_path)) {
    return std::make_pair("/sys/fs/cgroup/memory" + v1_path, std::string("v1"));
  }
  return make_error("no memory cgroup controller for this process (cgroup v2 without the memory controller and no "
                    "v1 memory hierarchy)");
}

Expected<MemoryCgroup> MemoryCgroup::create(std::uint64_t max_bytes, const std::string& tag) {
  auto own = own_memory_cgroup();
  if (!own) return own.error();
  static std::atomic<int> serial{0};
  MemoryCgroup g;
  g.version_ = own->second;
  g.dir_ = own->first + "/moebench-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  if (::mkdir(g.dir_.c_str(), 0755) != 0) {
    return make_error("cannot create the cgroup " + g.dir_ + ": " + std::strerror(errno) +
                      " (a RAM budget needs a writable memory cgroup: run as root or delegate one)");
  }
  std::string why;
  const std::string limit = g.version_ == "v2" ? "/memory.max" : "/memory.limit_in_bytes";
  if (!write_text(g.dir_ + limit, std::to_string(max_bytes), why)) {
    ::rmdir(g.dir_.c_str());
    g.dir_.clear();
    return make_error("cannot set the RAM budget: " + why);
  }
  if (g.version_ == "v2") {
    std::string ignored;
    (void)write_text(g.dir_ + "/memory.swap.max", "0", ignored);  // no swap to escape into, where the file exists
  }
  return g;
}

MemoryCgroup::~MemoryCgroup() {
  if (!dir_.empty()) ::rmdir(dir_.c_str());  // empty once its process has exited
}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& o) noexcept : dir_(std::move(o.dir_)), version_(std::move(o.version_)) {
  o.dir_.clear();
}

MemoryCgroup& MemoryCgroup::operator=(MemoryCgroup&& o) noexcept {
  if (this != &o) {
    if (!dir_.empty()) ::rmdir(dir_.c_str());
    dir_ = std::move(o.dir_);
    version_ = std::move(o.version_);
    o.dir_.clear();
  }
  return *this;
}

std::vector<std::string> MemoryCgroup::wrap(const std::vector<std::string>& argv) const {
  std::vector<std::string> w = {"/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", dir_ + "/cgroup.procs"};
  w.insert(w.end(), argv.begin(), argv.end());
  return w;
}

std::optional<std::uint64_t> MemoryCgroup::peak_bytes() const {
  return read_u64(dir_ + (version_ == "v2" ? "/memory.peak" : "/memory.max_usage_in_bytes"));
}

namespace {

// The value of `key` in a flat-keyed file of "key value" lines.
std::optional<std::uint64_t> keyed_value(const std::string& path, const std::string& key) {
  const auto t = read_text(path);
  if (!t) return std::nullopt;
  std::istringstream s(*t);
  for (std::string k; s >> k;) {
    std::uint64_t v = 0;
    if (!(s >> v)) return std::nullopt;
    if (k == key) return v;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> MemoryCgroup::limit_hits() const {
  if (version_ == "v1") return read_u64(dir_ + "/memory.failcnt");
  return keyed_value(dir_ + "/memory.events", "max");
}

std::optional<std::uint64_t> MemoryCgroup::oom_kills() const {
  return keyed_value(dir_ + (version_ == "v1" ? "/memory.oom_control" : "/memory.events"), "oom_kill");
}

}  // namespace moebench
