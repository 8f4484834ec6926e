// machine_activity_test.cpp — what other work did to a repetition, from two
// hand-made snapshots: /proc/stat's cpu line parsed, other work's share of
// the CPU time (the machine's busy time minus this process's own), steal,
// and the line between a quiet and a disturbed repetition.
#include <catch2/catch.hpp>

#include "probes/machine_activity.h"

using namespace moebench;

TEST_CASE("the cpu line of /proc/stat is read in clock ticks", "[activity]") {
  const auto t = parse_proc_stat_cpu("cpu  100 2 30 5000 40 5 6 7 0 0\ncpu0 50 1 15 2500 20 2 3 3 0 0\n");
  REQUIRE(t);
  CHECK(t->user == 100);
  CHECK(t->nice == 2);
  CHECK(t->system == 30);
  CHECK(t->idle == 5000);
  CHECK(t->iowait == 40);
  CHECK(t->steal == 7);
  CHECK(t->busy() == 132);
  CHECK(t->total() == 5190);
  CHECK_FALSE(parse_proc_stat_cpu("cpu0 1 2 3\n"));
  CHECK_FALSE(parse_proc_stat_cpu("cpu  1 2 x 4 5 6 7 8\n"));
  CHECK_FALSE(parse_proc_stat_cpu("cpu  1 2 3\n"));  // too few fields
}

namespace {
// Two CPUs for one second at 100 ticks/s: 200 ticks in all.
ActivitySnapshot at(std::uint64_t busy, std::uint64_t steal, double self_cpu_s, double csw) {
  ActivitySnapshot s;
  s.cpu.user = busy;
  s.cpu.steal = steal;
  s.cpu.idle = 200 - busy - steal;
  s.self_cpu_s = self_cpu_s;
  s.invol_ctx_switches = csw;
  s.load_avg_1m = 1.5;
  return s;
}
ActivitySnapshot zero() {
  ActivitySnapshot s;
  return s;
}
}  // namespace

TEST_CASE("other work's share of the CPU time marks a repetition disturbed", "[activity]") {
  // This process used 1.0 CPU-s; the machine was busy 1.05 CPU-s of 2:
  // others 0.05 CPU-s = 2.5 % — quiet.
  const Disturbance quiet = disturbance_between(zero(), at(105, 0, 1.0, 3));
  CHECK(quiet.other_cpu_s == Approx(0.05));
  CHECK(quiet.other_cpu_frac == Approx(0.025));
  CHECK(quiet.invol_ctx_switches == 3);
  CHECK(quiet.load_avg_1m == 1.5);
  CHECK_FALSE(quiet.disturbed);
  // Busy 1.6 CPU-s: others 0.6 CPU-s = 30 % — disturbed, and said so.
  const Disturbance busy = disturbance_between(zero(), at(160, 0, 1.0, 40));
  CHECK(busy.other_cpu_frac == Approx(0.30));
  CHECK(busy.disturbed);
  CHECK(busy.why == "other work used 30 % of the CPU time (0.60 CPU-s)");
  // 12 % steal by the hypervisor, nothing else: disturbed.
  const Disturbance stolen = disturbance_between(zero(), at(100, 24, 1.0, 0));
  CHECK(stolen.steal_frac == Approx(0.12));
  CHECK(stolen.disturbed);
  CHECK(stolen.why == "the hypervisor stole 12 % of the CPU time");
}

TEST_CASE("a share above the line but below the counters' resolution is not a disturbance", "[activity]") {
  // A 0.1 s repetition on 2 CPUs: 20 ticks. Others 3 ticks = 15 % but
  // 0.03 CPU-s, under the 0.15 s floor: not called disturbed.
  ActivitySnapshot a = zero(), b = zero();
  b.cpu.user = 13;
  b.cpu.idle = 7;
  b.self_cpu_s = 0.10;
  const Disturbance d = disturbance_between(a, b);
  CHECK(d.other_cpu_frac == Approx(0.15));
  CHECK_FALSE(d.disturbed);
  // A 0.4 s streaming repetition: others 10 ticks = 12.5 %, 0.10 CPU-s — the
  // kernel completing this process's reads, below the floor; a neighbour
  // that takes 0.2 CPU-s of it (25 %) is a disturbance.
  ActivitySnapshot c = zero(), e = zero();
  e.cpu.user = 60;
  e.cpu.idle = 20;
  e.self_cpu_s = 0.50;
  CHECK_FALSE(disturbance_between(c, e).disturbed);
  e.cpu.user = 70;
  e.cpu.idle = 10;
  CHECK(disturbance_between(c, e).other_cpu_s == Approx(0.20));
  CHECK(disturbance_between(c, e).disturbed);
  // Counters that went backwards (a snapshot from another boot) count as 0.
  CHECK(disturbance_between(b, a).other_cpu_s == 0);
}
