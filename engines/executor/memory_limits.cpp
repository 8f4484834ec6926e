// memory_limits.cpp (engines/executor) — see memory_limits.h.
//
// The parsers are pure functions of file text. read_memory_limits() reads
// /proc/meminfo, /proc/self/cgroup, the cgroup v2 or v1 memory files (walking
// up the hierarchy), /proc/sys/vm/overcommit_memory and getrlimit(); any file
// it cannot read becomes a note, never an error.
//
// Linux is the tested platform. On other systems (macOS) /proc and cgroups
// are unavailable: the functions return what they can (sysconf for the
// physical memory size, getrlimit) with notes.
#include "engines/executor/memory_limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#include "vocab/file_io.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

std::uint64_t sat_sub(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string errno_text(int err) { return std::strerror(err); }

std::string quoted_excerpt(std::string_view s) {
  std::string out(s.substr(0, 60));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > 60) out += "...";
  return "\"" + out + "\"";
}

std::uint64_t page_size() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::uint64_t>(p) : 4096;
}

// VmSize of this process right now (Linux: /proc/self/status).
std::optional<std::uint64_t> current_vm_size() {
#if defined(__linux__)
  auto text = read_file("/proc/self/status");
  if (!text) return std::nullopt;
  const auto fields = parse_meminfo(*text);
  const auto it = fields.find("VmSize");
  if (it == fields.end()) return std::nullopt;
  return it->second;
#else
  return std::nullopt;
#endif
}

MemoryBinding compute_binding(const MemoryLimits& m) {
  MemoryBinding b;
  const auto consider = [&b](std::uint64_t v, const char* name) {
    if (!b.known || v < b.bytes) {
      b.bytes = v;
      b.name = name;
      b.known = true;
    }
  };
  if (m.mem_total_bytes > 0) consider(m.mem_available_bytes, "MemAvailable");
  if (m.cgroup_limit_bytes) {
    consider(sat_sub(*m.cgroup_limit_bytes, m.cgroup_usage_bytes.value_or(0)),
             m.cgroup_version == "v1" ? "cgroup memory.limit_in_bytes" : "cgroup memory.max");
  }
  if (m.rlimit_as_bytes) {
    const auto vm = current_vm_size();
    consider(vm ? sat_sub(*m.rlimit_as_bytes, *vm) : *m.rlimit_as_bytes, "RLIMIT_AS");
  }
  if (m.overcommit_mode == 2 && m.commit_limit_bytes && m.committed_as_bytes) {
    consider(sat_sub(*m.commit_limit_bytes, *m.committed_as_bytes), "CommitLimit");
  }
  return b;
}

// ---- read_memory_limits helpers -------------------------------------------

void read_meminfo_into(MemoryLimits& m) {
#if defined(__linux__)
  auto text = read_file("/proc/meminfo");
  if (!text) {
    m.notes.push_back(text.error().message + " (MemTotal, MemAvailable and swap unknown)");
  } else {
    const auto f = parse_meminfo(*text);
    const auto get = [&f](const char* key) -> std::optional<std::uint64_t> {
      const auto it = f.find(key);
      if (it == f.end()) return std::nullopt;
      return it->second;
    };
    if (auto v = get("MemTotal")) m.mem_total_bytes = *v;
    else m.notes.push_back("/proc/meminfo has no MemTotal line");
    if (auto v = get("MemAvailable")) {
      m.mem_available_bytes = *v;
    } else if (auto free_b = get("MemFree")) {
      m.mem_available_bytes = *free_b;
      m.notes.push_back("/proc/meminfo has no MemAvailable (kernel older than 3.14?); using MemFree");
    } else {
      m.notes.push_back("/proc/meminfo has neither MemAvailable nor MemFree");
    }
    m.swap_total_bytes = get("SwapTotal").value_or(0);
    m.swap_free_bytes = get("SwapFree").value_or(0);
    m.commit_limit_bytes = get("CommitLimit");
    m.committed_as_bytes = get("Committed_AS");
    if (m.mem_total_bytes > 0) return;
  }
#endif
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  if (pages > 0) {
    m.mem_total_bytes = static_cast<std::uint64_t>(pages) * page_size();
    m.mem_available_bytes = m.mem_total_bytes;
    m.notes.push_back(
        "MemAvailable, swap and CommitLimit: not available on this OS; MemAvailable is taken "
        "as the physical memory size (" + format_bytes(static_cast<double>(m.mem_total_bytes)) +
        ")");
  } else {
    m.notes.push_back("physical memory size unknown (sysconf(_SC_PHYS_PAGES) failed)");
  }
}

