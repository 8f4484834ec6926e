// machine_profile_test.cpp — the profile writer and loader are inverses:
// a profile written by `moebench probe` on this machine (committed as
// tests/data/profiles/probed-vm-quick.json) is reproduced byte for byte by
// load → write, and hand-written catalog entries survive load → write → load.
// Also: every file in configs/hardware loads and keeps the catalog's
// conventions (machine_profile.h), and the accelerator block is as strict as
// the rest of the schema. Repeats (per-point spread, per-pair ratios, the
// drive's noisy flag) round-trip, profiles without them still load, and bad
// ones are refused with their JSON path. The compute block (spec peaks and
// efficiency bands) and the accelerators' flops are as strict, and every
// catalog drive carries the random 4 KiB QD1/QD32 points paging is charged at.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "vocab/file_io.h"
#include "vocab/machine_profile.h"

using namespace moebench;

namespace {

const std::string kCatalogDir = std::string(MOEBENCH_SOURCE_DIR) + "/configs/hardware";

std::vector<std::string> catalog_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kCatalogDir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every figure of a profile with a label, for checks that apply to all.
std::vector<std::pair<std::string, const Figure*>> all_figures(const MachineProfile& m) {
  std::vector<std::pair<std::string, const Figure*>> out = {
      {"cores", &m.cores},
      {"memory_total", &m.memory_total_bytes},
      {"memory_usable", &m.memory_usable_bytes},
      {"memory_read_bw", &m.memory_read_bytes_s}};
  auto opt = [&](const char* label, const std::optional<Figure>& f) {
    if (f) out.emplace_back(label, &*f);
  };
  opt("interconnect_bw", m.interconnect_bytes_s);
  opt("sync_s_per_token", m.sync_s_per_token);
  opt("price_usd", m.price_usd);
  for (const DriveProfile& d : m.drives) {
    out.emplace_back("drive " + d.name + " seq_read_bw", &d.seq_read_bytes_s);
    if (d.capacity_bytes) out.emplace_back("drive " + d.name + " capacity", &*d.capacity_bytes);
  }
  if (m.compute) {
    out.emplace_back("compute/cpu_flops", &m.compute->cpu_flops);
    opt("compute/cpu_int8_ops", m.compute->cpu_int8_ops);
    opt("compute/gpu_flops", m.compute->gpu_flops);
    out.emplace_back("compute/efficiency/decode", &m.compute->efficiency.decode);
    out.emplace_back("compute/efficiency/prefill", &m.compute->efficiency.prefill);
  }
  for (const DriveProfile& d : m.drives) {
    for (const DriveReadPoint& p : d.read_curve) out.emplace_back("drive " + d.name + " read_curve", &p.read_bytes_s);
  }
  if (m.accelerators) {
    opt("accelerators/flops", m.accelerators->flops);
    out.emplace_back("accelerators/memory", &m.accelerators->memory_bytes);
    out.emplace_back("accelerators/memory_read_bw", &m.accelerators->memory_read_bytes_s);
    opt("accelerators/host_link_bw", m.accelerators->host_link_bytes_s);
    opt("accelerators/peer_bw", m.accelerators->peer_bytes_s);
  }
  return out;
}

// A minimal valid profile with `accelerators` spliced in.
std::string with_accelerators(const std::string& block) {
  return R"({"name": "gpu-box",
    "cores": {"value": 64, "provenance": "spec", "source": "AMD EPYC 7542 spec"},
    "memory_total": {"value": "2TB", "provenance": "spec", "source": "vendor"},
    "memory_usable": {"value": "1900GB", "provenance": "estimate", "source": "OS reserve"},
    "memory_read_bw": {"value": "409.6GB/s", "provenance": "spec", "source": "8 × DDR4-3200 × 2"},
    "accelerators": )" + block + R"(,
    "drives": []})";
}

const char* kGoodAccelerators = R"({"model": "NVIDIA A100-SXM4-40GB", "count": 4,
    "memory": {"value": "40GiB", "provenance": "spec", "source": "NVIDIA A100 datasheet"},
    "memory_read_bw": {"value": "1555GB/s", "provenance": "spec", "range": ["1300GB/s", "1555GB/s"],
                       "source": "NVIDIA A100 datasheet"},
    "host_link_bw": {"value": "31.5GB/s", "provenance": "spec", "source": "PCIe 4.0 x16, one direction"},
    "peer_bw": {"value": "300GB/s", "provenance": "spec", "source": "NVLink 600 GB/s both ways"}})";

// A minimal unified-memory profile with `compute` spliced in.
std::string with_compute(const std::string& block) {
  return R"({"name": "soc-box",
    "cores": {"value": 20, "provenance": "spec", "source": "vendor"},
    "memory_total": {"value": "128GiB", "provenance": "spec", "source": "vendor"},
    "memory_usable": {"value": "112GB", "provenance": "estimate", "source": "hands-on"},
    "memory_read_bw": {"value": "273GB/s", "provenance": "spec", "source": "vendor"},
    "compute": )" + block + R"(,
    "drives": []})";
}

