// environment_test.cpp — the run's conditions: captured fields, the loud
// warning for builds whose timings are not representative, the JSON round
// trip, and the progress line a terminal user sees.
#include <catch2/catch.hpp>

#include <cstdio>

#include "harness/terminal_progress.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/progress.h"

using namespace moebench;

TEST_CASE("capture fills the conditions and round-trips", "[environment]") {
  const Environment e = capture_environment("lab-box", "moebench run x");
  CHECK(!e.run_id.empty());
  CHECK(e.started_at.size() == 20);  // 2026-11-29T12:00:00Z
  CHECK(e.started_at.back() == 'Z');
  CHECK(e.logical_cpus > 0);
  CHECK(e.memory_total_bytes > 0);
  CHECK(!e.compiler.empty());
  CHECK(e.machine_profile == "lab-box");
  auto back = environment_from_json(environment_to_json(e));
  REQUIRE(back.ok());
  CHECK(environment_to_json(*back) == environment_to_json(e));
  CHECK(capture_environment("", "x").machine_profile == "none");
  // bench-peer's report names the CPU the way every row's environment does.
  CHECK(host_cpu_model() == e.cpu_model);
  CHECK(!e.cpu_model.empty());
}

TEST_CASE("the run's profile as two fields: recorded, or parsed once from an older label", "[environment]") {
  Environment e = capture_environment("lab (results/probe-lab.json)", "moebench run x");
  e.machine_name = "lab";
  e.machine_source = "results/probe-lab.json";
  auto back = environment_from_json(environment_to_json(e));
  REQUIRE(back.ok());
  CHECK(back->machine_name == "lab");
  CHECK(back->machine_source == "results/probe-lab.json");
  CHECK(profile_ref(*back).source == "results/probe-lab.json");
  // Results written before the two fields: the label "name (source)".
  Environment old = capture_environment("epyc (profiles/my box (2).json)", "x");
  CHECK(profile_ref(old).name == "epyc");
  CHECK(profile_ref(old).source == "profiles/my box (2).json");
  CHECK(profile_ref(capture_environment("bare-name", "x")).name == "bare-name");
  CHECK(profile_ref(capture_environment("bare-name", "x")).source.empty());
  const ProfileRef none = profile_ref(capture_environment("", "x"));
  CHECK(none.name.empty());
  CHECK(none.source.empty());
  // The fields are optional in the record: an environment without them loads.
  Json j = environment_to_json(capture_environment("", "x"));
  CHECK_FALSE(j.contains("machine_name"));
  CHECK(environment_from_json(j).ok());
}

namespace {
// /proc/cpuinfo excerpts: an x86-64 core, and a GB10-like aarch64 CPU (two
// core types, as Linux prints them) with one part moebench has no name for.
const char* kX86Cpuinfo =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9554 64-Core Processor\n"
    "flags\t\t: fpu sse2 avx2\n\n";
const char* kArmCpuinfo =
    "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd asimddp i8mm\nCPU implementer\t: 0x41\n"
    "CPU part\t: 0xd85\n\nprocessor\t: 1\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd85\n\n"
    "processor\t: 2\nCPU implementer\t: 0x41\nCPU part\t: 0xd87\n\n"
    "processor\t: 3\nCPU implementer\t: 0x41\nCPU part\t: 0xfff\n";
}  // namespace

TEST_CASE("the CPU model and architecture come from /proc/cpuinfo, aarch64 cores by part", "[environment]") {
  CHECK(cpuinfo_architecture(kX86Cpuinfo) == "x86_64");
  CHECK(cpuinfo_model(kX86Cpuinfo) == "AMD EPYC 9554 64-Core Processor");
  CHECK(cpuinfo_architecture(kArmCpuinfo) == "aarch64");
  CHECK(cpuinfo_model(kArmCpuinfo) == "2 x Cortex-X925 + 1 x Cortex-A725 + 1 x Arm part 0xfff");
  CHECK(cpuinfo_architecture("").empty());
  CHECK(cpuinfo_model("") == "unknown");
}

