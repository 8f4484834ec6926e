// atomic_file_test.cpp — the one atomic-file helper (vocab/file_io.h):
// replace by rename with nothing left behind, an uncommitted file leaves
// the old one, output paths that are symlinks, device nodes, FIFOs or
// directories are refused and left as they were, a set of files is
// replaced only when every write and fsync succeeded (failures injected
// through AtomicFileOptions), hard links put in place the same way, and
// the statfs filesystem table.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/json_reader.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A pwrite that fails with `err` on its `fail_at`-th call (1-based); with
// `partial` > 0 that call first writes `partial` bytes (a short write, as a
// filling disk gives) and the next one fails.
AtomicFileOptions failing_write(int fail_at, int err, std::size_t partial = 0) {
  struct State {
    int calls = 0;
    bool short_done = false;
  };
  auto s = std::make_shared<State>();
  AtomicFileOptions o;
  o.pwrite_fn = [s, fail_at, err, partial](int fd, const void* data, std::size_t n, off_t off) -> ssize_t {
    if (s->short_done || ++s->calls == fail_at) {
      if (partial > 0 && partial < n && !s->short_done) {
        s->short_done = true;
        return ::pwrite(fd, data, partial, off);
      }
      s->short_done = false;
      errno = err;
      return -1;
    }
    return ::pwrite(fd, data, n, off);
  };
  return o;
}

}  // namespace

TEST_CASE("write_file_atomic replaces a file and leaves no temporary behind", "[atomic]") {
  TempDir dir;
  const std::string path = dir.file("out.json");
  REQUIRE(write_file_atomic(path, "first\n").ok());
  REQUIRE(write_file_atomic(path, "second, longer\n").ok());
  CHECK(read_file(path).value() == "second, longer\n");
  CHECK(dir_entries(dir.path()) == std::vector<std::string>{"out.json"});
}

TEST_CASE("an atomic file not committed leaves the old file and removes its temporary", "[atomic]") {
  TempDir dir;
  const std::string path = dir.file("out.txt");
  REQUIRE(write_file_atomic(path, "old").ok());
  {
    auto f = AtomicFile::create(path);
    REQUIRE(f.ok());
    CHECK(std::filesystem::path(f->temp_path()).parent_path() == std::filesystem::path(path).parent_path());
    REQUIRE(f->write("new and never committed").ok());
    CHECK(std::filesystem::exists(f->temp_path()));
  }
  CHECK(read_file(path).value() == "old");
  CHECK(dir_entries(dir.path()) == std::vector<std::string>{"out.txt"});
  // Two open at once get different temporaries; the last commit wins.
  auto a = AtomicFile::create(path);
  auto b = AtomicFile::create(path);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->temp_path() != b->temp_path());
  REQUIRE(a->write("a").ok());
  REQUIRE(b->write("b").ok());
  REQUIRE(a->commit().ok());
  REQUIRE(b->commit().ok());
  CHECK(read_file(path).value() == "b");
  CHECK(dir_entries(dir.path()) == std::vector<std::string>{"out.txt"});
}

TEST_CASE("a fixed temporary name replaces an interrupted attempt's leftover", "[atomic]") {
  TempDir dir;
  const std::string path = dir.file("big.gguf");
  REQUIRE(write_file_atomic(path + ".partial", "leftover of a crash").ok());
  AtomicFileOptions o;
  o.temp_tag = "partial";
  o.unique = false;
  o.direct = true;  // O_DIRECT where the filesystem allows: aligned blocks only
  auto f = AtomicFile::create(path, o);
  REQUIRE(f.ok());
  CHECK(f->temp_path() == path + ".partial");
  AlignedBytes block = aligned_bytes(8192);
  std::memset(block.get(), 'x', 8192);
  REQUIRE(f->pwrite_all(block.get(), 4096, 4096).ok());  // out of order, as a header written last
  std::memset(block.get(), 'h', 4096);
  REQUIRE(f->pwrite_all(block.get(), 4096, 0).ok());
  CHECK(f->size() == 8192);
  REQUIRE(f->commit().ok());
  const std::string got = read_file(path).value();
  REQUIRE(got.size() == 8192);
  CHECK(got[0] == 'h');
  CHECK(got[4096] == 'x');
  CHECK(dir_entries(dir.path()) == std::vector<std::string>{"big.gguf"});
  CHECK_FALSE(f->commit().ok());  // once only
}

