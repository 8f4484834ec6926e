// row_text_test.cpp — the fast path that decodes a results row straight from
// its text (vocab/row_text.h). The rule it must keep: a row it accepts
// decodes to exactly what the strict reader gives (every field, every bit of
// every number); anything else it hands back, for the strict reader to read
// or to name the problem.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reports/writers.h"
#include "tests/unit/test_support.h"
#include "vocab/journal_format.h"
#include "vocab/json_reader.h"
#include "vocab/json_scan.h"
#include "vocab/metrics.h"
#include "vocab/row_text.h"

using namespace moebench;

namespace {

ResultRow written_row(std::size_t index) {
  ResultRow r;
  r.point.index = index;
  r.point.engine.name = "null";
  r.point.model = "kimi-k3";
  r.point.scale = {4, 112};
  r.point.quant = "mxfp4";
  r.point.ram_budget_bytes = 6ull << 30;
  r.point.context_tokens = 4096;
  r.provenance = "synthetic";
  r.run_id = "20261204T120000Z-abcdef";
  r.machine = "unprofiled:testhost";
  r.build = "moebench 0.1.0 (0123456789ab, Release)";
  r.notes = {"a note with \"quotes\" and a tab\t", "é"};
  r.repetitions = 3;
  r.warmup = 1;
  r.wall_s = 1.25;
  r.min_budget_bytes = 123456789;
  auto put = [&r](const char* name, std::vector<double> v) {
    r.samples[name] = v;
    r.metrics[name] = summarize(v);
  };
  put(metric::kDecodeTokS, {1.5, 2.25, 0.1 + 0.2});
  put(metric::kTtftS, {0.5, std::nan(""), 0.75});
  put(metric::kReadBytesPerToken, {17547264.0 * 3, 1e300, 5e-324});
  put("load_s", {});
  return r;
}

// The strict way: the whole row parsed into a tree, checked, decoded.
std::optional<ResultRow> strict_row(std::string_view text) {
  auto tree = parse_json_text(text, "row");
  if (!tree) return std::nullopt;
  Diagnostics d("row");
  check_row_record(*tree, "", d);
  if (!d.ok()) return std::nullopt;
  auto row = row_from_json(*tree);
  if (!row) return std::nullopt;
  return *row;
}

// Every field a writer prints, numbers to the bit (-0.0 is not 0.0).
std::string fingerprint(const ResultRow& r) {
  std::string out = row_to_json(r).dump();
  for (const auto& [name, values] : r.samples) {
    for (double v : values) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      out += " " + std::to_string(bits);
    }
  }
  return out;
}

// The rows of a results.json as `moebench run` writes it, each as cut out of the file.
std::vector<std::string> rows_as_written(const std::vector<ResultRow>& rows) {
  RunResults res;
  res.sweep = {"s", "", "d1", rows.size(), 3, 1, 7};
  res.rows = rows;
  std::vector<std::string> texts;
  auto scanned = scan_json_object(std::string_view(write_json(res)), "results.json", "rows",
                                  [&texts](std::string_view text, const ElementPlace&) {
                                    texts.emplace_back(text);
                                    return Status::success();
                                  });
  REQUIRE(scanned);
  return texts;
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a row as moebench writes it takes the fast path and decodes to what the strict reader gives", "[json][row_text]") {
  const std::vector<std::string> texts = rows_as_written({written_row(0), written_row(1)});
  REQUIRE(texts.size() == 2);
  for (const std::string& text : texts) {
    REQUIRE(text.find("\"columns\"") != std::string::npos);  // the derived columns are skipped, not read
    const auto fast = fast_row_from_text(text);
    const auto strict = strict_row(text);
    REQUIRE(fast);
    REQUIRE(strict);
    CHECK(fingerprint(*fast) == fingerprint(*strict));
  }
  // The journal writes a row compact, without columns.
  const std::string compact = row_to_json(written_row(5)).dump();
  REQUIRE(fast_row_from_text(compact));
  CHECK(fingerprint(*fast_row_from_text(compact)) == fingerprint(written_row(5)));
}