const char* kGoodCompute = R"({
    "cpu_flops": {"value": 1.696e12, "provenance": "estimate", "range": [1.536e12, 2.32e12],
                  "source": "10 × 3.9 GHz × 32 + 10 × 2.8 GHz × 16"},
    "cpu_int8_ops": {"value": 1.3568e13, "provenance": "estimate", "source": "i8mm"},
    "gpu_flops": {"value": 1e14, "provenance": "estimate", "range": [9.23e13, 1.25e14], "source": "measured matmul"},
    "cpu_vector_bits": 128,
    "efficiency": {
      "decode": {"value": 0.7, "provenance": "estimate", "range": [0.5, 0.8], "source": "218 of 273 GB/s"},
      "prefill": {"value": 0.6, "provenance": "estimate", "range": [0.3, 0.9], "source": "MAMF table"}}})";

}  // namespace

TEST_CASE("a compute block loads, round-trips, and may be left out", "[profile]") {
  auto p = load_config_text<MachineProfile>(with_compute(kGoodCompute), "soc.json", load_machine_profile);
  if (!p) FAIL(p.error().message);
  REQUIRE(p->compute.has_value());
  const ComputeInfo& c = *p->compute;
  CHECK(c.cpu_flops.value == 1.696e12);
  CHECK(c.cpu_flops.low.value() == 1.536e12);
  CHECK(c.cpu_flops.high.value() == 2.32e12);
  REQUIRE(c.cpu_int8_ops.has_value());
  CHECK(c.cpu_int8_ops->value == 1.3568e13);
  REQUIRE(c.gpu_flops.has_value());
  CHECK(c.gpu_flops->value == 1e14);
  CHECK(c.cpu_vector_bits == 128);
  CHECK(c.efficiency.decode.value == 0.7);
  CHECK(c.efficiency.decode.low.value() == 0.5);
  CHECK(c.efficiency.prefill.high.value() == 0.9);
  CHECK(c.efficiency.prefill.source == "MAMF table");
  const std::string once = machine_profile_to_json(*p).dump(2);
  auto q = load_config_text<MachineProfile>(once, "rewritten", load_machine_profile);
  if (!q) FAIL(q.error().message);
  CHECK(machine_profile_to_json(*q).dump(2) == once);
  CHECK(q->compute->gpu_flops->value == 1e14);
  CHECK(q->compute->cpu_vector_bits == 128);

  // Optional parts stay out, and so does the whole block.
  const std::string minimal = R"({"cpu_flops": {"value": 5.9e12, "provenance": "spec", "source": "cores × clock × 32"},
      "efficiency": {"decode": {"value": 0.6, "provenance": "estimate", "range": [0.4, 0.8], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "range": [0.2, 0.7], "source": "x"}}})";
  auto m = load_config_text<MachineProfile>(with_compute(minimal), "soc.json", load_machine_profile);
  if (!m) FAIL(m.error().message);
  CHECK(!m->compute->cpu_int8_ops.has_value());
  CHECK(!m->compute->gpu_flops.has_value());
  const auto j = machine_profile_to_json(*m);
  CHECK(!j["compute"].contains("gpu_flops"));
  CHECK(!j["compute"].contains("cpu_int8_ops"));
  CHECK(!j["compute"].contains("cpu_vector_bits"));
  auto none = load_config_text<MachineProfile>(with_accelerators(kGoodAccelerators), "gpu.json", load_machine_profile);
  if (!none) FAIL(none.error().message);
  CHECK(!none->compute.has_value());
  CHECK(!machine_profile_to_json(*none).contains("compute"));

  // A discrete GPU's peak is per device, in the accelerator block.
  std::string acc = kGoodAccelerators;
  acc.insert(acc.rfind('}'), R"(, "flops": {"value": 3.12e14, "provenance": "spec", "source": "NVIDIA A100 datasheet, dense BF16"})");
  auto g = load_config_text<MachineProfile>(with_accelerators(acc), "gpu.json", load_machine_profile);
  if (!g) FAIL(g.error().message);
  REQUIRE(g->accelerators->flops.has_value());
  CHECK(g->accelerators->flops->value == 3.12e14);
  auto g2 = load_config_text<MachineProfile>(machine_profile_to_json(*g).dump(2), "rewritten", load_machine_profile);
  if (!g2) FAIL(g2.error().message);
  CHECK(g2->accelerators->flops->value == 3.12e14);
}

