// spec_machine_test.cpp — a machine built from its parts (model/spec_machine.h)
// equals the arithmetic done by hand on the cited rows it names; a figure
// without a source, an unknown part or an impossible spec is refused with
// the field that is wrong.
#include <catch2/catch.hpp>

#include "model/spec_machine.h"
#include "test_support.h"

using namespace moebench;

namespace {

// Two CPUs, a memory kind, a GPU, a drive, an enclosure and an OS: each row
// cites a source for every number (the quotes are the fixture's own).
const char* kTables = R"({
  "cpus": [
    {"name": "AMD EPYC 9654", "aliases": ["EPYC 9654"], "cores": 96, "base_ghz": 2.4, "all_core_ghz": 3.55,
     "fma_pipes": 2, "fma_width_bits": 256, "int8_dot": "avx512_vnni", "memory_kind": "DDR5",
     "memory_channels": 12, "memory_mt_s": 4800, "max_sockets": 2,
     "sources": [{"page": "https://example.test/9654", "quote": "96 cores, 12 channels DDR5-4800",
                  "fields": ["cores", "memory_channels", "memory_mt_s", "memory_kind", "max_sockets", "base_ghz", "all_core_ghz"]}],
     "derived": {"fma_pipes": "Zen 4: two FMA pipes", "fma_width_bits": "Zen 4: 256-bit datapath"}},
    {"name": "Intel Xeon Gold 6138", "cores": 20, "base_ghz": 2.0, "boost_ghz": 3.7, "fma_pipes": 2, "fma_width_bits": 512,
     "memory_kind": "DDR5", "memory_channels": 6, "memory_mt_s": 2666, "max_sockets": 2,
     "sources": [{"page": "https://example.test/6138", "quote": "20 cores, 2.0 GHz base, 3.7 GHz turbo",
                  "fields": ["cores", "base_ghz", "boost_ghz", "memory_channels", "memory_mt_s", "memory_kind", "max_sockets"]}],
     "derived": {"fma_pipes": "two AVX-512 FMA units", "fma_width_bits": "AVX-512"}},
    {"name": "Apple M3 Ultra", "cores": 32, "performance_cores": 24, "base_ghz": 4.05, "fma_pipes": 4, "fma_width_bits": 128,
     "unified_memory": {"bandwidth_gb_s": 819, "sizes_gb": [96, 256, 512], "kind": "LPDDR5"},
     "gpu": {"fp16_tflops": 28.4},
     "sources": [{"page": "https://example.test/m3u", "quote": "819GB/s unified memory, up to 512GB",
                  "fields": ["cores", "performance_cores", "base_ghz", "unified_memory", "gpu"]}],
     "derived": {"fma_pipes": "four 128-bit NEON FMA units", "fma_width_bits": "NEON is 128 bits"}}
  ],
  "memory_kinds": [
    {"name": "DDR5", "bus_bits_per_channel": 64,
     "sources": [{"page": "https://example.test/ddr5", "quote": "64-bit channel", "fields": ["bus_bits_per_channel"]}]}
  ],
  "gpus": [
    {"name": "NVIDIA GeForce RTX 3090", "aliases": ["RTX 3090"], "memory_gb": 24, "memory_bandwidth_gb_s": 936,
     "bf16_tflops_dense": 71, "host_link_gb_s": 31.5,
     "sources": [{"page": "https://example.test/3090", "quote": "24 GB, 936 GB/s",
                  "fields": ["memory_gb", "memory_bandwidth_gb_s", "bf16_tflops_dense"]}],
     "derived": {"host_link_gb_s": "PCIe 4.0 x16: 16 × 1.969 GB/s"}},
    {"name": "NVIDIA GeForce RTX 5090", "aliases": ["RTX 5090"], "memory_gb": 32, "memory_bandwidth_gb_s": 1792,
     "bf16_tflops_dense": 209, "host_link_gb_s": 63,
     "sources": [{"page": "https://example.test/5090", "quote": "32 GB, 1792 GB/s",
                  "fields": ["memory_gb", "memory_bandwidth_gb_s", "bf16_tflops_dense"]}],
     "derived": {"host_link_gb_s": "PCIe 5.0 x16: 16 × 3.938 GB/s"}}
  ],
  "drives": [
    {"name": "Samsung 990 PRO", "seq_read_mb_s": 7450, "random_read_4k_qd32_iops": 1400000, "random_read_4k_qd1_iops": 22000,
     "sources": [{"page": "https://example.test/990", "quote": "7,450 MB/s; 1,400K IOPS; 22K IOPS QD1",
                  "fields": ["seq_read_mb_s", "random_read_4k_qd32_iops", "random_read_4k_qd1_iops"]}]}
  ],
  "enclosures": [
    {"name": "Thunderbolt 4 NVMe enclosure", "max_read_mb_s": 3100,
     "sources": [{"page": "https://example.test/tb4", "quote": "3,100 MB/s", "fields": ["max_read_mb_s"]}]}
  ],
  "os": [
    {"name": "linux", "cpu_reserve_gib": 4,
     "sources": [{"page": "https://example.test/linux", "quote": "keep 4 GiB", "fields": ["cpu_reserve_gib"]}]},
    {"name": "macos", "gpu_wired_fraction": [{"max_memory_gib": 36, "fraction": 0.67}, {"fraction": 0.75}],
     "sources": [{"page": "https://example.test/macos", "quote": "75% above 36GB", "fields": ["gpu_wired_fraction"]}]}
  ]
})";

