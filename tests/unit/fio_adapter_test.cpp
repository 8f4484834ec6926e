// fio_adapter_test.cpp — the fio adapter: parsing real fio outputs captured
// on a machine (tests/data/fio), precise errors for bad outputs, the job
// file, and running fio (a real one when installed, fake ones otherwise).
#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"
#include "vocab/text.h"
#include "probes/fio_adapter.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

const std::string kFioData = std::string(MOEBENCH_TEST_DATA) + "/fio";

std::string fixture(const std::string& name) { return read_file(kFioData + "/" + name).value(); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The JSON object in a captured output, read independently of the adapter.
Json fixture_json(const std::string& name) {
  const std::string text = fixture(name);
  return Json::parse(text.substr(text.find("\n{") == std::string::npos ? text.find('{')
                                                                       : text.find("\n{") + 1));
}

std::string error_of(const std::string& text, const std::string& label = "out.json") {
  auto r = parse_fio_json(text, label);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

std::vector<std::string> lines_of(const std::string& text) { return split(text, '\n'); }

bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& l : lines_of(text)) {
    if (l == line) return true;
  }
  return false;
}

// Writes `bytes` bytes (a non-zero pattern) to `path`.
void write_test_file(const std::string& path, std::size_t bytes) {
  std::vector<char> block(1 << 20);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream out(path, std::ios::binary);
  for (std::size_t done = 0; done < bytes; done += block.size()) {
    out.write(block.data(), static_cast<std::streamsize>(std::min(block.size(), bytes - done)));
  }
  REQUIRE(out.good());
}

// An executable shell script standing in for fio.
std::string fake_fio(const TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  REQUIRE(write_file_atomic(path, "#!/bin/sh\n" + body + "\n").ok());
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
  return path;
}

FioCell small_cell(const std::string& file_path) {
  FioCell c;
  c.file_path = file_path;
  c.file_bytes = 16u << 20;
  c.block_bytes = 1u << 20;
  c.queue_depth = 4;
  c.random = true;
  c.runtime_s = 1;
  c.ioengine = "io_uring";
  c.direct = true;
  return c;
}

struct PathGuard {
  std::string saved;
  bool had = false;
  explicit PathGuard(const std::string& value) {
    if (const char* p = ::getenv("PATH")) {
      had = true;
      saved = p;
    }
    ::setenv("PATH", value.c_str(), 1);
  }
  ~PathGuard() {
    if (had) {
      ::setenv("PATH", saved.c_str(), 1);
    } else {
      ::unsetenv("PATH");
    }
  }
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;
};

}  // namespace

TEST_CASE("captured fio outputs parse to the numbers in the files", "[fio]") {
  struct Golden {
    std::string file;
    double bw_bytes, iops;
    std::uint64_t io_bytes;
    double runtime_ms, clat_mean_ns, p50_ns, p99_ns;
  };
  // Observed in the captured files (fio-3.33 on the capture machine).
  const std::vector<Golden> goldens = {
      {"randread_1m_qd16_io_uring.json", 1815826731, 1731.707317, 3647995904ull, 2009,
       9183789.547571, 8585216, 26083328},
      {"randread_17547264_qd4_io_uring.json", 1957429053, 111.55181, 3948134400ull, 2017,
       34854686.933333, 34340864, 53739520},
      {"read_4k_qd1_psync.json", 79979466, 19526.236882, 160038912ull, 2001, 50899.619421, 41728,
       84480},
  };
  for (const Golden& g : goldens) {
    INFO(g.file);
    auto r = parse_fio_json(fixture(g.file), g.file);
    if (!r) FAIL(r.error().message);

    // Against the file itself, read independently.
    const Json j = fixture_json(g.file);
    const Json& rd = j["jobs"][0]["read"];
    CHECK(r->fio_version == j["fio version"].get<std::string>());
    CHECK(r->read_bytes_s == rd["bw_bytes"].get<double>());
    CHECK(r->iops == rd["iops"].get<double>());
    CHECK(r->io_bytes == rd["io_bytes"].get<std::uint64_t>());
    CHECK(r->runtime_s == rd["runtime"].get<double>() / 1000.0);
    CHECK(r->clat_mean_ns == rd["clat_ns"]["mean"].get<double>());
    CHECK(r->clat_p50_ns == rd["clat_ns"]["percentile"]["50.000000"].get<double>());
    CHECK(r->clat_p99_ns == rd["clat_ns"]["percentile"]["99.000000"].get<double>());

    // Against the numbers observed when the file was captured.
    CHECK(r->fio_version == "fio-3.33");
    CHECK(r->read_bytes_s == g.bw_bytes);
    CHECK(r->iops == Approx(g.iops).epsilon(1e-12));
    CHECK(r->io_bytes == g.io_bytes);
    CHECK(r->runtime_s == Approx(g.runtime_ms / 1000.0).epsilon(1e-12));
    CHECK(r->clat_mean_ns == Approx(g.clat_mean_ns).epsilon(1e-12));
    CHECK(r->clat_p50_ns == g.p50_ns);
    CHECK(r->clat_p99_ns == g.p99_ns);
    CHECK(r->clat_p50_ns <= r->clat_p99_ns);
  }
}

