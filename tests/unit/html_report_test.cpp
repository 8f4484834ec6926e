// html_report_test.cpp — `moebench report`'s HTML on fixed rows: the file is
// well-formed (a small tag-balance checker below, which also rejects raw '<'
// and stray '&' in text), holds every chart id, refers to no external
// resource (the only URL is the SVG namespace), escapes every text, and is
// the same bytes for the same input. The decode charts plot the full-model tok/s with whiskers from the
// repetitions, hit rate is charted against budget, a chart with nothing to
// draw is left out and named (never an empty box), and labels are never cut
// (bar charts and the fleet view). Also the chart kit's ticks, whiskers and
// escaping, and the read rate while reads were outstanding.
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "vocab/metrics.h"
#include "reports/fleet_view.h"
#include "reports/html_report.h"
#include "reports/svg_chart.h"
#include "test_support.h"

using namespace moebench;

namespace {

// Returns "" when every element is closed in order, else the first problem.
std::string check_well_formed(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  auto where = [&html](std::size_t at) { return " at byte " + std::to_string(at) + ": " + html.substr(at, 60); };
  while (i < html.size()) {
    const char c = html[i];
    if (c == '&') {
      const std::size_t semi = html.find(';', i);
      if (semi == std::string::npos || semi - i > 8) return "stray '&'" + where(i);
      const std::string ent = html.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&#39;") {
        return "unknown entity " + ent + where(i);
      }
      i = semi + 1;
      continue;
    }
    if (c == '>') return "raw '>' in text" + where(i);
    if (c != '<') {
      ++i;
      continue;
    }
    if (html.compare(i, 9, "<!DOCTYPE") == 0) {
      i = html.find('>', i) + 1;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const std::size_t end = html.find("-->", i);
      if (end == std::string::npos) return "unclosed comment" + where(i);
      i = end + 3;
      continue;
    }
    const bool closing = i + 1 < html.size() && html[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    std::string name;
    while (j < html.size() && (std::isalnum(static_cast<unsigned char>(html[j])) || html[j] == '-')) name += html[j++];
    if (name.empty()) return "raw '<' in text" + where(i);
    // Attributes: quoted values may not hold '<' or '>' (they are escaped).
    bool in_quote = false;
    while (j < html.size() && (in_quote || html[j] != '>')) {
      if (html[j] == '"') in_quote = !in_quote;
      if (in_quote && (html[j] == '<' || html[j] == '>')) return "unescaped '<' or '>' in an attribute" + where(i);
      ++j;
    }
    if (j >= html.size()) return "unterminated tag" + where(i);
    const bool self_closing = html[j - 1] == '/';
    i = j + 1;
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes " + (stack.empty() ? std::string("nothing") : "<" + stack.back() + ">") + where(j);
      }
      stack.pop_back();
    } else if (!self_closing && kVoid.count(name) == 0) {
      stack.push_back(name);
      if (name == "style") {  // CSS is not markup: skip to its end tag
        const std::size_t end = html.find("</style>", i);
        if (end == std::string::npos) return "unclosed <style>";
        i = end;
      }
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return "";
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// The text of the section with this id, for checks that belong to one chart.
std::string section(const std::string& html, const std::string& id) {
  const std::size_t at = html.find("<section class=\"chart\" id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</section>", at) - at);
}

constexpr const char* kEvil = "<script>alert(\"x\")</script> & 'q'";

ResultRow row(std::size_t index, const std::string& engine, const std::string& quant, double budget_gib, int drives,
              std::int64_t ctx, double tok_s, double read_bytes) {
  ResultRow r;
  r.point.index = index;
  r.point.engine.name = engine;
  r.point.model = "kimi-k3";
  r.point.scale = {2, 64};
  r.point.quant = quant;
  r.point.ram_budget_bytes = static_cast<std::uint64_t>(budget_gib * (1ull << 30));
  r.point.drives.count = drives;
  r.point.context_tokens = ctx;
  r.point.prompt_tokens = 8;
  r.point.gen_tokens = 6;
  r.provenance = "measured";
  r.run_id = "20261130T000000Z-abcdef";
  r.machine = "test-machine";
  r.build = "moebench 0.1.0 (0123456789ab, Release)";
  r.repetitions = 2;
  r.wall_s = 2;
  auto put = [&r](const char* name, double v) {
    r.samples[name] = {v, v};
    r.metrics[name] = summarize({v, v});
  };
  // Two repetitions 10 % apart: every figure has a min–max to draw.
  auto put_spread = [&r](const char* name, double v) {
    r.samples[name] = {0.95 * v, 1.05 * v};
    r.metrics[name] = summarize({0.95 * v, 1.05 * v});
  };
  put_spread(metric::kDecodeTokS, tok_s);
  // The full model: K3's 93 layers run ~30× slower than the 2-layer card.
  put_spread(metric::kFullDecodeTokS, tok_s / 30);
  put_spread(metric::kFullTtftS, 24 + read_bytes / 1e8);
  put(metric::kTtftS, 0.5 + read_bytes / 1e9);
  put(metric::kPrefillTokS, 12);
  put(metric::kReadBytesPerToken, read_bytes);
  put(metric::kExpertHitRate, 1 - read_bytes / 500e6);
  put(metric::kIoWaitFrac, read_bytes > 0 ? 0.3 : 0.0);
  put(metric::kPeakRssBytes, budget_gib * 0.9 * (1ull << 30));
  if (read_bytes > 0) {
    r.samples[metric::kReadBusyBytesS] = {3.5e9, 3.7e9};
    r.metrics[metric::kReadBusyBytesS] = summarize({3.5e9, 3.7e9});
  }
  return r;
}

RunResults measured_results() {
  RunResults r;
  r.sweep = {"test <sweep>", "Rows for the report test & its \"escaping\".", "00000000deadbeef", 9, 2, 0, 42};
  Environment e;
  e.run_id = "20261130T000000Z-abcdef";
  e.moebench_version = "0.1.0";
  e.git_commit = "0123456789ab";
  e.compiler = "GNU 12.2.0";
  e.compiler_flags = "-O3 -DNDEBUG";
  e.build_type = "Release";
  e.kernel = "Linux 6.1.0 x86_64";
  e.cpu_model = "Test CPU <8 cores>";
  e.logical_cpus = 8;
  e.memory_total_bytes = 24ull << 30;
  e.hostname = "testhost";
  e.started_at = "2026-11-30T00:00:00Z";
  e.machine_profile = "test-machine (no/such/profile.json)";
  e.command_line = "moebench run quick --out 'x & y'";
  r.environments.push_back(e);
  ResultRow infeasible = row(0, "resident", "mxfp4", 7.25, 1, 0, 0, 0);
  infeasible.metrics.clear();
  infeasible.samples.clear();
  infeasible.status = RowStatus::kInfeasible;
  infeasible.reason = kEvil;
  r.rows.push_back(infeasible);
  r.rows.push_back(row(1, "resident", "mxfp4", 9.5, 1, 0, 7.1, 0));
  r.rows.push_back(row(2, "streaming", "mxfp4", 7.25, 1, 0, 4.6, 400e6));
  r.rows.push_back(row(3, "streaming", "mxfp4", 8.0, 1, 0, 6.1, 170e6));
  r.rows.push_back(row(4, "streaming", "mxfp4", 9.5, 1, 8192, 6.1, 25e6));
  r.rows.push_back(row(5, "streaming", "q4_k", 7.25, 2, 0, 3.9, 430e6));
  r.rows.push_back(row(6, "streaming", "q4_k", 8.0, 2, 8192, 4.2, 200e6));
  r.rows.push_back(row(7, "streaming", "q4_k", 9.5, 2, 0, 6.3, 26e6));
  r.rows.push_back(row(8, "streaming", "q4_k", 9.5, 1, 8192, 5.5, 26e6));
  return r;
}

RunResults predicted_of(const RunResults& m) {
  RunResults p = m;
  for (ResultRow& r : p.rows) {
    r.provenance = "predicted";
    r.notes.clear();
    if (auto v = r.median(metric::kDecodeTokS)) r.metrics[metric::kDecodeTokS] = summarize({*v * 1.05});
  }
  return p;
}

MachineProfile profile() {
  MachineProfile p;
  p.name = "test-machine";
  DriveProfile d;
  d.name = "drive0";
  d.seq_read_bytes_s.value = 1.6e9;
  DriveReadPoint cell;
  cell.block_bytes = 1 << 20;
  cell.queue_depth = 16;
  cell.pattern = "random";
  cell.read_bytes_s.value = 1.5e9;
  d.read_curve.push_back(cell);
  p.drives.push_back(d);
  return p;
}

// The report of `m` alone: no base, no predicted rows, no profile.
std::string report_of(const RunResults& m) {
  HtmlReportInput in;
  in.results = &m;
  in.results_label = "r.json";
  in.profile_note = "none";
  return write_html_report(in);
}

}  // namespace