SpecTables fixture_tables() {
  auto rows = load_config_text<std::vector<SpecRow>>(kTables, "fixture.json", load_spec_rows);
  REQUIRE(rows.ok());
  return SpecTables{*rows};
}

MachineSpec spec_of(const std::string& json) {
  auto j = parse_json_text(json, "spec");
  REQUIRE(j.ok());
  Diagnostics d("spec");
  auto s = load_machine_spec(*j, "", d);
  INFO(d.render());
  REQUIRE(s.has_value());
  return *s;
}

}  // namespace

TEST_CASE("a CPU without a published all-core clock computes midway between its base and its boost", "[spec]") {
  const SpecTables t = fixture_tables();
  auto m = build_machine(spec_of(R"({"cpu": "Intel Xeon Gold 6138", "sockets": 2,
      "memory": {"kind": "DDR5", "mt_s": 2666, "channels": 12, "size": "384GB"}, "os": "linux"})"), t);
  REQUIRE(m.ok());
  REQUIRE(m->compute);
  // 40 cores × (2.0 + 3.7) / 2 GHz × 2 pipes × 16 FP32 lanes × 2 = 7.30 TFLOP/s.
  CHECK(m->compute->cpu_flops.value == Approx(40 * 2.85e9 * 2 * 16 * 2));
  CHECK_THAT(m->compute->cpu_flops.source, Catch::Contains("midway between the base"));
  // No int8 dot product in the row: no int8 peak (prefill takes twice FP32).
  CHECK_FALSE(m->compute->cpu_int8_ops.has_value());
  CHECK(m->compute->cpu_vector_bits == 512);  // the row's FMA width
}