TEST_CASE("bad fio outputs give distinct errors naming the label and JSON path", "[fio]") {
  const Json good = fixture_json("randread_1m_qd16_io_uring.json");
  std::set<std::string> messages;
  auto expect = [&](const std::string& text, const std::vector<std::string>& parts) {
    const std::string m = error_of(text, "cell-7.json");
    INFO(m);
    CHECK(m.rfind("cell-7.json", 0) == 0);
    for (const std::string& p : parts) CHECK(contains(m, p));
    messages.insert(m);
  };

  expect("", {"empty"});
  expect("  \n\t\n", {"empty"});
  expect("fio: engine io_uring not loadable\nfio: failed to load engine\n",
         {"no JSON object", "fio: engine io_uring not loadable"});
  expect("{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n", {"cell-7.json:", "not valid JSON"});
  expect(R"({"jobs": []})", {"/fio version", "missing"});
  expect(R"({"fio version": "fio-3.33"})", {"/jobs", "missing"});
  expect(R"({"fio version": "fio-3.33", "jobs": []})", {"/jobs", "no jobs"});

  Json j = good;
  j["jobs"][0]["error"] = 5;
  expect(j.dump(2), {"/jobs/0/error", "error 5", "Input/output error", "\"moebench\""});

  j = good;
  j["jobs"][0].erase("read");
  expect(j.dump(2), {"/jobs/0/read", "missing"});

  j = good;
  j["jobs"][0]["read"]["bw_bytes"] = "fast";
  expect(j.dump(2), {"/jobs/0/read/bw_bytes", "expected a number"});

  j = good;
  j["jobs"][0]["read"].erase("io_bytes");
  expect(j.dump(2), {"/jobs/0/read/io_bytes", "missing"});

  j = good;
  j["jobs"][0]["read"].erase("runtime");
  expect(j.dump(2), {"/jobs/0/read/runtime", "missing"});

  j = good;
  j["jobs"][0]["read"]["clat_ns"].erase("mean");
  expect(j.dump(2), {"/jobs/0/read/clat_ns/mean", "missing"});

  j = good;
  j["jobs"][0]["read"]["clat_ns"].erase("percentile");
  expect(j.dump(2), {"/jobs/0/read/clat_ns/percentile", "missing from fio's JSON output"});

  j = good;
  j["jobs"][0]["read"]["clat_ns"].erase("percentile");
  j["jobs"][0]["read"]["clat_ns"]["N"] = 0;
  expect(j.dump(2), {"/jobs/0/read/clat_ns/percentile", "no read completed", "/N is 0"});

  j = good;
  j["jobs"][0]["read"]["clat_ns"]["percentile"].erase("99.000000");
  expect(j.dump(2), {"/jobs/0/read/clat_ns/percentile/99.000000", "missing"});

  j = good;
  j["jobs"][0]["read"]["clat_ns"]["percentile"].erase("50.000000");
  expect(j.dump(2), {"/jobs/0/read/clat_ns/percentile/50.000000", "missing"});

  CHECK(messages.size() == 16);  // one message per case above; the two empty texts share one

  // Real failed runs, captured: fio's error number is named and explained.
  const std::string enoent = error_of(fixture("missing_file_enoent.txt"), "missing.out");
  CHECK(contains(enoent, "missing.out: /jobs/0/error"));
  CHECK(contains(enoent, "error 2 (No such file or directory)"));
  const std::string eio = error_of(fixture("short_file_eio.txt"), "short.out");
  CHECK(contains(eio, "short.out: /jobs/0/error"));
  CHECK(contains(eio, "error 5 (Input/output error)"));
}