TEST_CASE("the HTML report is well-formed, complete, self-contained and escaped", "[report][html]") {
  const RunResults m = measured_results();
  const RunResults pred = predicted_of(m);
  RunResults base = m;
  for (ResultRow& r : base.rows) {
    if (auto v = r.median(metric::kDecodeTokS)) r.metrics[metric::kDecodeTokS] = summarize({*v / 1.1});
  }
  HtmlReportInput in;
  in.results = &m;
  in.results_label = "new/results.json";
  in.predicted = &pred;
  in.predicted_label = "pred/results.json";
  in.base = &base;
  in.base_label = "base/results.json";
  in.profile = profile();
  in.profile_note = "test profile";
  const std::string html = write_html_report(in);

  INFO(html.substr(0, 400));
  CHECK(check_well_formed(html) == "");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);

  // Every chart has something to draw here, so every one is on the page.
  CHECK(html.find("id=\"charts-skipped\"") == std::string::npos);
  for (const std::string& id : report_chart_ids()) {
    INFO(id);
    CHECK(count(html, "id=\"" + id + "\"") == 1);
    const std::string sec = section(html, id);
    CHECK(sec.find("<h2>") != std::string::npos);
    CHECK(sec.find("class=\"caption\"") != std::string::npos);
    CHECK(sec.find("<svg") != std::string::npos);
    CHECK(sec.find("no-data") == std::string::npos);
  }

  // The only URL is the SVG namespace; nothing is loaded from anywhere.
  const std::string ns = "http://www.w3.org/2000/svg";
  CHECK(count(html, "http://") == count(html, ns));
  CHECK(count(html, "https://") == 0);
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, " src=") == 0);
  CHECK(count(html, "<link") == 0);
  CHECK(count(html, "@import") == 0);
  CHECK(count(html, "url(") == count(html, "url(#"));  // clip paths only

  // Every text is escaped: the hostile reason appears only escaped.
  CHECK(html.find(kEvil) == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;") != std::string::npos);
  CHECK(html.find("test &lt;sweep&gt;") != std::string::npos);
  CHECK(html.find("Test CPU &lt;8 cores&gt;") != std::string::npos);

  // Conditions in the header, non-ok rows with their reasons, units on axes.
  for (const char* s : {"seed 42", "2 repetitions", "20261130T000000Z-abcdef", "0123456789ab", "Release",
                        "2026-11-30T00:00:00Z", "RAM budget (GiB)", "decode (tokens/s)", "read per token (MiB)",
                        "1 infeasible"}) {
    INFO(s);
    CHECK(html.find(s) != std::string::npos);
  }
  CHECK(section(html, "chart-decode-vs-budget").find("class=\"mark\"") != std::string::npos);

  // Charts with data draw it.
  CHECK(section(html, "chart-predicted-vs-measured").find("y = x") != std::string::npos);
  CHECK(section(html, "chart-predicted-vs-measured").find("9 matched points; status agrees on 9") != std::string::npos);
  CHECK(section(html, "chart-predicted-vs-measured").find("8 of 8 within ±15 %") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("probed drive0") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("3.60 GB/s while reads were outstanding") != std::string::npos);
  CHECK(section(html, "chart-compare-ratio").find("1.100×") != std::string::npos);
  // The prompt length did not vary: TTFT per point, and the caption says so.
  CHECK(section(html, "chart-ttft-vs-prompt").find("did not vary prompt length") != std::string::npos);
  CHECK(count(section(html, "chart-ttft-vs-prompt"), "<rect x=") >= 8);
  CHECK(count(section(html, "chart-ttft-vs-prompt"), "class=\"whisker\"") == 8);

  // Same input, same bytes.
  CHECK(write_html_report(in) == html);
}