TEST_CASE("a bad compute block names its JSON path", "[profile]") {
  const std::string eff = R"("efficiency": {"decode": {"value": 0.6, "provenance": "estimate", "range": [0.4, 0.8], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "range": [0.2, 0.7], "source": "x"}})";
  const std::string cpu = R"("cpu_flops": {"value": 1e12, "provenance": "spec", "source": "x"})";
  struct Case {
    std::string block;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"{" + cpu + ", " + eff + R"(, "tflops": 10})", "soc.json: /compute/tflops: unknown key \"tflops\""},
      {R"({"cpu_flops": {"value": "1.7TFLOP/s", "provenance": "spec", "source": "x"}, )" + eff + "}",
       "soc.json: /compute/cpu_flops/value: expected a plain number of FLOP/s"},
      {R"({"cpu_flops": {"value": 0, "provenance": "spec", "source": "x"}, )" + eff + "}",
       "soc.json: /compute/cpu_flops/value: expected a peak greater than zero"},
      {R"({"cpu_flops": {"value": 1e12, "provenance": "spec", "range": [2e12, 3e12], "source": "x"}, )" + eff + "}",
       "soc.json: /compute/cpu_flops/range: the range must contain the value"},
      {"{" + eff + "}", "soc.json: /compute/cpu_flops: missing required field"},
      {"{" + cpu + "}", "soc.json: /compute/efficiency: missing required field"},
      {"{" + cpu + R"(, "efficiency": {"decode": {"value": 1.5, "provenance": "estimate", "range": [0.4, 2], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "range": [0.2, 0.7], "source": "x"}}})",
       "soc.json: /compute/efficiency/decode/value: expected a share of peak greater than 0 and at most 1"},
      {"{" + cpu + R"(, "efficiency": {"decode": {"value": 0.6, "provenance": "estimate", "range": [0.4, 0.8], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "source": "x"}}})",
       "soc.json: /compute/efficiency/prefill: an efficiency needs its band"},
      {"{" + cpu + R"(, "efficiency": {"decode": {"value": 0.9, "provenance": "estimate", "range": [0.4, 0.8], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "range": [0.2, 0.7], "source": "x"}}})",
       "soc.json: /compute/efficiency/decode/range: the range must contain the value"},
      {"{" + cpu + R"(, "efficiency": {"decode": {"value": 0.6, "provenance": "estimate", "range": [0.4, 0.8], "source": "x"},
                     "prefill": {"value": 0.4, "provenance": "estimate", "range": [0.2, 0.7], "source": "x"}, "sustained": 0.5}})",
       "soc.json: /compute/efficiency/sustained: unknown key"},
      {"{" + cpu + R"(, "gpu_flops": {"value": -1, "provenance": "spec", "source": "x"}, )" + eff + "}",
       "soc.json: /compute/gpu_flops/value: expected a peak greater than zero"},
      {"{" + cpu + R"(, "cpu_int8_ops": {"value": 1e13, "provenance": "guess", "source": "x"}, )" + eff + "}",
       "soc.json: /compute/cpu_int8_ops/provenance:"},
      {"[1e12]", "soc.json: /compute: expected an object"},
      {"{" + cpu + R"(, "cpu_vector_bits": 384, )" + eff + "}", "soc.json: /compute/cpu_vector_bits: the width of one FMA pipe is 128, 256 or 512"},
      {"{" + cpu + R"(, "cpu_vector_bits": "AVX2", )" + eff + "}", "soc.json: /compute/cpu_vector_bits:"},
  };
  for (const Case& c : cases) {
    INFO(c.block);
    auto p = load_config_text<MachineProfile>(with_compute(c.block), "soc.json", load_machine_profile);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::Contains(c.expected));
  }

  // gpu_flops is for unified memory; a discrete GPU's peak goes in /accelerators/flops.
  std::string text = with_accelerators(kGoodAccelerators);
  text.insert(text.rfind("\"drives\""), R"("compute": {)" + cpu + R"(, "gpu_flops": {"value": 3e14, "provenance": "spec", "source": "x"}, )" +
                                            eff + "},\n    ");
  auto p = load_config_text<MachineProfile>(text, "gpu.json", load_machine_profile);
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error().message, Catch::Contains("gpu.json: /compute/gpu_flops: gpu_flops is the integrated GPU"));
  std::string acc = kGoodAccelerators;
  acc.insert(acc.rfind('}'), R"(, "flops": {"value": "312TFLOPS", "provenance": "spec", "source": "x"})");
  auto q = load_config_text<MachineProfile>(with_accelerators(acc), "gpu.json", load_machine_profile);
  REQUIRE_FALSE(q.ok());
  CHECK_THAT(q.error().message, Catch::Contains("gpu.json: /accelerators/flops/value: expected a plain number of FLOP/s"));
}

TEST_CASE("a profile that cannot be is an error: usable above total, no memory, no cores, an unknown os", "[profile]") {
  const std::string good = with_accelerators(kGoodAccelerators);
  REQUIRE(load_config_text<MachineProfile>(good, "box.json", load_machine_profile).ok());
  struct Case {
    std::string from, to;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {R"("value": "1900GB")", R"("value": "3TB")", "box.json: /memory_usable: usable memory 3.00 TB is more than memory_total 2.00 TB"},
      {R"("value": "2TB")", R"("value": "1B")", "box.json: /memory_total: a machine with less than 1 MB of memory"},
      {R"("value": 64,)", R"("value": 0,)", "box.json: /cores"},
      {R"("name": "gpu-box",)", R"("name": "gpu-box", "os": "beos",)", "box.json: /os"},
  };
  for (const Case& c : cases) {
    std::string text = good;
    const auto at = text.find(c.from);
    REQUIRE(at != std::string::npos);
    text.replace(at, c.from.size(), c.to);
    INFO(text);
    auto p = load_config_text<MachineProfile>(text, "box.json", load_machine_profile);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::Contains(c.expected));
  }
}

