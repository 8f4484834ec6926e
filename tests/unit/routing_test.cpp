// routing_test.cpp — the routing generators: determinism, distinct in-range
// ids, the statistics each model promises (uniform frequencies, Zipf
// popularity over per-layer permutations, sticky repeat rates), trace
// round trips with wrap-around, and every trace and spec error's message.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engines/routing/routing.h"
#include "vocab/file_io.h"
#include "test_support.h"

using namespace moebench;
using moebench::testing::TempDir;

namespace {

std::unique_ptr<RoutingGenerator> make(const std::string& spec, const RoutingShape& shape, std::uint64_t seed,
                                       const std::string& base_dir = "") {
  auto g = make_routing(spec, shape, seed, base_dir);
  if (!g) FAIL(g.error().message);
  return std::move(g).value();
}

std::vector<std::vector<int>> draw(RoutingGenerator& g, int tokens) {
  std::vector<std::vector<int>> out;
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {
    g.next_token(ids);
    out.push_back(ids);
  }
  return out;
}

// The error message of make_routing, or "" if it succeeded.
std::string routing_error(const std::string& spec, const RoutingShape& shape, const std::string& base_dir = "") {
  auto g = make_routing(spec, shape, 1, base_dir);
  return g ? "" : g.error().message;
}

std::string trace_error(const TempDir& dir, const std::string& content, const RoutingShape& shape) {
  REQUIRE(write_file_atomic(dir.file("t.txt"), content).ok());
  return routing_error("trace:t.txt", shape, dir.path());
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Experts shared by layer `l` of two tokens.
int overlap(const std::vector<int>& a, const std::vector<int>& b, int l, int k) {
  int n = 0;
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) n += a[static_cast<std::size_t>(l * k + i)] == b[static_cast<std::size_t>(l * k + j)];
  }
  return n;
}

// Per-layer counts of each expert over `tokens` tokens: counts[l][e].
std::vector<std::vector<int>> layer_counts(RoutingGenerator& g, const RoutingShape& s, int tokens) {
  std::vector<std::vector<int>> counts(static_cast<std::size_t>(s.moe_layers),
                                       std::vector<int>(static_cast<std::size_t>(s.experts), 0));
  std::vector<int> ids;
  for (int t = 0; t < tokens; ++t) {
    g.next_token(ids);
    for (int l = 0; l < s.moe_layers; ++l) {
      for (int j = 0; j < s.k; ++j) ++counts[static_cast<std::size_t>(l)][static_cast<std::size_t>(ids[static_cast<std::size_t>(l * s.k + j)])];
    }
  }
  return counts;
}

const RoutingShape kScaledK3{4, 112, 16};
const RoutingShape kFullK3{60, 896, 16};

}  // namespace

TEST_CASE("routing is a deterministic function of the seed", "[routing]") {
  for (const std::string spec : {"uniform", "zipf:1.1", "sticky:0.6"}) {
    INFO(spec);
    auto a = make(spec, kScaledK3, 42);
    auto b = make(spec, kScaledK3, 42);
    auto c = make(spec, kScaledK3, 43);
    const auto ta = draw(*a, 200);
    CHECK(ta == draw(*b, 200));
    const auto tc = draw(*c, 200);
    int differing = 0;
    for (std::size_t t = 0; t < ta.size(); ++t) differing += ta[t] != tc[t];
    CHECK(differing > 190);
  }
}

TEST_CASE("every generator gives k distinct in-range experts per layer", "[routing]") {
  const RoutingShape shapes[] = {kScaledK3, {3, 8, 8}, {2, 8, 7}, {2, 16, 1}, {2, 896, 16}};
  for (const RoutingShape& s : shapes) {
    for (const std::string spec : {"uniform", "zipf:1.0", "zipf:3", "sticky:0", "sticky:0.6", "sticky:1"}) {
      INFO(spec << " layers=" << s.moe_layers << " experts=" << s.experts << " k=" << s.k);
      auto g = make(spec, s, 7);
      std::vector<int> ids;
      bool ok = true;
      for (int t = 0; t < 3000 && ok; ++t) {
        g->next_token(ids);
        REQUIRE(ids.size() == static_cast<std::size_t>(s.moe_layers * s.k));
        for (int l = 0; l < s.moe_layers; ++l) {
          std::set<int> seen;
          for (int j = 0; j < s.k; ++j) {
            const int id = ids[static_cast<std::size_t>(l * s.k + j)];
            ok = ok && id >= 0 && id < s.experts && seen.insert(id).second;
          }
        }
        if (!ok) FAIL("token " << t << " has a duplicate or out-of-range id");
      }
      CHECK(ok);
    }
  }
}

