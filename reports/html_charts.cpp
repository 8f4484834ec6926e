// html_charts.cpp — the HTML report's charts of a run's own figures
// (html_charts.h): full-model decode throughput against RAM budget, drive
// count and context; expert-cache hit rate against budget; full-model TTFT
// against prompt length (or per point when the prompt did not vary); and
// storage bytes read per token against budget. Each is a metric, an axis
// and a caption; panel_chart (html_panel_chart.cpp) draws them.
//
// Decode and TTFT are the full model's: a scaled card's decode tok/s is a
// number no full model shows (for K3 at 2 layers, the full-vocabulary head
// is most of a token), so a scaled row is charted by full_decode_tok_s /
// full_ttft_s (harness/full_model.h) and a full-size card by its own figure.
// Reads per token and hit rate are the card's as it ran: they are what the
// cache did, and the full-model figure is derived from them.
#include <algorithm>
#include <map>

#include "reports/html_charts.h"
#include "reports/svg_chart.h"
#include "vocab/metrics.h"

namespace moebench::html {
namespace {

const char* const kFullDecodeIntro =
    "Full-model steady decode throughput ((generated tokens − 1) ÷ decode time, first token excluded): for a "
    "scaled card, full_decode_tok_s — the measured run carried to every layer of the full model (the card's "
    "own decode tok/s is a figure no full model shows); for a full-size card, its decode tok/s.";

// The TTFT bars of a sweep that did not vary the prompt: one per ok point.
void ttft_bars(const RunResults& res, Section& sec) {
  const std::vector<std::string> vary = varying(all_rows(res));
  svg::BarChart c;
  c.id = std::string(kChartTtft) + "-p0";
  c.title = "full-model TTFT per point";
  c.value_axis.label = "full-model time to first token (s)";
  c.value_axis.include_zero = true;
  c.value_label = [](double v) { return num(v) + " s"; };
  svg::BarSeries s;
  s.color = svg::palette_color(0);
  std::vector<double> vals;
  std::set<std::size_t> reps;
  for (const ResultRow& r : res.rows) {
    const std::optional<Figure> f = full_model_figure(r, metric::kTtftS, metric::kFullTtftS);
    if (r.status != RowStatus::kOk || !f) continue;
    c.categories.push_back(row_label(r, vary));
    s.values.push_back(f->median);
    s.ranges.push_back(f->has_range() ? std::optional(std::make_pair(f->min, f->max)) : std::nullopt);
    if (f->has_range()) reps.insert(f->n);
    const std::optional<double> prefill = r.median(metric::kPrefillTokS);
    s.tips.push_back(row_label(r, vary) + ": TTFT " + figure_text(*f, 1, "s") + ", " + f->metric +
                     "; card prefill " + (prefill ? num(*prefill) + " tok/s" : "–"));
    vals.push_back(f->median);
  }
  if (vals.empty()) {
    sec.skipped = "no ok row carries full_ttft_s (ttft_s for a full-size card)";
    return;
  }
  c.series.push_back(s);
  c.whisker_legend = whisker_text(reps);
  sec.svgs.push_back(svg::render_bar_chart(c));
  sec.caption += " Range " + num(*std::min_element(vals.begin(), vals.end())) + "–" +
                 num(*std::max_element(vals.begin(), vals.end())) + " s over " +
                 plural(static_cast<std::int64_t>(vals.size()), "ok point") + ".";
  if (!reps.empty()) sec.caption += " Bars are medians; " + whisker_text(reps) + ".";
}

}  // namespace

Section decode_chart(const RunResults& res, const std::string& x_dim) {
  struct Axis {
    const char* id;
    const char* title;
    const char* x_label;
    std::vector<std::string> panel_dims;
    const char* against;  // the caption's end
  };
  static const std::map<std::string, Axis> axes = {
      {"budget",
       {kChartBudget, "Full-model decode throughput against RAM budget", "RAM budget (GiB)",
        {"engine", "model", "scale", "drives"},
        "against the point's RAM budget. × on the x axis: a point that did not run ok at that budget."}},
      {"drives",
       {kChartDrives, "Full-model decode throughput against drive count", "drives (count)",
        {"engine", "model", "scale", "context"},
        "against the number of drives (directories) the container was read from."}},
      {"context",
       {kChartContext, "Full-model decode throughput against context length", "context (tokens)",
        {"engine", "model", "scale", "drives"},
        "against the context the KV cache / linear state was filled to before the prompt (decode attention runs "
        "over it)."}},
  };
  const Axis& a = axes.at(x_dim);
  const PanelSpec spec{a.id,         a.title,      metric::kDecodeTokS, metric::kFullDecodeTokS, 1,
                       "full-model decode (tokens/s)", "tok/s", x_dim,   a.x_label,   a.panel_dims,
                       std::nullopt, "",           std::nullopt};
  return panel_chart(res, spec, std::string(kFullDecodeIntro) + " Median over repetitions, " + a.against);
}

Section hit_rate_chart(const RunResults& res) {
  const PanelSpec spec{kChartHitRate,
                       "Expert cache hit rate against RAM budget",
                       metric::kExpertHitRate,
                       "",
                       0.01,
                       "expert hit rate (%)",
                       "%",
                       "budget",
                       "RAM budget (GiB)",
                       {"engine", "model", "scale", "drives"},
                       100.0,
                       "every hit rate is 100 % (every expert in RAM: nothing streamed)",
                       100.0};
  return panel_chart(res, spec,
                     "Share of the experts a decode token needed that were in RAM when needed (expert_hit_rate: hits "
                     "÷ (hits + misses)), median over repetitions, against the RAM budget: a larger budget caches "
                     "more experts. The card's own figure as it ran (the full-model figure is derived from it).");
}

Section ttft_chart(const RunResults& res) {
  std::set<std::int64_t> prompts;
  for (const ResultRow& r : res.rows) prompts.insert(r.point.prompt_tokens);
  const std::string title = "Full-model time to first token against prompt length";
  if (prompts.size() > 1) {
    const PanelSpec spec{kChartTtft,   title,       metric::kTtftS, metric::kFullTtftS,
                         1,            "full-model time to first token (s)", "s", "prompt",
                         "prompt length (tokens)", {"engine", "model", "scale", "drives"}, std::nullopt, "",
                         std::nullopt};
    return panel_chart(res, spec,
                       "Full-model TTFT (prompt handed to the engine → first generated token: prefill, the first "
                       "decode step and the cold reads they cause; full_ttft_s for a scaled card, ttft_s for a "
                       "full-size one), median over repetitions, against the prompt length.");
  }
  Section sec{kChartTtft, title, "", {}, "", ""};
  if (res.rows.empty()) {
    sec.skipped = "no rows";
    return sec;
  }
  sec.caption = "The sweep did not vary prompt length (every point: " + plural(*prompts.begin(), "token") +
                "), so full-model TTFT is shown per point instead of against prompt length: full_ttft_s for a scaled "
                "card, ttft_s for a full-size one. TTFT runs from the prompt being handed to the engine to the first "
                "generated token: prefill, the first decode step and the cold reads they cause.";
  ttft_bars(res, sec);
  return sec;
}

Section read_chart(const RunResults& res) {
  const PanelSpec spec{kChartRead,
                       "Storage bytes read per decode token against RAM budget",
                       metric::kReadBytesPerToken,
                       "",
                       kMiB,
                       "read per token (MiB)",
                       "MiB",
                       "budget",
                       "RAM budget (GiB)",
                       {"engine", "model", "scale", "drives"},
                       0.0,
                       "every value is 0 (nothing read from storage)",
                       std::nullopt};
  return panel_chart(res, spec,
                     "Storage bytes read in the decode window ÷ decode tokens (engine counters) of the card as it "
                     "ran, median over repetitions, against the RAM budget: a larger budget holds more experts in the "
                     "cache, so fewer are read per token.");
}

}  // namespace moebench::html
