// storage_test.cpp — the probe's test file (real data, reuse, damage
// detection, free-space and directory errors), the drive → device mapping
// (with the statfs fallback a bare chroot needs) and the built-in read engine
// (io_uring and pread threads read real bytes with O_DIRECT; bad specs are
// errors). Figures are printed, never asserted: speed is for the probe.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "probes/block_device.h"
#include "probes/read_engine.h"
#include "probes/test_file.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

TEST_CASE("the test file is real data, reused when valid, rebuilt when damaged", "[storage]") {
  TempDir dir;
  QuietProgress quiet;
  auto first = prepare_test_file(dir.path(), 8 << 20, quiet);
  REQUIRE(first.ok());
  CHECK_FALSE(first->reused);
  CHECK(first->size_bytes == 8u << 20);
  CHECK(std::filesystem::file_size(first->path) == 8u << 20);
  auto again = prepare_test_file(dir.path(), 8 << 20, quiet);
  REQUIRE(again.ok());
  CHECK(again->reused);
  // Damage the header: the file must be rebuilt, not trusted.
  {
    const int fd = ::open(first->path.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, "X", 1, 3) == 1);
    ::close(fd);
  }
  auto rebuilt = prepare_test_file(dir.path(), 8 << 20, quiet);
  REQUIRE(rebuilt.ok());
  CHECK_FALSE(rebuilt->reused);
  // A different size is a different file.
  auto bigger = prepare_test_file(dir.path(), 9 << 20, quiet);
  REQUIRE(bigger.ok());
  CHECK_FALSE(bigger->reused);
  CHECK_FALSE(std::filesystem::exists(first->path + ".tmp"));
}

TEST_CASE("test file errors say what to do", "[storage]") {
  QuietProgress quiet;
  auto missing = prepare_test_file("/nonexistent/drive", 1 << 20, quiet);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("does not exist") != std::string::npos);
  TempDir dir;
  auto huge = prepare_test_file(dir.path(), 1ull << 50, quiet);
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.find("is free; free space or pass a smaller --file-size") != std::string::npos);
}

TEST_CASE("the read engine reads real bytes through io_uring and pread threads", "[storage]") {
  TempDir dir;
  QuietProgress quiet;
  auto tf = prepare_test_file(dir.path(), 32 << 20, quiet);
  REQUIRE(tf.ok());
  const std::vector<ReadTarget> targets = {{tf->path, tf->size_bytes}};
  for (IoPath path : {IoPath::kIoUring, IoPath::kPreadThreads}) {
    for (bool random : {true, false}) {
      auto r = measure_reads(targets, {1 << 20, 4, random}, 0.2, path, 1);
      REQUIRE(r.ok());
      INFO(to_string(r->path) << (random ? " random" : " sequential") << ": " << r->read_bytes_s / 1e9
                              << " GB/s, p50 " << r->lat_p50_us << " us");
      CHECK(r->bytes > 0);
      CHECK(r->bytes % (1 << 20) == 0);
      CHECK(r->iops > 0);
      CHECK(r->lat_p99_us >= r->lat_p50_us);
      CHECK(r->direct);
      if (path == IoPath::kPreadThreads) CHECK(r->path == IoPath::kPreadThreads);
    }
  }
  // Two files at once (a drive set).
  TempDir dir2;
  auto tf2 = prepare_test_file(dir2.path(), 32 << 20, quiet);
  REQUIRE(tf2.ok());
  auto both = measure_reads({{tf->path, tf->size_bytes}, {tf2->path, tf2->size_bytes}}, {1 << 20, 2, true}, 0.2,
                            IoPath::kAuto, 2);
  REQUIRE(both.ok());
  CHECK(both->bytes > 0);
}

TEST_CASE("bad read specs are errors", "[storage]") {
  TempDir dir;
  QuietProgress quiet;
  auto tf = prepare_test_file(dir.path(), 4 << 20, quiet);
  REQUIRE(tf.ok());
  const std::vector<ReadTarget> t = {{tf->path, tf->size_bytes}};
  CHECK(measure_reads(t, {1000, 1, true}, 0.1, IoPath::kAuto, 1).error().message.find("multiple of 4096") !=
        std::string::npos);
  CHECK(measure_reads(t, {8 << 20, 1, true}, 0.1, IoPath::kAuto, 1).error().message.find("smaller than one") !=
        std::string::npos);
  CHECK_FALSE(measure_reads({{dir.file("absent"), 4 << 20}}, {4096, 1, true}, 0.1, IoPath::kAuto, 1).ok());
}

