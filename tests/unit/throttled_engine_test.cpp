// throttled_engine_test.cpp — the --io-throttle decorator through the null
// engine (whose synthetic reads run at min(1.5 GB/s, the point's throttle)
// per drive): what it hands the inner engine, its counters and notes; no
// wall-clock time involved.
#include <catch2/catch.hpp>

#include "engines/io/throttled_engine.h"
#include "engines/null/null_engine.h"
#include "test_support.h"
#include "vocab/clock.h"
#include "vocab/progress.h"

using namespace moebench;

namespace {

struct Fixture {
  FakeClock clock;
  QuietProgress progress;
  SweepContext sctx = testing::shipped_context();
  ModelCard card;
  std::vector<std::string> dirs;
  Point point;

  Fixture() {
    auto s = load_sweep_text(R"({"name": "t", "axes": {"engine": ["null"], "model": ["tiny-moe"],
                                 "ram_budget": ["1MiB"]}})", "t.json", sctx);
    REQUIRE(s.ok());
    auto p = expand_sweep(*s, sctx);
    REQUIRE(p.ok());
    REQUIRE(p->size() == 1);
    point = p->front();
    auto c = testing::shipped_store().card("tiny-moe");
    REQUIRE(c.ok());
    card = *c;
  }
  Expected<Measurement> run(Engine& e, const Point& p) {
    RunContext ctx{clock, progress, card, dirs, 7, 0, false, clock.now_s() + 3600, nullptr};
    return e.run(p, ctx);
  }
  Measurement direct(const Point& p) {
    auto e = make_null_engine(p.engine);
    auto m = run(*e, p);
    REQUIRE(m.ok());
    return *m;
  }
};

std::vector<std::string> with_throttle_notes(const Measurement& m) {
  std::vector<std::string> out;
  for (const std::string& n : m.notes) {
    if (n.find("throttle") != std::string::npos) out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("io throttle: the inner engine runs the point capped, the row's point is unchanged", "[throttle]") {
  Fixture f;
  IoThrottledEngine e(make_null_engine(f.point.engine), true, 1e6);
  CHECK(e.name() == "null");
  const std::string id_before = f.point.id();
  auto m = f.run(e, f.point);
  REQUIRE(m.ok());
  CHECK(f.point.id() == id_before);
  CHECK_FALSE(f.point.drives.throttle_bytes_s.has_value());
  CHECK(e.points_throttled() == 1);
  CHECK(e.points_passed() == 0);

  Point capped = f.point;
  capped.drives.throttle_bytes_s = 1e6;
  const Measurement want = f.direct(capped);
  const Measurement free = f.direct(f.point);
  REQUIRE(want.read_bytes_decode > 0);
  CHECK(m->read_bytes_decode == want.read_bytes_decode);  // the same bytes ...
  CHECK(m->read_bytes_decode == free.read_bytes_decode);
  CHECK(m->token_times_s == want.token_times_s);           // ... at the capped rate
  CHECK(m->token_times_s.back() - m->token_times_s.front() >
        free.token_times_s.back() - free.token_times_s.front());
  CHECK(with_throttle_notes(*m) ==
        std::vector<std::string>{"io throttled to 1.00 MB/s per drive by --io-throttle (sweep: none; point id unchanged)"});
}

TEST_CASE("io throttle: a sweep throttle below the cap stays", "[throttle]") {
  Fixture f;
  f.point.drives.throttle_bytes_s = 5e5;
  IoThrottledEngine e(make_null_engine(f.point.engine), true, 1e6);
  auto m = f.run(e, f.point);
  REQUIRE(m.ok());
  const Measurement want = f.direct(f.point);
  CHECK(m->token_times_s == want.token_times_s);
  CHECK(m->read_bytes_decode == want.read_bytes_decode);
  CHECK(e.points_throttled() == 1);
  CHECK(with_throttle_notes(*m) ==
        std::vector<std::string>{"io throttled to 500.00 KB/s per drive by --io-throttle (sweep: 500.00 KB/s; point id unchanged)"});
}

TEST_CASE("io throttle: an engine that reads no drive while decoding runs the point unchanged", "[throttle]") {
  Fixture f;
  IoThrottledEngine e(make_null_engine(f.point.engine), false, 1e6);
  auto m = f.run(e, f.point);
  REQUIRE(m.ok());
  const Measurement want = f.direct(f.point);
  CHECK(m->token_times_s == want.token_times_s);
  CHECK(m->read_bytes_decode == want.read_bytes_decode);
  CHECK(e.points_throttled() == 0);
  CHECK(e.points_passed() == 1);
  CHECK(with_throttle_notes(*m) ==
        std::vector<std::string>{"--io-throttle 1.00 MB/s not applied: the null engine reads no drive while it decodes"});
}
