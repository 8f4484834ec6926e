// published_validation_test.cpp — the setup model (model/setup_model.h)
// against the published set (harness/model_validation.h): every figure with
// a card and a machine gets a number, the stored engine efficiencies are
// what the fit gives on the fit half, and a fit on too few figures is
// refused.
#include <catch2/catch.hpp>

#include "harness/claim_review.h"
#include "harness/model_validation.h"
#include "test_support.h"

using namespace moebench;

TEST_CASE("validate-model: every published decode figure with a card and a machine gets a number", "[setup][validation][published]") {
  const ConfigStore& store = testing::shipped_store();
  auto figures = load_published(store, std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published");
  REQUIRE(figures);
  CHECK(figures->size() >= 40);
  auto table = stored_efficiency(store);
  REQUIRE(table);
  const ValidationReport rep = validate_model(*figures, *table);
  CHECK(rep.fit.infeasible == 0);
  CHECK(rep.held_out.infeasible == 0);
  CHECK(rep.fit.judged >= 20);
  CHECK(rep.held_out.judged >= 20);
  int held = 0;
  for (const ValidationRow& r : rep.rows) held += r.held_out;
  CHECK(held == rep.held_out.figures);
}

TEST_CASE("the stored engine efficiencies are what the fit gives on the fit half", "[setup][validation][published]") {
  const ConfigStore& store = testing::shipped_store();
  auto figures = load_published(store, std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published");
  REQUIRE(figures);
  auto stored = stored_efficiency(store);
  REQUIRE(stored);
  auto fitted = fit_efficiency_table(*figures, "tests/data/published");
  REQUIRE(fitted);
  const EfficiencyTable& fresh = *fitted;
  REQUIRE(fresh.families.size() == stored->families.size());
  for (std::size_t i = 0; i < fresh.families.size(); ++i) {
    INFO(fresh.families[i].family);
    CHECK(fresh.families[i].family == stored->families[i].family);
    CHECK(fresh.families[i].memory == Approx(stored->families[i].memory).epsilon(1e-6));
    CHECK(fresh.families[i].io == Approx(stored->families[i].io).epsilon(1e-6));
    CHECK(fresh.families[i].band_high == Approx(stored->families[i].band_high).epsilon(1e-6));
  }
}

TEST_CASE("a fit on too few figures is refused, not written as a grid corner", "[setup][validation][published]") {
  const ConfigStore& store = testing::shipped_store();
  auto figures = load_published(store, std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published");
  REQUIRE(figures);
  std::vector<PublishedFigure> few;
  for (const PublishedFigure& f : *figures) {
    if (is_held_out(f.claim.id)) few.push_back(f);  // the held-out half alone leaves nothing to fit
  }
  auto fitted = fit_efficiency_table(few, "held-out-only");
  REQUIRE_FALSE(fitted);
  CHECK_THAT(fitted.error().message, Catch::Contains("held-out-only") && Catch::Contains("at least"));
}