TEST_CASE("a dual EPYC with a GPU and a drive is the arithmetic of its rows", "[spec]") {
  const SpecTables t = fixture_tables();
  auto m = build_machine(spec_of(R"({"cpu": "epyc-9654", "sockets": 2,
      "memory": {"kind": "DDR5", "mt_s": 4800, "channels": 24, "size": "1536GB"},
      "gpus": [{"model": "RTX 3090", "count": 2}], "drives": [{"model": "Samsung 990 PRO", "count": 2}], "os": "linux"})"), t);
  REQUIRE(m.ok());
  CHECK(m->cores.value == 192);                                   // 96 × 2
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  CHECK(m->memory_total_bytes.value == 1536 * kGiB);  // memory "GB" are GiB, and the figure says so
  CHECK_THAT(m->memory_total_bytes.source, Catch::Contains("read as GiB"));
  CHECK(m->memory_read_bytes_s.value == Approx(24 * 4800e6 * 8));  // 921.6 GB/s
  CHECK(m->memory_read_bytes_s.provenance == Provenance::kSpec);   // channels and speed stated
  CHECK_FALSE(m->memory_read_bytes_s.low.has_value());
  CHECK(m->memory_usable_bytes.value == Approx(1532 * kGiB));
  REQUIRE(m->compute);
  CHECK(m->compute->cpu_flops.value == Approx(192 * 3.55e9 * 2 * 8 * 2));  // cores × all-core GHz × pipes × lanes × 2
  REQUIRE(m->compute->cpu_int8_ops);
  CHECK(m->compute->cpu_int8_ops->value == Approx(192 * 3.55e9 * 2 * 8 * 4 * 2));
  REQUIRE(m->accelerators);
  CHECK(m->accelerators->count == 2);
  CHECK(m->accelerators->memory_bytes.value == 24 * kGiB);
  CHECK(m->accelerators->memory_read_bytes_s.value == 936e9);
  CHECK(m->accelerators->flops->value == 71e12);
  CHECK(m->accelerators->host_link_bytes_s->value == 31.5e9);
  REQUIRE(m->drives.size() == 2);
  CHECK(m->drives[0].seq_read_bytes_s.value == 7450e6);
  REQUIRE(m->drives[0].read_curve.size() == 3);
  CHECK(m->drives[0].read_curve[0].read_bytes_s.value == Approx(22000.0 * 4096));
  CHECK(m->drives[0].read_curve[1].read_bytes_s.value == Approx(1400000.0 * 4096));
  // Every figure names the row it came from, with the quote.
  CHECK_THAT(m->cores.source, Catch::Contains("AMD EPYC 9654") && Catch::Contains("96 cores, 12 channels DDR5-4800"));
  CHECK_THAT(m->memory_read_bytes_s.source, Catch::Contains("24 channels × DDR5-4800 × 64 bits") && Catch::Contains("64-bit channel"));
  CHECK_THAT(m->compute->cpu_flops.source, Catch::Contains("two FMA pipes") || Catch::Contains("256-bit"));
  CHECK_THAT(m->accelerators->host_link_bytes_s->source, Catch::Contains("PCIe 4.0 x16"));
}

TEST_CASE("two GPU models in one box: the devices a layer split makes of them, by hand", "[spec]") {
  auto m = build_machine(spec_of(R"({"cpu": "AMD EPYC 9654", "memory": {"size": "768GB"},
      "gpus": [{"model": "RTX 5090", "count": 1}, {"model": "RTX 3090", "count": 2}]})"), fixture_tables());
  REQUIRE(m.ok());
  REQUIRE(m->accelerators);
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const double mem = (32 + 2 * 24) * kGiB;                                  // 80 GiB over 3 devices
  CHECK(m->accelerators->count == 3);
  CHECK(m->accelerators->memory_bytes.value == Approx(mem / 3));
  // Layers in proportion to memory, one device after another: a token's
  // bytes take Σ (share ÷ bandwidth), so the equivalent rate is
  // 80 GiB ÷ (32 GiB ÷ 1792 GB/s + 48 GiB ÷ 936 GB/s).
  CHECK(m->accelerators->memory_read_bytes_s.value == Approx(mem / (32 * kGiB / 1792e9 + 48 * kGiB / 936e9)));
  CHECK(m->accelerators->flops->value == Approx((209e12 + 2 * 71e12) / 3));
  CHECK(m->accelerators->host_link_bytes_s->value == 31.5e9);  // the slowest slot
  CHECK_THAT(m->accelerators->model, Catch::Contains("1 × NVIDIA GeForce RTX 5090 + 2 × NVIDIA GeForce RTX 3090"));
  CHECK_THAT(m->accelerators->memory_read_bytes_s.source, Catch::Contains("32 GB, 1792 GB/s") && Catch::Contains("24 GB, 936 GB/s"));
}

TEST_CASE("unstated channels and speed are an assumption with a range, not a fact", "[spec]") {
  auto m = build_machine(spec_of(R"({"cpu": "AMD EPYC 9654", "memory": {"size": "768GB"}})"), fixture_tables());
  REQUIRE(m.ok());
  CHECK(m->memory_read_bytes_s.value == Approx(12 * 4800e6 * 8));  // 460.8 GB/s
  CHECK(m->memory_read_bytes_s.provenance == Provenance::kEstimate);
  CHECK(*m->memory_read_bytes_s.low == Approx(0.75 * 460.8e9));
  CHECK_THAT(m->memory_read_bytes_s.source, Catch::Contains("every channel populated") && Catch::Contains("rated 4800"));
  // No OS: 90 % of the memory, said so.
  CHECK(m->memory_usable_bytes.value == Approx(0.9 * 768 * 1024.0 * 1024 * 1024));
  CHECK_THAT(m->memory_usable_bytes.source, Catch::Contains("no OS stated"));
}