TEST_CASE("text before and after fio's JSON is tolerated", "[fio]") {
  const std::string golden = fixture("read_4k_qd1_psync.json");
  const double bw = fixture_json("read_4k_qd1_psync.json")["jobs"][0]["read"]["bw_bytes"].get<double>();

  auto r = parse_fio_json("fio: warning: something odd {maybe}\nnote: more\n" + golden + "\nfio: done\n", "w");
  if (!r) FAIL(r.error().message);
  CHECK(r->read_bytes_s == bw);

  // A real capture: fio printed "fio: cache invalidation ... failed" before the JSON.
  const std::string real = fixture("warning_before_json_short_file.txt");
  REQUIRE(real.rfind("fio: ", 0) == 0);
  auto w = parse_fio_json(real, "w.out");
  if (!w) FAIL(w.error().message);
  CHECK(w->io_bytes == fixture_json("warning_before_json_short_file.txt")["jobs"][0]["read"]["io_bytes"]
                           .get<std::uint64_t>());
  CHECK(w->io_bytes > 0);

  // A syntax error's line number counts the leading lines too.
  const std::string m = error_of("fio: warning\n{\n  \"a\": }\n", "w");
  CHECK(m.rfind("w:3:", 0) == 0);
}

TEST_CASE("fio job text for a cell", "[fio]") {
  FioCell c;
  c.file_path = "/data/moebench/test-file";
  c.file_bytes = 68719476736ull;
  c.block_bytes = 17547264;  // 4284 x 4096
  c.queue_depth = 8;
  c.random = true;
  c.runtime_s = 2.5;
  c.ioengine = "libaio";
  c.direct = true;
  const std::string t = fio_job_text(c);
  INFO(t);
  for (const char* line :
       {"filename=/data/moebench/test-file", "rw=randread", "bs=17547264", "iodepth=8", "ioengine=libaio",
        "direct=1", "time_based=1", "runtime=2500ms", "size=68719476736", "numjobs=1", "group_reporting",
        "norandommap=1", "randrepeat=0", "invalidate=1", "allow_file_create=0"}) {
    CHECK(has_line(t, line));
  }
  // Exactly one job section; nothing that writes.
  std::size_t sections = 0;
  for (const std::string& l : lines_of(t)) sections += (!l.empty() && l[0] == '[') ? 1 : 0;
  CHECK(sections == 1);
  CHECK_FALSE(contains(t, "write"));
  CHECK_FALSE(contains(t, "rw=rw"));

  c.random = false;
  c.direct = false;
  c.runtime_s = 0.2;
  c.ioengine = "psync";
  c.file_path = "/mnt/a:b/file";
  const std::string s = fio_job_text(c);
  INFO(s);
  CHECK(has_line(s, "rw=read"));
  CHECK(has_line(s, "direct=0"));
  CHECK(has_line(s, "runtime=200ms"));  // sub-second runs in milliseconds (fio's time suffix)
  CHECK(has_line(s, "ioengine=psync"));
  CHECK(has_line(s, "filename=/mnt/a\\:b/file"));  // ':' separates files in fio
  CHECK_FALSE(has_line(s, "direct=1"));
}

TEST_CASE("fio runtime is whole seconds when whole, else milliseconds, at least 100 ms", "[fio]") {
  FioCell c;
  c.file_path = "/data/moebench/test-file";
  c.block_bytes = 4096;
  auto runtime_line = [&c](double s) {
    c.runtime_s = s;
    for (const std::string& l : lines_of(fio_job_text(c))) {
      if (l.rfind("runtime=", 0) == 0) return l;
    }
    return std::string();
  };
  CHECK(runtime_line(3) == "runtime=3");
  CHECK(runtime_line(1) == "runtime=1");
  CHECK(runtime_line(0.4) == "runtime=400ms");
  CHECK(runtime_line(1.25) == "runtime=1250ms");
  CHECK(runtime_line(0.0004) == "runtime=100ms");
}

