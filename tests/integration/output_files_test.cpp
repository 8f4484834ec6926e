// output_files_test.cpp — where results go and what they measure, end to
// end: a streaming point whose drive directory is on tmpfs is `invalid`
// (it measured RAM), `moebench run` refuses a results path that is a
// symlink, and `moebench probe` a device node, before running anything, and a disk that fills while the final
// results files are written leaves the previous set intact and says how
// to regenerate it (a 1 MiB tmpfs, mounted only where the test may: root
// with mount permission; skipped elsewhere).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>

#include "../unit/test_support.h"
#include "engines/streaming/streaming_engine.h"
#include "vocab/clock.h"
#include "vocab/json_reader.h"
#include "vocab/progress.h"
#include "process.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

constexpr std::uint64_t kTmpfsMagic = 0x01021994;

// A directory under /dev/shm (tmpfs), removed at the end.
class ShmDir {
 public:
  ShmDir() {
    std::string tmpl = "/dev/shm/moebench-test-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ShmDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Expected<Measurement> run_streaming(const std::string& drive_dir) {
  SteadyClock clock;
  QuietProgress progress;
  auto card = shipped_store().card("tiny-moe");
  REQUIRE(card);
  const std::vector<std::string> drives = {drive_dir};
  Point p;
  p.engine = *parse_engine_spec("streaming");
  p.model = card->name;
  p.quant = "q4_0";
  p.prompt_tokens = 4;
  p.gen_tokens = 5;
  p.threads = 1;
  RunContext ctx{clock, progress, *card, drives, 42, 0, false, clock.now_s() + 120, nullptr};
  auto engine = make_streaming_engine(p.engine);
  return engine->run(p, ctx);
}

const char* kSweep = R"({"name": "files", "repetitions": 2, "warmup": 0, "seed": 5,
  "axes": {"engine": ["null"], "model": ["tiny-moe"], "quant": ["mxfp4", "q8_0"],
           "ram_budget": ["1MiB", "2MiB", "4MiB"], "context_tokens": [0, 128], "gen_tokens": [4]}})";

}  // namespace

TEST_CASE("a streaming point whose drive directory is on tmpfs is invalid, saying why", "[integration][engines]") {
  ShmDir shm;
  auto kind = filesystem_kind(shm.path().empty() ? "/dev/shm" : shm.path());
  if (shm.path().empty() || !kind || kind->magic != kTmpfsMagic) {
    WARN("/dev/shm is not a writable tmpfs here: skipped");
    return;
  }
  auto m = run_streaming(shm.path());
  REQUIRE(m.ok());
  CHECK(m->status == RowStatus::kInvalid);
  INFO(m->reason);
  CHECK(m->reason.find("drive 0: " + shm.path() + " is on tmpfs, which keeps its files in RAM") != std::string::npos);
  CHECK(m->reason.find("measure memory, not storage") != std::string::npos);
  CHECK(m->reason.find("put the drive directory on a disk-backed filesystem") != std::string::npos);
  CHECK(m->token_times_s.size() == 1);  // stopped after prefill: decode would only time RAM

  // The same point on a disk-backed directory is ok (where the test's
  // temporary directory is one).
  TempDir disk;
  if (reads_bypass_drive(disk.path()).empty()) {
    auto ok = run_streaming(disk.path());
    REQUIRE(ok.ok());
    CHECK(ok->status == RowStatus::kOk);
    CHECK(ok->read_bytes_prefill > 0);
  }
}

TEST_CASE("run refuses a results path that is a symlink before running anything", "[integration]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("sweep.json"), kSweep).ok());
  const std::string out = dir.file("out");
  std::filesystem::create_directories(out);
  const std::string precious = dir.file("precious.json");
  REQUIRE(write_file_atomic(precious, "keep me\n").ok());
  REQUIRE(::symlink(precious.c_str(), (out + "/results.json").c_str()) == 0);
  Finished f = run_moebench({"run", dir.file("sweep.json"), "--out", out, "--quiet", "--print", "none"}, dir.path());
  INFO(f.err);
  CHECK(f.exit_code == 2);
  CHECK(f.err.find(out + "/results.json is a symlink; give a regular file path") != std::string::npos);
  CHECK(std::filesystem::is_symlink(out + "/results.json"));
  CHECK(read_file(precious).value() == "keep me\n");
  CHECK_FALSE(std::filesystem::exists(out + "/journal.jsonl"));  // nothing ran

  // The probe refuses a device node as its profile path before probing.
  Finished probe = run_moebench({"probe", "--quick", "--drive", dir.path(), "--out", "/dev/null"}, dir.path(), "probe");
  INFO(probe.err);
  CHECK(probe.exit_code == 2);
  CHECK(probe.err.find("/dev/null is a device node; give a regular file path") != std::string::npos);
  CHECK(std::filesystem::is_character_file("/dev/null"));
}

TEST_CASE("a disk full during the final write leaves the previous results set and says --resume regenerates it",
          "[integration]") {
  TempDir dir;
  REQUIRE(write_file_atomic(dir.file("sweep.json"), kSweep).ok());
  const std::string out = dir.file("out");
  std::filesystem::create_directories(out);
  if (::geteuid() != 0 || ::mount("tmpfs", out.c_str(), "tmpfs", 0, "size=1m") != 0) {
    WARN("cannot mount a small tmpfs here (needs root and mount permission): skipped");
    return;
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{out};
  const std::vector<std::string> run = {"run", dir.file("sweep.json"), "--out", out, "--quiet", "--print", "none"};
  Finished first = run_moebench(run, dir.path(), "first");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::vector<std::string> names = {"results.md", "results.csv", "results.json", "results.jsonl"};
  std::vector<std::string> before;
  std::uintmax_t results_bytes = 0;
  for (const std::string& n : names) {
    before.push_back(read_file(out + "/" + n).value());
    results_bytes += before.back().size();
  }
  REQUIRE(results_bytes > 16384);  // the set cannot fit in what is left free below

  // Fill the filesystem, then free 12 KiB: room for the journal's new
  // segment line, not for a new set of results files.
  const std::string filler = out + "/filler";
  {
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    std::string block(4096, 'f');
    while (::write(fd, block.data(), block.size()) == static_cast<ssize_t>(block.size())) {
    }
    const off_t size = ::lseek(fd, 0, SEEK_END);
    REQUIRE(size > 12288);
    REQUIRE(::ftruncate(fd, size / 4096 * 4096 - 12288) == 0);
    ::close(fd);
  }
  std::vector<std::string> resume = run;
  resume.push_back("--resume");
  Finished full = run_moebench(resume, dir.path(), "full");
  INFO(full.err);
  CHECK(full.exit_code == 2);
  CHECK(full.err.find("No space left on device") != std::string::npos);
  CHECK(full.err.find("no file of the set was replaced") != std::string::npos);
  CHECK(full.err.find("with --resume to regenerate them") != std::string::npos);
  bool names_file = false;
  for (const std::string& n : names) names_file = names_file || full.err.find(out + "/" + n + ": ") != std::string::npos;
  CHECK(names_file);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(read_file(out + "/" + names[i]).value() == before[i]);
  }
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);  // no temporary left
  }

  // Space again: --resume regenerates the set from the journal.
  REQUIRE(std::filesystem::remove(filler));
  Finished again = run_moebench(resume, dir.path(), "again");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  const Json results = Json::parse(read_file(out + "/results.json").value());
  CHECK(results["rows"].size() == Json::parse(before[2])["rows"].size());
}
