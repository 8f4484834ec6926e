// expert_io_test.cpp — the streaming engine's read path (engines/io): real
// O_DIRECT reads of temporary files with known content, through io_uring and
// through pread threads; replicated drives share the load, explicit drives
// read their own file; the throttle holds reads back (only loose lower
// bounds on time: the machine is shared); injected and real faults, bad
// requests and unknown tags are errors naming what went wrong.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "engines/io/expert_io.h"
#include "probes/fio_adapter.h"
#include "vocab/file_io.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * 1024;

std::uint64_t word_at(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The bytes [offset, offset + n) of a file made by write_file(seed).
std::vector<unsigned char> expected_bytes(std::uint64_t seed, std::uint64_t offset, std::uint64_t n) {
  std::vector<unsigned char> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t pos = offset + i;
    out[i] = static_cast<unsigned char>(word_at(seed, pos / 8) >> (8 * (pos % 8)));
  }
  return out;
}

std::string write_file(const TempDir& dir, const std::string& name, std::uint64_t seed, std::uint64_t size) {
  const std::string path = dir.file(name);
  std::vector<unsigned char> data = expected_bytes(seed, 0, size);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  ::close(fd);
  return path;
}

bool same_as_file(const unsigned char* got, std::uint64_t seed, std::uint64_t offset, std::uint64_t n) {
  const std::vector<unsigned char> want = expected_bytes(seed, offset, n);
  return std::memcmp(got, want.data(), n) == 0;
}

IoOptions options_for(IoBackend backend, std::vector<std::string> paths, AlignedBytes& arena,
                      std::size_t arena_bytes) {
  IoOptions o;
  o.backend = backend;
  o.paths = std::move(paths);
  o.queue_depth = 8;
  if (arena) o.buffers.emplace_back(arena.get(), arena_bytes);
  return o;
}

std::unique_ptr<ExpertIo> open_io(const IoOptions& o) {
  auto io = ExpertIo::open(o);
  if (!io.ok()) FAIL(io.error().message);
  return std::move(io).value();
}

}  // namespace

TEST_CASE("fault plans parse eio@N and short@N", "[io]") {
  auto none = parse_fault_plan("");
  REQUIRE(none.ok());
  CHECK(none->kind == FaultPlan::Kind::kNone);
  auto eio = parse_fault_plan("eio@3");
  REQUIRE(eio.ok());
  CHECK(eio->kind == FaultPlan::Kind::kEio);
  CHECK(eio->nth_read == 3);
  auto shrt = parse_fault_plan("short@12");
  REQUIRE(shrt.ok());
  CHECK(shrt->kind == FaultPlan::Kind::kShort);
  CHECK(shrt->nth_read == 12);
  for (const char* bad : {"eio", "eio@", "eio@0", "eio@x", "eio@3x", "slow@2", "@2", "eio@-1"}) {
    INFO(bad);
    auto p = parse_fault_plan(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("eio@N") != std::string::npos);
  }
}

