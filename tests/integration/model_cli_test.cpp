// model_cli_test.cpp — the model's commands as a user runs them: a machine
// built from its parts (`moebench machine`), its JSON accepted as a profile,
// a part the tables lack refused naming the field, and the leave-one-source-
// out validation over the shipped published figures (every parameter inside
// its printed range, every answered figure with a regime and a band).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../unit/test_support.h"
#include "process.h"
#include "vocab/file_io.h"
#include "vocab/machine_profile.h"

using namespace moebench;
using namespace moebench::testing;

TEST_CASE("machine: a spec becomes a profile whose figures name their rows", "[integration][model]") {
  TempDir dir;
  const std::string spec =
      R"({"cpu": "AMD EPYC 9654", "sockets": 2, "memory": {"kind": "DDR5", "mt_s": 4800, "channels": 24, "size": "1536GB"},)"
      R"( "gpus": [{"model": "RTX 3090", "count": 2}], "os": "linux"})";
  Finished table = run_moebench({"machine", spec}, dir.path(), "table");
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("| memory read bandwidth | 921.6 GB/s | spec |") != std::string::npos);
  CHECK(table.out.find("configs/specs/cpus.json ‹AMD EPYC 9654›") != std::string::npos);
  Finished json = run_moebench({"machine", spec, "--json"}, dir.path(), "json");
  REQUIRE(json.exit_code == 0);
  const std::string path = dir.file("built.json");
  REQUIRE(write_file_atomic(path, json.out).ok());
  auto profile = load_machine_profile_file(path);  // the printed JSON is a profile as it is
  INFO((profile.ok() ? std::string() : profile.error().message));
  REQUIRE(profile.ok());
  CHECK(profile->cores.value == 192);
  CHECK(profile->sockets == 2);
  REQUIRE(profile->accelerators);
  CHECK(profile->accelerators->count == 2);
  // The spec as a file gives the same machine, and predict takes it as --machine.
  const std::string spec_file = dir.file("box.json");
  REQUIRE(write_file_atomic(spec_file, spec).ok());
  Finished again = run_moebench({"machine", spec_file}, dir.path(), "file");
  CHECK(again.exit_code == 0);
  CHECK(again.out == table.out);
  Finished predict = run_moebench({"predict", std::string(MOEBENCH_TEST_DATA) + "/sweeps/null-quick.json", "--machine", spec_file,
                                   "--out", dir.file("pred"), "--quiet"},
                                  dir.path(), "predict");
  INFO(predict.err);
  CHECK(predict.exit_code == 0);
  CHECK(predict.out.find("spec: 2 × AMD EPYC 9654") != std::string::npos);
}

TEST_CASE("machine: an unknown part is refused naming the field and the closest rows", "[integration][model]") {
  TempDir dir;
  Finished f = run_moebench({"machine", R"({"cpu": "EPYC 9999X", "memory": {"size": "64GB"}})"}, dir.path());
  CHECK(f.exit_code == 2);
  CHECK(f.out.empty());
  CHECK(f.err.find("machine_spec/cpu") != std::string::npos);
  CHECK(f.err.find("closest:") != std::string::npos);
  Finished bad = run_moebench({"machine", R"({"cpu": "AMD EPYC 9654", "memory": {"size": "lots"}})"}, dir.path(), "bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("/memory/size") != std::string::npos);
}

TEST_CASE("validate-model --regimes: one source out at a time, parameters inside their ranges", "[integration][model]") {
  TempDir dir;
  Finished f = run_moebench({"validate-model", "--published", std::string(MOEBENCH_SOURCE_DIR) + "/tests/data/published",
                             "--regimes", "source", "--json"},
                            dir.path());
  INFO(f.err);
  REQUIRE(f.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(f.out);
  CHECK(j["left_out"] == "source");
  CHECK(j["folds"].get<int>() >= 30);
  CHECK(j["overall"]["figures"].get<int>() >= 400);
  CHECK(j["overall"]["answered"].get<int>() >= 200);
  for (const auto& p : j["parameters"]) {
    INFO(p.dump());
    CHECK(p["value"].get<double>() >= p["low"].get<double>());
    CHECK(p["value"].get<double>() <= p["high"].get<double>());
  }
  int answered = 0;
  for (const auto& x : j["figures"]) {
    if (!x["answered"].get<bool>()) {
      CHECK_FALSE(x["why_not"].get<std::string>().empty());
      continue;
    }
    ++answered;
    CHECK_FALSE(x["regime"].get<std::string>().empty());
    CHECK(x["band"][0].get<double>() <= x["predicted_tok_s"].get<double>());
    CHECK(x["band"][1].get<double>() >= x["predicted_tok_s"].get<double>());
    CHECK(x["band_ratio"].get<double>() >= 1.0);
  }
  CHECK(answered == j["overall"]["answered"].get<int>());
}
