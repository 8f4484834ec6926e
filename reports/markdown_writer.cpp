// markdown_writer.cpp — the human results table (see writers.h). It leads
// with the conditions (what ran, where, with which build), warns loudly
// when rows are synthetic or the build is not Release, prints the columns
// marked `markdown` in the column table, then the status summary with every
// non-ok row's reason, what the table shows (axis_effects.h), and a legend
// with each shown column's unit.
#include <map>
#include <set>

#include "vocab/units.h"
#include "reports/axis_effects.h"
#include "reports/cell_format.h"
#include "reports/writers.h"

namespace moebench {
namespace {

void conditions(std::string& out, const RunResults& r) {
  const SweepInfo& s = r.sweep;
  out += "Sweep: **" + s.name + "** (digest " + s.digest + ") — " + std::to_string(r.rows.size()) +
         " of " + std::to_string(s.points_total) + " points" +
         (s.shard ? " (shard " + s.shard->label() + ": " + std::to_string(s.shard->point_ids.size()) + " of them)" : "") +
         ", " + std::to_string(s.repetitions) + " repetitions + " + std::to_string(s.warmup) + " warm-up each, seed " + std::to_string(s.seed) +
         "\n";
  if (!s.description.empty()) out += "  \n" + s.description + "\n";
  for (const Environment& e : r.environments) {
    out += "\nRun " + e.run_id + " started " + e.started_at + "  \n";
    out += "Machine profile: " + e.machine_profile + " · host " + e.hostname + " · " + e.cpu_model + " (" +
           std::to_string(e.logical_cpus) + " logical CPUs) · " +
           format_bytes(static_cast<double>(e.memory_total_bytes)) + " RAM · " + e.kernel + "  \n";
    out += "Build: " + e.build_label() + " · " + e.compiler + " `" + e.compiler_flags + "`\n";
    if (!e.build_warning().empty()) out += "\n> **WARNING:** " + e.build_warning() + "\n";
  }
}

}  // namespace

std::string write_markdown(const RunResults& r) {
  std::string out = "# moebench results: " + r.sweep.name + "\n\n";
  std::set<std::string> provenances;
  for (const ResultRow& row : r.rows) provenances.insert(row.provenance);
  if (provenances.count("synthetic") != 0) {
    out += "> **SYNTHETIC DATA — NOT A MEASUREMENT.** Rows with provenance `synthetic` come from the "
           "null engine, a deterministic test double that touches no hardware. Their numbers "
           "exercise the harness and mean nothing about any machine or model.\n\n";
  }
  if (provenances.count("predicted") != 0) {
    out += "> Rows with provenance `predicted` come from the cost model, not from running the model.\n\n";
  }
  conditions(out, r);
  out += "\n";

  std::vector<const Column*> shown;
  for (const Column& c : result_columns()) {
    if (c.markdown) shown.push_back(&c);
  }
  out += "|";
  for (const Column* c : shown) out += " " + c->md_header + " |";
  out += "\n|";
  for (const Column* c : shown) {
    out += c->type == ColumnType::kString ? "---|" : "---:|";
  }
  out += "\n";
  for (const ResultRow& row : r.rows) {
    out += "|";
    for (const Column* c : shown) out += " " + escape_markdown_cell(human_cell(*c, c->get(row))) + " |";
    out += "\n";
  }
  if (r.rows.empty()) out += "\n(no finished points yet)\n";

  std::map<std::string, int> counts;
  for (const ResultRow& row : r.rows) ++counts[to_string(row.status)];
  out += "\nStatus:";
  bool first = true;
  for (const auto& [status, n] : counts) {
    out += (first ? " " : ", ") + std::to_string(n) + " " + status;
    first = false;
  }
  out += first ? " none\n" : "\n";
  for (const ResultRow& row : r.rows) {
    if (row.status != RowStatus::kOk || !row.notes.empty()) {
      out += "- point " + std::to_string(row.point.number()) + " (" + escape_markdown_cell(row.point.label()) + "): " +
             to_string(row.status);
      if (!row.reason.empty()) out += " — " + escape_markdown_cell(row.reason);
      for (const std::string& n : row.notes) out += "; note: " + escape_markdown_cell(n);
      out += "\n";
    }
  }
  if (const std::vector<std::string> effects = axis_effect_lines(r); !effects.empty()) {
    out += "\nWhat the table shows (ok rows that differ in one axis only):\n";
    for (const std::string& e : effects) out += "- " + e + "\n";
  }
  out += "\nColumns (medians over repetitions; full precision, spread and raw samples are in "
         "results.csv / results.json):\n";
  for (const Column* c : shown) {
    out += "- **" + c->md_header + "** (`" + c->name + "`" + (c->unit.empty() ? "" : ", " + c->unit) +
           "): " + c->description + "\n";
  }
  return out;
}

}  // namespace moebench