TEST_CASE("charts with nothing to draw are left out and named in one line", "[report][html]") {
  RunResults m = measured_results();
  for (ResultRow& r : m.rows) r.point.drives.count = 1;  // the sweep no longer varies drives
  HtmlReportInput in;
  in.results = &m;
  in.results_label = "r.json";
  in.profile_note = "not found; tried no/such/profile.json";
  const std::string html = write_html_report(in);
  CHECK(check_well_formed(html) == "");
  CHECK(html.find("No data") == std::string::npos);
  CHECK(html.find("no-data") == std::string::npos);
  for (const char* id : {"chart-decode-vs-drives", "chart-predicted-vs-measured", "chart-compare-ratio"}) {
    INFO(id);
    CHECK(count(html, "id=\"" + std::string(id) + "\"") == 0);
    CHECK(count(html, "href=\"#" + std::string(id) + "\"") == 0);  // nor in the contents
  }
  const std::size_t at = html.find("<p class=\"caption\" id=\"charts-skipped\">");
  REQUIRE(at != std::string::npos);
  const std::string skipped = html.substr(at, html.find("</p>", at) - at);
  CHECK(skipped.find("<b>Full-model decode throughput against drive count</b>: the sweep did not vary the drive "
                     "count (every point: 1 drive)") != std::string::npos);
  CHECK(skipped.find("<b>Predicted against measured</b>: no rows with provenance predicted") != std::string::npos);
  CHECK(skipped.find("no --compare BASE.json given") != std::string::npos);
  // The charts with data are drawn; achieved-vs-probed says its profile is missing.
  CHECK(section(html, "chart-decode-vs-budget").find("<svg") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("profile was not found") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("probed drive0") == std::string::npos);

  // No rows at all: still a whole report, and not one empty chart.
  RunResults empty = m;
  empty.rows.clear();
  in.results = &empty;
  const std::string none = write_html_report(in);
  CHECK(check_well_formed(none) == "");
  CHECK(count(none, "<section class=\"chart\"") == 0);
  CHECK(none.find("<svg") == std::string::npos);
  for (const std::string& id : report_chart_ids()) CHECK(count(none, "id=\"" + id + "\"") == 0);
  CHECK(none.find("id=\"charts-skipped\"") != std::string::npos);
}