TEST_CASE("reads land the file's bytes, many in flight, waited in any order", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  const bool registered = GENERATE(true, false);
  TempDir dir;
  const std::uint64_t file_bytes = 8 * kMiB;
  const std::string path = write_file(dir, "d0.bin", 7, file_bytes);
  const std::size_t arena_bytes = 24 * kMiB;
  AlignedBytes arena = aligned_bytes(arena_bytes);
  AlignedBytes none;
  auto io = open_io(options_for(backend, {path}, registered ? arena : none, arena_bytes));
  INFO(io->backend());
  CHECK(io->drives() == 1);
  if (backend == IoBackend::kPread) CHECK(io->backend() == "pread threads (requested)");
  std::mt19937_64 rng(42);
  const std::uint64_t sizes[] = {4 * kKiB, 64 * kKiB, 256 * kKiB, 1 * kMiB, 2 * kMiB, 3 * kMiB};
  struct Want {
    std::uint64_t tag, offset, bytes;
    unsigned char* dest;
  };
  std::vector<Want> wants;
  std::uint64_t used = 0;
  std::uint64_t total = 0;
  for (std::uint64_t tag = 100; used < arena_bytes; ++tag) {
    const std::uint64_t bytes = sizes[rng() % std::size(sizes)];
    if (used + bytes > arena_bytes) break;
    const std::uint64_t offset = (rng() % ((file_bytes - bytes) / 4096 + 1)) * 4096;
    wants.push_back(Want{tag, offset, bytes, arena.get() + used});
    used += bytes;
    total += bytes;
  }
  REQUIRE(wants.size() > 10);  // more than the queue depth: the FIFO is used
  for (const Want& w : wants) {
    Status st = io->submit(ReadRequest{w.tag, 0, w.offset, w.bytes, w.dest});
    REQUIRE(st.ok());
  }
  std::shuffle(wants.begin(), wants.end(), rng);
  for (const Want& w : wants) {
    Status st = io->wait(w.tag);
    if (!st.ok()) FAIL(st.error().message);
    CHECK(same_as_file(w.dest, 7, w.offset, w.bytes));
  }
  CHECK(io->counters().reads == wants.size());
  CHECK(io->counters().bytes == total);
  REQUIRE(io->counters().bytes_by_drive.size() == 1);
  CHECK(io->counters().bytes_by_drive[0] == total);
  CHECK(io->counters().retries == 0);
  io->reset_counters();
  CHECK(io->counters().reads == 0);
  CHECK(io->counters().bytes_by_drive == std::vector<std::uint64_t>{0});
}

TEST_CASE("the io_uring backend reports how it reads", "[io]") {
  TempDir dir;
  const std::string path = write_file(dir, "d0.bin", 1, 64 * kKiB);
  AlignedBytes arena = aligned_bytes(64 * kKiB);
  auto io = open_io(options_for(IoBackend::kAuto, {path}, arena, 64 * kKiB));
  WARN("expert io backend here: " << io->backend() << (io->direct() ? ", O_DIRECT" : ", buffered"));
#if defined(MOEBENCH_HAVE_IO_URING)
  const bool uring = io->backend().rfind("io_uring (", 0) == 0;
  const bool fell_back = io->backend().rfind("pread threads (io_uring: ", 0) == 0;
  CHECK((uring || fell_back));
#else
  CHECK(io->backend().rfind("pread threads (io_uring: not built in", 0) == 0);
#endif
  Status st = io->submit(ReadRequest{1, 0, 0, 64 * kKiB, arena.get()});
  REQUIRE(st.ok());
  REQUIRE(io->wait(1).ok());
  CHECK(same_as_file(arena.get(), 1, 0, 64 * kKiB));
}

