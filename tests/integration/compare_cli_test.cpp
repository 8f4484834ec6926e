// compare_cli_test.cpp — the CI recipe end to end on the tiny-moe card:
// `moebench run --io-throttle` throttles the streaming engine without
// changing point ids or the bytes it reads and says so in every row, and
// `moebench compare` passes a run against itself (exit 0), flags a slower
// copy of it (exit 1, REGRESSED on stdout) and tells an input error apart
// from a regression. No wall-clock ratio is asserted: the slower copy is the
// base run with its decode rates scaled down, so the verdict does not depend
// on how busy the machine is; the throttled run is only held to the floor
// its modelled drive implies (bytes / rate), which load cannot break.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "../unit/test_support.h"
#include "vocab/metrics.h"
#include "process.h"
#include "vocab/file_io.h"
#include "reports/results_reader.h"
#include "reports/writers.h"

using namespace moebench;
using namespace moebench::testing;

namespace {

// Streaming reads experts on demand (uniform routing over 4 MoE layers × 16
// experts: a cold cache misses often in decode); resident reads nothing.
std::string write_sweep(const TempDir& dir) {
  const std::string s = R"({"name": "throttle-test", "repetitions": 5, "warmup": 0, "seed": 3,
    "drive_dirs": [")" + dir.file("d0") + R"("],
    "axes": {"engine": ["streaming", "resident"], "model": ["tiny-moe"], "quant": ["q4_0"],
             "prompt_tokens": [4], "gen_tokens": [9], "threads": [1]}})";
  REQUIRE(write_file_atomic(dir.file("sweep.json"), s).ok());
  return dir.file("sweep.json");
}

const ResultRow& row_of(const RunResults& r, const std::string& engine) {
  for (const ResultRow& row : r.rows) {
    if (row.point.engine.name == engine) return row;
  }
  FAIL("no " << engine << " row");
  return r.rows.front();
}

// `r` with no repetition marked disturbed: the runs of this test share the
// machine with the other tests (ctest -j), and the verdict under test is
// the one a quiet machine gives; the inconclusive verdict of a disturbed
// run is tested in tests/unit/compare_test.cpp.
RunResults quiet_copy(const RunResults& r) {
  RunResults q = r;
  for (ResultRow& row : q.rows) {
    auto it = row.samples.find(metric::kDisturbed);
    if (it != row.samples.end()) std::fill(it->second.begin(), it->second.end(), 0.0);
  }
  return q;
}

// `base` with every row's decode rate scaled below its slowest repetition:
// each new sample is under every base sample, a regression by construction.
void write_slower_copy(const RunResults& base, const std::string& out_dir) {
  RunResults slower = quiet_copy(base);
  for (ResultRow& row : slower.rows) {
    auto it = row.samples.find(metric::kDecodeTokS);
    if (it == row.samples.end() || it->second.empty()) continue;
    std::vector<double>& v = it->second;
    const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    for (double& x : v) x *= 0.5 * lo / hi;
    row.metrics[metric::kDecodeTokS] = summarize(v);
  }
  std::filesystem::create_directories(out_dir);
  REQUIRE(write_file_atomic(out_dir + "/results.json", write_json(slower)).ok());
}