TEST_CASE("uniform routing uses every expert at rate k/E", "[routing]") {
  auto g = make("uniform", kScaledK3, 3);
  const int tokens = 5000;  // 20k token-layers
  const auto counts = layer_counts(*g, kScaledK3, tokens);
  const double expected = 4.0 * tokens * 16 / 112;
  for (int e = 0; e < 112; ++e) {
    int total = 0;
    for (const auto& layer : counts) total += layer[static_cast<std::size_t>(e)];
    INFO("expert " << e << ": " << total << " uses, expected " << expected);
    CHECK(std::abs(total - expected) < 0.07 * expected);
  }
}

TEST_CASE("zipf popularity follows 1/r^S over a per-layer permutation", "[routing]") {
  SECTION("k=1: exact Zipf frequencies") {
    const RoutingShape s{4, 112, 1};
    auto g = make("zipf:1.0", s, 11);
    const int tokens = 40000;
    auto counts = layer_counts(*g, s, tokens);
    double harmonic = 0;
    for (int r = 1; r <= 112; ++r) harmonic += 1.0 / r;
    std::vector<std::vector<int>> top3;
    for (auto& layer : counts) {
      std::vector<int> order(112);
      for (int e = 0; e < 112; ++e) order[static_cast<std::size_t>(e)] = e;
      std::sort(order.begin(), order.end(), [&layer](int a, int b) {
        return layer[static_cast<std::size_t>(a)] > layer[static_cast<std::size_t>(b)];
      });
      top3.push_back({order[0], order[1], order[2]});
      std::sort(layer.begin(), layer.end(), std::greater<>());
      const double top = layer[0];
      CHECK(top / tokens == Approx(1.0 / harmonic).epsilon(0.05));
      CHECK(top / layer[1] == Approx(2.0).epsilon(0.12));
      CHECK(top / layer[9] == Approx(10.0).epsilon(0.25));
      CHECK(layer[9] > layer[49]);
    }
    // Which experts are popular differs between layers.
    CHECK(std::set<std::vector<int>>(top3.begin(), top3.end()).size() == top3.size());
  }
  SECTION("the exponent sets the slope") {
    const RoutingShape s{1, 64, 1};
    auto g = make("zipf:2", s, 5);
    auto counts = layer_counts(*g, s, 40000)[0];
    std::sort(counts.begin(), counts.end(), std::greater<>());
    CHECK(static_cast<double>(counts[0]) / counts[1] == Approx(4.0).epsilon(0.12));
  }
  SECTION("k=16 of 112: popular experts are used more, without repeats") {
    auto g = make("zipf:1.0", kScaledK3, 9);
    auto counts = layer_counts(*g, kScaledK3, 5000);
    for (auto& layer : counts) {
      std::sort(layer.begin(), layer.end(), std::greater<>());
      CHECK(layer[0] <= 5000);  // at most once per token
      CHECK(layer[0] > layer[9]);
      CHECK(layer[9] > layer[49]);
      CHECK(layer[49] > layer[111]);
    }
  }
}

TEST_CASE("sticky routing repeats slots with probability P", "[routing]") {
  const int k = kScaledK3.k;
  const int tokens = 5000;
  auto stats = [&](const std::string& spec, double& mean_overlap, double& slot_repeat) {
    auto g = make(spec, kScaledK3, 21);
    const auto t = draw(*g, tokens);
    long shared = 0;
    long same_slot = 0;
    long pairs = 0;
    for (std::size_t i = 1; i < t.size(); ++i) {
      for (int l = 0; l < kScaledK3.moe_layers; ++l) {
        shared += overlap(t[i - 1], t[i], l, k);
        for (int j = 0; j < k; ++j) {
          const auto at = static_cast<std::size_t>(l * k + j);
          same_slot += t[i - 1][at] == t[i][at];
        }
        ++pairs;
      }
    }
    mean_overlap = static_cast<double>(shared) / static_cast<double>(pairs);
    slot_repeat = static_cast<double>(same_slot) / static_cast<double>(pairs * k);
  };
  double mean_overlap = 0;
  double slot_repeat = 0;
  SECTION("sticky:0 behaves like uniform") {
    stats("sticky:0", mean_overlap, slot_repeat);
    CHECK(mean_overlap == Approx(16.0 * 16.0 / 112.0).epsilon(0.06));
    stats("uniform", mean_overlap, slot_repeat);
    CHECK(mean_overlap == Approx(16.0 * 16.0 / 112.0).epsilon(0.06));
  }
  SECTION("sticky:1 repeats the previous token exactly") {
    auto g = make("sticky:1", kScaledK3, 21);
    const auto t = draw(*g, 100);
    for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i] == t[0]);
  }
  SECTION("sticky:0.6 repeats about 60% of slots") {
    stats("sticky:0.6", mean_overlap, slot_repeat);
    // A fresh draw lands on the slot's previous expert by chance about
    // 1/(E - kept) of the time: 0.6 + 0.4/102.
    CHECK(slot_repeat == Approx(0.6 + 0.4 / 102.0).epsilon(0.03));
    // Shared experts: the kept slots (s ~ Binomial(k, 0.6)), plus the k - s
    // fresh draws from E - s experts hitting the k - s not kept:
    // E[(k - s)^2] / (E - s) = (k*0.24 + (0.4k)^2) / 102.4.
    const double expected = 0.6 * k + (k * 0.24 + 0.16 * k * k) / (112.0 - 0.6 * k);
    CHECK(mean_overlap == Approx(expected).epsilon(0.04));
  }
}

