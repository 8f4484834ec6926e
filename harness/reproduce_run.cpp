// reproduce_run.cpp — see reproduce_run.h.
#include "harness/reproduce_run.h"

#include <set>

#include <fmt/format.h>

#include "vocab/units.h"

namespace moebench {

SweepRequest reproduction_request(const ReproductionPlan& plan, const Claim& claim, const ModelCard& card,
                                  const ReproduceRun& run) {
  SweepRequest req;
  req.command = "moebench reproduce";
  req.sweep_text = plan.sweep_json;
  req.sweep_label = "reproduce " + claim.id;
  req.out_dir = run.out_dir.empty() ? "results/reproduce-" + claim.id : run.out_dir;
  req.machine = run.machine;
  req.resume = run.resume;
  req.fresh = run.fresh;
  req.quiet = run.quiet;
  req.dry_run = run.dry_run;
  req.provenance = "reproduced";
  req.command_line = run.command_line;
  // Each point's full-model figure: the claim's card at the case's trunk
  // quant, with the cache slots the claimed machine would have.
  req.full_model_target = [&plan, card](const Point& p) -> std::optional<FullModelTarget> {
    const EmulatedCase* c = case_of_point(plan, p);
    if (!c) return std::nullopt;
    FullModelTarget t{card, std::nullopt};
    t.card.trunk_quant = c->trunk_quant;
    if (c->full_slots > 0) t.slots = c->full_slots;
    return t;
  };
  return req;
}

ReproductionContainers reproduction_containers(const std::vector<Point>& points, const ConfigStore& store) {
  ReproductionContainers out;
  std::set<std::string> trunks, experts;
  for (const Point& p : points) {
    auto card = store.card(p.model);
    if (!card) continue;
    auto scaled = point_card(*card, p);
    if (!scaled) continue;
    if (trunks.insert(p.trunk_quant).second) out.bytes += static_cast<double>(scaled->trunk().total());
    if (experts.insert(p.quant).second) out.bytes += static_cast<double>(scaled->routed_bytes_total(p.quant));
  }
  out.trunk_files = trunks.size();
  out.expert_files = experts.size();
  return out;
}

std::string write_reproduction_dry_run(const ReproductionDryRun& d) {
  return fmt::format(
      "Dry run: {} point(s) of {} on this machine ({}), {} repetition(s) each; predicted run time {} "
      "(this machine's cost model; writing containers not included). Containers: {} ({} trunk file(s), "
      "{} expert file(s); reused when already in the drive directories, hard-linked across directories on "
      "one filesystem). Results would go to {}.\n",
      d.points, d.scale, d.machine, d.repetitions, format_duration_s(d.predicted_run_s), format_bytes(d.containers.bytes),
      d.containers.trunk_files, d.containers.expert_files, d.out_dir);
}

Json reproduction_dry_run_json(const ReproductionDryRun& d) {
  return {{"points", d.points},
          {"machine", d.machine},
          {"repetitions", d.repetitions},
          {"predicted_run_s", d.predicted_run_s},
          {"container_bytes", d.containers.bytes},
          {"trunk_files", d.containers.trunk_files},
          {"expert_files", d.containers.expert_files},
          {"out_dir", d.out_dir}};
}

}  // namespace moebench
