// config_validation_test.cpp — every broken config in tests/data/broken gives
// its own precise message: the file, the JSON path, what is wrong and (for
// typos) the closest valid word. Also: the shipped configs validate.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "engines/registry.h"
#include "vocab/config_store.h"
#include "vocab/validate.h"
#include "test_support.h"

using namespace moebench;

namespace {

struct BrokenCase {
  const char* file;      // under tests/data/broken
  const char* expected;  // substring of the message, with the JSON path
};

const BrokenCase kCases[] = {
    {"sweeps/typo_key.json", "/repetitons: unknown key \"repetitons\" (did you mean \"repetitions\"?)"},
    {"sweeps/bad_size.json", "/axes/ram_budget/2: expected a size like \"8GiB\""},
    {"sweeps/negative_budget.json", "/axes/ram_budget/0: expected a size greater than zero, got \"-4GiB\""},
    {"sweeps/empty_axis.json", "/axes/quant: must not be empty"},
    {"sweeps/unknown_engine.json", "/axes/engine/0: unknown engine \"nul\" (did you mean \"null\"?)"},
    {"sweeps/wrong_type.json", "/repetitions: expected an integer, got a string (\"three\")"},
    {"sweeps/missing_model.json", "/axes/model: missing required field \"model\""},
    {"sweeps/unknown_quant.json", "/axes/quant/0: unknown quant \"q4_km\" (did you mean \"q4_k\"?)"},
    {"sweeps/unknown_card.json", "/axes/model/0: no models config named \"kimi-k33\" (did you mean \"kimi-k3\"?)"},
    {"sweeps/unknown_policy.json", "/axes/cache_policy/0: unknown cache policy \"lru2\" (did you mean \"lru\"?)"},
    {"sweeps/one_gen_token.json", "/axes/gen_tokens/1: expected an integer of at least 2"},
    {"sweeps/bad_routing.json", "/axes/routing/1: zipf needs an exponent"},
    {"sweeps/syntax_error.json", "syntax_error.json:2:54: not valid JSON"},
    {"sweeps/filter_unknown_axis.json",
     "/exclude/0/contxt_tokens: unknown axis \"contxt_tokens\" (did you mean \"context_tokens\"?)"},
    {"sweeps/duplicate_key.json", "duplicate key \"warmup\""},
    {"sweeps/unknown_engine_option.json", "/axes/engine/0: engine \"null\" has no option \"sleep\""},
    {"sweeps/scale_too_big.json", "/axes/model/0: scale experts=1 is below top-k 2 of tiny-moe"},
    {"sweeps/filters_remove_all.json", "/include, /exclude: the filters removed every point"},
    {"models/missing_moe.json", "/moe: missing required field \"moe\""},
    {"models/quant_does_not_divide.json",
     "/expert_quant: q4_k stores weights in blocks of 256, which does not divide the expert row length 300"},
    {"models/geometry_typo.json", "/geometry: unknown geometry provenance \"aproximate\" (did you mean \"approximate\"?)"},
    {"models/negative_layers.json", "/layers/0/count: expected an integer between 1 and"},
    {"hardware/figure_without_provenance.json", "/memory_read_bw/provenance: missing required field"},
    {"hardware/bad_rate.json", "/drives/0/seq_read_bw/value: expected a rate like \"12.78GB/s\""},
    {"claims/condition_unaccounted.json",
     "/claims/0: condition \"drives\" is neither given nor listed in \"missing\""},
};

}  // namespace

TEST_CASE("each broken config gives its own precise error", "[config]") {
  const SweepContext ctx = testing::shipped_context();
  std::set<std::string> messages;
  for (const BrokenCase& c : kCases) {
    const std::string path = std::string(MOEBENCH_TEST_DATA) + "/broken/" + c.file;
    INFO(path);
    auto r = validate_config_file(path, std::nullopt, ctx);
    REQUIRE_FALSE(r.ok());
    const std::string& msg = r.error().message;
    INFO(msg);
    CHECK(msg.find(path) == 0);  // starts with the file name
    CHECK(msg.find(c.expected) != std::string::npos);
    messages.insert(msg.substr(path.size()));
  }
  CHECK(messages.size() == std::size(kCases));  // all distinct
}

TEST_CASE("every broken config in the directory is covered by a case", "[config]") {
  std::set<std::string> listed;
  for (const BrokenCase& c : kCases) listed.insert(c.file);
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(MOEBENCH_TEST_DATA) + "/broken")) {
    if (!e.is_regular_file()) continue;
    const std::string rel = e.path().parent_path().filename().string() + "/" + e.path().filename().string();
    INFO(rel);
    CHECK(listed.count(rel) == 1);
  }
}

TEST_CASE("the shipped configs validate", "[config]") {
  const SweepContext ctx = testing::shipped_context();
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(MOEBENCH_SOURCE_DIR) + "/configs")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    INFO(e.path().string());
    auto r = validate_config_file(e.path().string(), std::nullopt, ctx);
    CHECK(r.ok());
    if (!r) FAIL_CHECK(r.error().message);
  }
}

TEST_CASE("a config whose kind cannot be told asks for --kind", "[config]") {
  const SweepContext ctx = testing::shipped_context();
  const std::string path = std::string(MOEBENCH_TEST_DATA) + "/unknown_kind.json";
  auto r = validate_config_file(path, std::nullopt, ctx);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("pass --kind") != std::string::npos);
  auto forced = validate_config_file(path, ConfigKind::kSweep, ctx);
  REQUIRE_FALSE(forced.ok());
  CHECK(forced.error().message.find("/axes: missing required field") != std::string::npos);
}