TEST_CASE("buffers the kernel will not register are read into with plain reads", "[io]") {
  // io_uring refuses to register file-backed memory (EFAULT/EOPNOTSUPP), as
  // it refuses memory beyond RLIMIT_MEMLOCK: the engine must carry on.
  TempDir dir;
  const std::string path = write_file(dir, "p0", 8, 256 * kKiB);
  const std::string backing = write_file(dir, "backing", 0, 256 * kKiB);
  const int fd = ::open(backing.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  void* map = ::mmap(nullptr, 256 * kKiB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(map != MAP_FAILED);
  auto* base = static_cast<unsigned char*>(map);
  {
    IoOptions o;
    o.paths = {path};
    o.queue_depth = 4;
    o.buffers.emplace_back(map, 256 * kKiB);
    auto io = open_io(o);
    INFO(io->backend());
    if (io->backend().rfind("io_uring (", 0) == 0) {
      CHECK(io->backend().find("buffers not registered") != std::string::npos);
    }
    for (std::uint64_t i = 0; i < 4; ++i) {
      REQUIRE(io->submit(ReadRequest{i, 0, (3 - i) * 64 * kKiB, 64 * kKiB, base + i * 64 * kKiB}).ok());
    }
    for (std::uint64_t i = 0; i < 4; ++i) {
      REQUIRE(io->wait(i).ok());
      CHECK(same_as_file(base + i * 64 * kKiB, 8, (3 - i) * 64 * kKiB, 64 * kKiB));
    }
  }
  ::munmap(map, 256 * kKiB);
}

TEST_CASE("replicated reads spread over the drives, explicit drives read their own file", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  TempDir dir;
  SECTION("kAnyDrive shares the load between identical copies") {
    std::vector<std::string> paths;
    for (int d = 0; d < 3; ++d) paths.push_back(write_file(dir, "r" + std::to_string(d), 5, 4 * kMiB));
    const std::size_t arena_bytes = 24 * 256 * kKiB;
    AlignedBytes arena = aligned_bytes(arena_bytes);
    IoOptions o = options_for(backend, paths, arena, arena_bytes);
    o.throttle_bytes_s = 400e6;  // holds reads in flight long enough to see the balance
    auto io = open_io(o);
    for (std::uint64_t i = 0; i < 24; ++i) {
      Status st = io->submit(ReadRequest{i, kAnyDrive, (i % 16) * 256 * kKiB, 256 * kKiB,
                                         arena.get() + i * 256 * kKiB});
      REQUIRE(st.ok());
    }
    for (std::uint64_t i = 0; i < 24; ++i) {
      REQUIRE(io->wait(i).ok());
      CHECK(same_as_file(arena.get() + i * 256 * kKiB, 5, (i % 16) * 256 * kKiB, 256 * kKiB));
    }
    const auto& by_drive = io->counters().bytes_by_drive;
    REQUIRE(by_drive.size() == 3);
    for (std::uint64_t b : by_drive) CHECK(b >= 24 * 256 * kKiB / 6);  // each a fair share
    CHECK(std::accumulate(by_drive.begin(), by_drive.end(), std::uint64_t{0}) == io->counters().bytes);
  }
  SECTION("an explicit drive index reads that drive's file") {
    std::vector<std::string> paths;
    for (int d = 0; d < 3; ++d) paths.push_back(write_file(dir, "s" + std::to_string(d), 10 + d, 1 * kMiB));
    AlignedBytes arena = aligned_bytes(3 * 128 * kKiB);
    auto io = open_io(options_for(backend, paths, arena, 3 * 128 * kKiB));
    for (int d : {2, 0, 1}) {
      unsigned char* dest = arena.get() + static_cast<std::size_t>(d) * 128 * kKiB;
      Status st = io->submit(ReadRequest{static_cast<std::uint64_t>(d), d, 512 * kKiB, 128 * kKiB, dest});
      REQUIRE(st.ok());
    }
    for (int d : {0, 1, 2}) {
      REQUIRE(io->wait(static_cast<std::uint64_t>(d)).ok());
      CHECK(same_as_file(arena.get() + static_cast<std::size_t>(d) * 128 * kKiB, 10 + static_cast<std::uint64_t>(d),
                         512 * kKiB, 128 * kKiB));
      CHECK(io->counters().bytes_by_drive[static_cast<std::size_t>(d)] == 128 * kKiB);
    }
    for (int bad : {3, -2}) {
      Status st = io->submit(ReadRequest{9, bad, 0, 4096, arena.get()});
      REQUIRE_FALSE(st.ok());
      CHECK(st.error().message.find("out of range") != std::string::npos);
    }
  }
}

TEST_CASE("the throttle makes each drive a server of the given bandwidth", "[io]") {
  // Checked on the modelled schedule (IoCounters::throttle_span_s_by_drive),
  // never on the wall clock: a drive serving n bytes at rate r is busy for at
  // least n / r, and two drives share the reads between them.
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  TempDir dir;
  const std::vector<std::string> paths = {write_file(dir, "t0", 3, 4 * kMiB), write_file(dir, "t1", 3, 4 * kMiB)};
  const std::size_t arena_bytes = 20 * kMiB;
  AlignedBytes arena = aligned_bytes(arena_bytes);
  const double rate_bytes_s = 50e6;
  const auto run = [&](std::vector<std::string> drive_paths) {
    IoOptions o = options_for(backend, std::move(drive_paths), arena, arena_bytes);
    o.throttle_bytes_s = rate_bytes_s;
    auto io = open_io(o);
    for (std::uint64_t i = 0; i < 20; ++i) {
      Status st = io->submit(ReadRequest{i, kAnyDrive, (i % 4) * kMiB, kMiB, arena.get() + i * kMiB});
      REQUIRE(st.ok());
    }
    for (std::uint64_t i = 0; i < 20; ++i) REQUIRE(io->wait(i).ok());
    const IoCounters c = io->counters();
    CHECK(c.reads == 20);
    CHECK(c.bytes == 20 * kMiB);
    REQUIRE(c.throttle_span_s_by_drive.size() == static_cast<std::size_t>(io->drives()));
    for (int d = 0; d < io->drives(); ++d) {
      const auto i = static_cast<std::size_t>(d);
      INFO("drive " << d << ": " << c.bytes_by_drive[i] << " B, modelled span " << c.throttle_span_s_by_drive[i] << " s");
      CHECK(c.bytes_by_drive[i] >= 20 * kMiB / io->drives() / 2);
      CHECK(c.throttle_span_s_by_drive[i] >= 0.999 * static_cast<double>(c.bytes_by_drive[i]) / rate_bytes_s);
    }
    return c;
  };
  const IoCounters one = run({paths[0]});
  CHECK(one.bytes_by_drive[0] == 20 * kMiB);
  const IoCounters two = run(paths);
  CHECK(two.bytes_by_drive[0] + two.bytes_by_drive[1] == 20 * kMiB);
}

TEST_CASE("injected faults fail exactly the nth read", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  const std::string plan = GENERATE(std::string("eio@3"), std::string("short@2"));
  TempDir dir;
  const std::string path = write_file(dir, "f0", 9, 1 * kMiB);
  AlignedBytes arena = aligned_bytes(6 * 64 * kKiB);
  IoOptions o = options_for(backend, {path}, arena, 6 * 64 * kKiB);
  o.fault = parse_fault_plan(plan).value();
  auto io = open_io(o);
  // A rejected request is not a read: it does not move the fault's count.
  Status rejected = io->submit(ReadRequest{99, 0, 1, 4096, arena.get()});
  REQUIRE_FALSE(rejected.ok());
  for (std::uint64_t i = 1; i <= 6; ++i) {
    Status st = io->submit(ReadRequest{i, 0, i * 64 * kKiB, 64 * kKiB, arena.get() + (i - 1) * 64 * kKiB});
    REQUIRE(st.ok());
  }
  const std::uint64_t bad = o.fault.nth_read;
  for (std::uint64_t i = 1; i <= 6; ++i) {
    Status st = io->wait(i);
    if (i == bad) {
      REQUIRE_FALSE(st.ok());
      const std::string& m = st.error().message;
      INFO(m);
      CHECK(m.find("injected") != std::string::npos);
      CHECK(m.find("drive 0 (" + path + ")") != std::string::npos);
      CHECK(m.find("offset " + std::to_string(i * 64 * kKiB)) != std::string::npos);
      if (o.fault.kind == FaultPlan::Kind::kEio) {
        CHECK(m.find(std::strerror(EIO)) != std::string::npos);
      } else {
        CHECK(m.find("short read") != std::string::npos);
        CHECK(m.find("got 32768 of 65536 bytes") != std::string::npos);
      }
    } else {
      if (!st.ok()) FAIL(st.error().message);
      CHECK(same_as_file(arena.get() + (i - 1) * 64 * kKiB, 9, i * 64 * kKiB, 64 * kKiB));
    }
  }
  CHECK(io->counters().reads == 5);
  CHECK(io->counters().bytes == 5 * 64 * kKiB);
}

TEST_CASE("reading past the end of a file is a short-read error", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  TempDir dir;
  const std::string path = write_file(dir, "short", 4, 64 * kKiB);
  const std::string odd = write_file(dir, "odd", 4, 64 * kKiB + 100);  // not a whole block
  AlignedBytes arena = aligned_bytes(64 * kKiB);
  auto io = open_io(options_for(backend, {path, odd}, arena, 64 * kKiB));
  SECTION("partly past the end: retried, then reported") {
    REQUIRE(io->submit(ReadRequest{1, 0, 48 * kKiB, 32 * kKiB, arena.get()}).ok());
    Status st = io->wait(1);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message ==
          "drive 0 (" + path + "): short read at offset 49152: got 16384 of 32768 bytes (file truncated?)");
    CHECK(io->counters().retries == 1);
    CHECK(same_as_file(arena.get(), 4, 48 * kKiB, 16 * kKiB));
  }
  SECTION("wholly past the end") {
    REQUIRE(io->submit(ReadRequest{1, 0, 1 * kMiB, 4096, arena.get()}).ok());
    Status st = io->wait(1);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("short read at offset 1048576: got 0 of 4096 bytes") != std::string::npos);
  }
  SECTION("a file ending inside a block") {
    REQUIRE(io->submit(ReadRequest{1, 1, 60 * kKiB, 8 * kKiB, arena.get()}).ok());
    Status st = io->wait(1);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message ==
          "drive 1 (" + odd + "): short read at offset 61440: got 4196 of 8192 bytes (file truncated?)");
    CHECK(same_as_file(arena.get(), 4, 60 * kKiB, 4196));
  }
  // The engine stays usable after a failed read.
  REQUIRE(io->submit(ReadRequest{2, 0, 0, 16 * kKiB, arena.get()}).ok());
  REQUIRE(io->wait(2).ok());
  CHECK(same_as_file(arena.get(), 4, 0, 16 * kKiB));
}