bool has_note(const ResultRow& row, const std::string& text) {
  for (const std::string& n : row.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("run --io-throttle keeps point ids and bytes read, compare flags a slower run", "[integration][compare]") {
  TempDir dir;
  const std::string sweep = write_sweep(dir);
  const std::string base = dir.file("base"), slow = dir.file("slow");
  Finished b = run_moebench({"run", sweep, "--out", base, "--quiet", "--print", "none"}, dir.path(), "base");
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  Finished s = run_moebench({"run", sweep, "--out", slow, "--quiet", "--print", "none", "--io-throttle", "16MB/s"},
                            dir.path(), "slow");
  INFO(s.err);
  REQUIRE(s.exit_code == 0);

  auto rb = load_results_file(base + "/results.json");
  auto rs = load_results_file(slow + "/results.json");
  REQUIRE(rb);
  REQUIRE(rs);
  const ResultRow& sb = row_of(*rb, "streaming");
  const ResultRow& ss = row_of(*rs, "streaming");
  REQUIRE(sb.status == RowStatus::kOk);
  REQUIRE(ss.status == RowStatus::kOk);
  CHECK(sb.point.id() == ss.point.id());
  CHECK_FALSE(ss.point.drives.throttle_bytes_s);  // the row keeps the sweep's point
  CHECK(has_note(ss, "io throttled to 16.00 MB/s per drive by --io-throttle (sweep: none"));
  CHECK_FALSE(has_note(sb, "--io-throttle"));
  CHECK(has_note(row_of(*rs, "resident"), "--io-throttle 16.00 MB/s not applied"));
  REQUIRE(sb.median(metric::kReadBytesPerToken).value_or(0) > 0);  // decode does read
  // The throttle changes when bytes arrive, not which: the same reads.
  CHECK(ss.samples.at(metric::kReadBytesPerToken) == sb.samples.at(metric::kReadBytesPerToken));
  // A floor, not a speed: one modelled 16 MB/s drive serves every decode
  // read, so no repetition's decode can beat bytes / rate (a busier machine
  // only lengthens it).
  const std::vector<double>& bytes = ss.samples.at(metric::kReadBytesPerToken);
  const std::vector<double>& rates = ss.samples.at(metric::kDecodeTokS);
  REQUIRE(bytes.size() == rates.size());
  for (std::size_t i = 0; i < rates.size(); ++i) {
    INFO("repetition " << i << ": " << bytes[i] << " bytes/token at " << rates[i] << " tok/s");
    CHECK(1.0 / rates[i] >= 0.9 * bytes[i] / 16e6);
  }

  // A regression by construction (see write_slower_copy), not a timing.
  const std::string slower = dir.file("slower");
  write_slower_copy(*rb, slower);
  // The base as a quiet machine would have recorded it (see quiet_copy).
  std::filesystem::create_directories(dir.file("base-quiet"));
  REQUIRE(write_file_atomic(dir.file("base-quiet/results.json"), write_json(quiet_copy(*rb))).ok());

  Finished same = run_moebench({"compare", base, base}, dir.path(), "same");
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::Contains("NO REGRESSION"));

  Finished flagged = run_moebench({"compare", dir.file("base-quiet"), slower}, dir.path(), "flagged");
  INFO(flagged.out << flagged.err);
  CHECK(flagged.exit_code == 1);
  CHECK_THAT(flagged.out, Catch::Contains("**REGRESSED**"));
  CHECK_THAT(flagged.out, Catch::Contains("decode_tok_s"));
  CHECK_THAT(flagged.err, Catch::Contains("moebench compare: regression:"));

  Finished json = run_moebench({"compare", dir.file("base-quiet/results.json"), slower + "/results.json", "--format", "json"},
                               dir.path(), "json");
  CHECK(json.exit_code == 1);
  CHECK(Json::parse(json.out)["verdict"] == "regressed");

  // --out holds what was printed; an --out that cannot be written still leaves the report on screen.
  const std::string written = dir.file("cmp.md");
  Finished to_file = run_moebench({"compare", dir.file("base-quiet"), slower, "--out", written}, dir.path(), "to_file");
  CHECK(to_file.exit_code == 1);
  CHECK(read_file(written).value_or("") == to_file.out);
  Finished unwritable = run_moebench({"compare", dir.file("base-quiet"), slower, "--out", dir.file("no/such/dir/cmp.md")}, dir.path(),
                                     "unwritable");
  CHECK(unwritable.exit_code == 2);
  CHECK(unwritable.out == to_file.out);
  CHECK_THAT(unwritable.err, Catch::Contains("cmp.md"));

  Finished missing = run_moebench({"compare", base, dir.file("nope.json")}, dir.path(), "missing");
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
  CHECK_THAT(missing.err, Catch::Contains("moebench compare: error: NEW"));
  CHECK_THAT(missing.err, Catch::Contains("nope.json"));
  CHECK_THAT(missing.err, Catch::Contains("not a regression verdict"));

  Finished bad_threshold = run_moebench({"compare", base, slower, "--threshold", "5"}, dir.path(), "threshold");
  CHECK(bad_threshold.exit_code == 2);
  CHECK_THAT(bad_threshold.err, Catch::Contains("ambiguous"));

  Finished bad_rate = run_moebench({"run", sweep, "--out", dir.file("x"), "--io-throttle", "fast"}, dir.path(), "rate");
  CHECK(bad_rate.exit_code == 2);
  CHECK_THAT(bad_rate.err, Catch::Contains("--io-throttle"));
}