TEST_CASE("a binary running on another architecture's CPU is labelled emulated", "[environment]") {
  const std::string self = compiled_architecture();
  if (self == "other") {
    SUCCEED("built for neither x86-64 nor aarch64");
    return;
  }
  const std::string own = self == "x86_64" ? kX86Cpuinfo : kArmCpuinfo;
  const std::string other = self == "x86_64" ? kArmCpuinfo : kX86Cpuinfo;
  CHECK(emulation_note(own).empty());
  CHECK(emulation_note("").empty());  // no cpuinfo: unknown, not emulated
  const std::string note = emulation_note(other);
  CHECK(note.find(self + " code on an") != std::string::npos);
  CHECK(note.find("emulator") != std::string::npos);
  // Newer qemu-user shows the guest an aarch64 /proc/cpuinfo: the host
  // kernel's architecture still tells.
  const std::string other_arch = self == "x86_64" ? "aarch64" : "x86_64";
  CHECK(emulation_note(own, other_arch).find(self + " code on an") != std::string::npos);
  CHECK(emulation_note(other, self).empty());  // the kernel's word wins over a cpuinfo text
  WARN("host kernel architecture: \"" << host_kernel_architecture() << "\"");  // "" when /proc and /sys do not say
  // The run's conditions carry it, and say so loudly.
  Environment e;
  e.build_type = "Release";
  e.emulation = note;
  CHECK(e.build_warning().find("emulated") != std::string::npos);
  CHECK(environment_to_json(e).at("emulation") == note);
  auto back = environment_from_json(environment_to_json(e));
  REQUIRE(back.ok());
  CHECK(back->emulation == note);
  e.emulation.clear();
  CHECK_FALSE(environment_to_json(e).contains("emulation"));  // native rows keep their old shape
}

TEST_CASE("Debug and sanitizer builds are flagged", "[environment]") {
  Environment e;
  e.build_type = "Release";
  CHECK(e.build_warning().empty());
  e.build_type = "Debug";
  CHECK(e.build_warning().find("Debug build") != std::string::npos);
  e.build_type = "Release";
  e.sanitizers = "address";
  CHECK(e.build_warning().find("sanitizers (address)") != std::string::npos);
  CHECK(e.build_label().find("+address") != std::string::npos);
}

namespace {
// What was written to a tmpfile, which is then closed.
std::string read_and_close(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}
}  // namespace

TEST_CASE("log progress: plain lines at most every 10 s, every failed point, the last point", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  FakeClock clock;
  LogProgress p(f, clock);
  p.sweep_started(5, 0);
  for (std::size_t i = 1; i <= 3; ++i) {  // three 4-second points: one line once 10 s have passed
    p.point_started(i, "null p" + std::to_string(i));
    clock.advance(4);
    p.phase("repetition 1/1", -1);
    p.point_finished(RowStatus::kOk, 4);
  }
  p.point_started(4, "null p4");
  p.point_finished(RowStatus::kFailed, 0);  // a failed point always
  p.point_started(5, "null p5");
  p.point_finished(RowStatus::kOk, 0);      // the last point always
  const std::string text = read_and_close(f);
  INFO(text);
  CHECK(text ==
        "progress: 5 points\n"
        "progress: [3/5] null p3 — repetition 1/1; 12.0 s elapsed, ETA 12.0 s\n"
        "progress: [4/5] null p4 — failed in 0 ms; 12.0 s elapsed, ETA 3.0 s\n"
        "progress: [5/5] null p5 — ok in 0 ms; 12.0 s elapsed, ETA 0 ms\n");
  CHECK(text.find('\r') == std::string::npos);  // no redraws in a log
}

TEST_CASE("terminal progress shows point i/N, what runs and an ETA", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  FakeClock clock;
  TerminalProgress p(f, clock);
  p.sweep_started(4, 1);
  p.point_started(2, "null tiny-moe");
  clock.advance(10);
  p.point_finished(RowStatus::kOk, 10);
  p.point_started(3, "null tiny-moe ctx=64");
  clock.advance(1);  // redraws are throttled to ~10 per second
  p.phase("repetition 2/3", -1);
  p.point_finished(RowStatus::kFailed, 10);
  p.sweep_finished();
  const std::string text = read_and_close(f);
  INFO(text);
  CHECK(text.find("resuming: 1 of 4 points already finished") != std::string::npos);
  CHECK(text.find("[2/4] null tiny-moe") != std::string::npos);
  CHECK(text.find("[3/4] null tiny-moe ctx=64 — repetition 2/3  ETA 19.0 s") != std::string::npos);
  CHECK(text.find("[3/4] null tiny-moe ctx=64: failed") != std::string::npos);
  // Byte for byte (the output as printf wrote it, before {fmt}): each redraw
  // returns to column 0 and clears the line.
  CHECK(text ==
        "resuming: 1 of 4 points already finished\n"
        "\r\033[K[2/4] null tiny-moe  ETA ?"
        "\r\033[K[3/4] null tiny-moe ctx=64  ETA 20.0 s"
        "\r\033[K[3/4] null tiny-moe ctx=64 — repetition 2/3  ETA 19.0 s"
        "\r\033[K[3/4] null tiny-moe ctx=64: failed\n"
        "\r\033[K");
}
