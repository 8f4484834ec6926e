// container_naming_test.cpp — where `moebench run` puts a container when the
// sweep names its card by path. The file is named after the card's `name`
// (sanitized), never after the path: its expert file lands in every drive
// directory and its trunk file in the first, nowhere else, whether the card
// path is absolute or relative. Two drive directories on one filesystem hold
// one copy: the replica is a hard link. `run` states the disk need first.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../unit/test_support.h"
#include "process.h"

using namespace moebench;
using moebench::testing::Finished;
using moebench::testing::run_moebench;
using moebench::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    // Container makers take turns on .moebench-make.lock; it names no container.
    if (e.path().filename() != ".moebench-make.lock") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string write_sweep(const TempDir& dir, const std::string& card_ref, const std::vector<std::string>& drives) {
  const std::string path = dir.file("naming.json");
  std::ofstream out(path);
  out << R"({"name": "naming", "repetitions": 1, "warmup": 0, "seed": 42, "timeout_s": 120, "drive_dirs": [")"
      << drives[0] << R"(", ")" << drives[1] << R"("], "axes": {"engine": ["streaming"], "model": [{"card": ")"
      << card_ref << R"("}], "quant": ["q4_0"], "drives": [2], "prompt_tokens": [4], "gen_tokens": [2]}})";
  return path;
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_CASE("a card given by path names its container after the card, inside every drive directory", "[engines]") {
  for (bool absolute : {true, false}) {
    INFO((absolute ? "absolute card path" : "relative card path"));
    TempDir dir;
    const std::string card_dir = dir.file("my cards");
    fs::create_directories(card_dir);
    fs::copy_file(std::string(MOEBENCH_SOURCE_DIR) + "/configs/models/tiny-moe.json", card_dir + "/card.json");
    std::vector<std::string> drives = {dir.file("d0"), dir.file("d1")};
    for (const std::string& d : drives) fs::create_directories(d);

    const fs::path old_cwd = fs::current_path();
    fs::current_path(dir.path());  // a relative card path is read from the working directory
    const std::string card_ref = absolute ? card_dir + "/card.json" : "my cards/card.json";
    const std::string sweep = write_sweep(dir, card_ref, drives);
    Finished f = run_moebench({"run", sweep, "--out", dir.file("out"), "--fresh"}, dir.path(), "run");
    fs::current_path(old_cwd);
    INFO(f.err);
    REQUIRE(f.exit_code == 0);

    // Nothing beside the card file; an expert file per drive directory and
    // the trunk file in the first, named from the card's name ("tiny-moe"),
    // not from its path.
    CHECK(files_in(card_dir) == std::vector<std::string>{"card.json"});
    const std::vector<std::string> in_d0 = files_in(drives[0]);
    REQUIRE(in_d0.size() == 2);
    CHECK(in_d0[0].rfind("tiny-moe.full.q4_0.s42.", 0) == 0);
    CHECK(in_d0[1].rfind("tiny-moe.full.trunk-", 0) == 0);
    CHECK(files_in(drives[1]) == std::vector<std::string>{in_d0[0]});
    // One filesystem: drive 1's replica is drive 0's file, not a copy.
    CHECK(inode_of(drives[0] + "/" + in_d0[0]) == inode_of(drives[1] + "/" + in_d0[0]));
    // The need was stated before anything was written.
    CHECK(f.err.find("containers need ") != std::string::npos);
    CHECK(f.err.find("1 replica hard-linked") != std::string::npos);
  }
}
