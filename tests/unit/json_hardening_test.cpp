// json_hardening_test.cpp — hostile JSON through every reader: numbers no
// double holds (1e999), integers beyond uint64, deep nesting, invalid UTF-8,
// records of the wrong shape in journals and results files. Each must come
// back as an error naming the file and the line/column or JSON Pointer —
// never an exception, an abort or a stack overflow.
#include <catch2/catch.hpp>

#include <algorithm>

#include "vocab/claim.h"
#include "harness/journal.h"
#include "vocab/json_reader.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"
#include "vocab/sweep_spec.h"
#include "reports/results_reader.h"
#include "reports/writers.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

std::string shipped(const std::string& rel) { return read_file(std::string(MOEBENCH_SOURCE_DIR) + "/" + rel).value(); }

// `text` with the first occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A results.json of two rows, as `moebench run` writes it.
std::string results_text(std::size_t rows = 2) {
  RunResults r;
  r.sweep = {"s", "", "d1", rows, 3, 0, 7};
  r.environments.push_back(capture_environment("", "moebench run"));
  for (std::size_t i = 0; i < rows; ++i) {
    ResultRow row;
    row.point.engine.name = "null";
    row.point.model = "tiny-moe";
    row.point.quant = "mxfp4";
    row.point.index = i;
    row.point.context_tokens = static_cast<std::int64_t>(i) * 64;
    row.provenance = "synthetic";
    row.run_id = r.environments[0].run_id;
    row.repetitions = 2;
    row.samples["decode_tok_s"] = {1.0, 2.0};
    row.metrics["decode_tok_s"] = summarize({1.0, 2.0});
    r.rows.push_back(row);
  }
  return write_json(r);
}

}  // namespace