TEST_CASE("numbers decode bit for bit as the strict reader decodes them", "[json][row_text]") {
  const std::string base = row_to_json(written_row(0)).dump();
  const std::vector<std::string> numbers = {"-0",   "0",      "-0.0",  "1e-320", "18446744073709551616", "-9223372036854775809",
                                            "0.1",  "1E+2",   "-1e-5", "123456789012345678901234567890",
                                            "2.2250738585072014e-308", "1.7976931348623157e308", "9007199254740993"};
  for (const std::string& n : numbers) {
    const std::string text = with(base, "\"decode_tok_s\":[1.5", "\"decode_tok_s\":[" + n);
    const auto fast = fast_row_from_text(text);
    const auto strict = strict_row(text);
    INFO(n);
    REQUIRE(strict);
    if (fast) CHECK(fingerprint(*fast) == fingerprint(*strict));
  }
  // An integer token is an integer first, as nlohmann reads it: -0 is +0.0.
  const auto negative_zero = fast_row_from_text(with(base, "\"decode_tok_s\":[1.5", "\"decode_tok_s\":[-0"));
  REQUIRE(negative_zero);
  CHECK_FALSE(std::signbit(negative_zero->samples.at("decode_tok_s")[0]));
}

TEST_CASE("the fast path hands back what it does not read: the strict reader reads or refuses it", "[json][row_text]") {
  const std::string base = row_to_json(written_row(0)).dump();
  struct Case {
    std::string what, from, to;
    bool strict_reads;  // the strict reader accepts the row
  };
  const std::vector<Case> cases = {
      {"a comment", "{\"build\"", "{/* c */\"build\"", true},
      {"an escape in a metric's name", "\"decode_tok_s\":{", "\"decode_tok\\u005fs\":{", true},
      {"a metric summary with a key more", "\"mad\":", "\"extra\":1,\"mad\":", true},
      {"nested columns", "{\"build\"", "{\"columns\":{\"a\":[1]},\"build\"", true},
      {"an integer count written as 3.0e0", "\"n\":3", "\"n\":3.0e0", false},
      {"a duplicate metric", "\"metrics\":{", "\"metrics\":{\"load_s\":{\"mad\":null,\"max\":null,\"mean\":null,\"median\":null,\"min\":null,\"n\":0,\"p10\":null,\"p90\":null,\"stddev\":null},", false},
      {"a duplicate top-level key", "{\"build\"", "{\"reason\":\"x\",\"build\"", false},
      {"a duplicate key in columns", "{\"build\"", "{\"columns\":{\"a\":1,\"a\":2},\"build\"", false},
      {"a summary without mad", "\"mad\":", "\"mad_\":", false},
      {"a number beyond double range", "\"decode_tok_s\":[1.5", "\"decode_tok_s\":[1e999", false},
      {"a negative count", "\"n\":3", "\"n\":-3", false},
      {"more samples than runs", "\"decode_tok_s\":[1.5", "\"decode_tok_s\":[1,2,3,1.5", false},
      {"a string sample", "\"decode_tok_s\":[1.5", "\"decode_tok_s\":[\"1.5\"", false},
      {"text after the row", "\"warmup\":1}", "\"warmup\":1} x", false},
      {"a row without samples", "\"samples\":", "\"samples_\":", false},
      {"a point_id that is not its point's", "\"point_id\":\"", "\"point_id\":\"0", false},
      {"forty keys more than a row has", "{\"build\"", "{\"k0\":0,\"k1\":0,\"k2\":0,\"k3\":0,\"k4\":0,\"k5\":0,\"k6\":0,\"k7\":0,\"k8\":0,\"k9\":0,\"k10\":0,\"k11\":0,\"k12\":0,\"k13\":0,\"k14\":0,\"k15\":0,\"k16\":0,\"k17\":0,\"k18\":0,\"k19\":0,\"k20\":0,\"k21\":0,\"k22\":0,\"k23\":0,\"k24\":0,\"k25\":0,\"k26\":0,\"k27\":0,\"k28\":0,\"k29\":0,\"k30\":0,\"k31\":0,\"k32\":0,\"k33\":0,\"k34\":0,\"k35\":0,\"k36\":0,\"k37\":0,\"k38\":0,\"k39\":0,\"build\"", true},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string text = with(base, c.from, c.to);
    CHECK_FALSE(fast_row_from_text(text));
    CHECK(strict_row(text).has_value() == c.strict_reads);
  }
}