TEST_CASE("bad requests and unknown tags are errors", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  TempDir dir;
  const std::string path = write_file(dir, "v0", 2, 256 * kKiB);
  AlignedBytes arena = aligned_bytes(128 * kKiB);
  AlignedBytes stray = aligned_bytes(8 * kKiB);
  auto io = open_io(options_for(backend, {path}, arena, 128 * kKiB));
  const auto error_of = [&](const ReadRequest& r) {
    Status st = io->submit(r);
    REQUIRE_FALSE(st.ok());
    return st.error().message;
  };
  std::string m = error_of(ReadRequest{1, 0, 100, 4096, arena.get()});
  CHECK(m.find("offset 100 is not a multiple of 4096") != std::string::npos);
  CHECK(m.find("O_DIRECT") != std::string::npos);
  m = error_of(ReadRequest{1, 0, 0, 5000, arena.get()});
  CHECK(m.find("length 5000 bytes is not a multiple of 4096") != std::string::npos);
  m = error_of(ReadRequest{1, 0, 0, 4096, arena.get() + 512});
  CHECK(m.find("destination 0x") != std::string::npos);
  CHECK(m.find("not 4096-aligned") != std::string::npos);
  m = error_of(ReadRequest{1, 0, 0, 0, arena.get()});
  CHECK(m.find("0 bytes") != std::string::npos);
  m = error_of(ReadRequest{1, 0, 0, 4096, stray.get()});
  CHECK(m.find("not inside any of the 1 buffer(s)") != std::string::npos);
  m = error_of(ReadRequest{1, 0, 0, 8 * kKiB, arena.get() + 124 * kKiB});  // runs past the arena
  CHECK(m.find("not inside") != std::string::npos);

  REQUIRE(io->submit(ReadRequest{7, 0, 0, 4096, arena.get()}).ok());
  m = error_of(ReadRequest{7, 0, 4096, 4096, arena.get() + 4096});
  CHECK(m.find("already in flight") != std::string::npos);
  REQUIRE(io->wait(7).ok());
  Status again = io->wait(7);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("no read with this tag") != std::string::npos);
  Status never = io->wait(12345);
  REQUIRE_FALSE(never.ok());
  CHECK(never.error().message.find("tag 12345") != std::string::npos);
  CHECK(io->done(12345));
  // A tag may be reused once waited for.
  REQUIRE(io->submit(ReadRequest{7, 0, 8192, 4096, arena.get()}).ok());
  REQUIRE(io->wait(7).ok());
  CHECK(same_as_file(arena.get(), 2, 8192, 4096));
}