TEST_CASE("find_fio searches PATH for an executable fio", "[fio]") {
  TempDir dir;
  const std::string bin = dir.path() + "/bin";
  const std::string noexec = dir.path() + "/noexec";
  REQUIRE(ensure_directory(bin).ok());
  REQUIRE(ensure_directory(noexec).ok());
  REQUIRE(write_file_atomic(noexec + "/fio", "not executable\n").ok());
  REQUIRE(ensure_directory(dir.path() + "/dirfio/fio").ok());  // a directory named fio
  {
    PathGuard g(noexec + ":" + dir.path() + "/dirfio");
    CHECK_FALSE(find_fio().has_value());
  }
  fake_fio(dir, "bin/fio", "exit 0");
  {
    PathGuard g(noexec + "::" + dir.path() + "/dirfio:" + bin);
    auto found = find_fio();
    REQUIRE(found.has_value());
    CHECK(*found == bin + "/fio");
  }
}

// [native]: qemu-user runs posix_spawn's vfork as a fork, so an exec that
// fails in the child cannot be reported to the parent there (the child just
// exits 127); the test runs on native builds only.
TEST_CASE("run_fio: a fio that cannot start is an error naming its path", "[fio][native]") {
  TempDir dir;
  const std::string file = dir.file("test-file");
  write_test_file(file, 16u << 20);  // small_cell reads 16 MiB
  auto bogus = run_fio("/nonexistent/fio", small_cell(file), dir.file("scratch-bogus"));
  REQUIRE_FALSE(bogus.ok());
  INFO(bogus.error().message);
  CHECK(contains(bogus.error().message, "/nonexistent/fio"));
  CHECK(contains(bogus.error().message, "cannot start"));
}

TEST_CASE("run_fio runs a real fio on a small file", "[fio]") {
  TempDir dir;
  const std::string file = dir.file("test-file");
  write_test_file(file, 16u << 20);
  const FioCell cell = small_cell(file);

  const auto fio = find_fio();
  if (!fio) {
    WARN("fio is not on PATH: the real-fio part of this test was skipped (install fio to run it)");
    return;
  }
  const std::string scratch = dir.file("scratch");
  auto r = run_fio(*fio, cell, scratch);
  if (!r) FAIL(r.error().message);
  CHECK(r->read_bytes_s > 0);
  CHECK(r->io_bytes > 0);
  CHECK(r->iops > 0);
  CHECK(r->runtime_s > 0);  // parsed (its length is fio's, not asserted)
  CHECK(r->clat_p50_ns > 0);
  CHECK(r->clat_p99_ns >= r->clat_p50_ns);
  CHECK(r->fio_version.rfind("fio-", 0) == 0);
  // The job file and fio's output stay in the scratch directory.
  std::size_t job_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(scratch)) {
    job_files += e.path().extension() == ".fio" ? 1 : 0;
  }
  CHECK(job_files == 1);
  // The test file was only read.
  CHECK(std::filesystem::file_size(file) == (16u << 20));
}