TEST_CASE("a probed profile round-trips byte for byte", "[profile]") {
  const std::string path = std::string(MOEBENCH_TEST_DATA) + "/profiles/probed-vm-quick.json";
  auto text = read_file(path);
  REQUIRE(text.ok());
  auto profile = load_machine_profile_file(path);
  if (!profile) FAIL(profile.error().message);
  CHECK(machine_profile_to_json(*profile).dump(2) + "\n" == *text);
  // The measured sections are all there.
  CHECK(profile->probe.has_value());
  CHECK(profile->topology.has_value());
  CHECK(profile->memory_bandwidth.has_value());
  CHECK(profile->memory_limits.has_value());
  REQUIRE(!profile->drives.empty());
  REQUIRE(profile->drives[0].device.has_value());
  bool any_fio = false;
  for (const DriveReadPoint& p : profile->drives[0].read_curve) any_fio = any_fio || p.fio.has_value();
  CHECK(any_fio);
  CHECK(profile->memory_read_bytes_s.provenance == Provenance::kMeasured);
  REQUIRE(!profile->kernels.empty());  // kernel throughput, from Google Benchmark
  for (const KernelFigure& k : profile->kernels) {
    CHECK(k.weight_bytes_s.value > 0);
    CHECK(k.gflop_s.value_or(0) > 0);
  }
}

TEST_CASE("catalog profiles survive load → write → load", "[profile]") {
  const std::vector<std::string> files = catalog_files();
  REQUIRE(!files.empty());
  for (const std::string& path : files) {
    INFO(path);
    auto first = load_machine_profile_file(path);
    if (!first) FAIL(first.error().message);
    const std::string once = machine_profile_to_json(*first).dump(2);
    auto second = load_config_text<MachineProfile>(once, "rewritten", load_machine_profile);
    if (!second) FAIL(second.error().message);
    CHECK(machine_profile_to_json(*second).dump(2) == once);
    CHECK(second->accelerators.has_value() == first->accelerators.has_value());
  }
  auto laptop = load_machine_profile_file(kCatalogDir + "/macbook-pro-m5-pro-64gb.json");
  REQUIRE(laptop.ok());
  CHECK(laptop->memory_usable_bytes.low.value() == 48.0 * (1ull << 30));
  CHECK(laptop->drives.size() == 2);
  CHECK(laptop->drives[0].seq_read_bytes_s.provenance == Provenance::kMeasured);

  // A discrete-GPU entry: the accelerator block comes back whole.
  auto gpu = load_machine_profile_file(kCatalogDir + "/a100-40gb-x4.json");
  if (!gpu) FAIL(gpu.error().message);
  auto again = load_config_text<MachineProfile>(machine_profile_to_json(*gpu).dump(2), "rewritten",
                                                load_machine_profile);
  if (!again) FAIL(again.error().message);
  REQUIRE(again->accelerators.has_value());
  const AcceleratorInfo& a = *again->accelerators;
  CHECK(a.model == "NVIDIA A100-SXM4-40GB");
  CHECK(a.count == 4);
  CHECK(a.memory_bytes.value == 40.0 * (1ull << 30));
  CHECK(a.memory_read_bytes_s.value == 1555e9);
  CHECK(a.memory_read_bytes_s.low.value() == 1300e9);
  REQUIRE(a.host_link_bytes_s.has_value());
  CHECK(a.host_link_bytes_s->value == 31.5e9);
  REQUIRE(a.peer_bytes_s.has_value());
  CHECK(a.peer_bytes_s->value == 300e9);
  CHECK(a.peer_bytes_s->source == gpu->accelerators->peer_bytes_s->source);
  CHECK(again->price_basis == std::optional<std::string>("hourly"));
}

TEST_CASE("an accelerator block round-trips with every field", "[profile]") {
  auto p = load_config_text<MachineProfile>(with_accelerators(kGoodAccelerators), "gpu.json", load_machine_profile);
  if (!p) FAIL(p.error().message);
  const std::string once = machine_profile_to_json(*p).dump(2);
  auto q = load_config_text<MachineProfile>(once, "rewritten", load_machine_profile);
  if (!q) FAIL(q.error().message);
  CHECK(machine_profile_to_json(*q).dump(2) == once);
  REQUIRE(q->accelerators.has_value());
  CHECK(q->accelerators->count == 4);
  CHECK(q->accelerators->memory_read_bytes_s.high.value() == 1555e9);
  CHECK(q->accelerators->host_link_bytes_s->provenance == Provenance::kSpec);

  // Optional links may be left out; the writer leaves them out too.
  const std::string minimal = R"({"model": "NVIDIA GeForce RTX 3090", "count": 1,
      "memory": {"value": "24GiB", "provenance": "spec", "source": "NVIDIA"},
      "memory_read_bw": {"value": "936GB/s", "provenance": "spec", "source": "NVIDIA"}})";
  auto m = load_config_text<MachineProfile>(with_accelerators(minimal), "gpu.json", load_machine_profile);
  if (!m) FAIL(m.error().message);
  CHECK(!m->accelerators->host_link_bytes_s.has_value());
  CHECK(!m->accelerators->peer_bytes_s.has_value());
  const auto j = machine_profile_to_json(*m);
  CHECK(!j["accelerators"].contains("host_link_bw"));
  CHECK(!j["accelerators"].contains("peer_bw"));
}