TEST_CASE("a sweep without storage reads gives no empty chart", "[report][html]") {
  RunResults m = measured_results();
  std::vector<ResultRow> resident;
  for (const ResultRow& r : m.rows) {
    if (r.point.engine.name == "resident") resident.push_back(r);
  }
  ResultRow more = row(9, "resident", "mxfp4", 12, 1, 0, 7.3, 0);
  resident.push_back(more);
  m.rows = resident;
  HtmlReportInput in;
  in.results = &m;
  in.results_label = "r.json";
  in.profile = profile();
  in.profile_note = "test profile";
  const std::string html = write_html_report(in);
  CHECK(check_well_formed(html) == "");
  CHECK(html.find("No data") == std::string::npos);
  CHECK(html.find("no-data") == std::string::npos);
  // Nothing read, every expert in RAM: no read, hit-rate or bandwidth chart.
  for (const char* id : {"chart-read-per-token-vs-budget", "chart-hit-rate-vs-budget", "chart-achieved-vs-probed"}) {
    INFO(id);
    CHECK(count(html, "id=\"" + std::string(id) + "\"") == 0);
  }
  const std::size_t at = html.find("id=\"charts-skipped\"");
  REQUIRE(at != std::string::npos);
  const std::string skipped = html.substr(at, html.find("</p>", at) - at);
  CHECK(skipped.find("every value is 0 (nothing read from storage)") != std::string::npos);
  CHECK(skipped.find("every hit rate is 100 %") != std::string::npos);
  CHECK(skipped.find("no ok row read from storage during decode") != std::string::npos);
  // Every section on the page draws something.
  for (std::size_t s = html.find("<section class=\"chart\""); s != std::string::npos;
       s = html.find("<section class=\"chart\"", s + 1)) {
    const std::string sec = html.substr(s, html.find("</section>", s) - s);
    INFO(sec.substr(0, 120));
    CHECK(sec.find("<svg") != std::string::npos);
    CHECK(count(sec, "<circle") + count(sec, "<rect x=") + count(sec, "<polygon") > 0);
  }
}