TEST_CASE("a number outside double range is an error naming the file with its line and column", "[json][hardening]") {
  for (const char* number : {"1e999", "-1e999", "1E400", "123e456789"}) {
    INFO(number);
    auto r = parse_json_text(std::string("{\n  \"a\": [1, ") + number + "]\n}\n", "x.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.rfind("x.json:2:12: number ", 0) == 0);
    CHECK(r.error().message.find("outside the range of a double") != std::string::npos);
  }
  // The largest double is fine; so is the smallest denormal.
  CHECK(parse_json_text("[1.7976931348623157e308, 4.9e-324]", "x.json").ok());
}

TEST_CASE("an integer beyond uint64 is read as a number and refused where an integer is expected", "[json][hardening]") {
  auto j = parse_json_text(R"({"n": 18446744073709551616, "m": -9223372036854775809})", "x.json");
  REQUIRE(j.ok());
  Diagnostics d("x.json");
  CHECK_FALSE(read_integer(j->at("n"), "/n", d, 0, INT64_MAX).has_value());
  CHECK_FALSE(read_integer(j->at("m"), "/m", d, INT64_MIN, INT64_MAX).has_value());
  CHECK_FALSE(read_size(j->at("n"), "/n", d).has_value());
  const std::string text = d.render();
  INFO(text);
  CHECK(text.find("x.json: /n: expected an integer, got a number") != std::string::npos);
  CHECK(text.find("x.json: /m: expected an integer, got a number") != std::string::npos);
}

TEST_CASE("nesting deeper than the limit is an error at its line and column and not a stack overflow", "[json][hardening]") {
  const std::string deep = "{\"a\":\n" + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto r = parse_json_text(deep, "deep.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind("deep.json:2:" + std::to_string(kMaxJsonDepth) + ": nested deeper than", 0) == 0);
  const std::size_t ok_depth = kMaxJsonDepth;
  CHECK(parse_json_text(std::string(ok_depth, '[') + std::string(ok_depth, ']'), "x.json").ok());
  // Brackets inside strings and comments do not count.
  CHECK(parse_json_text("// [[[[\n[\"" + std::string(500, '[') + "\"]", "x.json").ok());
}

TEST_CASE("a duplicate key is named by its JSON Pointer", "[json][hardening]") {
  auto r = parse_json_text(R"({"axes": [{"b": 1, "b": 2}]})", "x.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("x.json: /axes/0/b: duplicate key \"b\"") == 0);
  auto empty_key = parse_json_text(R"({"": 1, "": 2})", "x.json");  // "" is a key like any other
  REQUIRE_FALSE(empty_key.ok());
  CHECK(empty_key.error().message.find("x.json: /: duplicate key \"\"") == 0);
}

TEST_CASE("hostile JSON text never throws from the parser", "[json][hardening]") {
  const std::vector<std::string> inputs = {
      "", " ", "\xff", "[", "{\"a\":", "1e999", "-1e999", "[1e400]", "\"\\ud800\"", "\"\xc3\x28\"", "{\"\xff\": 1}",
      "nul", "[1,]", "{,}", "/* unterminated", "[] []", std::string("[\0]", 3), "{\"a\":1}{", "18446744073709551616",
      std::string(200, '{'), "\"" + std::string(1000, '\\')};
  for (const std::string& in : inputs) {
    INFO(in.substr(0, 40));
    Expected<Json> r = make_error("unset");
    REQUIRE_NOTHROW(r = parse_json_text(in, "x.json"));
    if (!r.ok()) CHECK(r.error().message.rfind("x.json", 0) == 0);
  }
}

TEST_CASE("a container is named and not printed in a type phrase", "[json][hardening]") {
  Json deep = Json::array();
  for (int i = 0; i < 50000; ++i) {  // dump() would recurse 50,000 deep
    Json outer = Json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  CHECK(json_type_phrase(deep) == "an array");
  CHECK(json_type_phrase(Json::object()) == "an object");
  CHECK(json_type_phrase(Json(std::string(100, 'x'))).size() < 60);
}

TEST_CASE("invalid UTF-8 is replaced when sanitized or dumped and prefixes keep whole characters", "[json][hardening]") {
  CHECK(sanitize_utf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(sanitize_utf8("\xed\xa0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate is not UTF-8
  CHECK(sanitize_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(sanitize_utf8("\xc3") == "\xEF\xBF\xBD");  // truncated sequence
  Json j = {{"path", "/tmp/\xff\xfe"}};
  CHECK_THROWS(j.dump());  // what every untrusted dump must avoid
  CHECK(dump_untrusted(j) == "{\"path\":\"/tmp/\xEF\xBF\xBD\xEF\xBF\xBD\"}");
  CHECK(utf8_prefix("ab\xc3\xa9", 3) == "ab");
  CHECK(utf8_prefix("abc", 10) == "abc");
}

TEST_CASE("a rate above any machine is refused where a number is given", "[json][hardening]") {
  Diagnostics d("m.json");
  CHECK_FALSE(read_rate(Json(1e300), "/r", d).has_value());
  CHECK(read_rate(Json(5e11), "/r", d).has_value());
  CHECK(d.render().find("m.json: /r: rate 1e+300 bytes/s is beyond any machine") != std::string::npos);
}

TEST_CASE("every config loader turns 1e999 into a message naming the file and position", "[json][hardening]") {
  const SweepContext ctx = testing::shipped_context();
  const std::string card = with(shipped("configs/models/tiny-moe.json"), "\"layers\": ", "\"layers\": 1e999, \"x\": ");
  auto c = load_config_text<ModelCard>(card, "card.json", load_model_card);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("outside the range of a double") != std::string::npos);
  CHECK(c.error().message.rfind("card.json:", 0) == 0);

  const std::string profile = shipped("configs/hardware/dgx-spark.json");
  const auto colon = profile.find("\"value\": ") + 9;
  auto m = load_config_text<MachineProfile>(profile.substr(0, colon) + "-1e999" + profile.substr(profile.find_first_of(",}", colon)),
                                            "m.json", load_machine_profile);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.rfind("m.json:", 0) == 0);
  CHECK(m.error().message.find("number -1e999 is outside the range") != std::string::npos);

  auto s = load_sweep_text(with(shipped("configs/sweeps/ci.json"), "\"repetitions\": ", "\"repetitions\": 1e999, \"y\": "),
                           "s.json", ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.rfind("s.json:", 0) == 0);

  const std::string claims = shipped("configs/claims/waste.json");
  const auto brace = claims.find('{', claims.find("\"claims\""));
  auto cl = load_config_text<std::vector<Claim>>(claims.substr(0, brace + 1) + "\"gen_tokens\": 1e999," + claims.substr(brace + 1),
                                                 "c.json", load_claims);
  REQUIRE_FALSE(cl.ok());
  CHECK(cl.error().message.find("c.json:") == 0);
}

TEST_CASE("a machine profile with a 1e300GB/s bandwidth or a 1e300 byte count is refused at its path", "[json][hardening]") {
  const std::string profile = shipped("configs/hardware/dgx-spark.json");
  auto j = parse_json_text(profile, "m.json");
  REQUIRE(j.ok());
  Json edited = *j;
  edited["memory_read_bw"]["value"] = "1e300GB/s";
  Diagnostics d("m.json");
  CHECK_FALSE(load_machine_profile(edited, d).has_value());
  INFO(d.render());
  CHECK(d.render().find("m.json: /memory_read_bw/value: rate \"1e300GB/s\" is beyond any machine") != std::string::npos);
}

TEST_CASE("claims refuse token counts whose sum would overflow", "[json][hardening]") {
  const std::string claims = shipped("configs/claims/waste.json");
  auto j = parse_json_text(claims, "c.json");
  REQUIRE(j.ok());
  Json edited = *j;
  edited["claims"][0]["context_tokens"] = INT64_MAX;
  edited["claims"][0]["prompt_tokens"] = INT64_MAX;
  edited["claims"][0]["gen_tokens"] = INT64_MAX;
  Diagnostics d("c.json");
  CHECK_FALSE(load_claims(edited, d).has_value());
  INFO(d.render());
  CHECK(d.render().find("c.json: /claims/0/prompt_tokens: expected at most 1073741824 tokens (2^30), got 9223372036854775807") !=
        std::string::npos);
}

TEST_CASE("journal lines that are JSON but not records are errors naming the line", "[journal][hardening]") {
  TempDir dir;
  const Environment env = capture_environment("", "test");
  const SweepInfo info{"s", "", "d1", 3, 2, 1, 42};
  { REQUIRE(Journal::open(dir.file("j.jsonl"), info, env, Journal::Mode::kCreate).ok()); }
  const std::string header = read_file(dir.file("j.jsonl")).value();
  for (const std::string& line : {"[1]", "3", "\"x\"", "null", "{\"type\": 7}", "{\"type\": \"row\"}",
                                  "{\"type\": \"row\", \"row\": []}", "{\"type\": \"segment\", \"environment\": 7}",
                                  "{\"type\": \"wat\"}"}) {
    INFO(line);
    for (const std::string& after : {"", "{\"type\": \"segment\"}\n"}) {  // the last line, and before the last
      REQUIRE(write_file_atomic(dir.file("j.jsonl"), header + line + "\n" + after).ok());
      Expected<RunResults> r = make_error("unset");
      REQUIRE_NOTHROW(r = read_journal(dir.file("j.jsonl")));
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().message.find("j.jsonl:2") != std::string::npos);
      auto open = Journal::open(dir.file("j.jsonl"), info, env, Journal::Mode::kResume);
      CHECK_FALSE(open.ok());
    }
  }
}

TEST_CASE("a journal header of the wrong shape is an error and not an exception", "[journal][hardening]") {
  TempDir dir;
  for (const std::string& header :
       {"{\"type\": \"header\", \"journal_version\": \"1\"}", "{\"type\": \"header\", \"journal_version\": 1}",
        "{\"type\": \"header\", \"journal_version\": 1, \"sweep\": 3, \"environment\": {}}",
        "{\"type\": \"header\", \"journal_version\": 1e999}", "[\"header\"]"}) {
    INFO(header);
    REQUIRE(write_file_atomic(dir.file("j.jsonl"), header + "\n").ok());
    Expected<RunResults> r = make_error("unset");
    REQUIRE_NOTHROW(r = read_journal(dir.file("j.jsonl")));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.rfind(dir.file("j.jsonl") + ":", 0) == 0);
  }
}

TEST_CASE("results files with hostile values are errors naming the JSON Pointer", "[results][hardening]") {
  const std::string good = results_text();
  REQUIRE(parse_results_text(good, "r.json").ok());
  const struct {
    std::string from, to, where;
  } cases[] = {
      {"\"repetitions\": 2", "\"repetitions\": 1e300", "/rows/0/repetitions: expected an integer"},
      {"\"repetitions\": 2", "\"repetitions\": 99999999999", "/rows/0/repetitions: expected an integer between 0 and 10000"},
      {"\"gen_tokens\": 16", "\"gen_tokens\": 1e300", "/rows/0/point/gen_tokens"},
      {"\"ram_budget_bytes\": \"unlimited\"", "\"ram_budget_bytes\": 1e300", "/rows/0/point/ram_budget_bytes"},
      {"\"count\": 1", "\"count\": 4294967297", "/rows/0/point/drives/count"},
      {"\"index\": 0", "\"index\": -1", "/rows/0/index"},
      {"\"logical_cpus\": ", "\"logical_cpus\": 1e300, \"x\": ", "/environments/0/logical_cpus"},
      {"\"memory_total_bytes\": ", "\"memory_total_bytes\": -5, \"x\": ", "/environments/0/memory_total_bytes"},
      {"\"points_total\": 2", "\"points_total\": \"2\"", "/sweep/points_total"},
      {"\"seed\": 7", "\"seed\": 7.5", "/sweep/seed"},
      {"\"median\": 1.5", "\"median\": \"fast\"", "/rows/0/metrics/decode_tok_s/median"},
      {"\"samples\": {", "\"samples\": {\"x\": 3, ", "/rows/0/samples/x"},
      {"\"rows\": [", "\"rows\": [7, ", "/rows/0: expected an object"},
      {"\"wall_s\": 0.0", "\"wall_s\": 1e999", "number 1e999 is outside the range of a double"},
      {"\"moebench_results_version\": 1", "\"moebench_results_version\": [1]", "results version [1]"},
  };
  for (const auto& c : cases) {
    INFO(c.to);
    Expected<RunResults> r = make_error("unset");
    REQUIRE_NOTHROW(r = parse_results_text(with(good, c.from, c.to), "r.json"));
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(r.error().message.rfind("r.json", 0) == 0);
    CHECK(r.error().message.find(c.where) != std::string::npos);
  }
}

TEST_CASE("results writers do not throw on invalid UTF-8 from the command line", "[results][hardening]") {
  RunResults r;
  r.sweep = {"s", "", "d1", 0, 1, 0, 1};
  r.environments.push_back(capture_environment("", "moebench run --out /tmp/\xff\xfe"));
  std::string json;
  REQUIRE_NOTHROW(json = write_json(r));
  auto back = parse_results_text(json, "r.json");
  REQUIRE(back.ok());
  CHECK(back->environments[0].command_line == "moebench run --out /tmp/\xEF\xBF\xBD\xEF\xBF\xBD");
}

// The k-th (0-based) occurrence of `from` in `text` replaced by `to`.
static std::string with_nth(std::string text, const std::string& from, const std::string& to, std::size_t k) {
  std::size_t at = text.find(from);
  for (std::size_t i = 0; i < k && at != std::string::npos; ++i) at = text.find(from, at + 1);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("rows parsed in batches on worker threads come back in order, with problems in order", "[results][hardening]") {
  // 1,000 rows: four batches of 256, parsed while the scan goes on.
  const std::string good = results_text(1000);
  auto all = parse_results_text(good, "r.json");
  REQUIRE(all.ok());
  REQUIRE(all->rows.size() == 1000);
  std::size_t out_of_place = 0;
  for (std::size_t i = 0; i < all->rows.size(); ++i) out_of_place += all->rows[i].point.index != i;
  CHECK(out_of_place == 0);
  // Two rows in different batches fail their checks: both named, in file order.
  // (A row holds "repetitions": 2 twice, in its record and in its columns;
  // occurrence 2k is row k's record.)
  const std::string two_bad =
      with_nth(with_nth(good, "\"repetitions\": 2", "\"repetitions\": -1", 1400), "\"repetitions\": 2",
               "\"repetitions\": -1", 20);
  auto checked = parse_results_text(two_bad, "r.json");
  REQUIRE_FALSE(checked.ok());
  const std::string& m = checked.error().message;
  REQUIRE(m.find("/rows/10/repetitions") != std::string::npos);
  REQUIRE(m.find("/rows/700/repetitions") != std::string::npos);
  CHECK(m.find("/rows/10/repetitions") < m.find("/rows/700/repetitions"));
  // A row that is not JSON stops the read: its line is named, and a damaged
  // row after it (in a later batch) is not reached.
  const std::string unparsable = with_nth(with_nth(good, "\"repetitions\": 2", "\"repetitions\": 2 2", 600),
                                          "\"repetitions\": 2", "\"repetitions\": -1", 1800);
  auto stopped = parse_results_text(unparsable, "r.json");
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().message.find("not valid JSON") != std::string::npos);
  CHECK(stopped.error().message.find("/rows/900") == std::string::npos);
  const auto at = unparsable.find("\"repetitions\": 2 2");
  const auto line = 1 + std::count(unparsable.begin(), unparsable.begin() + static_cast<long>(at), '\n');
  CHECK(stopped.error().message.find("r.json:" + std::to_string(line) + ":") != std::string::npos);
}

TEST_CASE("rows read one at a time are held to every rule the whole-file reader applied", "[results][hardening]") {
  const std::string good = results_text(2);
  auto rows_of = [](const std::string& text) { return parse_results_text(text, "r.json"); };
  SECTION("a // comment ends at a carriage return, as the strict reader ends it: no row is lost") {
    auto r = rows_of(with(good, "\"rows\": [", "\"rows\": [ //x\r"));
    REQUIRE(r.ok());
    CHECK(r->rows.size() == 2);
    // The same comment before a nested "rows" key: the nested one is not the rows.
    auto nested = rows_of(with(good, "\"sweep\": {", "\"decoy\": { //\r \"rows\": [7] }, \"sweep\": {"));
    REQUIRE(nested.ok());  // the decoy's [7] would be a row that is not an object
    CHECK(nested->rows.size() == 2);
  }
  SECTION("a comment after the colon still streams the rows") {
    auto r = rows_of(with(good, "\"rows\": [", "\"rows\": /* c */ ["));
    REQUIRE(r.ok());
    CHECK(r->rows.size() == 2);
  }
  SECTION("a bare slash or a NUL in a comment between rows is refused") {
    for (const std::string& junk : {std::string("/ "), std::string("/* \0 */", 7)}) {
      auto r = rows_of(with(good, "\"rows\": [", "\"rows\": [ " + junk));
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().message.find("not valid JSON") != std::string::npos);
    }
  }
  SECTION("a duplicate key inside a row is named by its full JSON Pointer") {
    // "reason": "" is in the environment first, then in each row's record and columns.
    auto r = rows_of(with_nth(good, "\"reason\": \"\"", "\"reason\": \"\", \"reason\": \"x\"", 3));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("/rows/1/reason: duplicate key") != std::string::npos);
  }
  SECTION("the nesting limit counts the rows array and the document around a row") {
    const std::string deep = std::string(126, '[') + std::string(126, ']');  // 2 + 1 + 126 = 129 levels
    auto r = rows_of(with_nth(good, "\"reason\": \"\"", "\"reason\": \"\", \"x\": " + deep, 1));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("nested deeper than 128") != std::string::npos);
  }
}

TEST_CASE("errors of a file read row by row come in the whole-file reader's order", "[results][hardening]") {
  const std::string good = results_text(400);
  SECTION("check problems are named before a row that does not decode, whatever their batches") {
    const std::string text = with_nth(with_nth(good, "\"status\": \"ok\"", "\"status\": \"weird\"", 600),
                                      "\"repetitions\": 2", "\"repetitions\": -1", 6);  // rows 300 and 3 (records)
    auto r = parse_results_text(text, "r.json");
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(r.error().message.find("/rows/3/repetitions") != std::string::npos);
    CHECK(r.error().message.find("weird") == std::string::npos);
  }
  SECTION("a file of another version says so, however many of its rows fail their checks") {
    std::string text = with(good, "\"moebench_results_version\": 1", "\"moebench_results_version\": 2");
    for (std::size_t at = text.find("\"repetitions\": 2"); at != std::string::npos; at = text.find("\"repetitions\": 2", at)) {
      text.replace(at, 16, "\"repetitions\": -1");
    }
    auto r = parse_results_text(text, "r.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("results version 2 is not one this build reads") != std::string::npos);
  }
}