TEST_CASE("a bad accelerator field names its JSON path", "[profile]") {
  struct Case {
    std::string block;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {R"({"model": "A100", "count": 0,
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "1555GB/s", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/count: expected an integer between 1 and"},
      {R"({"model": "A100", "count": 4, "hbm_bw": "1555GB/s",
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "1555GB/s", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/hbm_bw: unknown key \"hbm_bw\""},
      {R"({"model": "A100", "count": 4,
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/memory_read_bw: missing required field"},
      {R"({"model": "A100", "count": 4,
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "1.5 TB per second", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/memory_read_bw/value: expected a rate like"},
      {R"({"model": "A100", "count": 4,
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "1555GB/s", "provenance": "spec", "source": "x"},
           "host_link_bw": {"value": "31.5GB/s", "provenance": "datasheet", "source": "x"}})",
       "gpu.json: /accelerators/host_link_bw/provenance:"},
      {R"({"model": "RTX 3090", "count": 1,
           "memory": {"value": "24GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "936GB/s", "provenance": "spec", "source": "x"},
           "peer_bw": {"value": "56GB/s", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/peer_bw: a single device has no peer link"},
      {R"({"model": "", "count": 4,
           "memory": {"value": "40GiB", "provenance": "spec", "source": "x"},
           "memory_read_bw": {"value": "1555GB/s", "provenance": "spec", "source": "x"}})",
       "gpu.json: /accelerators/model: name the device model"},
      {R"(["A100", 4])", "gpu.json: /accelerators: expected an object"},
  };
  for (const Case& c : cases) {
    INFO(c.block);
    auto p = load_config_text<MachineProfile>(with_accelerators(c.block), "gpu.json", load_machine_profile);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::Contains(c.expected));
  }
}

TEST_CASE("every catalog machine loads and keeps the catalog's conventions", "[profile]") {
  // The names other configs (claims) point at; each is one file.
  const std::set<std::string> expected = {
      "macbook-pro-m5-pro-64gb", "macbook-pro-m5-max-128gb", "macbook-pro-m1-max-64gb",
      "mac-studio-m3-ultra-512gb", "mac-studio-m3-ultra-512gb-x4", "dgx-spark", "dgx-spark-x3",
      "dgx-spark-x16", "epyc-7763-2s-228gb", "rtx3090-optane-pmem", "a100-40gb-x4", "a100-80gb-x8",
      "b200-x4", "b300-x8", "h200-x16",
      "xeon-6248-2s-1536gb-rtx6000ada-x2", "epyc-9654-768gb-rtx3090", "epyc-9355-2s-736gb-rtxpro6000",
      "epyc-9965-1s-768gb", "tr-pro-7965wx-256gb-a6000", "ryzen-9950x-96gb-rtx3090ti",
      "epyc-7j13-2s-oracle-denseio", "ryzen-9900x-ddr5-6000", "apple-m4-max-128gb", "apple-m5-24gb",
      "workstation-124c-720gb", "gb300-x8"};
  // Unified memory (Apple silicon, GB10) and the CPU-only campaigns (EPYC,
  // Ryzen 9900X, the kimi-k3-in-c workstation) have no accelerator block;
  // discrete-GPU machines have one.
  const std::set<std::string> discrete_gpu = {"rtx3090-optane-pmem", "a100-40gb-x4", "a100-80gb-x8",
                                              "b200-x4", "b300-x8", "h200-x16",
                                              "xeon-6248-2s-1536gb-rtx6000ada-x2", "epyc-9654-768gb-rtx3090",
                                              "epyc-9355-2s-736gb-rtxpro6000", "tr-pro-7965wx-256gb-a6000",
                                              "ryzen-9950x-96gb-rtx3090ti", "gb300-x8"};
  // The CPU-only campaigns leave their GPUs out (the kimi-k3-in-c host's
  // idle L40s, the 9900X's RTX 5060 Ti) and are not unified-memory machines,
  // so they carry no gpu_flops either.
  const std::set<std::string> cpu_only = {"epyc-7763-2s-228gb", "epyc-7j13-2s-oracle-denseio",
                                          "epyc-9965-1s-768gb", "ryzen-9900x-ddr5-6000",
                                          "workstation-124c-720gb"};
  std::set<std::string> seen;
  for (const std::string& path : catalog_files()) {
    INFO(path);
    auto m = load_machine_profile_file(path);  // no diagnostics at all
    if (!m) FAIL(m.error().message);
    const std::string stem = std::filesystem::path(path).stem().string();
    CHECK(m->name == stem);
    seen.insert(m->name);
    CHECK(!m->description.empty());
    CHECK(!m->probe.has_value());  // catalog entries are hand-written
    CHECK(m->accelerators.has_value() == (discrete_gpu.count(m->name) == 1));
    CHECK(m->memory_usable_bytes.value <= m->memory_total_bytes.value);
    if (m->nodes > 1) {
      CHECK(m->interconnect_bytes_s.has_value());
      CHECK(m->sync_s_per_token.has_value());
      CHECK(m->drives.size() % static_cast<std::size_t>(m->nodes) == 0);  // nodes are alike
    }
    if (m->accelerators) CHECK(m->accelerators->count % m->nodes == 0);
    // Compute: every catalog machine has a CPU peak and an efficiency band;
    // unified-memory machines their GPU's peak, discrete GPUs a per-device one.
    REQUIRE(m->compute.has_value());
    CHECK(m->compute->cpu_flops.value > 0);
    for (const Figure* e : {&m->compute->efficiency.decode, &m->compute->efficiency.prefill}) {
      REQUIRE(e->low.has_value());
      REQUIRE(e->high.has_value());
      CHECK((0 < *e->low && *e->low <= e->value && e->value <= *e->high && *e->high <= 1));
    }
    if (m->accelerators) {
      CHECK(m->accelerators->flops.has_value());
      CHECK(!m->compute->gpu_flops.has_value());
    } else if (cpu_only.count(m->name) == 1) {  // CPU-only campaigns: no integrated GPU peak either
      CHECK(!m->compute->gpu_flops.has_value());
    } else {  // unified memory
      CHECK(m->compute->gpu_flops.has_value());
    }
    // Paging: every drive has the random 4 KiB QD1 and QD32 reads a paged
    // hit is charged at, below a larger-block point (the curve's top end).
    for (const DriveProfile& d : m->drives) {
      INFO(d.name);
      const DriveReadPoint* qd1 = nullptr;
      const DriveReadPoint* qd32 = nullptr;
      std::uint64_t largest = 0;
      double largest_bw = 0;
      for (const DriveReadPoint& p : d.read_curve) {
        CHECK(p.pattern == "random");
        if (p.block_bytes == 4096 && p.queue_depth == 1) qd1 = &p;
        if (p.block_bytes == 4096 && p.queue_depth == 32) qd32 = &p;
        if (p.block_bytes > largest) {
          largest = p.block_bytes;
          largest_bw = p.read_bytes_s.value;
        }
      }
      REQUIRE(qd1 != nullptr);
      REQUIRE(qd32 != nullptr);
      CHECK(qd1->read_bytes_s.value < qd32->read_bytes_s.value);
      CHECK(largest > 4096);
      CHECK(qd32->read_bytes_s.value < largest_bw);
      CHECK(largest_bw <= d.seq_read_bytes_s.value);
    }
    for (const auto& [label, f] : all_figures(*m)) {
      INFO(label);
      CHECK(f->value > 0);
      CHECK(!f->source.empty());
      // A catalog entry measured nothing itself: a measured figure names where
      // it was measured — a reference text, a repository document or a public
      // thread (e.g. a bandwidth the reporter measured on that machine).
      if (f->provenance == Provenance::kMeasured) {
        CHECK((f->source.find(".txt") != std::string::npos || f->source.find(".md") != std::string::npos ||
               f->source.find("github.com/") != std::string::npos));
      }
      if (f->low && f->high) CHECK((*f->low <= f->value && f->value <= *f->high));
    }
  }
  CHECK(seen == expected);
}