TEST_CASE("DIMMs that leave a socket's channels unequal cost the share the busiest channel sets", "[spec]") {
  const SpecTables t = fixture_tables();
  auto with = [&](const char* memory) {
    return build_machine(spec_of(std::string(R"({"cpu": "Intel Xeon Gold 6138", "sockets": 2, "memory": )") + memory + R"(, "os": "linux"})"), t);
  };
  const double channels_peak = 12 * 2666e6 * 8;  // 255.9 GB/s over 12 channels
  // 16 DIMMs, 8 a socket on 6 channels: two channels hold 2, and each DIMM
  // 1/8 of the pages, so those two serve 2/8 of a read each where a
  // balanced socket's channels serve 1/6: 8 / (6 × 2) = 2/3 of the peak.
  auto sixteen = with(R"({"kind": "DDR5", "mt_s": 2666, "channels": 12, "dimms": 16, "size": "512GB"})");
  REQUIRE(sixteen.ok());
  CHECK(sixteen->memory_read_bytes_s.value == Approx(channels_peak * 8 / 12));  // 170.6 GB/s
  CHECK(sixteen->memory_read_bytes_s.provenance == Provenance::kSpec);
  CHECK_THAT(sixteen->memory_read_bytes_s.source, Catch::Contains("16 DIMMs on 12 channels") && Catch::Contains("busiest channel holds 2"));
  // Balanced: one or two DIMMs on every channel, the whole peak.
  for (const char* balanced : {R"({"kind": "DDR5", "mt_s": 2666, "channels": 12, "dimms": 24, "size": "768GB"})",
                               R"({"kind": "DDR5", "mt_s": 2666, "channels": 12, "dimms": 12, "size": "384GB"})"}) {
    auto m = with(balanced);
    REQUIRE(m.ok());
    CHECK(m->memory_read_bytes_s.value == Approx(channels_peak));
    CHECK_THAT(m->memory_read_bytes_s.source, !Catch::Contains("busiest"));
  }
  // Four DIMMs with the channels unstated: two a socket, four of its six
  // channels empty (2/6), and no assumption that every channel is filled.
  auto four = with(R"({"kind": "DDR5", "mt_s": 2666, "dimms": 4, "size": "128GB"})");
  REQUIRE(four.ok());
  CHECK(four->memory_read_bytes_s.value == Approx(channels_peak * 2 / 6));
  CHECK(four->memory_read_bytes_s.provenance == Provenance::kSpec);
  // A count that does not split over the sockets is refused, naming the field.
  auto odd = with(R"({"kind": "DDR5", "mt_s": 2666, "channels": 12, "dimms": 15, "size": "480GB"})");
  REQUIRE_FALSE(odd.ok());
  CHECK_THAT(odd.error().message, Catch::Contains("machine_spec/memory/dimms") && Catch::Contains("2 sockets"));
  auto uneven = with(R"({"kind": "DDR5", "mt_s": 2666, "channels": 11, "dimms": 16, "size": "512GB"})");
  REQUIRE_FALSE(uneven.ok());
  CHECK_THAT(uneven.error().message, Catch::Contains("machine_spec/memory/channels") && Catch::Contains("11 channels"));
  // A SoC's memory is on its package: DIMMs are refused, not ignored.
  auto soc = build_machine(spec_of(R"({"cpu": "Apple M3 Ultra", "memory": {"dimms": 8, "size": "512GB"}})"), t);
  REQUIRE_FALSE(soc.ok());
  CHECK_THAT(soc.error().message, Catch::Contains("machine_spec/memory/dimms") && Catch::Contains("unified"));
}

