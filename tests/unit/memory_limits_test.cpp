// memory_limits_test.cpp — the memory limits this process runs under and the
// active probe: parsers against captured files, the live limits of this
// machine, the probe under an artificially reduced RLIMIT_AS (run in a forked
// child so the test process keeps its own limits), and a small capped run.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "vocab/file_io.h"
#include "probes/memory_limits.h"

using namespace moebench;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

std::string fixture(const std::string& name) {
  auto text = read_file(std::string(MOEBENCH_TEST_DATA) + "/memory/" + name);
  REQUIRE(text.ok());
  return *text;
}

std::uint64_t vm_size_now() {
  auto text = read_file("/proc/self/status");
  if (!text) return 0;
  const auto f = parse_meminfo(*text);
  const auto it = f.find("VmSize");
  return it == f.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("parse_meminfo reads a captured /proc/meminfo", "[memory]") {
  const auto f = parse_meminfo(fixture("meminfo.txt"));
  // Values as captured in tests/data/memory/meminfo.txt (kB × 1024).
  CHECK(f.at("MemTotal") == 24684092ull * 1024);
  CHECK(f.at("MemAvailable") == 23731760ull * 1024);
  CHECK(f.at("SwapTotal") == 0);
  CHECK(f.at("SwapFree") == 0);
  CHECK(f.at("CommitLimit") == 12342044ull * 1024);
  CHECK(f.at("Committed_AS") == 1078196ull * 1024);
  CHECK(f.at("HugePages_Total") == 0);   // unit-less, kept as is
  CHECK(f.at("Hugepagesize") == 2048ull * 1024);
  CHECK(f.at("Active(anon)") == 1564ull * 1024);
}

TEST_CASE("parse_meminfo tolerates odd lines", "[memory]") {
  const auto f = parse_meminfo(
      "MemTotal:       24660392 kB\r\n"
      "garbage without a colon\n"
      ":  12 kB\n"
      "Broken:   abc kB\n"
      "Weird:    12 MB\n"
      "HugePages_Free:      7\n"
      "\n"
      "Huge: 99999999999999999999999 kB\n"
      "MemFree: 1 kB");
  CHECK(f.at("MemTotal") == 24660392ull * 1024);
  CHECK(f.at("HugePages_Free") == 7);
  CHECK(f.at("MemFree") == 1024);
  CHECK(f.size() == 3);
  CHECK(parse_meminfo("").empty());
}

TEST_CASE("parse_cgroup_limit: max, a number, garbage", "[memory]") {
  auto none = parse_cgroup_limit("max\n");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  auto one_gib = parse_cgroup_limit("1073741824\n");
  REQUIRE(one_gib.ok());
  REQUIRE(one_gib->has_value());
  CHECK(**one_gib == kGiB);

  auto v1_unlimited = parse_cgroup_limit("9223372036854771712\n");
  REQUIRE(v1_unlimited.ok());
  CHECK(**v1_unlimited == 9223372036854771712ull);

  for (const char* bad : {"lots of memory\n", "", "-5", "12kB", "1.5"}) {
    INFO(bad);
    auto r = parse_cgroup_limit(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("expected \"max\"") != std::string::npos);
  }
  CHECK(parse_cgroup_limit("lots of memory\n").error().message.find("\"lots of memory\"") !=
        std::string::npos);
}

TEST_CASE("parse_proc_self_cgroup: v2, v1, comma lists, none", "[memory]") {
  const auto v2 = parse_proc_self_cgroup(fixture("cgroup_v2.txt"));
  CHECK(v2.version == "v2");
  CHECK(v2.path == "/user.slice/user-1000.slice/session-2.scope");

  // v1 with many controllers and a "0::" line too: the memory controller wins.
  const auto v1 = parse_proc_self_cgroup(fixture("cgroup_v1.txt"));
  CHECK(v1.version == "v1");
  CHECK(v1.path == "/docker/3f2a9c1e");

  const auto comma = parse_proc_self_cgroup(fixture("cgroup_v1_comma.txt"));
  CHECK(comma.version == "v1");
  CHECK(comma.path == "/jobs/bench-7");

  // v1 without a memory controller and no "0::" line.
  const auto no_mem = parse_proc_self_cgroup(fixture("cgroup_v1_no_memory.txt"));
  CHECK(no_mem.version == "none");
  CHECK(no_mem.path.empty());

  const auto empty = parse_proc_self_cgroup(fixture("cgroup_empty.txt"));
  CHECK(empty.version == "none");
  CHECK(empty.path.empty());

  // "memory" must be a whole controller name, not a substring.
  CHECK(parse_proc_self_cgroup("3:memory_stats:/x\n0::/y\n").version == "v2");
}

TEST_CASE("binding limit: the smallest applicable limit wins and is named", "[memory]") {
  MemoryLimits m;
  m.mem_total_bytes = 16 * kGiB;
  m.mem_available_bytes = 8 * kGiB;
  CHECK(m.binding_limit_bytes() == 8 * kGiB);
  CHECK(m.binding_limit_name() == "MemAvailable");

  m.cgroup_version = "v2";
  m.cgroup_limit_bytes = 4 * kGiB;
  m.cgroup_usage_bytes = 1 * kGiB;
  CHECK(m.binding_limit_bytes() == 3 * kGiB);
  CHECK(m.binding_limit_name() == "cgroup memory.max");

  // CommitLimit only counts under strict overcommit (mode 2).
  m.commit_limit_bytes = 3 * kGiB;
  m.committed_as_bytes = 2 * kGiB;
  m.overcommit_mode = 0;
  CHECK(m.binding_limit_name() == "cgroup memory.max");
  m.overcommit_mode = 2;
  CHECK(m.binding_limit_bytes() == 1 * kGiB);
  CHECK(m.binding_limit_name() == "CommitLimit");

  // RLIMIT_AS counts minus this process's current VmSize.
  const std::uint64_t vm = vm_size_now();
  REQUIRE(vm > 0);
  m.rlimit_as_bytes = vm + 512 * kMiB;
  CHECK(m.binding_limit_name() == "RLIMIT_AS");
  CHECK(m.binding_limit_bytes() <= 512 * kMiB);
  CHECK(m.binding_limit_bytes() >= 500 * kMiB);
}

TEST_CASE("usable memory is what the process holds plus the binding limit, for the engines and the probe alike", "[memory][plan]") {
  // The engines' usable_memory_bytes() (run_support.cpp) and the probe's
  // target share this definition (engines/executor/memory_limits.h).
  MemoryLimits m;
  m.mem_total_bytes = 16 * kGiB;
  m.mem_available_bytes = 8 * kGiB;
  CHECK(usable_memory_bytes(m, 2 * kGiB) == 10 * kGiB);
  // A 4 GiB cgroup that already counts 3 GiB (this process's 2 GiB RSS and
  // 1 GiB of page cache) leaves 1 GiB more: usable is 3 GiB, not the
  // limit's 4 GiB nor MemAvailable + RSS (10 GiB).
  m.cgroup_version = "v2";
  m.cgroup_limit_bytes = 4 * kGiB;
  m.cgroup_usage_bytes = 3 * kGiB;
  CHECK(usable_memory_bytes(m, 2 * kGiB) == 3 * kGiB);
  // No limit known at all: MemAvailable (0 here) beside the RSS.
  CHECK(usable_memory_bytes(MemoryLimits{}, 2 * kGiB) == 2 * kGiB);
}

TEST_CASE("read_memory_limits on this machine", "[memory]") {
  const MemoryLimits m = read_memory_limits();
  for (const auto& n : m.notes) UNSCOPED_INFO("note: " << n);
  INFO("MemTotal " << m.mem_total_bytes << " MemAvailable " << m.mem_available_bytes << " cgroup "
                   << m.cgroup_version << " " << m.cgroup_path << " limit "
                   << (m.cgroup_limit_bytes ? std::to_string(*m.cgroup_limit_bytes) : "none")
                   << " usage "
                   << (m.cgroup_usage_bytes ? std::to_string(*m.cgroup_usage_bytes) : "?")
                   << " overcommit " << m.overcommit_mode << " RLIMIT_MEMLOCK "
                   << (m.rlimit_memlock_bytes ? std::to_string(*m.rlimit_memlock_bytes) : "inf")
                   << " binding " << m.binding_limit_bytes() << " (" << m.binding_limit_name()
                   << ")");
  CHECK(m.mem_total_bytes > 0);
  CHECK(m.mem_available_bytes > 0);
  CHECK(m.mem_available_bytes <= m.mem_total_bytes);
  CHECK(m.swap_free_bytes <= m.swap_total_bytes);
  CHECK(m.binding_limit_bytes() > 0);
  CHECK(m.binding_limit_bytes() <= m.mem_available_bytes);
  CHECK(!m.binding_limit_name().empty());
#if defined(__linux__)
  CHECK(m.cgroup_version != "");
  CHECK(m.overcommit_mode >= 0);
  CHECK(m.overcommit_mode <= 2);
  REQUIRE(m.commit_limit_bytes.has_value());
  CHECK(*m.commit_limit_bytes > 0);
#endif
}

namespace {

// What the RLIMIT_AS child reports back to the test (plain bytes over a pipe).
struct AsChildReport {
  int ok = 0;
  std::uint64_t rlimit_as = 0;
  std::uint64_t binding = 0;
  std::uint64_t target = 0;
  std::uint64_t touchable = 0;
  std::uint64_t held = 0;
  double touch_rate = 0;
  char binding_name[48] = {};
  char bound_by[48] = {};
  char stop_reason[96] = {};
  char error[400] = {};
};

// At most cap - 1 bytes and a NUL (what snprintf with %s did); no allocation.
void copy_text(char* dst, std::size_t cap, const std::string& src) {
  if (cap == 0) return;
  *fmt::format_to_n(dst, cap - 1, "{}", src).out = '\0';
}

[[noreturn]] void rlimit_as_child(int fd) {
  AsChildReport rep;
  const std::uint64_t vm = vm_size_now();
  struct rlimit rl {};
  ::getrlimit(RLIMIT_AS, &rl);
  rl.rlim_cur = static_cast<rlim_t>(vm + kGiB);
  if (vm == 0 || ::setrlimit(RLIMIT_AS, &rl) != 0) {
    copy_text(rep.error, sizeof rep.error, "cannot read VmSize or set RLIMIT_AS");
  } else {
    rep.rlimit_as = vm + kGiB;
    const MemoryLimits limits = read_memory_limits();
    UsableMemoryOptions o;
    o.hold_s = 0.2;
    o.margin_fraction = 0;
    o.min_margin_bytes = 16 * kMiB;
    // No touch-rate collapse stop: on a loaded machine a few slow chunks
    // would end the touch early; the outcome here depends on bytes only.
    o.collapse_ratio = 0;
    rep.binding = limits.binding_limit_bytes();  // RLIMIT_AS − VmSize at probe time
    copy_text(rep.binding_name, sizeof rep.binding_name, limits.binding_limit_name());
    auto r = probe_usable_memory(limits, o);
    if (!r) {
      copy_text(rep.error, sizeof rep.error, r.error().message);
    } else {
      rep.ok = 1;
      rep.target = r->target_bytes;
      rep.touchable = r->touchable_bytes;
      rep.held = r->held_bytes;
      rep.touch_rate = r->touch_bytes_s;
      copy_text(rep.bound_by, sizeof rep.bound_by, r->bound_by);
      copy_text(rep.stop_reason, sizeof rep.stop_reason, r->stop_reason);
    }
  }
  const char* p = reinterpret_cast<const char*>(&rep);
  std::size_t done = 0;
  while (done < sizeof rep) {
    const ssize_t w = ::write(fd, p + done, sizeof rep - done);
    if (w <= 0) ::_exit(2);
    done += static_cast<std::size_t>(w);
  }
  ::_exit(0);
}

}  // namespace

// [native]: qemu-user does not apply a guest's RLIMIT_AS (its own mappings
// would break), so the limit binds nothing there; native builds only.
TEST_CASE("probe under a reduced RLIMIT_AS finds that limit and the parent survives",
          "[memory][native]") {
  struct rlimit before {};
  REQUIRE(::getrlimit(RLIMIT_AS, &before) == 0);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    rlimit_as_child(fds[1]);
  }
  ::close(fds[1]);
  AsChildReport rep;
  std::size_t got = 0;
  char* dst = reinterpret_cast<char*>(&rep);
  while (got < sizeof rep) {
    const ssize_t n = ::read(fds[0], dst + got, sizeof rep - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(got == sizeof rep);
  INFO("error: " << rep.error);
  REQUIRE(rep.ok == 1);

  const double diff = std::abs(static_cast<double>(rep.touchable) - static_cast<double>(rep.binding)) /
                      static_cast<double>(rep.binding);
  INFO("RLIMIT_AS " << rep.rlimit_as << " binding " << rep.binding << " (" << rep.binding_name
                    << ") target " << rep.target << " touchable " << rep.touchable << " held "
                    << rep.held << " diff " << diff * 100 << " % rate " << rep.touch_rate
                    << " B/s bound_by " << rep.bound_by << " stop " << rep.stop_reason);
  CHECK(std::string(rep.binding_name) == "RLIMIT_AS");
  CHECK(rep.binding <= kGiB);
  CHECK(rep.binding > kGiB - 64 * kMiB);
  CHECK(diff <= 0.05);
  CHECK(rep.touchable <= rep.binding);
  const std::string bound_by = rep.bound_by;
  CHECK((bound_by == "RLIMIT_AS" || bound_by == "allocation failure"));
  CHECK(rep.touch_rate > 0);
  // This process (the parent of the probe's parent) is alive and kept its limit.
  struct rlimit after {};
  REQUIRE(::getrlimit(RLIMIT_AS, &after) == 0);
  CHECK(after.rlim_cur == before.rlim_cur);
}

TEST_CASE("probe capped at 256 MiB: touch, hold, lock", "[memory]") {
  const MemoryLimits limits = read_memory_limits();
  UsableMemoryOptions o;
  o.max_bytes = 256 * kMiB;
  o.hold_s = 0.2;
  o.collapse_ratio = 0;  // "target reached" must not depend on how busy the machine is
  auto r = probe_usable_memory(limits, o);
  INFO((r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  for (const auto& n : r->notes) UNSCOPED_INFO("note: " << n);
  INFO("target " << r->target_bytes << " touchable " << r->touchable_bytes << " held "
                 << r->held_bytes << " lockable " << r->lockable_bytes << " rate "
                 << r->touch_bytes_s << " B/s bound_by " << r->bound_by << " stop "
                 << r->stop_reason << " RLIMIT_MEMLOCK "
                 << (limits.rlimit_memlock_bytes ? std::to_string(*limits.rlimit_memlock_bytes)
                                                 : "inf"));
  CHECK(r->target_bytes == 256 * kMiB);
  CHECK(r->touchable_bytes <= 256 * kMiB);
  CHECK(r->touchable_bytes + o.chunk_bytes > 256 * kMiB);
  CHECK(r->stop_reason == "target reached");
  CHECK(r->bound_by == "max_bytes");
  CHECK(r->held_bytes <= r->touchable_bytes);
  CHECK(r->held_bytes > 0);
  CHECK(r->lockable_bytes <= r->touchable_bytes);
  if (limits.rlimit_memlock_bytes) CHECK(r->lockable_bytes <= *limits.rlimit_memlock_bytes);
  CHECK(r->touch_bytes_s > 0);
}

TEST_CASE("probe options are checked, impossible targets are errors, not crashes", "[memory]") {
  const MemoryLimits limits = read_memory_limits();
  UsableMemoryOptions o;
  o.chunk_bytes = 0;
  auto r = probe_usable_memory(limits, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("chunk_bytes") != std::string::npos);

  o = UsableMemoryOptions{};
  o.margin_fraction = 1.5;
  CHECK_FALSE(probe_usable_memory(limits, o).ok());

  // A binding limit below the safety margin: nothing is allocated.
  MemoryLimits tight;
  tight.mem_total_bytes = 8 * kGiB;
  tight.mem_available_bytes = 100 * kMiB;
  auto t = probe_usable_memory(tight, UsableMemoryOptions{});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find("MemAvailable") != std::string::npos);
  CHECK(t.error().message.find("safety margin") != std::string::npos);
}

TEST_CASE("a DGX Spark's unified memory is named with the signal that showed it", "[memory_limits]") {
  UnifiedMemorySignals s;
  s.cpu_model = "AMD EPYC 9554 64-Core Processor";
  s.pci_ids = {"8086:1237", "1af4:1001"};
  CHECK(unified_memory_note(s).empty());  // an ordinary server: nothing to say

  s.dmi_product_name = "NVIDIA_DGX_Spark";
  const std::string dmi = unified_memory_note(s);
  CHECK(dmi.find("DMI product name \"NVIDIA_DGX_Spark\"") != std::string::npos);
  CHECK(dmi.find("GPU allocations come out of the same pool") != std::string::npos);

  s.dmi_product_name = "Pro Max GB10";  // an OEM box: the cores say it
  s.cpu_model = "10 x Cortex-A725 + 10 x Cortex-X925";
  CHECK(unified_memory_note(s).find("Cortex-X925 + Cortex-A725") != std::string::npos);

  s.cpu_model = "unknown";
  s.pci_ids.push_back("10de:22ce");
  CHECK(unified_memory_note(s).find("GB10 PCIe host bridge (10de:22ce)") != std::string::npos);
}