TEST_CASE("a drive set must name listed drives", "[profile]") {
  const std::string text = R"({"name": "x",
    "cores": {"value": 2, "provenance": "measured", "source": "hwloc"},
    "memory_total": {"value": 1000000, "provenance": "measured", "source": "meminfo"},
    "memory_usable": {"value": 900000, "provenance": "measured", "source": "probe"},
    "memory_read_bw": {"value": 1e9, "provenance": "measured", "source": "probe"},
    "drives": [{"name": "drive0", "seq_read_bw": {"value": "1GB/s", "provenance": "measured", "source": "probe"}}],
    "drive_sets": [{"drives": ["drive0", "drive7"], "read_curve": []}]})";
  auto p = load_config_text<MachineProfile>(text, "p.json", load_machine_profile);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message.find("p.json: /drive_sets/0/drives: drive \"drive7\" is not listed in /drives") !=
        std::string::npos);
}

namespace {

// A probed-style profile with one drive whose curve point carries repeats;
// `point_extra` and `fio_extra` are spliced into the point and its fio
// object, `drive_extra` into the drive.
std::string with_repeats(const std::string& point_extra, const std::string& fio_extra = "",
                         const std::string& drive_extra = "") {
  return R"({"name": "x",
    "cores": {"value": 2, "provenance": "measured", "source": "hwloc"},
    "memory_total": {"value": 1000000, "provenance": "measured", "source": "meminfo"},
    "memory_usable": {"value": 900000, "provenance": "measured", "source": "probe"},
    "memory_read_bw": {"value": 1e9, "provenance": "measured", "source": "probe"},
    "drives": [{"name": "drive0", "seq_read_bw": {"value": 1.2e9, "provenance": "measured", "source": "probe"},
      "read_curve": [{"block": 1048576, "queue_depth": 16, "pattern": "random",
        "read_bw": {"value": 1.31e9, "provenance": "measured", "source": "built-in, median of 3"})" +
         point_extra + R"(,
        "fio": {"read_bw": 1.34e9, "iops": 1278, "clat_p50_us": 12000, "clat_p99_us": 20000)" + fio_extra +
         R"(}}])" + drive_extra + R"(}]})";
}

const char* kGoodPointRepeats = R"(,
        "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": 1.1e9, "max": 1.45e9, "samples": [1.1e9, 1.45e9, 1.31e9]})";
const char* kGoodFioRepeats = R"(,
        "read_bw_repeats": {"n": 3, "median": 1.34e9, "min": 1.2e9, "max": 1.5e9},
        "pair_ratio": {"n": 3, "median": 0.98, "min": 0.81, "max": 1.2, "samples": [0.81, 1.2, 0.98]},
        "job": "libaio 1.00 MiB QD16",
        "search": "best of 4 fio jobs: libaio 1.00 MiB QD16 1.40 GB/s, io_uring 1.00 MiB QD16 1.20 GB/s")";
const char* kGoodRepeatability = R"(,
      "repeatability": {"pairs": 3, "threshold": 0.25, "worst_relative_range": 0.267,
                        "worst_cell": "random 1.00 MiB QD16", "noisy": true})";

}  // namespace

