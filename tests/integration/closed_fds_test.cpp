// closed_fds_test.cpp — a results directory has one writer and one record:
// a caller that closes standard output (`moebench run … >&-`) must not get
// the results table written into the journal (the descriptor the journal
// would have taken is /dev/null's, so the journal stays one JSON record per
// line and a resume reads it back), and a second run into a directory in
// use is refused before it writes anything, naming the holder.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <sstream>

#include "../unit/test_support.h"
#include "process.h"
#include "vocab/dir_lock.h"
#include "vocab/file_io.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

// Runs moebench with standard output closed (stderr to a file); returns the exit code.
int run_with_stdout_closed(const std::vector<std::string>& args, const std::string& err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, 1);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> full = {MOEBENCH_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, MOEBENCH_BINARY, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("stdout closed: the journal stays JSON lines and a resume reads it", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("r1");
  const std::string sweep = std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json";
  REQUIRE(run_with_stdout_closed({"run", sweep, "--out", out}, dir.file("err1")) == 0);
  auto journal = read_file(out + "/journal.jsonl");
  REQUIRE(journal.ok());
  std::istringstream lines(*journal);
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    INFO(line.substr(0, 200));
    CHECK_NOTHROW(nlohmann::json::parse(line));  // no table row, no legend in the journal
    ++records;
  }
  CHECK(records > 0);
  CHECK(journal->find("| engine |") == std::string::npos);
  Finished resume = run_moebench({"run", sweep, "--out", out, "--resume", "--quiet"}, dir.path(), "resume");
  INFO(resume.err);
  CHECK(resume.exit_code == 0);
  CHECK(resume.err.find("damaged") == std::string::npos);
}

TEST_CASE("a second run into a results directory in use is refused, naming the holder", "[integration]") {
  TempDir dir;
  const std::string out = dir.file("r1");
  const std::string sweep = std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json";
  REQUIRE(ensure_directory(out).ok());
  {
    // This test process holds the directory, as a first `run` would.
    auto holder = DirLock::acquire(out, "moebench run null-quick --out r1");
    REQUIRE(holder);
    Finished second = run_moebench({"run", sweep, "--out", out, "--resume"}, dir.path(), "second");
    CHECK(second.exit_code == 2);
    CHECK_THAT(second.err, Catch::Contains("pid " + std::to_string(getpid())) && Catch::Contains("another --out"));
    CHECK_FALSE(std::filesystem::exists(out + "/journal.jsonl"));  // refused before anything was written
  }
  // Released, the same command runs.
  Finished again = run_moebench({"run", sweep, "--out", out, "--resume"}, dir.path(), "again");
  CHECK(again.exit_code == 0);
  CHECK(std::filesystem::exists(out + "/journal.jsonl"));
}
