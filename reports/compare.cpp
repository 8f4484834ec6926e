// compare.cpp — see compare.h: matching rows, the machine check, the
// verdicts, and the markdown and JSON renderings of a Comparison.
#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "vocab/columns.h"
#include "vocab/metrics.h"
#include "vocab/stats.h"
#include "vocab/text.h"
#include "vocab/units.h"
#include "reports/cell_format.h"

namespace moebench {
namespace {

using OrderedJson = nlohmann::ordered_json;
// Paths come from the command line and labels from the files: any bytes.
constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Status rank: a higher rank is worse. ok → infeasible is a regression (the
// point no longer fits), failed → ok an improvement.
int status_rank(RowStatus s) {
  switch (s) {
    case RowStatus::kOk: return 0;
    case RowStatus::kInfeasible: return 1;
    case RowStatus::kInvalid: return 2;
    case RowStatus::kFailed: return 3;
  }
  return 3;
}

std::vector<double> finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) {
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

// Smallest equal repetition count that can reach p < alpha (two-sided).
std::size_t repetitions_needed(double alpha) {
  for (std::size_t n = 1; n <= 64; ++n) {
    if (u_min_p_value(n, n) < alpha) return n;
  }
  return 64;
}

std::string pct(double rel) {
  if (std::isinf(rel)) return rel > 0 ? "+inf %" : "-inf %";
  return (rel >= 0 ? "+" : "") + format_fixed(100 * rel, 1) + " %";
}

std::string fmt_p(double p) {
  if (p < 1e-4) return format_scientific(p, 1);
  return format_fixed(p, 4);
}

std::string fmt_ratio(double r) {
  if (std::isnan(r)) return "-";
  if (std::isinf(r)) return r > 0 ? "inf" : "-inf";
  return format_fixed(r, 3);
}

std::string fmt_interval(const RatioInterval& ci) {
  if (std::isnan(ci.low) && std::isnan(ci.high)) return "-";
  return fmt_ratio(ci.low) + "–" + fmt_ratio(ci.high);
}

const Column* column(const std::string& name) {
  for (const Column& c : result_columns()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string fmt_value(const std::string& metric, double v) {
  if (!std::isfinite(v)) return "-";
  const Column* c = column(metric);
  if (c == nullptr) return format_fixed(v, 4);
  std::string s = human_cell(*c, Cell(v));
  if (c->type == ColumnType::kNumber && !c->unit.empty() && c->unit != "%") s += " " + c->unit;
  return s;
}

std::string env_summary(const RunResults& r) {
  if (r.environments.empty()) return "no environment recorded";
  const Environment& e = r.environments.front();
  std::string s = "host " + e.hostname + " · " + e.cpu_model + " (" + std::to_string(e.logical_cpus) +
                  " logical CPUs) · " + e.build_label();
  if (r.environments.size() > 1) s += " · " + std::to_string(r.environments.size()) + " run segments";
  if (!e.build_warning().empty()) s += " · WARNING: " + e.build_warning();
  return s;
}

SideInfo side_info(const RunResults& r, const std::string& path) {
  return SideInfo{path, r.sweep.name, r.sweep.digest, env_summary(r), r.rows.size()};
}

// The machine fields of one row: its machine label and its environment's.
std::map<std::string, std::string> machine_fields(const RunResults& r, const ResultRow& row) {
  std::map<std::string, std::string> f;
  f["machine"] = row.machine;
  if (const Environment* e = r.environment_of(row)) {
    f["hostname"] = e->hostname;
    f["cpu_model"] = e->cpu_model;
    f["logical_cpus"] = std::to_string(e->logical_cpus);
    // MemTotal moves by a few MiB across kernels on one machine: compare in GiB.
    f["memory_total"] = format_fixed(static_cast<double>(e->memory_total_bytes) / (1ull << 30), 0) + " GiB";
  }
  return f;
}

}  // namespace

const std::vector<MetricRule>& compared_metrics() {
  static const std::vector<MetricRule> kRules = {
      {metric::kDecodeTokS, Direction::kHigherIsBetter, 0},
      {metric::kPrefillTokS, Direction::kHigherIsBetter, 0},
      {metric::kTtftS, Direction::kLowerIsBetter, 0},
      {metric::kExpertHitRate, Direction::kHigherIsBetter, 0.01},
      {metric::kReadBytesPerToken, Direction::kLowerIsBetter, 0},
      {metric::kIoWaitFrac, Direction::kLowerIsBetter, 0.05},
      {metric::kPeakRssBytes, Direction::kLowerIsBetter, 16.0 * (1 << 20)},  // allocator noise of small runs
  };
  return kRules;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kImproved: return "improved";
    case Verdict::kRegressed: return "regressed";
    case Verdict::kUnchanged: return "unchanged";
    case Verdict::kInsufficient: return "insufficient samples";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

MetricComparison compare_metric(const MetricRule& rule, const std::vector<double>& base_in,
                                const std::vector<double>& now_in, const CompareOptions& o) {
  MetricComparison c;
  c.metric = rule.name;
  c.direction = rule.direction;
  const std::vector<double> base = finite(base_in), now = finite(now_in);
  c.n_base = base.size();
  c.n_new = now.size();
  c.median_base = base.empty() ? std::nan("") : median(base);
  c.median_new = now.empty() ? std::nan("") : median(now);
  if (base.empty() || now.empty()) {
    c.verdict = Verdict::kInsufficient;
    c.reason = std::string("no samples in ") + (base.empty() && now.empty() ? "either file" : base.empty() ? "base" : "new");
    c.rel_change = std::nan("");
    c.ratio_ci = RatioInterval{std::nan(""), std::nan(""), o.confidence, 0};
    return c;
  }
  const double diff = c.median_new - c.median_base;
  c.rel_change = c.median_base != 0 ? diff / std::fabs(c.median_base) : diff == 0 ? 0 : std::copysign(kInf, diff);
  c.ratio_ci = bootstrap_median_ratio(base, now, o.confidence, o.resamples, o.seed);
  c.test = mann_whitney_u(now, base, Alternative::kTwoSided);

  const double min_p = u_min_p_value(c.n_new, c.n_base);
  if (!(min_p < o.alpha)) {
    c.verdict = Verdict::kInsufficient;
    c.reason = std::to_string(c.n_base) + " vs " + std::to_string(c.n_new) +
               " samples: the smallest attainable p is " + fmt_p(min_p) + ", not below alpha " + exact_number(o.alpha) +
               "; run at least " + std::to_string(repetitions_needed(o.alpha)) + " repetitions on each side";
    return c;
  }
  const bool worse = rule.direction == Direction::kHigherIsBetter ? diff < 0 : diff > 0;
  const bool large = std::fabs(c.rel_change) >= o.threshold && std::fabs(diff) >= rule.min_abs_change;
  // Direction of the ranks: u_x (new > base pairs) above half of all pairs.
  const double half = 0.5 * static_cast<double>(c.n_base * c.n_new);
  const bool ranks_agree = diff == 0 || (diff > 0) == (c.test.u_x > half);
  const std::string p_text = "p = " + fmt_p(c.test.p_value);
  if (c.test.p_value >= o.alpha) {
    c.verdict = Verdict::kUnchanged;
    c.reason = "not significant: " + p_text + " ≥ alpha " + exact_number(o.alpha);
  } else if (!large) {
    c.verdict = Verdict::kUnchanged;
    c.reason = "significant (" + p_text + ") but " + pct(c.rel_change) + " is below the threshold " +
               format_fixed(100 * o.threshold, 1) + " %" +
               (rule.min_abs_change > 0 ? " or the absolute floor " + fmt_value(rule.name, rule.min_abs_change) : "");
  } else if (!ranks_agree) {
    c.verdict = Verdict::kUnchanged;
    c.reason = "the medians and the ranks disagree on the direction (" + p_text + ")";
  } else {
    c.verdict = worse ? Verdict::kRegressed : Verdict::kImproved;
    c.reason = pct(c.rel_change) + ", " + p_text;
  }
  return c;
}

namespace {

// A row's repetitions marked disturbed (0 without marks).
std::size_t disturbed_count(const ResultRow& r) { return r.disturbed_repetitions().value_or(0); }

// The samples of the repetitions not marked disturbed (all of them when the
// row has no marks, or marks of another length).
std::vector<double> quiet_samples(const ResultRow& r, const std::string& metric_name) {
  auto s = r.samples.find(metric_name);
  if (s == r.samples.end()) return {};
  auto d = r.samples.find(metric::kDisturbed);
  if (d == r.samples.end() || d->second.size() != s->second.size()) return s->second;
  std::vector<double> out;
  for (std::size_t i = 0; i < s->second.size(); ++i) {
    if (!(d->second[i] > 0)) out.push_back(s->second[i]);
  }
  return out;
}

}  // namespace

void recheck_without_disturbed(MetricComparison& mc, const MetricRule& rule, const ResultRow& b, const ResultRow& n,
                               const CompareOptions& o) {
  const std::size_t disturbed = disturbed_count(b) + disturbed_count(n);
  if (disturbed == 0) return;
  const MetricComparison quiet = compare_metric(rule, quiet_samples(b, rule.name), quiet_samples(n, rule.name), o);
  if (quiet.verdict == Verdict::kRegressed) return;  // it holds on the quiet repetitions too
  mc.verdict = Verdict::kInconclusive;
  mc.reason = "regressed only with the " + std::to_string(disturbed) +
              " repetitions disturbed by other work counted; without them " + to_string(quiet.verdict) + " (" +
              quiet.reason + "): run both again on a quiet machine";
}

std::string row_label(const Point& p) {
  const Point d;
  std::string s = p.label();
  if (p.prompt_tokens != d.prompt_tokens) s += " prompt=" + std::to_string(p.prompt_tokens);
  if (p.gen_tokens != d.gen_tokens) s += " gen=" + std::to_string(p.gen_tokens);
  if (p.threads != d.threads) s += " threads=" + std::to_string(p.threads);
  if (p.routing != d.routing) s += " routing=" + p.routing;
  if (p.cache_policy != d.cache_policy) s += " policy=" + p.cache_policy;
  if (p.prefetch != d.prefetch) s += " prefetch=" + p.prefetch;
  return s;
}

namespace {

// Every row's point id, computed once (an id hashes every axis value).
struct RowIds {
  std::vector<std::string> ids;                        // rows order
  std::unordered_map<std::string, std::size_t> index;  // id -> row
  explicit RowIds(const RunResults& r) {
    ids.reserve(r.rows.size());
    index.reserve(r.rows.size());
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      ids.push_back(r.rows[i].point.id());
      index.insert_or_assign(ids.back(), i);  // a repeated id: the last row, as a map assignment gives
    }
  }
  const ResultRow* find(const RunResults& r, const std::string& id) const {
    const auto it = index.find(id);
    return it == index.end() ? nullptr : &r.rows[it->second];
  }
};

std::vector<MachineDifference> machine_differences(const RunResults& base, const RunResults& now,
                                                   const RowIds& base_ids, const RowIds& now_ids) {
  std::vector<MachineDifference> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < base.rows.size(); ++i) {
    const ResultRow* n = now_ids.find(now, base_ids.ids[i]);
    if (n == nullptr) continue;
    const auto fb = machine_fields(base, base.rows[i]), fn = machine_fields(now, *n);
    for (const auto& [field, value] : fb) {
      const auto other = fn.find(field);
      if (other == fn.end() || other->second == value) continue;
      if (seen.insert(field + "\n" + value + "\n" + other->second).second) {
        out.push_back(MachineDifference{field, value, other->second});
      }
    }
  }
  return out;
}

}  // namespace

std::vector<MachineDifference> machine_differences(const RunResults& base, const RunResults& now) {
  return machine_differences(base, now, RowIds(base), RowIds(now));
}

namespace {

// Both ok: each compared metric's verdict (counted in c), and the row's:
// any regression, else any inconclusive, else any improvement, else
// insufficient when every metric was, else unchanged.
void compare_ok_rows(const ResultRow& b, const ResultRow& n, const CompareOptions& o, Comparison& c, RowComparison& rc) {
  bool any_regressed = false, any_improved = false, all_insufficient = true, any = false, any_inconclusive = false;
  c.disturbed_repetitions += disturbed_count(b) + disturbed_count(n);
  for (const MetricRule& rule : compared_metrics()) {
    const auto sb = b.samples.find(rule.name), sn = n.samples.find(rule.name);
    if (sb == b.samples.end() && sn == n.samples.end()) continue;  // not applicable on either side
    static const std::vector<double> kNone;
    MetricComparison mc = compare_metric(rule, sb == b.samples.end() ? kNone : sb->second,
                                         sn == n.samples.end() ? kNone : sn->second, o);
    if (mc.verdict == Verdict::kRegressed) recheck_without_disturbed(mc, rule, b, n, o);
    any = true;
    if (mc.n_base > 0 && mc.n_new == 0) {
      ++c.metrics_missing;
      c.missing.push_back(rc.label + ": " + mc.metric);
    }
    any_regressed = any_regressed || mc.verdict == Verdict::kRegressed;
    any_improved = any_improved || mc.verdict == Verdict::kImproved;
    all_insufficient = all_insufficient && mc.verdict == Verdict::kInsufficient;
    any_inconclusive = any_inconclusive || mc.verdict == Verdict::kInconclusive;
    switch (mc.verdict) {
      case Verdict::kRegressed: ++c.metrics_regressed; break;
      case Verdict::kImproved: ++c.metrics_improved; break;
      case Verdict::kUnchanged: ++c.metrics_unchanged; break;
      case Verdict::kInsufficient: ++c.metrics_insufficient; break;
      case Verdict::kInconclusive: ++c.metrics_inconclusive; break;
    }
    rc.metrics.push_back(std::move(mc));
  }
  rc.verdict = any_regressed               ? Verdict::kRegressed
               : any_inconclusive          ? Verdict::kInconclusive
               : any_improved              ? Verdict::kImproved
               : (any && all_insufficient) ? Verdict::kInsufficient
                                           : Verdict::kUnchanged;
}

// One point present on both sides: a status change decides it; a point
// still not ok has nothing to compare; else its metrics do.
RowComparison compare_row(const std::string& id, const ResultRow& b, const ResultRow& n, const CompareOptions& o,
                          Comparison& c) {
  RowComparison rc;
  rc.point_id = id;
  rc.point = b.point;
  rc.label = row_label(b.point);
  rc.status_base = b.status;
  rc.status_new = n.status;
  rc.reason_base = b.reason;
  rc.reason_new = n.reason;
  if (b.status != n.status) {
    const int rb = status_rank(b.status), rn = status_rank(n.status);
    rc.verdict = rn > rb ? Verdict::kRegressed : Verdict::kImproved;
    ++(rn > rb ? c.status_regressed : c.status_improved);
    rc.status_change = std::string(to_string(b.status)) + " → " + to_string(n.status);
    const std::string& why = rn > rb ? n.reason : b.reason;
    if (!why.empty()) rc.status_change += ": " + why;
  } else if (b.status != RowStatus::kOk) {
    rc.verdict = Verdict::kUnchanged;  // still not ok: nothing measured to compare
  } else {
    compare_ok_rows(b, n, o, c, rc);
  }
  switch (rc.verdict) {
    case Verdict::kRegressed: ++c.rows_regressed; break;
    case Verdict::kImproved: ++c.rows_improved; break;
    case Verdict::kUnchanged: ++c.rows_unchanged; break;
    case Verdict::kInsufficient: ++c.rows_insufficient; break;
    case Verdict::kInconclusive: ++c.rows_inconclusive; break;
  }
  return rc;
}

// No point of one file is a point of the other: why, and what to run.
Error no_common_point(const RunResults& base, const RunResults& now, const std::string& base_path,
                      const std::string& new_path) {
  return make_error("no point of " + new_path + " (" + std::to_string(now.rows.size()) + " rows, sweep " +
                    now.sweep.name + ") matches one of " + base_path + " (" + std::to_string(base.rows.size()) +
                    " rows, sweep " + base.sweep.name + "): rows match by point id, i.e. every axis value "
                    "(engine and options, model, scale, quant, budget, drives and throttle, context, prompt, gen, "
                    "threads, routing, cache policy, prefetch); run the same sweep for both");
}

// Timings of two machines say nothing about the code: refused unless
// --cross-machine.
Status check_one_machine(const CompareOptions& o, const std::string& base_path, const std::string& new_path,
                         const Comparison& c) {
  if (c.machine_differences.empty() || o.cross_machine) return Status::success();
  std::string msg = base_path + " and " + new_path + " come from different machines:";
  for (const MachineDifference& d : c.machine_differences) {
    msg += "\n  " + d.field + ": \"" + d.base + "\" (base) vs \"" + d.now + "\" (new)";
  }
  msg += "\ntimings from different machines say nothing about the code; compare runs of one machine, or pass "
         "--cross-machine to compare anyway (the differences are then printed with the verdicts)";
  return make_error(msg);
}

}  // namespace

Expected<Comparison> compare_results(const RunResults& base, const RunResults& now, const CompareOptions& o,
                                     const std::string& base_path, const std::string& new_path) {
  if (!(o.threshold >= 0 && o.threshold < 10)) return make_error("threshold must be a fraction in [0, 10), e.g. 5% or 0.05");
  if (!(o.alpha > 0 && o.alpha < 1)) return make_error("alpha must be in (0, 1), e.g. 0.01");
  if (!(o.confidence > 0 && o.confidence < 1) || o.resamples < 1) {
    return make_error("bootstrap: confidence must be in (0, 1) and resamples at least 1");
  }
  Comparison c;
  c.base = side_info(base, base_path);
  c.now = side_info(now, new_path);
  c.options = o;
  const RowIds base_ids(base), now_ids(now);
  for (std::size_t i = 0; i < now.rows.size(); ++i) {
    if (base_ids.index.count(now_ids.ids[i]) == 0) c.only_in_new.push_back(row_label(now.rows[i].point));
  }
  for (std::size_t i = 0; i < base.rows.size(); ++i) {
    if (now_ids.index.count(base_ids.ids[i]) == 0) c.only_in_base.push_back(row_label(base.rows[i].point));
  }
  if (base.rows.size() == c.only_in_base.size()) return no_common_point(base, now, base_path, new_path);
  c.machine_differences = machine_differences(base, now, base_ids, now_ids);
  if (Status st = check_one_machine(o, base_path, new_path, c); !st) return st.error();
  if (base.sweep.digest != now.sweep.digest) {
    c.notes.push_back("the sweeps differ (" + base.sweep.name + " " + base.sweep.digest + " vs " + now.sweep.name +
                      " " + now.sweep.digest + "): only the points both hold are compared");
  }
  std::set<std::string> builds_b, builds_n, prov_b, prov_n;
  for (std::size_t i = 0; i < base.rows.size(); ++i) {
    const ResultRow& b = base.rows[i];
    const ResultRow* found = now_ids.find(now, base_ids.ids[i]);
    if (found == nullptr) continue;
    builds_b.insert(b.build);
    builds_n.insert(found->build);
    prov_b.insert(b.provenance);
    prov_n.insert(found->provenance);
    c.rows.push_back(compare_row(base_ids.ids[i], b, *found, o, c));
  }
  auto joined = [](const std::set<std::string>& s) {
    return join(std::vector<std::string>(s.begin(), s.end()), ", ");
  };
  if (builds_b != builds_n) c.notes.push_back("builds: " + joined(builds_b) + " (base) vs " + joined(builds_n) + " (new)");
  if (prov_b != prov_n) {
    c.notes.push_back("provenance differs: " + joined(prov_b) + " (base) vs " + joined(prov_n) +
                      " (new): a predicted row compared with a measured one judges the model, not the code");
  }
  return c;
}

std::string status_changes_phrase(const Comparison& c, std::size_t max_listed) {
  std::map<std::string, std::size_t> by_change;  // "ok → failed" → rows
  std::string first;
  for (const RowComparison& r : c.rows) {
    if (r.status_change.empty()) continue;
    ++by_change[std::string(to_string(r.status_base)) + " → " + to_string(r.status_new)];
    if (first.empty()) first = r.label + ": " + r.status_change;
  }
  std::vector<std::string> parts;
  for (const auto& [change, n] : by_change) {
    if (parts.size() == max_listed) break;
    parts.push_back(change + (n > 1 ? " ×" + std::to_string(n) : std::string()));
  }
  if (parts.empty()) return "";
  return join(parts, ", ") + " (first: " + utf8_prefix(first, 200) + ")";
}

// ---------------------------------------------------------------- markdown

std::string comparison_to_markdown(const Comparison& c) {
  std::string out;
  comparison_to_markdown_to(c, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

// Handed over in pieces of about 64 KiB (10^5 rows make 240 MB of table).
namespace {

// The report's head: the two files, the rule that judges them, machine
// differences and notes.
std::string compare_header(const Comparison& c) {
  const CompareOptions& o = c.options;
  std::string floors;
  for (const MetricRule& r : compared_metrics()) {
    if (r.min_abs_change > 0) floors += (floors.empty() ? "" : ", ") + r.name + " " + fmt_value(r.name, r.min_abs_change);
  }
  if (!floors.empty()) floors = " and by at least " + floors + " absolute";
  std::string out = "# moebench compare\n\n";
  out += "Base: `" + c.base.path + "` — sweep **" + c.base.sweep + "** (" + c.base.digest + "), " +
         std::to_string(c.base.rows) + " rows; " + c.base.summary + "\n";
  out += "New: `" + c.now.path + "` — sweep **" + c.now.sweep + "** (" + c.now.digest + "), " +
         std::to_string(c.now.rows) + " rows; " + c.now.summary + "\n\n";
  out += "Rule: a metric regressed (or improved) when the two-sided Mann-Whitney U test on the repetition samples "
         "gives p < " + exact_number(o.alpha) + " and the median moved by at least " + format_fixed(100 * o.threshold, 1) +
         " % in the bad (good) direction" + floors + "; insufficient when no outcome of that many samples could reach p < " +
         exact_number(o.alpha) + ". Interval: " + format_fixed(100 * o.confidence, 0) + " % bootstrap of median(new) / "
         "median(base): exact when both sides have at most 4 samples, else " + std::to_string(o.resamples) +
         " resamples, seed " + std::to_string(o.seed) + ".\n\n";
  if (!c.machine_differences.empty()) {
    out += "**Different machines (--cross-machine):**";
    for (const MachineDifference& d : c.machine_differences) {
      out += " " + d.field + " \"" + d.base + "\" vs \"" + d.now + "\";";
    }
    out += " differences below may be the machines', not the code's.\n\n";
  }
  for (const std::string& n : c.notes) out += "Note: " + n + "\n";
  if (!c.notes.empty()) out += "\n";
  return out;
}

// The verdict in one line with its counts; the metrics the new file lacks.
std::string compare_headline(const Comparison& c) {
  std::string out = std::string("**") +
         (c.regressed() ? "REGRESSED" : c.incomplete() ? "INCOMPLETE" : c.inconclusive() ? "INCONCLUSIVE" : "NO REGRESSION") +
         "** — " + std::to_string(c.rows.size()) + " rows compared: " + std::to_string(c.rows_regressed) + " regressed, " +
         std::to_string(c.rows_improved) + " improved, " + std::to_string(c.rows_unchanged) + " unchanged, " +
         std::to_string(c.rows_insufficient) + " insufficient samples" +
         (c.rows_inconclusive > 0 ? ", " + std::to_string(c.rows_inconclusive) + " inconclusive" : std::string()) +
         (c.disturbed_repetitions > 0
              ? " (" + std::to_string(c.disturbed_repetitions) + " repetitions disturbed by other work)"
              : std::string()) +
         "; metrics: " +
         std::to_string(c.metrics_regressed) + " regressed, " + std::to_string(c.metrics_improved) + " improved, " +
         std::to_string(c.metrics_unchanged) + " unchanged, " + std::to_string(c.metrics_insufficient) +
         " insufficient; status changes: " + std::to_string(c.status_regressed) + " worse, " +
         std::to_string(c.status_improved) + " better. Only in base: " + std::to_string(c.only_in_base.size()) + ", only in new: " +
         std::to_string(c.only_in_new.size()) + ".\n";
  if (c.incomplete()) {
    out += "\nMissing in new — the new file lacks " + std::to_string(c.metrics_missing) +
           " metric(s) the base measured (missing is not unchanged):\n\n";
    for (const std::string& m : c.missing) out += "- " + m + "\n";
  }
  return out;
}

// Every row and metric with verdict `v`, one bullet each.
std::string verdict_list(const Comparison& c, Verdict v) {
  std::string s;
  for (const RowComparison& r : c.rows) {
    if (!r.status_change.empty() && r.verdict == v) s += "- " + r.label + ": status " + r.status_change + "\n";
    for (const MetricComparison& m : r.metrics) {
      if (m.verdict != v) continue;
      s += "- " + r.label + ": " + m.metric + " " + fmt_value(m.metric, m.median_base) + " → " +
           fmt_value(m.metric, m.median_new) + " (" + pct(m.rel_change) + ", p = " + fmt_p(m.test.p_value) +
           ", ratio " + fmt_interval(m.ratio_ci) + ")\n";
    }
  }
  return s;
}

// One row of the "All rows" table per metric (one line saying why for a
// row without metrics).
std::string all_rows_lines(const RowComparison& r) {
  const std::string status = r.status_base == r.status_new
                                 ? std::string(to_string(r.status_base))
                                 : std::string(to_string(r.status_base)) + " → " + to_string(r.status_new);
  if (r.metrics.empty()) {
    const std::string why = !r.status_change.empty() ? r.status_change
                            : r.status_base != RowStatus::kOk ? "still " + std::string(to_string(r.status_base)) +
                                                                    (r.reason_new.empty() ? "" : ": " + r.reason_new)
                                                              : "no metric with samples";
    return "| " + r.label + " | " + status + " | - | - | - | - | - | - | " + to_string(r.verdict) + ": " + why + " |\n";
  }
  std::string out;
  for (const MetricComparison& m : r.metrics) {
    const bool no_test = m.n_base == 0 || m.n_new == 0;
    const bool says_why = m.verdict == Verdict::kUnchanged || m.verdict == Verdict::kInsufficient ||
                          m.verdict == Verdict::kInconclusive;
    out += "| " + r.label + " | " + status + " | " + m.metric + " | " + fmt_value(m.metric, m.median_base) +
           " (n=" + std::to_string(m.n_base) + ") | " + fmt_value(m.metric, m.median_new) + " (n=" +
           std::to_string(m.n_new) + ") | " + (std::isnan(m.rel_change) ? "-" : pct(m.rel_change)) + " | " +
           fmt_interval(m.ratio_ci) + " | " +
           (no_test ? "-" : fmt_p(m.test.p_value) + (m.test.exact ? "" : " (normal)")) + " | " +
           to_string(m.verdict) + (says_why ? ": " + m.reason : "") + " |\n";
  }
  return out;
}

}  // namespace

void comparison_to_markdown_to(const Comparison& c, const TextSink& emit) {
  // Written in pieces of at most about 64 KiB: a comparison of many rows is
  // never held whole.
  std::string out = compare_header(c) + compare_headline(c);
  auto flush = [&out, &emit](std::size_t at_least) {
    if (out.size() < at_least) return;
    emit(out);
    out.clear();
  };
  for (const auto& [v, title] : {std::pair{Verdict::kRegressed, "Regressions"}, std::pair{Verdict::kImproved, "Improvements"}}) {
    const std::string s = verdict_list(c, v);
    if (s.empty()) continue;
    out += std::string("\n## ") + title + "\n\n";
    flush(0);
    emit(s);
  }
  out += "\n## All rows\n\n| point | status | metric | base | new | change | " + format_fixed(100 * c.options.confidence, 0) +
         " % CI new/base | p | verdict |\n|---|---|---|---:|---:|---:|---|---:|---|\n";
  for (const RowComparison& r : c.rows) {
    out += all_rows_lines(r);
    flush(1 << 16);
  }
  if (!c.only_in_base.empty()) {
    out += "\n## Only in base (not in new)\n\n";
    for (const std::string& l : c.only_in_base) out += "- " + l + "\n";
  }
  if (!c.only_in_new.empty()) {
    out += "\n## Only in new (not in base)\n\n";
    for (const std::string& l : c.only_in_new) out += "- " + l + "\n";
  }
  flush(0);
}

// ---------------------------------------------------------------- json

namespace {

OrderedJson num(double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson side_json(const SideInfo& s) {
  return OrderedJson{{"path", s.path}, {"sweep", s.sweep}, {"digest", s.digest}, {"rows", s.rows},
                     {"environment", s.summary}};
}

}  // namespace

std::string comparison_to_json(const Comparison& c) {
  const CompareOptions& o = c.options;
  OrderedJson doc = OrderedJson::object();
  doc["moebench_compare_version"] = 1;
  doc["verdict"] = c.regressed() ? "regressed" : c.incomplete() ? "incomplete" : c.inconclusive() ? "inconclusive" : "no regression";
  doc["exit_code"] = c.regressed() || c.incomplete() ? 1 : c.inconclusive() ? 3 : 0;
  doc["base"] = side_json(c.base);
  doc["new"] = side_json(c.now);
  doc["rule"] = OrderedJson{{"test", "Mann-Whitney U, two-sided; exact without ties when both n <= " +
                                         std::to_string(kExactMaxN) + ", else normal approximation with tie and "
                                         "continuity corrections"},
                            {"alpha", o.alpha},
                            {"threshold", o.threshold},
                            {"confidence", o.confidence},
                            {"resamples", o.resamples},
                            {"seed", o.seed}};
  OrderedJson diffs = OrderedJson::array();
  for (const MachineDifference& d : c.machine_differences) {
    diffs.push_back(OrderedJson{{"field", d.field}, {"base", d.base}, {"new", d.now}});
  }
  doc["machine_differences"] = diffs;
  doc["notes"] = c.notes;
  doc["summary"] = OrderedJson{
      {"rows", OrderedJson{{"compared", c.rows.size()}, {"regressed", c.rows_regressed}, {"improved", c.rows_improved},
                           {"unchanged", c.rows_unchanged}, {"insufficient", c.rows_insufficient},
                           {"inconclusive", c.rows_inconclusive}, {"disturbed_repetitions", c.disturbed_repetitions},
                           {"only_in_base", c.only_in_base.size()}, {"only_in_new", c.only_in_new.size()}}},
      {"metrics", OrderedJson{{"regressed", c.metrics_regressed}, {"improved", c.metrics_improved},
                              {"unchanged", c.metrics_unchanged}, {"insufficient", c.metrics_insufficient},
                              {"inconclusive", c.metrics_inconclusive},
                              {"missing_in_new", c.metrics_missing}}},
      {"missing_in_new", c.missing},
      {"status_changes", OrderedJson{{"worse", c.status_regressed}, {"better", c.status_improved}}}};
  OrderedJson rows = OrderedJson::array();
  for (const RowComparison& r : c.rows) {
    OrderedJson j = OrderedJson::object();
    j["point_id"] = r.point_id;
    j["label"] = r.label;
    j["key"] = OrderedJson::parse(r.point.key_json().dump(-1, ' ', false, kReplace));
    j["status_base"] = to_string(r.status_base);
    j["status_new"] = to_string(r.status_new);
    j["verdict"] = to_string(r.verdict);
    j["status_change"] = r.status_change.empty() ? OrderedJson(nullptr) : OrderedJson(r.status_change);
    OrderedJson ms = OrderedJson::array();
    for (const MetricComparison& m : r.metrics) {
      ms.push_back(OrderedJson{
          {"metric", m.metric},
          {"better", m.direction == Direction::kHigherIsBetter ? "higher" : "lower"},
          {"n_base", m.n_base},
          {"n_new", m.n_new},
          {"median_base", num(m.median_base)},
          {"median_new", num(m.median_new)},
          {"rel_change", num(m.rel_change)},
          {"ratio_ci", OrderedJson::array({num(m.ratio_ci.low), num(m.ratio_ci.high)})},
          {"u_new", m.test.u_x},
          {"p_value", num(m.test.p_value)},
          {"exact", m.test.exact},
          {"verdict", to_string(m.verdict)},
          {"reason", m.reason}});
    }
    j["metrics"] = ms;
    rows.push_back(std::move(j));
  }
  doc["rows"] = rows;
  doc["only_in_base"] = c.only_in_base;
  doc["only_in_new"] = c.only_in_new;
  return doc.dump(2, ' ', false, kReplace) + "\n";
}

}  // namespace moebench