TEST_CASE("repeats, pair ratios and the noisy flag round-trip", "[profile]") {
  const std::string text = with_repeats(kGoodPointRepeats, kGoodFioRepeats, kGoodRepeatability);
  auto p = load_config_text<MachineProfile>(text, "p.json", load_machine_profile);
  if (!p) FAIL(p.error().message);
  const DriveProfile& d = p->drives.at(0);
  REQUIRE(d.repeatability.has_value());
  CHECK(d.repeatability->noisy);
  CHECK(d.repeatability->pairs == 3);
  CHECK(d.repeatability->worst_cell == "random 1.00 MiB QD16");
  const DriveReadPoint& pt = d.read_curve.at(0);
  REQUIRE(pt.read_spread.has_value());
  CHECK(pt.read_spread->n == 3);
  CHECK(pt.read_spread->min == 1.1e9);
  CHECK(pt.read_spread->max == 1.45e9);
  CHECK(pt.read_spread->samples == std::vector<double>{1.1e9, 1.45e9, 1.31e9});  // run order kept
  CHECK(pt.read_bytes_s.value == 1.31e9);  // the cost model reads the median
  REQUIRE(pt.fio.has_value());
  REQUIRE(pt.fio->read_spread.has_value());
  CHECK(pt.fio->read_spread->samples.empty());
  REQUIRE(pt.fio->pair_ratio.has_value());
  CHECK(pt.fio->pair_ratio->median == 0.98);
  CHECK(pt.fio->job == "libaio 1.00 MiB QD16");  // the yardstick's job and the search that chose it
  CHECK_THAT(pt.fio->search, Catch::StartsWith("best of 4 fio jobs"));
  const std::string once = machine_profile_to_json(*p).dump(2);
  CHECK(nlohmann::ordered_json::parse(once)["drives"][0]["read_curve"][0]["fio"]["builtin_over_fio"] == 0.98);
  auto again = load_config_text<MachineProfile>(once, "p2.json", load_machine_profile);
  if (!again) FAIL(again.error().message);
  CHECK(machine_profile_to_json(*again).dump(2) == once);
}

TEST_CASE("profiles written before repeats existed still load", "[profile]") {
  auto p = load_config_text<MachineProfile>(with_repeats(""), "old.json", load_machine_profile);
  if (!p) FAIL(p.error().message);
  CHECK_FALSE(p->drives.at(0).repeatability.has_value());
  CHECK_FALSE(p->drives.at(0).read_curve.at(0).read_spread.has_value());
  CHECK_FALSE(p->drives.at(0).read_curve.at(0).fio->pair_ratio.has_value());
  CHECK(p->drives.at(0).read_curve.at(0).fio->job.empty());
  // The committed probe of this machine (one pair per cell) too.
  auto committed = load_machine_profile_file(std::string(MOEBENCH_TEST_DATA) + "/profiles/probed-vm-quick.json");
  if (!committed) FAIL(committed.error().message);
  CHECK_FALSE(committed->drives.at(0).repeatability.has_value());
}

TEST_CASE("bad repeats name their JSON path", "[profile]") {
  struct Case {
    std::string point, fio, drive;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": 1.4e9, "max": 1.45e9})", "", "",
       "read_curve/0/read_bw_repeats: expected min ≤ median ≤ max"},
      {R"(, "read_bw_repeats": {"n": 0, "median": 1.31e9, "min": 1.1e9, "max": 1.45e9})", "", "",
       "read_curve/0/read_bw_repeats/n: expected an integer between 1 and"},
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": -1, "max": 1.45e9})", "", "",
       "read_curve/0/read_bw_repeats/min: expected a value of zero or more"},
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": 1.1e9, "max": "fast"})", "", "",
       "read_curve/0/read_bw_repeats/max: expected a number"},
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.2e9, "min": 1.1e9, "max": 1.45e9})", "", "",
       "read_curve/0/read_bw_repeats/median: the median of the repeats (1.200e+09) must be the read_bw value"},
      {R"(, "read_bw_repeats": {"n": 2, "median": 1.31e9, "min": 1.1e9, "max": 1.45e9, "samples": [1.1e9, 1.31e9, 1.45e9]})",
       "", "", "read_curve/0/read_bw_repeats/samples: expected n = 2 samples, got 3"},
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": 1.0e9, "max": 1.45e9, "samples": [1.1e9, 1.31e9, 1.45e9]})",
       "", "", "read_curve/0/read_bw_repeats/samples: the samples' median, min and max"},
      {R"(, "read_bw_repeats": {"n": 1, "median": 1.31e9, "min": 1.31e9, "max": 1.31e9, "samples": [null]})", "", "",
       "read_curve/0/read_bw_repeats/samples/0: expected a number"},
      {R"(, "read_bw_repeats": {"n": 3, "median": 1.31e9, "min": 1.1e9, "max": 1.45e9, "spread": 1})", "", "",
       "read_curve/0/read_bw_repeats/spread: unknown key"},
      {"", R"(, "pair_ratio": {"n": 3, "median": 0.5, "min": 0.81, "max": 1.2})", "",
       "read_curve/0/fio/pair_ratio: expected min ≤ median ≤ max"},
      {"", R"(, "read_bw_repeats": {"n": 3, "median": 1.3e9, "min": 1.2e9, "max": 1.5e9})", "",
       "read_curve/0/fio/read_bw_repeats/median: the median of the repeats (1.300e+09) must be the fio read_bw"},
      {"", "", R"(, "repeatability": {"pairs": 3, "threshold": 0.25, "worst_relative_range": 0.1,
                                     "worst_cell": "random 1.00 MiB QD16", "noisy": true})",
       "p.json: /drives/0/repeatability/noisy: a drive is noisy exactly when"},
      {"", "", R"(, "repeatability": {"pairs": 0, "threshold": 0.25, "worst_relative_range": 0.1,
                                     "worst_cell": "x", "noisy": false})",
       "p.json: /drives/0/repeatability/pairs: expected an integer between 1 and"},
      {"", "", R"(, "repeatability": {"pairs": 3, "threshold": 0, "worst_relative_range": 0.1,
                                     "worst_cell": "x", "noisy": true})",
       "p.json: /drives/0/repeatability/threshold: expected a threshold greater than zero"},
  };
  for (const Case& c : cases) {
    INFO(c.point << c.fio << c.drive);
    auto p = load_config_text<MachineProfile>(with_repeats(c.point, c.fio, c.drive), "p.json", load_machine_profile);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::Contains(c.expected));
  }
}

