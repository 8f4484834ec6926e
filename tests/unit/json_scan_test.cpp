// json_scan_test.cpp — the scanner that reads results files row by row:
// which elements it cuts out (their text, line and index), what it leaves
// for the strict reader, and how it stops on a damaged file. Files are read
// from disk in 1 MiB blocks, so an element straddling a block edge is tested
// too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/unit/test_support.h"
#include "vocab/json_scan.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

struct Cut {
  std::string text;   // without the blanks and comments around the value
  std::size_t line;   // of the value's first byte
  std::string raw;    // as handed over
};

// The value's line: the text's first line plus the line feeds before it.
Cut cut_of(std::string_view t, const ElementPlace& place) {
  std::string raw(t);
  std::size_t start = 0, line = place.line;
  for (;;) {  // skip blanks and comments, as the strict reader will
    while (start < raw.size() && std::isspace(static_cast<unsigned char>(raw[start]))) line += raw[start++] == '\n';
    if (raw.compare(start, 2, "//") == 0) {
      start = raw.find('\n', start);
      if (start == std::string::npos) start = raw.size();
    } else {
      break;
    }
  }
  std::size_t end = raw.size();
  while (end > start && std::isspace(static_cast<unsigned char>(raw[end - 1]))) --end;
  return {raw.substr(start, end - start), line, raw};
}

Expected<ScannedObject> scan_text(const std::string& text, std::vector<Cut>& cuts) {
  cuts.clear();
  return scan_json_object(text, "f.json", "rows", [&cuts](std::string_view t, const ElementPlace& place) {
    REQUIRE(place.index == cuts.size());  // indices count from 0, in order
    cuts.push_back(cut_of(t, place));
    return Status::success();
  });
}

}  // namespace

TEST_CASE("the scanner cuts out each row and leaves the rest in place", "[json_scan]") {
  const std::string text =
      "{\n"
      "  \"moebench_results_version\": 1,\n"
      "  \"rows\": [\n"
      "    {\"a\": \"]}, not the end\", \"b\": [1, {\"c\": 2}]},\n"
      "    // a comment with a ] and a ,\n"
      "    {\"d\": \"\\\"quoted\\\\\"} ,\n"
      "    7\n"
      "  ],\n"
      "  \"sweep\": {\"rows\": [1, 2]}\n"
      "}\n";
  std::vector<Cut> cuts;
  auto s = scan_text(text, cuts);
  REQUIRE(s);
  CHECK(s->streamed);
  CHECK(s->elements == 3);
  REQUIRE(cuts.size() == 3);
  CHECK(cuts[0].text == "{\"a\": \"]}, not the end\", \"b\": [1, {\"c\": 2}]}");
  CHECK(cuts[0].line == 4);
  CHECK(cuts[1].raw.find("// a comment with a ] and a ,") != std::string::npos);  // handed over, for the strict reader
  CHECK(cuts[1].text == "{\"d\": \"\\\"quoted\\\\\"}");
  CHECK(cuts[1].line == 6);
  CHECK(cuts[2].text == "7");
  CHECK(cuts[2].line == 7);
  // The rows become [] and the lines they took stay, so "sweep" is still on
  // line 9 for the strict reader; a nested "rows" is not the member.
  const std::string rest = s->rest;
  CHECK(rest.find("\"rows\": []") != std::string::npos);
  CHECK(std::count(rest.begin(), rest.begin() + static_cast<long>(rest.find("\"sweep\"")), '\n') == 8);
  CHECK(rest.find("{\"rows\": [1, 2]}") != std::string::npos);
}

TEST_CASE("the scanner streams nothing it cannot place", "[json_scan]") {
  std::vector<Cut> cuts;
  // Not an object at the top, rows not an array, rows only nested: the
  // document is handed back whole for the strict reader.
  for (const std::string text : {std::string("[{\"rows\": [1]}]"), std::string("{\"rows\": 5}"),
                                 std::string("{\"x\": {\"rows\": [1]}}"), std::string("")}) {
    auto s = scan_text(text, cuts);
    REQUIRE(s);
    CHECK_FALSE(s->streamed);
    CHECK(cuts.empty());
    CHECK(s->rest == text);
  }
  auto empty = scan_text("{\"rows\": [ ]}", cuts);
  REQUIRE(empty);
  CHECK(empty->streamed);
  CHECK(empty->elements == 0);
  CHECK(empty->rest == "{\"rows\": [] }");  // "}" keeps its column
}

TEST_CASE("the scanner names the line where a damaged rows array ends", "[json_scan]") {
  std::vector<Cut> cuts;
  auto truncated = scan_text("{\"rows\": [\n{\"a\": 1},\n{\"a\": 2", cuts);
  REQUIRE_FALSE(truncated);
  // The cut-off second row is not handed over: the scan says where the file ends.
  CHECK_THAT(truncated.error().message,
             Catch::Contains("f.json:3: the file ends inside \"rows\" (after 1 complete elements)"));
  CHECK(cuts.size() == 1);
  auto hole = scan_text("{\"rows\": [1, , 2]}", cuts);
  REQUIRE_FALSE(hole);
  CHECK_THAT(hole.error().message, Catch::Contains("f.json:1:14: not valid JSON: expected element 1 of \"rows\", found ','"));
  auto trailing = scan_text("{\"rows\": [1, ]}", cuts);
  REQUIRE_FALSE(trailing);
  CHECK_THAT(trailing.error().message, Catch::Contains("expected element 1 of \"rows\", found ']'"));
  // A sink's error stops the scan and is returned as it is.
  int seen = 0;
  auto stopped = scan_json_object(std::string("{\"rows\": [1, 2, 3]}"), "f.json", "rows",
                                  [&seen](std::string_view, const ElementPlace& place) -> Status {
                                    ++seen;
                                    if (place.index == 1) return make_error("row 1 is bad");
                                    return Status::success();
                                  });
  REQUIRE_FALSE(stopped);
  CHECK(stopped.error().message == "row 1 is bad");
  CHECK(seen == 2);
}

TEST_CASE("the scanner reads a file in blocks: rows across a block edge come out whole", "[json_scan]") {
  TempDir dir;
  const std::string path = dir.path() + "/big.json";
  // 3,000 rows of ~700 bytes: 2 MB, so rows straddle the 1 MiB block edges.
  std::string text = "{\"rows\": [\n";
  const std::string pad(680, 'x');
  for (int i = 0; i < 3000; ++i) text += (i ? ",\n" : "") + std::string("{\"i\": ") + std::to_string(i) + ", \"p\": \"" + pad + "\"}";
  text += "\n]}\n";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::size_t bytes = 0, bad = 0;
  auto s = scan_json_object(f, path, "rows", [&](std::string_view t, const ElementPlace& place) {
    bytes += t.size();
    const std::size_t i = place.index;
    const std::string want = "\n" + std::string("{\"i\": ") + std::to_string(i) + ", \"p\": \"" + pad + "\"}";
    const std::string last = i + 1 == 3000 ? "\n" : "";  // the blank before the closing ]
    if (t != want + last || place.line != i + 1) ++bad;
    return Status::success();
  });
  std::fclose(f);
  REQUIRE(s);
  CHECK(s->elements == 3000);
  CHECK(bad == 0);
  CHECK(s->rest == "{\"rows\": []" + std::string(3001, '\n') + " }\n");  // "}" stays at line 3002, column 2
  CHECK(bytes == text.size() - 10 - 2999 - 3);  // every byte but "{\"rows\": [", the commas and "]}\n"
}
