// build_gate.cpp — see build_gate.h.
#include "harness/build_gate.h"

#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "reports/cell_format.h"
#include "reports/results_reader.h"
#include "vocab/json_reader.h"
#include "vocab/metrics.h"
#include "vocab/subprocess.h"
#include "vocab/text.h"

namespace moebench {
namespace {

// One run's row of one point: its id, sweep digest and samples.
struct RunRow {
  std::string point_id, digest;
  SampleMap samples;
};

// `BIN run SWEEP --points K …` into `dir`, and its row.
Expected<RunRow> run_point(const BuildGateRequest& r, const std::string& bin, const std::string& side,
                           std::size_t point, const std::string& dir) {
  std::vector<std::string> argv = {bin};
  for (const std::string& d : r.config_dirs) {
    argv.push_back("--configs");
    argv.push_back(d);
  }
  argv.insert(argv.end(), {"run", r.sweep, "--points", std::to_string(point),
                                   "--repetitions", std::to_string(r.repetitions), "--warmup",
                                   std::to_string(r.warmup), "--fresh", "-q", "--print", "none",
                                   "--format", "json", "--out", dir});
  for (const std::string& d : r.drive_dirs) {
    argv.push_back("--drive-dir");
    argv.push_back(d);
  }
  ProcessOptions po;
  po.timeout_s = r.timeout_s;
  po.scratch_dir = r.out_dir;
  auto done = run_process(argv, po);
  const std::string what = fmt::format("build {} ({}) on point {}", side, bin, point);
  if (!done) return make_error(what + ": " + done.error().message);
  if (!done->ok()) {
    return make_error(fmt::format("{}: `{}` {}: {}", what, command_line(argv), done->describe(),
                                  last_lines(done->err, 4)));
  }
  auto results = load_results_file((std::filesystem::path(dir) / "results.json").string());
  if (!results) return make_error(what + ": " + results.error().message);
  if (results->rows.size() != 1) {
    return make_error(fmt::format("{}: {} rows in {}, expected the one point's", what, results->rows.size(), dir));
  }
  const ResultRow& row = results->rows.front();
  if (row.status != RowStatus::kOk) {
    return make_error(fmt::format("{}: the point did not run ok ({}: {}); see {}", what, to_string(row.status),
                                  row.reason, dir));
  }
  return RunRow{row.point.id(), results->sweep.digest, row.samples};
}

const std::vector<double>& samples_of(const RunRow& row, const std::string& metric) {
  static const std::vector<double> kNone;
  auto it = row.samples.find(metric);
  return it == row.samples.end() ? kNone : it->second;
}

void append(std::vector<double>& to, const std::vector<double>& from) { to.insert(to.end(), from.begin(), from.end()); }

// Pairs two runs' repetitions i with i (the shorter run sets the count), all
// of run pair `run_pair`; a pair is disturbed when either repetition was (the
// runs' "disturbed" samples: probes/machine_activity.h).
void add_pairs(PairedSeries& s, const RunRow& a, const RunRow& b, int run_pair) {
  const std::vector<double>&va = samples_of(a, s.metric), &vb = samples_of(b, s.metric);
  const std::vector<double>&da = samples_of(a, metric::kDisturbed), &db = samples_of(b, metric::kDisturbed);
  const std::size_t n = std::min(va.size(), vb.size());
  for (std::size_t i = 0; i < n; ++i) {
    s.a.push_back(va[i]);
    s.b.push_back(vb[i]);
    s.disturbed.push_back((i < da.size() && da[i] > 0) || (i < db.size() && db[i] > 0) ? 1 : 0);
    s.run_pair.push_back(run_pair);
  }
}

}  // namespace

const std::vector<MetricRule>& gate_timed_metrics() {
  // TTFT is left out: it is the prompt over the prefill rate here, and a
  // series tested twice would spend the family's alpha twice.
  static const std::vector<MetricRule> kTimed = {
      {metric::kDecodeTokS, Direction::kHigherIsBetter, 0},
      {metric::kPrefillTokS, Direction::kHigherIsBetter, 0},
  };
  return kTimed;
}

const std::vector<std::string>& gate_work_metrics() {
  static const std::vector<std::string> kWork = {metric::kReadBytesPerToken,    metric::kExpertHitRate,
                                                 metric::kMemBytesPerToken,     metric::kKvPositionsPerToken,
                                                 metric::kKvBytesPerToken,      metric::kTrunkReadBytesPerToken};
  return kWork;
}

int gate_blocks_needed(std::size_t series, double alpha) {
  const double level = alpha / static_cast<double>(std::max<std::size_t>(series, 1));
  int blocks = 1;
  while (blocks < 100 && signed_rank_min_p_value(2 * static_cast<std::size_t>(blocks)) >= level) ++blocks;
  return blocks;
}

int gate_default_blocks(std::size_t series, double alpha) { return gate_blocks_needed(series, alpha) + 1; }

Expected<BuildGateReport> run_build_gate(const BuildGateRequest& request, const std::vector<GatePoint>& points,
                                         const GateSayFn& say) {
  BuildGateRequest r = request;
  if (r.blocks <= 0) r.blocks = gate_default_blocks(points.size() * gate_timed_metrics().size(), r.gate.alpha);
  BuildGateReport rep;
  rep.request = r;
  std::vector<PairedSeries> timed;
  std::vector<WorkSeries> work;
  for (const GatePoint& gp : points) {
    GatePoint named = gp;
    std::map<std::string, PairedSeries> series;
    std::map<std::string, WorkSeries> counters;
    for (const MetricRule& m : gate_timed_metrics()) {
      PairedSeries& ps = series[m.name];
      ps.metric = m.name;
      ps.direction = m.direction;
    }
    std::string id, digest;
    for (int block = 0; block < r.blocks; ++block) {
      // A B B A, then B A A B: each build runs first in every other block.
      const bool a_first = block % 2 == 0;
      const char* order[4] = {a_first ? "A" : "B", a_first ? "B" : "A", a_first ? "B" : "A", a_first ? "A" : "B"};
      RunRow rows[4];
      for (int slot = 0; slot < 4; ++slot) {
        const bool is_a = order[slot][0] == 'A';
        const std::string dir = (std::filesystem::path(r.out_dir) / "runs" /
                                 fmt::format("p{}-b{}-{}{}", gp.number, block + 1, slot + 1, order[slot]))
                                    .string();
        auto row = run_point(r, is_a ? r.base_bin : r.new_bin, order[slot], gp.number, dir);
        if (!row) return row.error();
        ++rep.runs;
        if (id.empty()) {
          id = row->point_id;
          digest = row->digest;
        } else if (row->point_id != id || row->digest != digest) {
          return make_error(fmt::format(
              "point {}: build {} reads it as point {} of sweep digest {}, the other run as point {} of digest {}: "
              "the builds read different configs or card versions (or a different sweep); give both the same "
              "configs and compare again",
              gp.number, order[slot], row->point_id, row->digest, id, digest));
        }
        rows[slot] = std::move(*row);
      }
      const int a1 = a_first ? 0 : 1, b1 = a_first ? 1 : 0, b2 = a_first ? 2 : 3, a2 = a_first ? 3 : 2;
      for (auto& [name, s] : series) {
        add_pairs(s, rows[a1], rows[b1], 2 * block);
        add_pairs(s, rows[a2], rows[b2], 2 * block + 1);
      }
      for (const std::string& m : gate_work_metrics()) {
        WorkSeries& w = counters[m];
        for (int slot = 0; slot < 4; ++slot) append(order[slot][0] == 'A' ? w.a : w.b, samples_of(rows[slot], m));
      }
      say(fmt::format("point {} ({}): block {} of {} done", gp.number, gp.label, block + 1, r.blocks));
    }
    named.id = id;
    rep.points.push_back(named);
    for (auto& [name, s] : series) {
      if (s.a.empty()) continue;  // the metric is not measured at this point
      s.point_id = id;
      timed.push_back(std::move(s));
    }
    for (auto& [name, w] : counters) {
      if (w.a.empty() && w.b.empty()) continue;
      w.point_id = id;
      w.metric = name;
      work.push_back(std::move(w));
    }
  }
  rep.judged = judge_paired(timed, r.gate);
  rep.work = work_changes(work);
  rep.verdict = gate_verdict(rep.judged);
  return rep;
}

int gate_exit_code(GateVerdict v) {
  switch (v) {
    case GateVerdict::kRegressed: return 1;
    case GateVerdict::kInconclusive: return 3;
    case GateVerdict::kUnchanged:
    case GateVerdict::kImproved: return 0;
  }
  return 3;
}

namespace {

std::string pct_or_dash(double ratio) {
  return std::isnan(ratio) ? std::string("–") : fmt::format("{:+.2f} %", 100.0 * (ratio - 1.0));
}

std::string label_of(const BuildGateReport& r, const std::string& id) {
  for (const GatePoint& p : r.points) {
    if (p.id == id) return fmt::format("{} ({}) {}", p.number, p.id.substr(0, 8), p.label);
  }
  return id;
}

}  // namespace

std::string gate_markdown(const BuildGateReport& r) {
  const BuildGateRequest& q = r.request;
  std::string md = fmt::format("# moebench compare-builds: {}\n\n", to_string(r.verdict));
  md += fmt::format("A (base): `{}`  \nB (new): `{}`  \nSweep: {} · {} points · {} blocks A B B A / B A A B · "
                    "{} repetitions + {} warm-up per run · {} runs\n\n",
                    q.base_bin, q.new_bin, q.sweep, r.points.size(), q.blocks, q.repetitions, q.warmup, r.runs);
  md += fmt::format("Each timed metric of each point is judged on its slowdown ratios (B's time ÷ A's), one per run "
                    "pair (the mean log ratio of its repetitions): two-sided Wilcoxon signed-rank test, Holm's "
                    "adjustment over all {} series "
                    "(family-wise alpha {}), a minimum effect of {:.1f} % and a {:.0f} % order-statistic interval of "
                    "the median that must lie wholly past 1.\n\n",
                    r.judged.size(), q.gate.alpha, 100 * q.gate.min_effect, 100 * q.gate.confidence);
  md += "| point | metric | run pairs (+ disturbed repetition pairs) | median slowdown | interval | adjusted p | verdict | why |\n"
        "|---|---|---:|---:|---|---:|---|---|\n";
  for (const PairedJudgement& j : r.judged) {
    md += fmt::format("| {} | {} | {}{} | {} | {} .. {} | {:.3g} | {} | {} |\n", escape_markdown_cell(label_of(r, j.point_id)),
                      j.metric, j.pairs, j.disturbed > 0 ? fmt::format(" (+{} disturbed)", j.disturbed) : "",
                      pct_or_dash(j.slowdown.median), pct_or_dash(j.slowdown.low), pct_or_dash(j.slowdown.high),
                      j.p_adjusted, to_string(j.verdict), escape_markdown_cell(j.why));
  }
  md += "\n";
  if (r.work.empty()) {
    md += "Work: every counter that does not depend on time (bytes read per token, hit rate, weight and KV bytes "
          "per token) is identical between the builds.\n";
  } else {
    md += fmt::format("Work changed at {} point-metric{} (a change of what the code does, not of speed):\n\n",
                      r.work.size(), r.work.size() == 1 ? "" : "s");
    for (const WorkChange& w : r.work) md += fmt::format("- {} {}: {}\n", label_of(r, w.point_id), w.metric, w.what);
  }
  return md;
}

std::string gate_json(const BuildGateReport& r) {
  Json j;
  j["verdict"] = to_string(r.verdict);
  j["exit_code"] = gate_exit_code(r.verdict);
  j["base_bin"] = r.request.base_bin;
  j["new_bin"] = r.request.new_bin;
  j["sweep"] = r.request.sweep;
  j["blocks"] = r.request.blocks;
  j["repetitions"] = r.request.repetitions;
  j["warmup"] = r.request.warmup;
  j["runs"] = r.runs;
  j["alpha"] = r.request.gate.alpha;
  j["min_effect"] = r.request.gate.min_effect;
  j["confidence"] = r.request.gate.confidence;
  j["multiple_comparisons"] = "holm";
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json series = Json::array();
  for (const PairedJudgement& s : r.judged) {
    series.push_back({{"point_id", s.point_id},           {"point", label_of(r, s.point_id)},
                      {"metric", s.metric},               {"pairs", s.pairs},
                      {"disturbed_pairs", s.disturbed},   {"dropped_pairs", s.dropped},
                      {"median_slowdown", num(s.slowdown.median)},
                      {"interval", {num(s.slowdown.low), num(s.slowdown.high)}},
                      {"interval_coverage", s.slowdown.coverage},
                      {"w_plus", s.test.w_plus},          {"p_value", s.test.p_value},
                      {"p_adjusted", s.p_adjusted},       {"verdict", to_string(s.verdict)},
                      {"why", s.why}});
  }
  j["series"] = std::move(series);
  Json work = Json::array();
  for (const WorkChange& w : r.work) {
    work.push_back({{"point_id", w.point_id}, {"metric", w.metric}, {"a_median", num(w.a_median)},
                    {"b_median", num(w.b_median)}, {"what", w.what}});
  }
  j["work_changes"] = std::move(work);
  return dump_untrusted(j, 2) + "\n";
}

}  // namespace moebench