TEST_CASE("drain() returns with reads in flight, done() polls, the engine closes with reads in flight", "[io]") {
  const IoBackend backend = GENERATE(IoBackend::kIoUring, IoBackend::kPread);
  TempDir dir;
  const std::string path = write_file(dir, "q0", 6, 2 * kMiB);
  const std::size_t arena_bytes = 32 * 256 * kKiB;
  AlignedBytes arena = aligned_bytes(arena_bytes);
  IoOptions o = options_for(backend, {path}, arena, arena_bytes);
  o.queue_depth = 4;
  auto io = open_io(o);
  for (std::uint64_t i = 0; i < 32; ++i) {
    REQUIRE(io->submit(ReadRequest{i, kAnyDrive, (i % 8) * 256 * kKiB, 256 * kKiB, arena.get() + i * 256 * kKiB})
                .ok());
  }
  io->drain();
  CHECK(io->counters().reads == 32);
  CHECK(io->counters().bytes == 32 * 256 * kKiB);
  for (std::uint64_t i = 0; i < 32; ++i) {
    CHECK(same_as_file(arena.get() + i * 256 * kKiB, 6, (i % 8) * 256 * kKiB, 256 * kKiB));
  }
  CHECK_FALSE(io->wait(3).ok());  // forgotten by drain()

  // done() turns true without wait(), then wait() returns at once.
  REQUIRE(io->submit(ReadRequest{40, 0, 0, 256 * kKiB, arena.get()}).ok());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!io->done(40) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  CHECK(io->done(40));
  REQUIRE(io->wait(40).ok());

  // A throttled drain waits for the modelled drive too.
  IoOptions slow = o;
  slow.throttle_bytes_s = 100e6;
  auto throttled = open_io(slow);
  for (std::uint64_t i = 0; i < 8; ++i) {
    REQUIRE(throttled->submit(ReadRequest{i, 0, i * 256 * kKiB, 256 * kKiB, arena.get() + i * 256 * kKiB}).ok());
  }
  throttled->drain();
  // Visible means past the modelled finish: drain() waited for all eight.
  CHECK(throttled->counters().reads == 8);
  CHECK(throttled->counters().throttle_span_s_by_drive.at(0) >= 0.999 * static_cast<double>(8 * 256 * kKiB) / 100e6);

  // Closing with reads in flight waits for them (the buffers outlive it).
  for (std::uint64_t i = 0; i < 16; ++i) {
    REQUIRE(io->submit(ReadRequest{100 + i, 0, 0, 256 * kKiB, arena.get() + i * 256 * kKiB}).ok());
  }
  io.reset();
  SUCCEED();
}