#if defined(__linux__)
// cgroup v1 writes "no limit" as a huge page-aligned number
// (9223372036854771712); anything this large is not a real limit.
constexpr std::uint64_t kNoLimitThreshold = 1ull << 60;

bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

void read_cgroup_into(MemoryLimits& m) {
  auto text = read_file("/proc/self/cgroup");
  if (!text) {
    m.notes.push_back(text.error().message + " (cgroup memory limit unknown)");
    return;
  }
  const CgroupMembership mem = parse_proc_self_cgroup(*text);
  m.cgroup_version = mem.version;
  m.cgroup_path = mem.path;
  if (mem.version == "none") {
    m.notes.push_back("/proc/self/cgroup lists neither a cgroup v2 nor a v1 memory controller");
    return;
  }
  std::string root;
  const char* limit_name = nullptr;
  const char* usage_name = nullptr;
  if (mem.version == "v2") {
    root = "/sys/fs/cgroup";
    if (!file_exists(root + "/cgroup.controllers") &&
        file_exists("/sys/fs/cgroup/unified/cgroup.controllers")) {
      root = "/sys/fs/cgroup/unified";  // hybrid layout
    }
    limit_name = "memory.max";
    usage_name = "memory.current";
  } else {
    root = "/sys/fs/cgroup/memory";
    limit_name = "memory.limit_in_bytes";
    usage_name = "memory.usage_in_bytes";
  }

  // The process's directory and every ancestor up to the mount root.
  std::vector<std::string> dirs{root};
  for (const std::string& part : split(mem.path, '/')) {
    if (part.empty() || part == "." || part == "..") continue;
    dirs.push_back(dirs.back() + "/" + part);
  }
  std::reverse(dirs.begin(), dirs.end());  // leaf first

  bool any_limit_file = false;
  bool have_best = false;
  std::uint64_t best_headroom = 0;
  std::string best_dir;
  std::optional<std::uint64_t> leaf_usage;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string& dir = dirs[i];
    std::optional<std::uint64_t> usage;
    if (auto u = read_file(dir + "/" + usage_name)) usage = parse_u64(trim(*u));
    if (i == 0) leaf_usage = usage;
    auto lt = read_file(dir + "/" + limit_name);
    if (!lt) {
      if (i == 0) {
        m.notes.push_back(lt.error().message +
                          " (cgroup directory not visible here, e.g. a container without a "
                          "cgroup namespace; checking its ancestors)");
      }
      continue;
    }
    any_limit_file = true;
    auto limit = parse_cgroup_limit(*lt);
    if (!limit) {
      m.notes.push_back(dir + "/" + limit_name + ": " + limit.error().message);
      continue;
    }
    if (!limit->has_value() || **limit >= kNoLimitThreshold) continue;
    // The level that leaves the least headroom binds (usage of a parent
    // includes its other children).
    const std::uint64_t headroom = sat_sub(**limit, usage.value_or(0));
    if (!have_best || headroom < best_headroom) {
      have_best = true;
      best_headroom = headroom;
      best_dir = dir;
      m.cgroup_limit_bytes = **limit;
      m.cgroup_usage_bytes = usage;
    }
  }
  if (!have_best) m.cgroup_usage_bytes = leaf_usage;
  if (!any_limit_file) {
    m.notes.push_back(std::string("no readable ") + limit_name + " under " + root +
                      " (cgroup filesystem not mounted?); cgroup limit unknown");
  }
  if (have_best && best_dir != dirs.front()) {
    m.notes.push_back("cgroup limit comes from ancestor " + best_dir);
  }
}