TEST_CASE("decode charts plot the full-model tok/s with min-max whiskers of the repetitions", "[report][html]") {
  const RunResults m = measured_results();
  const std::string html = report_of(m);
  const std::string budget = section(html, "chart-decode-vs-budget");
  REQUIRE_FALSE(budget.empty());
  CHECK(budget.find("full-model decode (tokens/s)") != std::string::npos);
  // Point 3 (streaming mxfp4, 7.25 GiB): card 4.6 tok/s, full model 4.6 / 30,
  // repetitions 0.95× and 1.05× of it.
  CHECK(budget.find("#3 streaming · mxfp4 · 7.25 GiB · 1 drive · ctx 0: 0.153 tok/s (min 0.146, max 0.161 over 2 "
                    "repetitions), full_decode_tok_s<") != std::string::npos);
  CHECK(budget.find(": 4.60 tok/s") == std::string::npos);  // the card's figure is not charted
  // One whisker per ok point (8 of the 9 rows), and the legend says what they are.
  CHECK(count(budget, "class=\"whisker\"") == 8);
  CHECK(budget.find("whiskers: min–max of 2 repetitions") != std::string::npos);
  for (const char* id : {"chart-decode-vs-drives", "chart-decode-vs-context"}) {
    INFO(id);
    CHECK(section(html, id).find("full-model decode (tokens/s)") != std::string::npos);
    CHECK(section(html, id).find(", full_decode_tok_s<") != std::string::npos);
    CHECK(section(html, id).find(", decode_tok_s<") == std::string::npos);
  }
  // A full-size card is its own full model: its decode tok/s is charted.
  RunResults full = m;
  for (ResultRow& r : full.rows) {
    r.point.scale = {};
    r.metrics.erase(metric::kFullDecodeTokS);
  }
  const std::string full_html = report_of(full);
  CHECK(section(full_html, "chart-decode-vs-budget").find(": 4.60 tok/s (min 4.37, max 4.83 over 2 repetitions), "
                                                          "decode_tok_s<") != std::string::npos);
  // A scaled card without full-model figures: the decode charts are left
  // out and say why, instead of charting the card's figure.
  RunResults card_only = m;
  for (ResultRow& r : card_only.rows) r.metrics.erase(metric::kFullDecodeTokS);
  const std::string card_html = report_of(card_only);
  CHECK(count(card_html, "id=\"chart-decode-vs-budget\"") == 0);
  CHECK(card_html.find("no ok row carries full_decode_tok_s") != std::string::npos);
}

TEST_CASE("the hit-rate chart plots the expert hit rate against budget, one line per series", "[report][html]") {
  const std::string html = report_of(measured_results());
  const std::string hit = section(html, "chart-hit-rate-vs-budget");
  REQUIRE_FALSE(hit.empty());
  CHECK(hit.find("expert hit rate (%)") != std::string::npos);
  CHECK(hit.find("RAM budget (GiB)") != std::string::npos);
  // Point 3 read 400 MB a token: hit rate 1 − 400/500 = 20 %.
  CHECK(hit.find("#3 streaming · mxfp4 · 7.25 GiB · 1 drive · ctx 0: 20.0 %") != std::string::npos);
  // The resident panel (every hit rate 100 %) is left out and the caption says so.
  CHECK(hit.find("1 panel where every hit rate is 100 % (every expert in RAM: nothing streamed) is left out") !=
        std::string::npos);
  CHECK(count(hit, "class=\"series\"") >= 2);
}

TEST_CASE("chart kit: whiskers span the range they are given", "[report][html]") {
  svg::XYChart c;
  c.id = "w";
  c.title = "whiskers";
  c.y.min = 0;
  c.y.max = 10;
  c.plot_height = 250;  // the plot runs from y = 30 (10) to y = 280 (0)
  c.whisker_legend = "whiskers: min–max of 3 repetitions";
  svg::Series s;
  s.name = "s";
  s.points = {{1, 5, "a", 4.0, 6.0}, {2, 7, "b", {}, {}}};
  c.series.push_back(s);
  const std::string out = svg::render_xy_chart(c);
  CHECK(check_well_formed(out) == "");
  CHECK(count(out, "class=\"whisker\"") == 1);      // the point with a range
  CHECK(count(out, "class=\"whisker-key\"") == 1);  // the legend's sample
  const std::size_t at = out.find("<line class=\"whisker\"");
  REQUIRE(at != std::string::npos);
  const std::string el = out.substr(at, out.find('>', at) - at);
  CHECK(el.find("y1=\"180.0\"") != std::string::npos);  // 4 → 30 + 250 × 0.6
  CHECK(el.find("y2=\"130.0\"") != std::string::npos);  // 6 → 30 + 250 × 0.4
  CHECK(out.find("whiskers: min–max of 3 repetitions") != std::string::npos);

  svg::BarChart b;
  b.id = "b";
  b.title = "bars";
  b.categories = {"one"};
  svg::BarSeries bs;
  bs.values = {2.0};
  bs.ranges = {std::make_pair(1.5, 2.5)};
  b.series.push_back(bs);
  const std::string bars = svg::render_bar_chart(b);
  CHECK(check_well_formed(bars) == "");
  CHECK(count(bars, "class=\"whisker\"") == 1);
}