TEST_CASE("opening checks the drive files and options", "[io]") {
  TempDir dir;
  IoOptions o;
  o.paths = {dir.file("missing.bin")};
  auto missing = ExpertIo::open(o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("drive 0 (" + dir.file("missing.bin") + "): cannot open") != std::string::npos);
  o.paths = {};
  CHECK_FALSE(ExpertIo::open(o).ok());
  o.paths = {write_file(dir, "ok", 1, 4096)};
  o.queue_depth = 0;
  CHECK_FALSE(ExpertIo::open(o).ok());
  o.queue_depth = 4;
  o.throttle_bytes_s = 0.0;
  CHECK_FALSE(ExpertIo::open(o).ok());
  o.throttle_bytes_s.reset();
  auto ok = ExpertIo::open(o);
  REQUIRE(ok.ok());
  CHECK((*ok)->drives() == 1);
  if (!(*ok)->direct()) WARN("the temporary directory's filesystem refuses O_DIRECT: buffered reads");
  CHECK(std::string(to_string(IoBackend::kPread)) == "pread");
}

TEST_CASE("recorded reads become an iolog that fio replays read for read", "[io][fio]") {
  TempDir dir;
  std::vector<std::string> paths = {write_file(dir, "d0", 21, 2 * kMiB), write_file(dir, "d1", 21, 2 * kMiB)};
  const std::size_t arena_bytes = 8 * 256 * kKiB;
  AlignedBytes arena = aligned_bytes(arena_bytes);
  IoOptions o = options_for(IoBackend::kAuto, paths, arena, arena_bytes);
  o.record_reads = true;
  auto io = open_io(o);
  // Three reads: drive 1, drive 0, and one the engine lets the drives share.
  const ReadRequest reads[] = {{1, 1, 512 * kKiB, 256 * kKiB, arena.get()},
                               {2, 0, 0, 128 * kKiB, arena.get() + 256 * kKiB},
                               {3, kAnyDrive, 1 * kMiB, 256 * kKiB, arena.get() + 512 * kKiB}};
  for (const ReadRequest& r : reads) REQUIRE(io->submit(r).ok());
  for (std::uint64_t tag : {1, 2, 3}) REQUIRE(io->wait(tag).ok());
  const std::vector<RecordedRead> rec = io->recorded();  // a copy: cleared below
  REQUIRE(rec.size() == 3);
  CHECK(rec[0].file == 1);
  CHECK(rec[0].offset == 512 * kKiB);
  CHECK(rec[0].bytes == 256 * kKiB);
  CHECK(rec[1].file == 0);
  CHECK((rec[2].file == 0 || rec[2].file == 1));  // the drive the read went to, not kAnyDrive
  CHECK(io->file_paths() == paths);
  // The first two reads as fio's iolog: files added and opened once, reads in order.
  const std::string two = *fio_read_iolog(paths, rec, 0, 2);
  CHECK(two == "fio version 2 iolog\n" + paths[0] + " add\n" + paths[1] + " add\n" + paths[0] + " open\n" + paths[1] +
                   " open\n" + paths[1] + " read 524288 262144\n" + paths[0] + " read 0 131072\n" + paths[0] + " close\n" +
                   paths[1] + " close\n");
  // Only the files a range touches are named.
  CHECK(fio_read_iolog(paths, rec, 1, 2)->find(paths[1]) == std::string::npos);
  // A path fio would split is refused, naming it.
  auto spaced = fio_read_iolog({"/data/my drive/x.gguf"}, {{0, 0, 4096}}, 0, 1);
  REQUIRE_FALSE(spaced.ok());
  CHECK_THAT(spaced.error().message, Catch::Contains("/data/my drive/x.gguf") && Catch::Contains("white space"));
  auto longer = fio_read_iolog({"/" + std::string(300, 'd') + "/x.gguf"}, {{0, 0, 4096}}, 0, 1);
  REQUIRE_FALSE(longer.ok());
  CHECK_THAT(longer.error().message, Catch::Contains("at most 256"));
  // Cleared, the record starts again from the next read.
  io->clear_recorded();
  CHECK(io->recorded().empty());
  // Without recording, nothing is kept.
  o.record_reads = false;
  auto quiet = open_io(o);
  REQUIRE(quiet->submit(reads[1]).ok());
  REQUIRE(quiet->wait(2).ok());
  CHECK(quiet->recorded().empty());

  const auto fio = find_fio();
  if (!fio) {
    WARN("fio is not on PATH: the replay part of this test was skipped (install fio to run it)");
    return;
  }
  // The three reads twenty times over (fio's byte count leaves out its
  // first depth − 1 reads; its read count does not).
  std::vector<RecordedRead> many;
  for (int i = 0; i < 20; ++i) many.insert(many.end(), rec.begin(), rec.end());
  const std::string log = dir.file("reads.iolog");
  REQUIRE(write_file_atomic(log, *fio_read_iolog(paths, many, 0, many.size())).ok());
  FioReplay replay;
  replay.iolog_path = log;
  replay.queue_depth = 4;
  auto got = run_fio_replay(*fio, replay, dir.file("scratch"));
  if (!got) FAIL(got.error().message);
  CHECK(got->total_ios == 60);  // every recorded read, once
  CHECK(got->io_bytes <= 20 * (256 + 128 + 256) * kKiB);
  CHECK(got->io_bytes >= 20 * (256 + 128 + 256) * kKiB - 3 * 256 * kKiB);
  // A replay of a log that is not there names it.
  replay.iolog_path = dir.file("missing.iolog");
  auto missing = run_fio_replay(*fio, replay, dir.file("scratch"));
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("missing.iolog"));
}
