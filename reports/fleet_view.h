// fleet_view.h — one sweep across machines, side by side (`moebench report
// --fleet`, `moebench history machines`): per point, per machine, the
// measured decode rate, TTFT and bytes read per token, and where the
// machine's profile has a price, the price per token/s of decode.
//
//   build_fleet_view   pure: results of one sweep (several runs, or one
//                      merged set whose rows came from several machines)
//                      → the table; refuses runs of different sweeps; a
//                      machine measured in several runs shows its latest
//                      (by the run's start time), and says so
//   write_fleet_markdown / write_fleet_html   pure writers
// A machine is a row's `machine` condition: the profile named with
// --machine, or "unprofiled:<host>".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/run_results.h"

namespace moebench {

struct FleetPrice {
  double usd = 0;
  std::string basis;   // "purchase" | "hourly"
  std::string source;  // where the profile's price came from
};

struct FleetCell {
  std::string status;  // ok | failed | infeasible | invalid
  std::string reason;
  std::string provenance;
  std::optional<double> decode_tok_s, ttft_s, read_bytes_per_token, prefill_tok_s;
  std::optional<double> usd_per_tok_s;  // price ÷ decode_tok_s
  std::string run_id, started_at;
};

struct FleetRow {
  std::size_t point_index = 0;
  std::string point_id;
  std::string label;  // engine · quant · budget · drives · context
  // The point's axes one by one ("streaming", "kimi-k3", "layers=2,experts=64",
  // "mxfp4", "7.25 GiB", "1 drive", "ctx 8192", ...): the chart labels a
  // point by those that differ between rows.
  std::vector<std::string> parts;
  std::map<std::string, FleetCell> cells;  // by machine
};

struct FleetView {
  std::string sweep_name, sweep_digest;
  std::vector<std::string> machines;  // sorted
  std::map<std::string, FleetPrice> prices;
  // Per machine, the runs its cells come from: "run R on host H, started T"
  // (a machine is a label: this says which host measured it).
  std::map<std::string, std::vector<std::string>> sources;
  std::vector<FleetRow> rows;         // sweep order
  std::vector<std::string> notes;
};

// A profile's price as the fleet view shows it (nullopt without one);
// `label` names the profile's file for the source note.
struct MachineProfile;
std::optional<FleetPrice> fleet_price_of(const MachineProfile& profile, const std::string& label);

Expected<FleetView> build_fleet_view(const std::vector<RunResults>& runs,
                                     const std::map<std::string, FleetPrice>& prices);

std::string write_fleet_markdown(const FleetView& view);
// A self-contained page: the table and a bar chart of decode tok/s per
// point and machine. The chart labels each point by the parts that differ
// between the rows and names the common ones once in its title, so the
// part that tells points apart is never cut off.
std::string write_fleet_html(const FleetView& view, const std::string& title);

}  // namespace moebench