TEST_CASE("bar labels wrap instead of losing their tail", "[report][html]") {
  svg::BarChart b;
  b.id = "long";
  b.title = "long labels";
  const std::string head = "#12 streaming kimi-k3[layers=2,experts=64] mxfp4 budget=7.25 GiB drives=1×replicate";
  b.categories = {head + " ctx=0", head + " ctx=8192"};
  svg::BarSeries s;
  s.values = {1.0, 2.0};
  b.series.push_back(s);
  const std::string out = svg::render_bar_chart(b);
  CHECK(check_well_formed(out) == "");
  CHECK(out.find("…") == std::string::npos);
  CHECK(out.find("ctx=0") != std::string::npos);
  CHECK(out.find("ctx=8192") != std::string::npos);
  CHECK(count(out, "<tspan") >= 2);
}

TEST_CASE("the fleet chart labels points by what tells them apart", "[report][html][fleet]") {
  RunResults r = measured_results();
  for (ResultRow& row : r.rows) row.machine = "box-a";
  auto v = build_fleet_view({r}, {});
  REQUIRE(v);
  const std::string html = write_fleet_html(*v, "fleet");
  CHECK(check_well_formed(html) == "");
  CHECK(html.find("…") == std::string::npos);
  // Model, scale, prompt and the rest are the same everywhere: said once.
  CHECK(html.find("Every point of the chart: kimi-k3 · layers=2,experts=64 · prompt 8 · gen 6") != std::string::npos);
  // Each label keeps the parts that differ, its context included.
  CHECK(html.find(">#9 streaming · q4_k · 9.50 GiB · 1 drive · ctx 8192<") != std::string::npos);
}

TEST_CASE("the tag-balance checker rejects broken markup", "[report]") {
  CHECK(check_well_formed("<p><b>x</b></p>") == "");
  CHECK(check_well_formed("<p><b>x</p></b>") != "");
  CHECK(check_well_formed("<p>a < b</p>") != "");
  CHECK(check_well_formed("<p>a & b</p>") != "");
  CHECK(check_well_formed("<p title=\"a<b\">x</p>") != "");
  CHECK(check_well_formed("<div>") != "");
  CHECK(check_well_formed("<svg><circle r=\"1\"/></svg><meta charset=\"utf-8\">") == "");
}

TEST_CASE("chart kit: nice ticks, fixed-point numbers, escaping", "[report]") {
  CHECK(svg::nice_ticks(0, 7.6, 5) == std::vector<double>{0, 2, 4, 6, 8});
  CHECK(svg::nice_ticks(0, 1, 4) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  CHECK(svg::fixed(-0.001, 1) == "0.0");
  CHECK(svg::fixed(2.345, 2) == "2.35");
  CHECK(svg::escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
  svg::XYChart c;
  c.id = "empty";
  c.title = "t";
  c.empty_message = "nothing <here>";
  const std::string s = svg::render_xy_chart(c);
  CHECK(s.find("nothing &lt;here&gt;") != std::string::npos);
  CHECK(check_well_formed(s) == "");
}

TEST_CASE("the read rate while reads were outstanding is a metric, not a note", "[report]") {
  ResultRow r = row(0, "streaming", "mxfp4", 8, 1, 0, 5, 1e8);
  REQUIRE(outstanding_read_rate(r));
  CHECK(*outstanding_read_rate(r) == Approx(3.6e9));  // the median of the repetitions
  // A note saying a rate is words for a person; the chart never reads it.
  r.metrics.erase(metric::kReadBusyBytesS);
  r.notes = {"decode reads: 900.00 MB/s while reads were outstanding (5 % of decode)"};
  CHECK_FALSE(outstanding_read_rate(r));
}

TEST_CASE("read_busy_bytes_s is decode read bytes over the time reads were outstanding", "[report]") {
  Measurement m;
  m.prompt_tokens = 4;
  m.prefill_s = 1;
  m.token_times_s = {1.0, 2.0, 3.0};
  m.read_bytes_decode = 3'000'000'000;
  m.io_busy_s_decode = 0.5;
  const RepMetrics r = derive_metrics(m);
  REQUIRE(r.count(metric::kReadBusyBytesS) == 1);
  CHECK(r.at(metric::kReadBusyBytesS) == Approx(6e9));
  m.io_busy_s_decode = 0;  // nothing read (resident): no figure rather than infinity
  CHECK(derive_metrics(m).count(metric::kReadBusyBytesS) == 0);
}