TEST_CASE("mount lookup takes the longest matching mount point", "[storage]") {
  const std::string mountinfo =
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
      "40 27 254:0 /srv /mnt/data rw,relatime shared:5 - ext4 /dev/vda rw\n"
      "41 27 0:30 / /tmp rw - tmpfs tmpfs rw\n";
  auto a = find_mount(mountinfo, "254:0", "/mnt/data/drive0");
  REQUIRE(a.has_value());
  CHECK(a->mount_point == "/mnt/data");
  CHECK(a->filesystem == "ext4");
  auto b = find_mount(mountinfo, "254:0", "/work");
  REQUIRE(b.has_value());
  CHECK(b->mount_point == "/");
  auto c = find_mount(mountinfo, "0:30", "/tmp/x");
  REQUIRE(c.has_value());
  CHECK(c->filesystem == "tmpfs");
  CHECK_FALSE(find_mount(mountinfo, "9:9", "/x").has_value());
}

TEST_CASE("a drive directory maps to its block device", "[storage]") {
  const DriveDevice d = describe_drive(MOEBENCH_SOURCE_DIR);
  INFO(d.disk << " " << d.filesystem << " " << d.model);
  CHECK(!d.dev_id.empty());
  CHECK(!d.filesystem.empty());
  if (d.notes.empty() || d.disk.size() > 0) CHECK(d.size_bytes > 0);
}

TEST_CASE("outside every mountinfo entry the filesystem comes from statfs", "[storage]") {
  // A bare chroot: its mountinfo (here: an empty one, and one of unrelated
  // mounts) has no entry for the directory.
  TempDir dir;
  const std::string empty = dir.file("mountinfo-empty");
  const std::string unrelated = dir.file("mountinfo-unrelated");
  REQUIRE(write_file_atomic(empty, "").ok());
  REQUIRE(write_file_atomic(unrelated, "27 1 9:9 / /elsewhere rw - ext4 /dev/md9 rw\n"
                                       "28 27 0:99 / /elsewhere/run rw - tmpfs tmpfs rw\n").ok());
  auto kind = filesystem_kind(MOEBENCH_SOURCE_DIR);
  REQUIRE(kind.ok());
  for (const std::string& mi : {empty, unrelated, dir.file("no-such-mountinfo")}) {
    INFO(mi);
    const DriveDevice d = describe_drive(MOEBENCH_SOURCE_DIR, mi);
    CHECK(!d.dev_id.empty());
    CHECK(d.mount_point.empty());
    CHECK(d.filesystem == (kind->name.empty() ? std::string("unknown") : kind->name));
    bool noted = false;
    for (const std::string& n : d.notes) noted = noted || n.find("no " + mi + " entry covers") != std::string::npos;
    CHECK(noted);
  }
  // /dev/shm: tmpfs by its statfs type.
  auto shm = filesystem_kind("/dev/shm");
  if (shm && shm->magic == 0x01021994) {
    const DriveDevice d = describe_drive("/dev/shm", empty);
    CHECK(d.filesystem == "tmpfs");
    CHECK(d.disk.empty());
  } else {
    WARN("/dev/shm is not tmpfs here: the tmpfs fallback was not checked");
  }
  // A filesystem moebench does not know is "unknown", in words (devpts is not in the table).
  auto pts = filesystem_kind("/dev/pts");
  if (pts && filesystem_name_for_magic(pts->magic).empty()) {
    const DriveDevice d = describe_drive("/dev/pts", empty);
    CHECK(d.filesystem == "unknown");
    bool noted = false;
    for (const std::string& n : d.notes) noted = noted || n.find("is not one moebench knows") != std::string::npos;
    CHECK(noted);
  } else {
    WARN("/dev/pts missing or of a known type: the unknown-filesystem wording was not checked");
  }
}
