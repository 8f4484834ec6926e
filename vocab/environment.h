// environment.h — the conditions of a run, captured once and referenced by
// every row through run_id: moebench version and commit, compiler and flags,
// build type (Debug and sanitizer builds are flagged loudly, their timings
// are not comparable), kernel, CPU, cores, memory, hostname, start time
// (RFC 3339, UTC) and the machine profile used.
#pragma once

#include <cstdint>
#include <string>

#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

struct Environment {
  std::string run_id;
  std::string moebench_version;
  std::string git_commit;
  std::string compiler;
  std::string compiler_flags;
  std::string build_type;
  std::string sanitizers;  // "" when none
  std::string kernel;
  std::string cpu_model;
  int logical_cpus = 0;
  std::uint64_t memory_total_bytes = 0;
  std::string hostname;
  std::string started_at;       // RFC 3339 UTC
  std::string machine_profile;  // "name (source)" as printed, or "none"
  // The profile as two fields: its name, and where it came from (a file
  // path, or "embedded:configs/hardware/NAME.json"); empty without a profile,
  // and in results written before they were recorded (profile_ref).
  std::string machine_name, machine_source;
  std::string command_line;
  // "" on a native run; else what emulates this binary ("aarch64 code on an
  // x86-64 CPU: a user-mode emulator such as qemu-user"). Timings from such
  // a run describe the emulator, not a machine of the binary's architecture.
  std::string emulation;

  // "" when timings from this build are trustworthy; else why not.
  std::string build_warning() const;
  // "moebench 0.1.0 (abc1234, Release)"
  std::string build_label() const;
};

// The architecture this binary was compiled for: "x86_64", "aarch64", or
// "other".
const char* compiled_architecture();
// The CPU architecture /proc/cpuinfo text describes ("x86_64", "aarch64",
// or "" when it does not say), and the CPU model it names: x86 "model
// name"; on aarch64 the cores by implementer and part ("10 x Cortex-X925 +
// 10 x Cortex-A725"), from the part numbers of Linux's
// arch/arm64/include/asm/cputype.h.
std::string cpuinfo_architecture(const std::string& cpuinfo);
std::string cpuinfo_model(const std::string& cpuinfo);
// The host kernel's architecture from files qemu-user does not rewrite
// (newer qemu-user versions replace /proc/cpuinfo with an aarch64 one):
// /proc/sys/kernel/arch, else the CPU type of /sys/devices/system/cpu/
// modalias ("cpu:type:x86,..." → "x86_64"); "" when neither says.
std::string host_kernel_architecture();
// "" when this binary's architecture is the host's (or unknown); else the
// emulation note (Environment::emulation). The host is `kernel_arch` when
// known, else what the cpuinfo text describes.
std::string emulation_note(const std::string& cpuinfo, const std::string& kernel_arch = "");

// This host's CPU as capture_environment names it (Environment::cpu_model:
// "emulated aarch64 on AMD EPYC" under emulation).
std::string host_cpu_model();

// The profile a run used, name and source: the recorded fields, else the
// "name (source)" label of older results parsed once here; both empty when
// the run named no profile.
struct ProfileRef {
  std::string name, source;
};
ProfileRef profile_ref(const Environment& e);

// Captures this process's environment. `machine_profile` names the profile
// used for the run ("none" if the run used none).
Environment capture_environment(const std::string& machine_profile, const std::string& command_line);

Json environment_to_json(const Environment& e);
Expected<Environment> environment_from_json(const Json& j);

std::string rfc3339_now_utc();

}  // namespace moebench