TEST_CASE("outputs refuse symlinks, device nodes, FIFOs and directories and leave them as they were", "[atomic]") {
  TempDir dir;
  const std::string target = dir.file("real.json");
  REQUIRE(write_file_atomic(target, "the real file").ok());
  const std::string link = dir.file("results.json");
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  Status st = write_file_atomic(link, "replacement");
  REQUIRE_FALSE(st.ok());
  CHECK(contains(st.error().message, link + " is a symlink; give a regular file path"));
  CHECK(std::filesystem::is_symlink(link));
  CHECK(read_file(target).value() == "the real file");

  const std::string dangling = dir.file("dangling.json");
  REQUIRE(::symlink(dir.file("nowhere").c_str(), dangling.c_str()) == 0);
  CHECK(contains(write_file_atomic(dangling, "x").error().message, "is a symlink"));
  CHECK_FALSE(std::filesystem::exists(dir.file("nowhere")));

  const std::string fifo = dir.file("pipe.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(contains(write_file_atomic(fifo, "x").error().message, "is a FIFO (named pipe); give a regular file path"));
  CHECK(std::filesystem::is_fifo(fifo));

  const std::string sub = dir.file("sub");
  std::filesystem::create_directory(sub);
  CHECK(contains(write_file_atomic(sub, "x").error().message, "is a directory"));

  if (std::filesystem::is_character_file("/dev/null")) {
    Status dev = check_output_path("/dev/null");
    REQUIRE_FALSE(dev.ok());
    CHECK(contains(dev.error().message, "/dev/null is a device node; give a regular file path"));
  }
  CHECK(check_output_path(target).ok());
  CHECK(check_output_path(dir.file("not-there-yet.json")).ok());
  // Nothing but what the test made: no temporaries left by the refusals.
  CHECK(dir_entries(dir.path()) ==
        std::vector<std::string>{"dangling.json", "pipe.csv", "real.json", "results.json", "sub"});
}

TEST_CASE("a symlink put in place while the file was written is refused at commit", "[atomic]") {
  TempDir dir;
  const std::string path = dir.file("out.md");
  const std::string target = dir.file("elsewhere.md");
  REQUIRE(write_file_atomic(target, "keep").ok());
  auto f = AtomicFile::create(path);
  REQUIRE(f.ok());
  REQUIRE(f->write("new").ok());
  REQUIRE(::symlink(target.c_str(), path.c_str()) == 0);
  Status st = f->commit();
  REQUIRE_FALSE(st.ok());
  CHECK(contains(st.error().message, "is a symlink"));
  CHECK(std::filesystem::is_symlink(path));
  CHECK(read_file(target).value() == "keep");
}

TEST_CASE("a set of files is replaced only when every write and fsync succeeded", "[atomic]") {
  TempDir dir;
  const std::vector<std::string> names = {"results.md", "results.csv", "results.json", "results.jsonl"};
  std::vector<FileContent> old_set, new_set;
  for (const std::string& n : names) {
    old_set.push_back({dir.file(n), "old " + n + "\n"});
    new_set.push_back({dir.file(n), "new " + n + " with more bytes than before\n"});
  }
  REQUIRE(write_files_atomic(old_set).ok());
  auto unchanged = [&] {
    for (const FileContent& f : old_set) CHECK(read_file(f.path).value() == f.content);
    CHECK(dir_entries(dir.path()).size() == names.size());  // no temporaries
  };

  SECTION("the disk fills while the third file is written") {
    Status st = write_files_atomic(new_set, failing_write(3, ENOSPC, 5));
    REQUIRE_FALSE(st.ok());
    INFO(st.error().message);
    CHECK(contains(st.error().message, dir.file("results.json") + ": writing"));
    CHECK(contains(st.error().message, std::strerror(ENOSPC)));
    CHECK(contains(st.error().message, "no file of the set was replaced"));
    unchanged();
  }
  SECTION("the first write fails") {
    REQUIRE_FALSE(write_files_atomic(new_set, failing_write(1, EIO)).ok());
    unchanged();
  }
  SECTION("the last file's fsync fails") {
    auto calls = std::make_shared<int>(0);
    AtomicFileOptions o;
    o.fsync_fn = [calls](int fd) {
      if (++*calls == 4) {
        errno = EIO;
        return -1;
      }
      return ::fsync(fd);
    };
    Status st = write_files_atomic(new_set, o);
    REQUIRE_FALSE(st.ok());
    CHECK(contains(st.error().message, dir.file("results.jsonl") + ": fsync"));
    unchanged();
  }
  SECTION("one path of the set is a symlink") {
    REQUIRE(std::filesystem::remove(dir.file("results.csv")));
    REQUIRE(::symlink(dir.file("results.md").c_str(), dir.file("results.csv").c_str()) == 0);
    Status st = write_files_atomic(new_set);
    REQUIRE_FALSE(st.ok());
    CHECK(contains(st.error().message, dir.file("results.csv") + " is a symlink"));
    CHECK(read_file(dir.file("results.md")).value() == "old results.md\n");
    CHECK(dir_entries(dir.path()).size() == names.size());
  }
  SECTION("every write succeeds") {
    REQUIRE(write_files_atomic(new_set, failing_write(99, EIO)).ok());
    for (const FileContent& f : new_set) CHECK(read_file(f.path).value() == f.content);
    CHECK(dir_entries(dir.path()).size() == names.size());
  }
}

TEST_CASE("statfs types name the common filesystems and tell RAM-backed ones", "[atomic]") {
  CHECK(filesystem_name_for_magic(0xEF53) == "ext4");
  CHECK(filesystem_name_for_magic(0x58465342) == "xfs");
  CHECK(filesystem_name_for_magic(0x9123683E) == "btrfs");
  CHECK(filesystem_name_for_magic(0x794C7630) == "overlay");
  CHECK(filesystem_name_for_magic(0x2FC12FC1) == "zfs");
  CHECK(filesystem_name_for_magic(0x6969) == "nfs");
  CHECK(filesystem_name_for_magic(0x01021994) == "tmpfs");
  CHECK(filesystem_name_for_magic(0x12345678).empty());
  CHECK(filesystem_magic_in_ram(0x01021994));
  CHECK(filesystem_magic_in_ram(0x858458F6));
  CHECK_FALSE(filesystem_magic_in_ram(0xEF53));
  CHECK_FALSE(filesystem_kind("/nonexistent/dir").ok());
  auto shm = filesystem_kind("/dev/shm");
  if (!shm || shm->magic != 0x01021994) {
    WARN("/dev/shm is not tmpfs here: RAM-backed directory check skipped");
    return;
  }
  CHECK(shm->name == "tmpfs");
  CHECK(shm->in_ram);
  const std::string why = reads_bypass_drive("/dev/shm");
  CHECK(contains(why, "/dev/shm is on tmpfs, which keeps its files in RAM"));
  CHECK(contains(why, "disk-backed filesystem"));
  // A directory on a disk filesystem that honours O_DIRECT reads the drive.
  TempDir disk;
  auto kind = filesystem_kind(disk.path());
  REQUIRE(kind.ok());
  if (kind->name == "ext4" || kind->name == "xfs" || kind->name == "btrfs") {
    CHECK(reads_bypass_drive(disk.path()).empty());
    CHECK(dir_entries(disk.path()).empty());  // the O_DIRECT probe leaves nothing behind
  }
}

TEST_CASE("link_file_atomic puts a hard link in place and refuses a symlink there", "[atomic]") {
  TempDir dir;
  const std::string first = dir.file("drive0.gguf");
  const std::string replica = dir.file("drive1.gguf");
  REQUIRE(write_file_atomic(first, "container bytes").ok());
  REQUIRE(write_file_atomic(replica, "an older replica").ok());
  REQUIRE(link_file_atomic(first, replica, "partial").ok());
  struct stat a {}, b {};
  REQUIRE(::stat(first.c_str(), &a) == 0);
  REQUIRE(::stat(replica.c_str(), &b) == 0);
  CHECK(a.st_ino == b.st_ino);
  CHECK(dir_entries(dir.path()) == std::vector<std::string>{"drive0.gguf", "drive1.gguf"});
  const std::string link = dir.file("drive2.gguf");
  REQUIRE(::symlink(first.c_str(), link.c_str()) == 0);
  Status st = link_file_atomic(first, link);
  REQUIRE_FALSE(st.ok());
  CHECK(contains(st.error().message, link + " is a symlink"));
  CHECK(std::filesystem::is_symlink(link));
  CHECK_FALSE(link_file_atomic(dir.file("absent"), dir.file("drive3.gguf")).ok());
  CHECK(dir_entries(dir.path()).size() == 3);  // no temporary left by either failure
}

TEST_CASE("inputs that are not regular files are refused before they are opened: a FIFO never blocks a read", "[atomic]") {
  TempDir dir;
  const std::string fifo = dir.file("a.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  auto text = read_file(fifo);  // would block forever if opened
  REQUIRE_FALSE(text.ok());
  CHECK(contains(text.error().message, "not a regular file"));
  std::filesystem::create_directory(dir.file("d.json"));
  CHECK(contains(read_file(dir.file("d.json")).error().message, "not a regular file"));
  CHECK(contains(read_json_file(fifo).error().message, "not a regular file"));
}


TEST_CASE("a streamed file of the set is written through a 1 MiB buffer, and a failure keeps the old set",
          "[atomic]") {
  TempDir dir;
  const std::string piece(1000, 'x');
  const std::size_t pieces = 3000;  // 3,000,000 bytes: two full buffers and a partial one
  auto streamed = [&](const std::string& path) {
    return FileContent{path, {}, [&piece, pieces](const TextSink& emit) {
                         for (std::size_t i = 0; i < pieces; ++i) emit(piece);
                       }};
  };
  auto counting = [](std::shared_ptr<int> calls, int fail_at) {
    AtomicFileOptions o;
    o.pwrite_fn = [calls, fail_at](int fd, const void* data, std::size_t n, off_t off) -> ssize_t {
      if (++*calls == fail_at) {
        errno = ENOSPC;
        return -1;
      }
      return ::pwrite(fd, data, n, off);
    };
    return o;
  };
  const std::vector<FileContent> old_set = {{dir.file("results.md"), "old md\n"}, {dir.file("results.json"), "old\n"}};
  REQUIRE(write_files_atomic(old_set).ok());

  auto calls = std::make_shared<int>(0);
  Status st = write_files_atomic({{dir.file("results.md"), "new md\n"}, streamed(dir.file("results.json"))},
                                 counting(calls, 3));  // md, the first 1 MiB, then the disk is full
  REQUIRE_FALSE(st.ok());
  CHECK(contains(st.error().message, "no file of the set was replaced"));
  CHECK(*calls == 3);  // the pieces after the failure were dropped, not written
  CHECK(read_file(dir.file("results.md")).value() == "old md\n");
  CHECK(read_file(dir.file("results.json")).value() == "old\n");
  CHECK(dir_entries(dir.path()).size() == 2);

  *calls = 0;
  REQUIRE(write_files_atomic({{dir.file("results.md"), "new md\n"}, streamed(dir.file("results.json"))},
                             counting(calls, 99)).ok());
  CHECK(*calls == 1 + 3);  // md in one write, json in three buffered writes (not 3,000)
  const std::string json = read_file(dir.file("results.json")).value();
  CHECK(json.size() == pieces * piece.size());
  CHECK(json.find_first_not_of('x') == std::string::npos);
}

TEST_CASE("the files of a set are written two at a time with each file's own bytes", "[atomic]") {
  // Without the fault seams the set's files are written on two threads: each
  // file gets exactly its own pieces, each writer is called once.
  TempDir dir;
  std::vector<FileContent> set;
  std::vector<std::string> expected;
  auto calls = std::make_shared<std::vector<std::atomic<int>>>(6);
  for (int f = 0; f < 6; ++f) {
    std::string text;
    for (int i = 0; i < 20000 * (f + 1); ++i) text += std::to_string(f) + ":" + std::to_string(i) + "\n";
    expected.push_back(text);
    if (f == 2) {
      set.push_back({dir.file("f" + std::to_string(f)), text});  // one whole text among streamed ones
      continue;
    }
    set.push_back({dir.file("f" + std::to_string(f)), {}, [calls, f](const TextSink& emit) {
                     ++(*calls)[f];
                     for (int i = 0; i < 20000 * (f + 1); ++i) emit(std::to_string(f) + ":" + std::to_string(i) + "\n");
                   }});
  }
  REQUIRE(write_files_atomic(set).ok());
  for (int f = 0; f < 6; ++f) {
    CHECK(read_file(dir.file("f" + std::to_string(f))).value() == expected[f]);
    if (f != 2) CHECK((*calls)[f] == 1);
  }
  CHECK(dir_entries(dir.path()).size() == 6);  // no temporary left
}