void read_overcommit_into(MemoryLimits& m) {
  auto text = read_file("/proc/sys/vm/overcommit_memory");
  if (!text) {
    m.notes.push_back(text.error().message + " (overcommit mode unknown)");
    return;
  }
  const auto v = parse_u64(trim(*text));
  if (!v || *v > 2) {
    m.notes.push_back("/proc/sys/vm/overcommit_memory: unexpected content " +
                      quoted_excerpt(*text));
    return;
  }
  m.overcommit_mode = static_cast<int>(*v);
}
#endif  // __linux__

std::optional<std::uint64_t> read_rlimit(int resource, const char* name,
                                         std::vector<std::string>& notes) {
  struct rlimit rl {};
  if (::getrlimit(resource, &rl) != 0) {
    notes.push_back(std::string("getrlimit(") + name + ") failed: " + errno_text(errno));
    return std::nullopt;
  }
  if (rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(rl.rlim_cur);
}

}  // namespace

// ---- parsers ----------------------------------------------------------------

std::map<std::string, std::uint64_t> parse_meminfo(const std::string& text) {
  std::map<std::string, std::uint64_t> out;
  for (const std::string& line : split(text, '\n')) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view name = trim(std::string_view(line).substr(0, colon));
    const std::string_view rest = trim(std::string_view(line).substr(colon + 1));
    if (name.empty()) continue;
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0) continue;
    auto value = parse_u64(rest.substr(0, digits));
    if (!value) continue;  // overflow
    const std::string_view unit = trim(rest.substr(digits));
    if (unit == "kB") {
      if (*value > kU64Max / 1024) continue;
      *value *= 1024;
    } else if (!unit.empty()) {
      continue;  // "Uid: 0 0 0 0" and other shapes that are not a size
    }
    out[std::string(name)] = *value;
  }
  return out;
}

Expected<std::optional<std::uint64_t>> parse_cgroup_limit(const std::string& text) {
  const std::string_view t = trim(text);
  if (t == "max") return std::optional<std::uint64_t>{};
  if (auto v = parse_u64(t)) return std::optional<std::uint64_t>{*v};
  return make_error("cannot read a memory limit from " + quoted_excerpt(t) +
                    ": expected \"max\" or a byte count such as \"1073741824\"");
}

CgroupMembership parse_proc_self_cgroup(const std::string& text) {
  CgroupMembership v2{"none", ""};
  bool have_v2 = false;
  for (const std::string& raw : split(text, '\n')) {
    const std::string_view line = trim(raw);
    const std::size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    const std::size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, c1);
    const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const std::string path(line.substr(c2 + 1));
    if (!controllers.empty()) {
      for (const std::string& c : split(controllers, ',')) {
        if (c == "memory") return {"v1", path};
      }
    } else if (id == "0" && !have_v2) {
      v2 = {"v2", path};
      have_v2 = true;
    }
  }
  return v2;
}

std::uint64_t usable_memory_bytes(const MemoryLimits& limits, std::uint64_t rss_bytes) {
  const MemoryBinding b = limits.binding();
  return rss_bytes + (b.known ? b.bytes : limits.mem_available_bytes);
}

// ---- limits -----------------------------------------------------------------

MemoryBinding MemoryLimits::binding() const { return compute_binding(*this); }

std::uint64_t MemoryLimits::binding_limit_bytes() const { return compute_binding(*this).bytes; }

std::string MemoryLimits::binding_limit_name() const { return compute_binding(*this).name; }

MemoryLimits read_memory_limits() {
  MemoryLimits m;
  read_meminfo_into(m);
#if defined(__linux__)
  read_cgroup_into(m);
  read_overcommit_into(m);
#else
  m.notes.push_back("cgroups and the overcommit mode: not available on this OS");
#endif
  m.rlimit_as_bytes = read_rlimit(RLIMIT_AS, "RLIMIT_AS", m.notes);
  m.rlimit_memlock_bytes = read_rlimit(RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", m.notes);
  return m;
}

}  // namespace moebench
