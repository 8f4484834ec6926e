// cost_model_test.cpp — the analytic cost model's decisions: infeasible
// budgets with the minimum stated, the usable-memory cliff, drives sharing
// a device, and read bytes that follow the replayed hits.
#include <catch2/catch.hpp>

#include "model/cost_model.h"
#include "test_support.h"

using namespace moebench;

namespace {
ModelCard scaled_k3(const std::string& scale = "layers=2,experts=64") {
  auto card = testing::shipped_store().card("kimi-k3");
  REQUIRE(card);
  auto s = apply_scale(*card, *parse_scale(scale));
  REQUIRE(s);
  return *s;
}
Figure fig(double v) {
  Figure f;
  f.value = v;
  f.provenance = Provenance::kMeasured;
  f.source = "test";
  return f;
}
MachineProfile machine(int drives, bool same_device) {
  MachineProfile m;
  m.name = "test";
  m.cores = fig(2);
  m.memory_total_bytes = fig(24.0 * (1ull << 30));
  m.memory_usable_bytes = fig(20.0 * (1ull << 30));
  m.memory_read_bytes_s = fig(20e9);
  for (int i = 0; i < drives; ++i) {
    DriveProfile d;
    d.name = "d" + std::to_string(i);
    d.seq_read_bytes_s = fig(1e9);
    DriveDeviceInfo dev;
    dev.disk = same_device ? "vda" : "nvme" + std::to_string(i);
    d.device = dev;
    m.drives.push_back(d);
  }
  return m;
}
Point streaming(double budget_gib, int drives) {
  Point p;
  p.engine = *parse_engine_spec("streaming");
  p.model = "kimi-k3";
  p.quant = "mxfp4";
  p.ram_budget_bytes = static_cast<std::uint64_t>(budget_gib * (1ull << 30));
  p.drives.count = drives;
  p.prompt_tokens = 4;
  p.gen_tokens = 8;
  return p;
}
}  // namespace

TEST_CASE("a budget below trunk + one layer's experts is infeasible with the minimum stated", "[analytic]") {
  auto r = predict_point(machine(1, false), scaled_k3(), streaming(6.0, 1), {}, {});
  REQUIRE(r);
  CHECK(r->m.status == RowStatus::kInfeasible);
  CHECK(r->m.reason.find("minimum budget") != std::string::npos);
  REQUIRE(r->m.min_budget_bytes.has_value());
  CHECK(*r->m.min_budget_bytes > (6ull << 30));
  // At the stated minimum the point runs.
  auto at_min = predict_point(machine(1, false), scaled_k3(),
                              streaming(static_cast<double>(*r->m.min_budget_bytes) / (1ull << 30), 1), {}, {});
  REQUIRE(at_min);
  CHECK(at_min->m.status == RowStatus::kOk);
  Point res = streaming(6.0, 1);
  res.engine = *parse_engine_spec("resident");
  auto rr = predict_point(machine(1, false), scaled_k3(), res, {}, {});
  REQUIRE(rr);
  CHECK(rr->m.status == RowStatus::kInfeasible);
}

TEST_CASE("read bytes follow the hits: more budget, fewer bytes, all cached, none", "[analytic]") {
  const MachineProfile m = machine(1, false);
  auto lo = predict_point(m, scaled_k3(), streaming(7.25, 1), {}, {});
  auto mid = predict_point(m, scaled_k3(), streaming(8.0, 1), {}, {});
  auto all = predict_point(m, scaled_k3(), streaming(12.0, 1), {}, {});
  REQUIRE((lo && mid && all));
  REQUIRE(lo->m.status == RowStatus::kOk);
  CHECK(lo->m.read_bytes_decode > mid->m.read_bytes_decode);
  CHECK(mid->m.read_bytes_decode > all->m.read_bytes_decode);
  CHECK(all->hit_rate_decode > 0.75);  // every expert fits: only the cold start misses
  CHECK(all->hit_rate_decode > mid->hit_rate_decode);
  CHECK(lo->t_token_s > all->t_token_s);
}

TEST_CASE("drive directories on one device share it, on separate devices they add up", "[analytic]") {
  std::string how;
  const double one = drive_set_read_bw(machine(2, true), 1, 1 << 20, 32, std::nullopt, &how);
  CHECK(drive_set_read_bw(machine(2, true), 2, 1 << 20, 32, std::nullopt, &how) == Approx(one));
  CHECK(drive_set_read_bw(machine(2, false), 2, 1 << 20, 32, std::nullopt, &how) == Approx(2 * one));
  // A throttle caps each directory.
  CHECK(drive_set_read_bw(machine(2, false), 2, 1 << 20, 32, 200e6, &how) == Approx(400e6));
  auto slow = predict_point(machine(2, false), scaled_k3(), streaming(7.25, 1), {}, {});
  auto fast = predict_point(machine(2, false), scaled_k3(), streaming(7.25, 2), {}, {});
  REQUIRE((slow && fast));
  CHECK(fast->t_io_s == Approx(slow->t_io_s / 2).epsilon(0.01));
}

