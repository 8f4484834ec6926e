// test_support.h — shared helpers for unit tests: a temporary directory that
// cleans up after itself, a SweepContext over the shipped configs, and a
// byte flipped in place (a corrupted file).
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "engines/registry.h"
#include "model/regime_store.h"
#include "vocab/config_store.h"
#include "vocab/environment.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"
#include "vocab/sweep_spec.h"

namespace moebench::testing {

class TempDir {
 public:
  // Under /var/tmp when the temporary directory is in RAM (tmpfs /tmp on
  // Debian 13, Fedora, Arch): tests stream from their TempDirs, and a drive
  // directory in RAM is (rightly) an invalid streaming point.
  TempDir() {
    std::filesystem::path base = std::filesystem::temp_directory_path();
    if (auto fs = filesystem_kind(base.string()); fs && fs->in_ram) base = "/var/tmp";
    std::string tmpl = (base / "moebench-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// XORs the byte at `offset` of `path` with 0x5a, in place: a corrupted file.
inline void flip_byte(const std::string& path, std::uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  unsigned char b = 0;
  REQUIRE(::pread(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  b ^= 0x5a;
  REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

// A run's environment with every field fixed (no capture of this host):
// what results files, journals and history rows of the tests carry. Tests
// set the fields their case is about.
inline Environment fixed_environment(const std::string& run_id = "20261129T120000Z-abcdef") {
  Environment e;
  e.run_id = run_id;
  e.moebench_version = "0.1.0";
  e.git_commit = "0123456789ab";
  e.compiler = "GNU 12.2.0";
  e.compiler_flags = "-O3 -DNDEBUG";
  e.build_type = "Release";
  e.kernel = "Linux 6.1.0 x86_64";
  e.cpu_model = "Test CPU";
  e.logical_cpus = 2;
  e.memory_total_bytes = 24ull << 30;
  e.hostname = "testhost";
  e.started_at = "2026-11-29T12:00:00Z";
  e.machine_profile = "none";
  e.command_line = "moebench run quick";
  return e;
}

inline const ConfigStore& shipped_store() {
  static const ConfigStore store({std::string(MOEBENCH_SOURCE_DIR) + "/configs"});
  return store;
}

// A shipped catalog profile (configs/hardware/NAME.json), loaded strictly.
inline MachineProfile catalog_profile(const std::string& name) {
  auto src = shipped_store().find("hardware", name);
  REQUIRE(src);
  auto p = load_config_text<MachineProfile>(src->text, src->label, load_machine_profile);
  REQUIRE(p);
  return *p;
}

inline SweepContext shipped_context() {
  SweepContext c;
  add_engines_to_context(c);
  c.card_names = shipped_store().names("models");
  c.find_card = [](const std::string& n) { return shipped_store().card(n); };
  c.check_regime_fit = check_regime_fit;
  return c;
}

// Compares `actual` with tests/golden/NAME; with MOEBENCH_UPDATE_GOLDEN set,
// rewrites the file instead (review the diff).
inline void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(MOEBENCH_GOLDEN_DIR) + "/" + name;
  if (std::getenv("MOEBENCH_UPDATE_GOLDEN") != nullptr) {
    REQUIRE(write_file_atomic(path, actual).ok());
    WARN("rewrote " << path);
    return;
  }
  auto expected = read_file(path);
  REQUIRE(expected.ok());
  CHECK(actual == *expected);
}

}  // namespace moebench::testing