TEST_CASE("run_fio failures are error values with fio's message", "[fio]") {
  TempDir dir;
  const std::string file = dir.file("test-file");
  write_test_file(file, 16u << 20);

  SECTION("a missing test file: fio's message, and fio does not create it") {
    const auto fio = find_fio();
    if (!fio) {
      WARN("fio is not on PATH: skipped running it on a missing file");
      return;
    }
    const std::string missing = dir.file("no-such-file");
    auto r = run_fio(*fio, small_cell(missing), dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    const std::string& m = r.error().message;
    INFO(m);
    CHECK(contains(m, "fio exited with status 1"));
    CHECK(contains(m, "--output-format=json"));
    CHECK(contains(m, "No such file or directory"));
    CHECK(contains(m, "/jobs/0/error"));
    CHECK_FALSE(std::filesystem::exists(missing));
  }

  SECTION("a missing directory is refused before fio runs (fio would create it)") {
    const std::string missing = dir.file("no-such-dir/no-such-file");
    auto r = run_fio("/nonexistent/fio", small_cell(missing), dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(contains(r.error().message, "the directory " + dir.file("no-such-dir") + " does not exist"));
    CHECK_FALSE(std::filesystem::exists(dir.file("no-such-dir")));
  }

  SECTION("a test file shorter than the cell is refused before fio runs") {
    FioCell c = small_cell(file);
    c.file_bytes = 64u << 20;
    auto r = run_fio("/nonexistent/fio", c, dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(contains(r.error().message, file + ": the test file has 16777216 bytes"));
    CHECK(std::filesystem::file_size(file) == (16u << 20));
  }

  SECTION("invalid cells are refused with the reason") {
    FioCell c = small_cell(file);
    c.block_bytes = 1000;
    auto r = run_fio("/nonexistent/fio", c, dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().message, "not a multiple of 4096"));
    c = small_cell(file);
    c.ioengine = "io-uring";
    r = run_fio("/nonexistent/fio", c, dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().message, "did you mean \"io_uring\""));
    c = small_cell(file);
    c.queue_depth = 0;
    r = run_fio("/nonexistent/fio", c, dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.error().message, "queue_depth 0"));
    auto empty = run_fio("", small_cell(file), dir.file("scratch"));
    REQUIRE_FALSE(empty.ok());
    CHECK(contains(empty.error().message, "install fio"));
  }

  SECTION("a fio that fails: exit status, command line and stderr tail") {
    const std::string fake = fake_fio(dir, "fio-fails", "echo 'fio: line one' >&2\necho 'fio: job dropped' >&2\nexit 3");
    auto r = run_fio(fake, small_cell(file), dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    const std::string& m = r.error().message;
    INFO(m);
    CHECK(contains(m, "fio exited with status 3"));
    CHECK(contains(m, "command: " + fake + " --readonly --output-format=json " + dir.file("scratch") + "/fio-"));
    CHECK(contains(m, "fio: line one"));
    CHECK(contains(m, "fio: job dropped"));
  }

  SECTION("a fio killed by a signal") {
    const std::string fake = fake_fio(dir, "fio-killed", "kill -TERM $$");
    auto r = run_fio(fake, small_cell(file), dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(contains(r.error().message, "was killed by signal 15"));
  }

  SECTION("a fio that prints no JSON: the stdout file is named") {
    const std::string fake = fake_fio(dir, "fio-garbage", "echo 'this is not json'");
    auto r = run_fio(fake, small_cell(file), dir.file("scratch"));
    REQUIRE_FALSE(r.ok());
    const std::string& m = r.error().message;
    INFO(m);
    CHECK(contains(m, ".stdout.json: no JSON object"));
    CHECK(contains(m, "this is not json"));
  }

  SECTION("a fio that prints a captured output is parsed (the pipeline without fio)") {
    const std::string fake =
        fake_fio(dir, "fio-replay", "cat '" + kFioData + "/randread_17547264_qd4_io_uring.json'");
    auto r = run_fio(fake, small_cell(file), dir.file("scratch"));
    if (!r) FAIL(r.error().message);
    CHECK(r->read_bytes_s == 1957429053.0);
  }
}

TEST_CASE("run_fio kills a fio that outlives runtime + its slack", "[fio]") {
  // The kill is checked by its effect (an error naming it, the process
  // gone), not by timing it: the fake fio would sleep 300 s otherwise.
  TempDir dir;
  const std::string file = dir.file("test-file");
  write_test_file(file, 16u << 20);
  const std::string fake = fake_fio(dir, "fio-hangs", "echo $$ > '" + dir.file("pid") + "'\nexec sleep 300");
  FioCell cell = small_cell(file);
  cell.kill_slack_s = 1;
  auto r = run_fio(fake, cell, dir.file("scratch"));
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK(contains(r.error().message, "did not finish within 2 s (runtime 1 s + 1 s)"));
  CHECK(contains(r.error().message, "SIGKILL"));
  const pid_t pid = static_cast<pid_t>(std::stol(read_file(dir.file("pid")).value()));
  CHECK(::kill(pid, 0) != 0);  // gone (and reaped)
}

TEST_CASE("fio replay job text: the iolog's reads at the depth, without stalls", "[fio]") {
  FioReplay r;
  r.iolog_path = "/data/decode.iolog";
  r.queue_depth = 16;
  const std::string t = fio_replay_job_text(r);
  CHECK_THAT(t, Catch::Contains("read_iolog=/data/decode.iolog\n") && Catch::Contains("replay_no_stall=1\n") &&
                    Catch::Contains("iodepth=16\n") && Catch::Contains("ioengine=io_uring\n") &&
                    Catch::Contains("direct=1\n") && Catch::Contains("fixedbufs=1\n"));
  CHECK_THAT(t, !Catch::Contains("rw=") && !Catch::Contains("bs="));  // the log gives every read's range
  r.ioengine = "psync";
  CHECK_THAT(fio_replay_job_text(r), !Catch::Contains("fixedbufs"));
}
