// html_report_test.cpp — `moebench report`'s HTML on fixed rows: the file is
// well-formed (a small tag-balance checker below, which also rejects raw '<'
// and stray '&' in text), holds every chart id, refers to no external
// resource (the only URL is the SVG namespace), escapes every text, says
// "No data" instead of dropping a chart, and is the same bytes for the same
// input. Also the chart kit's ticks and escaping, and the parser of the
// streaming engine's "decode reads" note.
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "vocab/metrics.h"
#include "reports/html_report.h"
#include "reports/svg_chart.h"

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
  put(metric::kDecodeTokS, tok_s);
  put(metric::kTtftS, 0.5 + read_bytes / 1e9);
  put(metric::kPrefillTokS, 12);
  put(metric::kReadBytesPerToken, read_bytes);
  put(metric::kExpertHitRate, read_bytes > 0 ? 0.5 : 1.0);
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

}  // namespace

TEST_CASE("the HTML report is well-formed, complete, self-contained and escaped", "[report]") {
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

  for (const std::string& id : report_chart_ids()) {
    INFO(id);
    CHECK(count(html, "id=\"" + id + "\"") == 1);
    const std::string sec = section(html, id);
    CHECK(sec.find("<h2>") != std::string::npos);
    CHECK(sec.find("class=\"caption\"") != std::string::npos);
    CHECK(sec.find("<svg") != std::string::npos);
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

  // Same input, same bytes.
  CHECK(write_html_report(in) == html);
}

TEST_CASE("charts without data say so instead of disappearing", "[report]") {
  RunResults m = measured_results();
  for (ResultRow& r : m.rows) r.point.drives.count = 1;  // the sweep no longer varies drives
  HtmlReportInput in;
  in.results = &m;
  in.results_label = "r.json";
  in.profile_note = "not found; tried no/such/profile.json";
  const std::string html = write_html_report(in);
  CHECK(check_well_formed(html) == "");
  for (const std::string& id : report_chart_ids()) CHECK(count(html, "id=\"" + id + "\"") == 1);
  CHECK(section(html, "chart-decode-vs-drives").find("did not vary the drive count") != std::string::npos);
  CHECK(section(html, "chart-predicted-vs-measured").find("No data") != std::string::npos);
  CHECK(section(html, "chart-compare-ratio").find("no --compare BASE.json given") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("profile was not found") != std::string::npos);
  CHECK(section(html, "chart-achieved-vs-probed").find("probed drive0") == std::string::npos);

  // No rows at all: still a whole report.
  RunResults empty = m;
  empty.rows.clear();
  in.results = &empty;
  const std::string none = write_html_report(in);
  CHECK(check_well_formed(none) == "");
  for (const std::string& id : report_chart_ids()) CHECK(section(none, id).find("No data") != std::string::npos);
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
