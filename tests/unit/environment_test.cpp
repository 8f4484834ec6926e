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
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
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