TEST_CASE("a non-finite repeat is refused with its path", "[profile]") {
  Json j = Json::parse(with_repeats(kGoodPointRepeats));
  j["drives"][0]["read_curve"][0]["read_bw_repeats"]["max"] = std::numeric_limits<double>::infinity();
  Diagnostics d("p.json");
  CHECK_FALSE(load_machine_profile(j, d).has_value());
  CHECK_THAT(d.render(), Catch::Contains("/drives/0/read_curve/0/read_bw_repeats/max: expected a finite number"));
  j = Json::parse(with_repeats(kGoodPointRepeats));
  j["drives"][0]["read_curve"][0]["read_bw_repeats"]["samples"][1] = std::nan("");
  Diagnostics d2("p.json");
  CHECK_FALSE(load_machine_profile(j, d2).has_value());
  CHECK_THAT(d2.render(), Catch::Contains("/drives/0/read_curve/0/read_bw_repeats/samples/1: expected a finite number"));
}

TEST_CASE("a power block loads with its sources, every catalog machine has one, and bad watts name the path", "[profile]") {
  const std::string good = R"("power": {"load_w": {"value": 140, "provenance": "measured", "range": [110, 160], "source": "wall meter"},
                                      "idle_w": {"value": 10, "provenance": "spec", "source": "vendor"}},)";
  std::string text = with_compute(kGoodCompute);
  text.insert(text.find("\"drives\""), good + "\n    ");
  auto p = load_config_text<MachineProfile>(text, "soc.json", load_machine_profile);
  REQUIRE(p);
  REQUIRE(p->power);
  CHECK(p->power->load_w.value == 140);
  CHECK(*p->power->load_w.low == 110);
  CHECK(p->power->idle_w.source == "vendor");
  auto again = load_config_text<MachineProfile>(machine_profile_to_json(*p).dump(), "again.json", load_machine_profile);
  REQUIRE(again);
  REQUIRE(again->power);
  CHECK(again->power->load_w.value == 140);

  struct Case {
    std::string block;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {R"("power": {"load_w": {"value": "140W", "provenance": "spec", "source": "x"}, "idle_w": {"value": 1, "provenance": "spec", "source": "x"}},)",
       "soc.json: /power/load_w/value: expected a plain number of watts"},
      {R"("power": {"load_w": {"value": 0, "provenance": "spec", "source": "x"}, "idle_w": {"value": 1, "provenance": "spec", "source": "x"}},)",
       "soc.json: /power/load_w/value: expected watts greater than zero"},
      {R"("power": {"load_w": {"value": 10, "provenance": "spec", "source": "x"}, "idle_w": {"value": 50, "provenance": "spec", "source": "x"}},)",
       "soc.json: /power/idle_w: idle power 50 W is above the load power 10 W"},
      {R"("power": {"load_w": {"value": 10, "provenance": "spec", "source": "x"}},)", "soc.json: /power/idle_w: missing required field"},
      {R"("power": {"load_w": {"value": 10, "provenance": "spec"}, "idle_w": {"value": 5, "provenance": "spec", "source": "x"}},)",
       "soc.json: /power/load_w/source"},
  };
  for (const Case& c : cases) {
    INFO(c.block);
    std::string t = with_compute(kGoodCompute);
    t.insert(t.find("\"drives\""), c.block + "\n    ");
    auto bad = load_config_text<MachineProfile>(t, "soc.json", load_machine_profile);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::Contains(c.expected));
  }
  // The plan's cost table reads every catalog machine's power, with its source.
  for (const std::string& path : catalog_files()) {
    INFO(path);
    auto m = load_machine_profile_file(path);
    REQUIRE(m);
    REQUIRE(m->power);
    CHECK_FALSE(m->power->load_w.source.empty());
    CHECK(m->power->load_w.low);
    CHECK(m->power->idle_w.value <= m->power->load_w.value);
  }
}