TEST_CASE("an Apple SoC takes its unified bandwidth and the macOS wired limit", "[spec]") {
  auto m = build_machine(spec_of(R"({"cpu": "Apple M3 Ultra", "memory": {"size": "512GB"}, "os": "macos",
                                     "drives": [{"read_gb_s": 6.5}, {"model": "990 PRO", "enclosure": "Thunderbolt 4 NVMe enclosure"}]})"),
                         fixture_tables());
  REQUIRE(m.ok());
  CHECK(m->memory_read_bytes_s.value == 819e9);
  CHECK(m->cores.value == 32);
  CHECK(m->compute->cpu_flops.value == Approx(24 * 4.05e9 * 4 * 4 * 2));  // performance cores only
  CHECK(m->compute->gpu_flops->value == 28.4e12);
  CHECK(*m->memory_usable_bytes.low == Approx(0.75 * 512 * 1024.0 * 1024 * 1024));  // above 36 GiB
  CHECK(*m->memory_usable_bytes.high == m->memory_usable_bytes.value);  // a full range: it survives a write and a reload
  REQUIRE(m->drives.size() == 2);
  CHECK(m->drives[0].seq_read_bytes_s.value == 6.5e9);
  CHECK(m->drives[0].seq_read_bytes_s.provenance == Provenance::kMeasured);
  CHECK(m->drives[1].seq_read_bytes_s.value == 3100e6);  // the enclosure caps the 7,450 MB/s drive
  for (const DriveReadPoint& p : m->drives[1].read_curve) CHECK(p.read_bytes_s.value <= 3100e6);
}

TEST_CASE("a drive the source names without a known rate is left out, and the machine says so", "[spec]") {
  auto m = build_machine(spec_of(R"({"cpu": "EPYC 9654", "memory": {"size": "768GB"},
                                     "drives": [{"model": "Some Drive 1TB", "unrated": true}, {"read_gb_s": 6.5}]})"),
                         fixture_tables());
  REQUIRE(m.ok());
  REQUIRE(m->drives.size() == 1);  // only the one with a rate
  CHECK(m->drives[0].seq_read_bytes_s.value == 6.5e9);
  CHECK_THAT(m->description, Catch::Contains("left out, no rate known") && Catch::Contains("1 × Some Drive 1TB"));
  // A typo is still an error: only "unrated" leaves a drive out.
  auto typo = build_machine(spec_of(R"({"cpu": "EPYC 9654", "drives": [{"model": "Some Drive 1TB"}]})"), fixture_tables());
  REQUIRE_FALSE(typo.ok());
  CHECK_THAT(typo.error().message, Catch::Contains("machine_spec/drives/0/model"));
}

TEST_CASE("impossible or unknown parts are refused naming the field", "[spec]") {
  const SpecTables t = fixture_tables();
  auto channels = build_machine(spec_of(R"({"cpu": "EPYC 9654", "memory": {"channels": 24, "size": "768GB"}})"), t);
  REQUIRE_FALSE(channels.ok());  // one socket has 12
  CHECK_THAT(channels.error().message, Catch::Contains("machine_spec/memory/channels") && Catch::Contains("have 12"));
  auto sockets = build_machine(spec_of(R"({"cpu": "EPYC 9654", "sockets": 4, "memory": {"size": "1TB"}})"), t);
  REQUIRE_FALSE(sockets.ok());
  CHECK_THAT(sockets.error().message, Catch::Contains("machine_spec/sockets") && Catch::Contains("at most 2"));
  auto size = build_machine(spec_of(R"({"cpu": "Apple M3 Ultra", "memory": {"size": "128GB"}})"), t);
  REQUIRE_FALSE(size.ok());
  CHECK_THAT(size.error().message, Catch::Contains("machine_spec/memory/size") && Catch::Contains("96GB, 256GB, 512GB"));
  auto cpu = build_machine(spec_of(R"({"cpu": "EPYC 9655", "memory": {"size": "1TB"}})"), t);
  REQUIRE_FALSE(cpu.ok());
  CHECK_THAT(cpu.error().message, Catch::Contains("machine_spec/cpu") && Catch::Contains("closest: \"AMD EPYC 9654\""));
  auto gpus = build_machine(spec_of(R"({"cpu": "EPYC 9654", "memory": {"size": "1TB"}, "gpus": [{"model": "RTX 3090"}, {"model": "RTX 4090"}]})"), t);
  REQUIRE_FALSE(gpus.ok());
  CHECK_THAT(gpus.error().message, Catch::Contains("machine_spec/gpus"));
}