TEST_CASE("a written trace replays the same experts and wraps around", "[routing]") {
  TempDir dir;
  const RoutingShape s{3, 16, 4};
  auto source = make("uniform", s, 77);
  REQUIRE(write_routing_trace(dir.file("rt.txt"), *source, s, 50).ok());
  // Written atomically: only the trace itself is left in the directory.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
  auto text = read_file(dir.file("rt.txt"));
  REQUIRE(text.ok());
  CHECK(text->rfind("moebench-trace v1 layers=3 experts=16 k=4\n", 0) == 0);

  auto replay = make("trace:rt.txt", s, 0, dir.path());  // relative to base_dir; seed unused
  CHECK(replay->describe() == "trace:rt.txt");
  auto reference = make("uniform", s, 77);
  const auto expected = draw(*reference, 50);
  CHECK(draw(*replay, 50) == expected);
  CHECK(replay->wrapped_tokens() == 0);
  const auto again = draw(*replay, 10);
  CHECK(replay->wrapped_tokens() == 10);
  for (std::size_t t = 0; t < again.size(); ++t) CHECK(again[t] == expected[t]);

  // Absolute paths ignore base_dir.
  auto absolute = make("trace:" + dir.file("rt.txt"), s, 0, "/nonexistent");
  CHECK(draw(*absolute, 50) == expected);
}

TEST_CASE("trace files: comments, blank lines and spacing", "[routing]") {
  TempDir dir;
  const RoutingShape s{2, 8, 2};
  REQUIRE(write_file_atomic(dir.file("t.txt"),
                            "moebench-trace v1 layers=2 experts=8 k=2\r\n# a comment\n\n3,7 | 0,5\r\n"
                            "  1 , 2|4,6  \n")
              .ok());
  auto g = make("trace:t.txt", s, 0, dir.path());
  CHECK(draw(*g, 3) == std::vector<std::vector<int>>{{3, 7, 0, 5}, {1, 2, 4, 6}, {3, 7, 0, 5}});
  CHECK(g->wrapped_tokens() == 1);
}

TEST_CASE("trace errors name the file, line and what is wrong", "[routing]") {
  TempDir dir;
  const RoutingShape s{2, 16, 2};
  const std::string header = "moebench-trace v1 layers=2 experts=16 k=2\n";
  const std::string file = dir.file("t.txt");

  CHECK(contains(routing_error("trace:missing.txt", s, dir.path()), "does not exist"));
  CHECK(contains(routing_error("trace:missing.txt", s, dir.path()), dir.file("missing.txt")));

  if (::geteuid() != 0) {  // root reads anything
    REQUIRE(write_file_atomic(file, header + "1,2 | 3,4\n").ok());
    ::chmod(file.c_str(), 0);
    CHECK(contains(routing_error("trace:t.txt", s, dir.path()), "cannot open"));
    ::chmod(file.c_str(), 0644);
  }

  CHECK(contains(trace_error(dir, "", s), file + ": the trace file is empty"));
  CHECK(contains(trace_error(dir, "hello\n1,2 | 3,4\n", s), file + ":1: expected the header"));
  CHECK(contains(trace_error(dir, "moebench-trace v2 layers=2 experts=16 k=2\n1,2 | 3,4\n", s),
                 ":1: unsupported trace version \"v2\""));
  CHECK(contains(trace_error(dir, "moebench-trace v1 layers=2 experts=16\n1,2 | 3,4\n", s),
                 ":1: header field \"k\" is missing"));
  CHECK(contains(trace_error(dir, "moebench-trace v1 layers=2 experts=x k=2\n", s),
                 ":1: header field \"experts\" needs a positive integer, got \"x\""));
  CHECK(contains(trace_error(dir, "moebench-trace v1 layers=2 experts=16 k=2 top=3\n", s),
                 ":1: unknown header field \"top\""));

  const std::string shape_msg = trace_error(dir, "moebench-trace v1 layers=3 experts=64 k=2\n1,2 | 3,4 | 5,6\n", s);
  CHECK(contains(shape_msg, file + ":1: the trace has layers=3 but the card has 2 MoE layers"));
  CHECK(contains(shape_msg, "the trace has experts=64 but the card has 16 experts per MoE layer"));
  CHECK_FALSE(contains(shape_msg, "k=2 but"));
  CHECK(contains(trace_error(dir, "moebench-trace v1 layers=2 experts=16 k=3\n", s),
                 "the trace has k=3 but the card has 2 active experts"));

  CHECK(contains(trace_error(dir, header + "1,2 | 3,4\n1,2\n", s),
                 file + ":3: found 1 group, expected layers=2"));
  CHECK(contains(trace_error(dir, header + "1,2 | 3,4 | 5,6\n", s), ":2: found 3 groups, expected layers=2"));
  CHECK(contains(trace_error(dir, header + "# c\n\n1,2 | 3,4,5\n", s),
                 ":4: group 2 (MoE layer 1) has 3 ids, expected k=2"));
  CHECK(contains(trace_error(dir, header + "1,x | 3,4\n", s), ":2: group 1 (MoE layer 0): \"x\" is not an expert id"));
  CHECK(contains(trace_error(dir, header + "1,-2 | 3,4\n", s), "\"-2\" is not an expert id"));
  CHECK(contains(trace_error(dir, header + "1, | 3,4\n", s), "\"\" is not an expert id"));
  CHECK(contains(trace_error(dir, header + "1,2 | 5,5\n", s),
                 ":2: group 2 (MoE layer 1): expert 5 appears twice"));
  CHECK(contains(trace_error(dir, header + "1,16 | 3,4\n", s),
                 ":2: group 1 (MoE layer 0): expert id 16 is out of range (experts=16, so ids are 0..15)"));
  CHECK(contains(trace_error(dir, header + "# nothing recorded\n\n", s), file + ": the trace has a header but no tokens"));
}

