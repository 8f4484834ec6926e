// json_reader_test.cpp — the strict reader's rules, one at a time.
#include <catch2/catch.hpp>

#include "vocab/json_reader.h"
#include "vocab/text.h"

using namespace moebench;

TEST_CASE("comments are allowed, syntax errors name line and column", "[json]") {
  auto ok = parse_json_text("// a comment\n{\"a\": 1 /* inline */}\n", "x.json");
  REQUIRE(ok.ok());
  CHECK((*ok)["a"] == 1);
  auto bad = parse_json_text("{\n  \"a\": 1,\n  \"b\": }\n", "x.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.rfind("x.json:3:", 0) == 0);
}

TEST_CASE("duplicate keys are rejected", "[json]") {
  auto r = parse_json_text("{\"a\": {\"b\": 1, \"b\": 2}}", "x.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("duplicate key \"b\"") != std::string::npos);
  CHECK(parse_json_text("{\"a\": {\"b\": 1}, \"c\": {\"b\": 2}}", "x.json").ok());
}

TEST_CASE("object reader: required, types, unknown keys with a hint", "[json]") {
  const Json j = Json::parse(R"({"name": 3, "repetitons": 2, "size": "8 gigs", "flag": "yes"})");
  Diagnostics d("f.json");
  ObjectReader r(j, "", d);
  CHECK_FALSE(r.string("name", true).has_value());
  CHECK_FALSE(r.integer("repetitions", false).has_value());
  CHECK_FALSE(r.size("size", true).has_value());
  CHECK_FALSE(r.boolean("flag", false).has_value());
  CHECK_FALSE(r.string("missing", true).has_value());
  r.finish();
  const std::string text = d.render();
  INFO(text);
  CHECK(text.find("f.json: /name: expected a string, got an integer (3)") != std::string::npos);
  CHECK(text.find("f.json: /size: expected a size like") != std::string::npos);
  CHECK(text.find("f.json: /flag: expected true or false, got a string (\"yes\")") != std::string::npos);
  CHECK(text.find("f.json: /missing: missing required field \"missing\"") != std::string::npos);
  CHECK(text.find("/repetitons: unknown key \"repetitons\" (did you mean \"repetitions\"?)") != std::string::npos);
  CHECK(d.issues().size() == 5);
}

TEST_CASE("JSON pointer escaping", "[json]") {
  CHECK(json_pointer_append("/a", "b/c") == "/a/b~1c");
  CHECK(json_pointer_append("", "x~y") == "/x~0y");
  CHECK(json_pointer_append("/axes/ram_budget", std::size_t{2}) == "/axes/ram_budget/2");
}

TEST_CASE("closest match for typo hints", "[json]") {
  CHECK(closest_match("ram_budjet", {"ram_budget", "routing"}).value() == "ram_budget");
  CHECK_FALSE(closest_match("zzzzzz", {"ram_budget", "routing"}).has_value());
  CHECK(edit_distance("kitten", "sitting") == 3);
}
