// engine_options_test.cpp — an engine's options are one table: the checker,
// the help text and the engine's reading of them all come from it; the
// registry's capability flags say what each engine does.
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "engines/engine_options.h"
#include "engines/registry.h"

using namespace moebench;

namespace {

const OptionTable& demo_table() {
  static const OptionTable kTable = {
      {"packed", OptionKind::kFlag, "0", "one record per expert", 0, 0, {}, {}},
      {"qd", OptionKind::kCount, "32", "reads in flight", 1, 1024, {}, {}},
      {"io", OptionKind::kChoice, "auto", "read path", 0, 0, {"auto", "io_uring", "pread"}, {}},
      {"floor", OptionKind::kSize, "", "smallest budget", 0, 0, {}, {}},
      {"tag", OptionKind::kText, "", "a word without digits", 0, 0, {},
       [](const std::string& v) { return v.find_first_of("0123456789") == std::string::npos ? "" : "has digits"; }},
  };
  return kTable;
}

EngineSpec spec_of(const std::string& text) {
  auto s = parse_engine_spec(text);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("a spec is checked against its engine's option table", "[engine_options]") {
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo")) == "");
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:packed=1,qd=1024,io=pread,floor=8GiB,tag=abc")) == "");

  const std::string unknown = check_engine_options("demo", demo_table(), spec_of("demo:pakced=1"));
  CHECK(unknown.find("engine \"demo\" has no option \"pakced\"") != std::string::npos);
  CHECK(unknown.find("packed") != std::string::npos);  // the did-you-mean and the option list

  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:packed=2")) == "demo:packed=2: must be 0 or 1");
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:qd=0")).find("1..1024") != std::string::npos);
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:qd=1025")).find("1..1024") != std::string::npos);
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:qd=-3")).find("1..1024") != std::string::npos);
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:qd=99999999999999999999999")).find("1..1024") !=
        std::string::npos);
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:io=aio")) == "demo:io=aio: must be auto, io_uring, pread");
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:floor=lots")).rfind("demo:floor=lots: ", 0) == 0);
  CHECK(check_engine_options("demo", demo_table(), spec_of("demo:tag=a1")) == "demo:tag=a1: has digits");
  CHECK(check_engine_options("none", OptionTable{}, spec_of("none:x=1")).find("it takes no options") != std::string::npos);
}

TEST_CASE("the help text is generated from the table", "[engine_options]") {
  const std::string help = engine_options_help(demo_table());
  CHECK(help.find("packed=0|1 (one record per expert; default 0)") != std::string::npos);
  CHECK(help.find("qd=1..1024 (reads in flight; default 32)") != std::string::npos);
  CHECK(help.find("io=auto|io_uring|pread (read path; default auto)") != std::string::npos);
  CHECK(help.find("floor=SIZE (smallest budget)") != std::string::npos);
}

TEST_CASE("an engine reads its values, defaults filled in, through the table", "[engine_options]") {
  const EngineOptions given(demo_table(), spec_of("demo:packed=1,qd=4,io=pread,floor=1GiB,tag=x"));
  CHECK(given.flag("packed"));
  CHECK(given.count("qd") == 4);
  CHECK(given.text("io") == "pread");
  CHECK(given.size_if_given("floor") == (1ull << 30));
  CHECK(given.text("tag") == "x");

  const EngineOptions defaults(demo_table(), spec_of("demo"));
  CHECK_FALSE(defaults.flag("packed"));
  CHECK(defaults.count("qd") == 32);
  CHECK(defaults.count_if_given("qd") == 32u);  // a default counts as given
  CHECK(defaults.text("io") == "auto");
  CHECK_FALSE(defaults.size_if_given("floor").has_value());
  CHECK(defaults.text("tag") == "");

  // Reading what the table does not declare, or as another kind, is a defect.
  CHECK_THROWS_AS(defaults.flag("qd"), std::logic_error);
  CHECK_THROWS_AS(defaults.count("nope"), std::logic_error);
}

TEST_CASE("the engine table declares capabilities and options for every engine", "[engine_options]") {
  const EngineInfo* null = find_engine("null");
  const EngineInfo* resident = find_engine("resident");
  const EngineInfo* streaming = find_engine("streaming");
  REQUIRE(null != nullptr);
  REQUIRE(resident != nullptr);
  REQUIRE(streaming != nullptr);
  CHECK_FALSE(null->caps.measures);
  CHECK_FALSE(null->caps.uses_drives);
  CHECK(resident->caps.uses_drives);
  CHECK_FALSE(resident->caps.reads_drives_decoding);  // every weight in RAM
  CHECK(streaming->caps.reads_drives_decoding);
  for (const EngineInfo& e : engine_table()) {
    INFO(e.name);
    CHECK(e.check_options(spec_of(e.name)) == "");  // no option is required
    for (const EngineOption& o : e.options()) {
      CHECK_FALSE(o.help.empty());
      if (!o.default_value.empty()) {
        CHECK(e.check_options(spec_of(e.name + ":" + o.name + "=" + o.default_value)) == "");  // defaults are valid
      }
    }
  }
  CHECK(streaming->check_options(spec_of("streaming:qd=0")).find("streaming:qd=0") != std::string::npos);
  CHECK(resident->check_options(spec_of("resident:io=pread")).find("engine \"resident\" has no option \"io\"") !=
        std::string::npos);
}
