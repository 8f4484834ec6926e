// registry_test.cpp — the analytic engine as the predicting row: asked by
// caps, made with a machine, never in the measuring table a sweep names.
#include <catch2/catch.hpp>

#include "model/analytic_engine.h"
#include "test_support.h"

using namespace moebench;

TEST_CASE("the analytic engine is the table's predicting row", "[registry]") {
  const EngineInfo* a = prediction_engine();
  REQUIRE(a != nullptr);
  CHECK(a->name == "analytic");
  CHECK(find_engine("analytic") == nullptr);  // not a row a sweep can name
  CHECK(a->caps.predicts);
  CHECK_FALSE(a->caps.uses_drives);
  CHECK_FALSE(a->caps.reads_drives_decoding);
  CHECK_FALSE(a->caps.measures);
  for (const EngineInfo& e : engine_table()) CHECK_FALSE(e.caps.predicts);  // the measuring rows
}

TEST_CASE("the analytic engine is made with a machine, through the table", "[registry]") {
  const EngineInfo* a = prediction_engine();
  REQUIRE(a != nullptr);
  auto spec = parse_engine_spec("streaming");
  REQUIRE(spec.ok());
  auto none = a->create(*spec);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "the analytic engine needs a machine profile");
  auto src = testing::shipped_store().find("hardware", "macbook-pro-m5-pro-64gb");
  REQUIRE(src.ok());
  auto profile = load_config_text<MachineProfile>(src->text, src->label, load_machine_profile);
  REQUIRE(profile.ok());
  EngineContext ctx;
  ctx.machine = &*profile;
  auto made = a->create(*spec, ctx);
  REQUIRE(made.ok());
  CHECK((*made)->name() == "analytic");
  // The other rows need nothing beyond their spec.
  auto null_spec = parse_engine_spec("null");
  REQUIRE(null_spec.ok());
  auto n = find_engine("null")->create(*null_spec);
  REQUIRE(n.ok());
  CHECK((*n)->name() == "null");
}

TEST_CASE("a sweep cannot name the predicting engine", "[registry]") {
  const SweepContext ctx = testing::shipped_context();
  CHECK(ctx.engine_names == std::vector<std::string>{"null", "resident", "streaming", "llama-bench"});
  CHECK_FALSE(ctx.engine_uses_drives("analytic"));
  CHECK(ctx.check_engine_options(*parse_engine_spec("analytic")) == "unknown engine \"analytic\"");
  auto s = load_sweep_text(R"({"name": "t", "axes": {"engine": ["analytic"], "model": ["tiny-moe"]}})", "t.json", ctx);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("unknown engine \"analytic\"") != std::string::npos);
  CHECK(s.error().message.find("available engines: null, resident, streaming, llama-bench") != std::string::npos);
}

TEST_CASE("a point's flag options are read through its engine's option table", "[registry]") {
  auto spec = [](const char* text) { return *parse_engine_spec(text); };
  // Declared flags: the value given, else the table's default (streaming's make=1, packed=0).
  CHECK(engine_flag(spec("streaming"), "make", false));
  CHECK_FALSE(engine_flag(spec("streaming:make=0"), "make", true));
  CHECK_FALSE(engine_flag(spec("streaming"), "packed", true));
  CHECK(engine_flag(spec("resident:packed=1"), "packed", false));
  // Not declared by the engine (resident has no make option), or an unknown engine: the fallback.
  CHECK(engine_flag(spec("resident"), "make", true));
  CHECK_FALSE(engine_flag(spec("resident"), "make", false));
  CHECK(engine_flag(spec("nosuch"), "packed", true));
}