TEST_CASE("routing specs and shapes are checked", "[routing]") {
  const RoutingShape s{2, 16, 2};
  CHECK(contains(routing_error("zipf:0", s), "routing \"zipf:0\": zipf needs an exponent > 0"));
  CHECK(contains(routing_error("zipf", s), "zipf needs an exponent > 0"));
  CHECK(contains(routing_error("sticky:1.5", s), "sticky needs a repeat probability in [0, 1]"));
  CHECK(contains(routing_error("uniform:2", s), "\"uniform\" takes no parameter"));
  CHECK(contains(routing_error("unifrom", s), "did you mean \"uniform\""));
  CHECK(contains(routing_error("trace:", s), "trace needs a file"));
  CHECK(contains(routing_error("uniform", {2, 16, 17}), "cannot pick k=17 distinct experts out of 16"));
  CHECK(contains(routing_error("zipf:1", {2, 16, 0}), "k >= 1"));
  CHECK(contains(routing_error("uniform", {0, 16, 2}), "at least one MoE layer"));
  CHECK(routing_error("uniform", {2, 16, 16}).empty());

  CHECK(make("zipf:1.10", s, 1)->describe() == "zipf:1.1");
  CHECK(make("sticky:0.60", s, 1)->describe() == "sticky:0.6");
  CHECK(make("uniform", s, 1)->describe() == "uniform");
  CHECK(make("uniform", s, 1)->wrapped_tokens() == 0);

  TempDir dir;
  auto g = make("uniform", s, 1);
  CHECK_FALSE(write_routing_trace(dir.file("t.txt"), *g, s, 0).ok());
  CHECK_FALSE(write_routing_trace(dir.file("no/such/dir/t.txt"), *g, s, 5).ok());
  // A generator whose shape disagrees with the one given is refused.
  const Status mismatch = write_routing_trace(dir.file("t.txt"), *g, {3, 16, 2}, 5);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(contains(mismatch.error().message, "expected layers*k=6"));
}

TEST_CASE("routing reuses the caller's buffer token after token", "[routing]") {
  // The work per token, not its speed (speed belongs in a benchmark): one
  // id per (layer, slot), written into the caller's buffer, never a new one.
  for (const RoutingShape& s : {kScaledK3, kFullK3}) {
    for (const std::string spec : {"uniform", "zipf:1.1", "sticky:0.6"}) {
      INFO(spec << " layers=" << s.moe_layers << " experts=" << s.experts);
      auto g = make(spec, s, 1);
      std::vector<int> ids;
      g->next_token(ids);
      const int* buffer = ids.data();
      const std::size_t per_token = static_cast<std::size_t>(s.moe_layers) * static_cast<std::size_t>(s.k);
      REQUIRE(ids.size() == per_token);
      bool same_buffer = true, right_size = true, in_range = true;
      for (int t = 0; t < 2000; ++t) {
        g->next_token(ids);
        same_buffer = same_buffer && ids.data() == buffer;
        right_size = right_size && ids.size() == per_token;
        for (int id : ids) in_range = in_range && id >= 0 && id < s.experts;
      }
      CHECK(same_buffer);
      CHECK(right_size);
      CHECK(in_range);
    }
  }
}