TEST_CASE("every one-byte change of a row is read alike by the fast path and the strict reader, or handed back", "[json][row_text]") {
  // The journal's compact row, and a results file's row with its columns
  // (strings with escapes and UTF-8 among them), on one line.
  ResultRow noted = written_row(1);
  noted.reason = "r\u00e9\\ \"q\" \xf0\x9f\x98\x80";
  noted.status = RowStatus::kFailed;
  const std::string with_columns = parse_json_text(rows_as_written({noted})[0], "row")->dump();
  REQUIRE(with_columns.find("\"columns\"") != std::string::npos);
  REQUIRE(fast_row_from_text(with_columns));
  const std::string base = GENERATE_COPY(row_to_json(written_row(0)).dump(), with_columns);
  const std::string replacements = "\" \\,:{}[]0-e/.n9u\x80\xc3\xed\x1f\t";
  std::size_t tried = 0, fast_read = 0, handed_back = 0, mismatched = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    for (char r : replacements) {
      if (base[i] == r) continue;
      std::string text = base;
      text[i] = r;
      ++tried;
      const auto fast = fast_row_from_text(text);
      if (!fast) {
        ++handed_back;
        continue;
      }
      ++fast_read;
      const auto strict = strict_row(text);
      if (!strict || fingerprint(*strict) != fingerprint(*fast)) {
        ++mismatched;
        UNSCOPED_INFO("position " << i << " byte '" << r << "': " << text);
      }
    }
  }
  CHECK(mismatched == 0);
  CHECK(tried == fast_read + handed_back);
  CHECK(fast_read > 0);     // digits changed into digits are still rows
  CHECK(handed_back > 0);   // and most changes are not
}

namespace {

// A row of random values: any double (NaN, infinities, subnormals, -0.0),
// strings of any bytes (escapes, control bytes, invalid UTF-8).
ResultRow random_row(std::mt19937_64& rng) {
  auto any_double = [&rng] {
    const std::uint64_t bits = rng();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    switch (rng() % 4) {
      case 0: return v;                                              // any bit pattern
      case 1: return static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000);  // integral
      case 2: return (rng() % 2 ? -0.0 : 0.0);
      default: return static_cast<double>(rng() % 100000) / 1000.0;  // a decimal
    }
  };
  auto any_string = [&rng] {
    std::string s;
    const std::size_t n = rng() % 12;
    for (std::size_t i = 0; i < n; ++i) {
      s += rng() % 3 == 0 ? static_cast<char>(rng() % 256) : static_cast<char>('a' + rng() % 26);
    }
    return s;
  };
  ResultRow r = written_row(rng() % 1000);
  r.build = any_string();
  r.machine = any_string();
  r.reason = any_string();
  r.notes = {any_string(), any_string()};
  r.run_id = any_string();
  r.wall_s = any_double();
  r.repetitions = static_cast<int>(rng() % 7) - 1;
  r.min_budget_bytes = rng() % 2 ? std::optional<std::uint64_t>(rng()) : std::nullopt;
  r.point.trunk_quant = rng() % 2 ? "q8_0" : "";
  r.point.trunk_quant_is_card = rng() % 2 == 0;
  r.point.model = any_string();
  r.point.routing = any_string();
  r.point.threads = rng() % 2 ? 0 : static_cast<int>(rng() % 64);
  r.point.ram_budget_bytes = rng() % 3 ? std::optional<std::uint64_t>(rng()) : std::nullopt;
  r.point.drives.count = static_cast<int>(rng() % 4);
  r.point.drives.throttle_bytes_s = rng() % 2 ? std::optional<double>(any_double()) : std::nullopt;
  r.point.context_tokens = static_cast<std::int64_t>(rng());
  r.metrics.clear();
  r.samples.clear();
  for (int m = 0; m < 3; ++m) {
    const std::string name = any_string();
    Summary s;
    s.n = rng();
    for (double* f : {&s.median, &s.min, &s.max, &s.mean, &s.stddev, &s.p10, &s.p90, &s.mad}) *f = any_double();
    r.metrics[name] = s;
    std::vector<double> v(rng() % 4);
    for (double& x : v) x = any_double();
    r.samples[name] = v;
  }
  return r;
}

}  // namespace

TEST_CASE("a row written straight from its fields is byte for byte nlohmann's dump of its tree", "[json][row_text]") {
  std::mt19937_64 rng(20261204);
  for (int i = 0; i < 2000; ++i) {
    const ResultRow r = random_row(rng);
    const Json tree = row_to_json(r);
    REQUIRE(r.point.key_text() == dump_untrusted(r.point.key_json()));
    REQUIRE(row_text(r) == dump_untrusted(tree));
    REQUIRE(row_text(r, 2) == dump_untrusted(tree, 2));
  }
  // Nested in a document: every line after the first indented by the base.
  const ResultRow r = written_row(3);
  std::string nested;
  JsonTextWriter w(nested, 2, 4);
  w.begin_array();
  w.begin_object();
  write_row_members(w, r);
  w.end_object();
  w.begin_array();
  w.end_array();
  w.end_array();
  std::string expected = dump_untrusted(Json::array({row_to_json(r), Json::array()}), 2);
  for (std::size_t at = expected.find('\n'); at != std::string::npos; at = expected.find('\n', at + 1)) {
    expected.insert(at + 1, "    ");
  }
  CHECK(nested == expected);
}
