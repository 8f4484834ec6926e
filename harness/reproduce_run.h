// reproduce_run.h — what `moebench reproduce` does with a reproduction plan
// (reproduce.h) beyond planning it: the sweep request that runs it through
// the ordinary sweep session, the full-model figure each emulated point
// stands for, and a dry run's summary (points, containers, predicted time)
// as text or JSON. The command parses, calls these, and prints.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/reproduce.h"
#include "harness/sweep_session.h"
#include "vocab/config_store.h"
#include "vocab/json_reader.h"

namespace moebench {

// The sweep that runs `plan` on this machine (`machine`: its profile's name
// or path), rows with provenance "reproduced"; `card` is the claim's full
// card, whose figures the scaled points stand for (the returned request's
// full_model_target refers to `plan`, which must outlive it).
struct ReproduceRun {
  std::string out_dir;  // "" → results/reproduce-CLAIM
  std::string machine;
  bool resume = false, fresh = false, quiet = false, dry_run = false;
  std::string command_line;
};
SweepRequest reproduction_request(const ReproductionPlan& plan, const Claim& claim, const ModelCard& card,
                                  const ReproduceRun& run);

// The containers a dry run would write: one trunk file per trunk quant,
// one expert file per quant (drive directories on one filesystem share
// them by hard links).
struct ReproductionContainers {
  double bytes = 0;
  std::size_t trunk_files = 0, expert_files = 0;
};
ReproductionContainers reproduction_containers(const std::vector<Point>& points, const ConfigStore& store);

struct ReproductionDryRun {
  std::size_t points = 0;
  std::string scale, machine, out_dir;
  int repetitions = 0;
  double predicted_run_s = 0;
  ReproductionContainers containers;
};
std::string write_reproduction_dry_run(const ReproductionDryRun& d);
Json reproduction_dry_run_json(const ReproductionDryRun& d);

}  // namespace moebench