TEST_CASE("a budget beyond usable memory predicts the cliff and warns", "[analytic]") {
  // 1024 experts of 16.7 MiB: about 800 fit beside the trunk in 20 GiB.
  const MachineProfile m = machine(1, false);
  const ModelCard big = scaled_k3("layers=2,experts=512");
  auto inside = predict_point(m, big, streaming(19.0, 1), {}, {});
  auto beyond = predict_point(m, big, streaming(40.0, 1), {}, {});
  REQUIRE((inside && beyond));
  bool warned = false;
  for (const std::string& n : beyond->m.notes) warned = warned || n.find("WARNING") != std::string::npos;
  CHECK(warned);
  CHECK(beyond->t_token_s > inside->t_token_s);
}

TEST_CASE("calibrated factors scale the times they name", "[analytic]") {
  const MachineProfile m = machine(1, false);
  auto base = predict_point(m, scaled_k3(), streaming(7.25, 1), {}, {});
  auto io2 = predict_point(m, scaled_k3(), streaming(7.25, 1), Efficiency{2.0, 1.0, 1.0}, {});
  REQUIRE((base && io2));
  CHECK(io2->t_io_s == Approx(base->t_io_s / 2));
  CHECK(io2->t_pre_s == Approx(base->t_pre_s));
}

TEST_CASE("striped experts wait for the busiest home drive, replicas balance", "[analytic]") {
  const MachineProfile m = machine(4, false);
  Point rep = streaming(7.25, 4);
  Point str = rep;
  str.drives.layout = "stripe";
  auto a = predict_point(m, scaled_k3(), rep, {}, {});
  auto b = predict_point(m, scaled_k3(), str, {}, {});
  REQUIRE((a && b));
  CHECK(b->t_io_s > 1.2 * a->t_io_s);
  CHECK(b->m.read_bytes_decode == a->m.read_bytes_decode);
}

TEST_CASE("the cost model sizes memory with the engines' plan: its minimum budgets round-trip to the byte", "[analytic][plan]") {
  // Streaming: at the stated minimum the cache holds exactly one layer's
  // top-k, one byte less it is infeasible (engines/cache/memory_plan.h, the
  // same integer arithmetic the streaming engine sizes its cache with).
  const ModelCard card = scaled_k3();
  auto low = predict_point(machine(1, false), card, streaming(6.0, 1), {}, {});
  REQUIRE(low);
  REQUIRE(low->m.min_budget_bytes.has_value());
  const std::uint64_t min = *low->m.min_budget_bytes;
  Point p = streaming(6.0, 1);
  p.ram_budget_bytes = min;
  auto at_min = predict_point(machine(1, false), card, p, {}, {});
  REQUIRE(at_min);
  REQUIRE(at_min->m.status == RowStatus::kOk);
  double slots = -1;
  for (const Step& s : at_min->steps) {
    if (s.name == "cache slots") slots = s.value;
  }
  CHECK(slots == card.moe.active);
  p.ram_budget_bytes = min - 1;
  auto below = predict_point(machine(1, false), card, p, {}, {});
  REQUIRE(below);
  CHECK(below->m.status == RowStatus::kInfeasible);
  CHECK(below->m.min_budget_bytes == std::optional<std::uint64_t>(min));

  // Resident: the need is container + KV/state + 24 MiB + 1 % of the
  // container, as the resident engine checks; on a machine that can hold
  // it, the minimum runs and a byte less does not.
  MachineProfile big = machine(1, false);
  big.memory_usable_bytes = fig(4096.0 * (1ull << 30));
  Point res = streaming(1.0, 1);
  res.engine = *parse_engine_spec("resident");
  auto r = predict_point(big, card, res, {}, {});
  REQUIRE(r);
  REQUIRE(r->m.status == RowStatus::kInfeasible);
  REQUIRE(r->m.min_budget_bytes.has_value());
  res.ram_budget_bytes = *r->m.min_budget_bytes;
  auto fits = predict_point(big, card, res, {}, {});
  REQUIRE(fits);
  CHECK(fits->m.status == RowStatus::kOk);
  res.ram_budget_bytes = *r->m.min_budget_bytes - 1;
  auto short_by_one = predict_point(big, card, res, {}, {});
  REQUIRE(short_by_one);
  CHECK(short_by_one->m.status == RowStatus::kInfeasible);
}