TEST_CASE("LPDDR channels are counted 64 bits wide, as CPU tables count them", "[spec]") {
  auto rows = load_config_text<std::vector<SpecRow>>(R"({
    "cpus": [{"name": "Laptop X", "cores": 8, "memory_kind": "LPDDR5X", "memory_channels": 2, "memory_mt_s": 8533,
              "sources": [{"page": "https://example.test/x", "quote": "2 channels LPDDR5X-8533", "fields": ["cores", "memory_channels", "memory_mt_s"]}]}],
    "memory_kinds": [{"name": "LPDDR5X", "bus_bits_per_channel": 16,
                      "sources": [{"page": "https://example.test/l", "quote": "16-bit channels", "fields": ["bus_bits_per_channel"]}]}]
  })", "lp.json", load_spec_rows);
  REQUIRE(rows.ok());
  auto m = build_machine(spec_of(R"({"cpu": "Laptop X", "memory": {"size": "32GB"}})"), SpecTables{*rows});
  REQUIRE(m.ok());
  CHECK(m->memory_read_bytes_s.value == Approx(2 * 8533e6 * 64 / 8));  // 136.5 GB/s, not a quarter of it
}

TEST_CASE("a spec row whose number has no source is refused", "[spec]") {
  auto rows = load_config_text<std::vector<SpecRow>>(
      R"({"gpus": [{"name": "X", "memory_gb": 24, "memory_bandwidth_gb_s": 900,
                     "sources": [{"page": "https://example.test/x", "quote": "24 GB", "fields": ["memory_gb"]}]}]})",
      "bad.json", load_spec_rows);
  REQUIRE_FALSE(rows.ok());
  CHECK_THAT(rows.error().message, Catch::Contains("bad.json") && Catch::Contains("/gpus/0") &&
                                       Catch::Contains("\"memory_bandwidth_gb_s\" has no source"));
}

TEST_CASE("a machine spec names its wrong field by JSON Pointer", "[spec]") {
  auto j = parse_json_text(R"({"cpu": "EPYC 9654", "memory": {"size": "lots", "dimms": 0}, "drives": [{"count": 2}], "os": "beos"})", "s.json");
  REQUIRE(j.ok());
  Diagnostics d("s.json");
  CHECK_FALSE(load_machine_spec(*j, "", d).has_value());
  const std::string all = d.render();
  CHECK_THAT(all, Catch::Contains("/memory/size") && Catch::Contains("/memory/dimms") && Catch::Contains("/drives/0") && Catch::Contains("/os"));
}

TEST_CASE("a machine by name or path: its name and where it came from, two fields", "[spec]") {
  const ConfigStore& store = testing::shipped_store();
  auto catalog = resolve_machine(store, "a100-40gb-x4");
  REQUIRE(catalog.ok());
  CHECK(catalog->name == catalog->profile.name);
  CHECK_THAT(catalog->source, Catch::Contains("configs/hardware/a100-40gb-x4.json"));
  CHECK_FALSE(catalog->from_spec);
  CHECK(catalog->label() == catalog->name + " (" + catalog->source + ")");
  // A spec file is built through the spec tables, and says so.
  testing::TempDir dir;
  const std::string spec = dir.file("box.json");
  REQUIRE(write_file_atomic(spec, R"({"machine_spec": {"cpu": "AMD EPYC 9654", "sockets": 1,
      "memory": {"kind": "DDR5", "mt_s": 4800, "channels": 12, "size": "384GB"}, "os": "linux"}})"));
  auto built = resolve_machine(store, spec);
  INFO((built ? std::string() : built.error().message));
  REQUIRE(built.ok());
  CHECK(built->from_spec);
  CHECK(built->source == spec);
  // Nothing by that name: an error with the caller's hint; find_machine: none.
  auto missing = resolve_machine(store, dir.file("nope.json"), " (run `moebench probe` first)");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::EndsWith(" (run `moebench probe` first)"));
  auto none = find_machine(store, dir.file("nope.json"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  // A file that is there and does not load is an error, not "none".
  REQUIRE(write_file_atomic(dir.file("bad.json"), R"({"name": 3})"));
  CHECK_FALSE(find_machine(store, dir.file("bad.json")).ok());
}
