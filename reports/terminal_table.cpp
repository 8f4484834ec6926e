// terminal_table.cpp — the results as a person reads them in a terminal
// (see writers.h: write_terminal_table). One line that answers first (how
// many points ran and how, the decode range, rows to distrust), then an
// aligned table of the columns that answer a sweep: the point's number and
// marks, the axes whose values differ between its rows (so rows that look
// alike never are), engine, budget, drives, context, status, decode and its
// spread, TTFT, prefill, full-model decode, read per token, hit rate. A
// column empty in every row is left out; when the table is wider than asked,
// columns go in kDropOrder and the footer names them. The files keep every
// column, the notes and the legend.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/axis_effects.h"
#include "reports/cell_format.h"
#include "reports/writers.h"
#include "vocab/text.h"

namespace moebench {
namespace {

// A row's decode spread (MAD / median) above this is marked "!".
constexpr double kNoisyPct = 10;
// Cells are cut to this many characters ("…" marks the cut).
constexpr std::size_t kMaxCell = 28;

// The axes shown when their values differ between rows, after "#".
const char* const kVaryingAxes[] = {"model",   "scale",    "quant",        "trunk_quant",          "drive_layout",
                                    "drive_throttle_bytes_s", "prompt_tokens", "gen_tokens", "threads", "routing",
                                    "cache_policy", "prefetch", "hot_set", "provenance", "machine"};
// The columns that answer a sweep, in order.
const char* const kCore[] = {"engine",          "ram_budget_bytes", "drives",           "context_tokens",
                             "status",          "decode_tok_s",     "decode_tok_s_rel_mad_pct", "ttft_s",
                             "prefill_tok_s",   "full_decode_tok_s", "read_bytes_per_token", "expert_hit_rate"};
// Dropped first when the table is too wide. An axis among them (budget,
// drives, context, engine) stays while its values differ between rows, as
// the varying axes above do: without it rows that differ look alike.
const char* const kDropOrder[] = {"decode_tok_s_rel_mad_pct", "prefill_tok_s", "read_bytes_per_token",
                                  "ram_budget_bytes", "drives", "ttft_s", "expert_hit_rate", "full_decode_tok_s",
                                  "context_tokens", "engine"};

// Characters on screen: UTF-8 continuation bytes take no column.
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string cut(const std::string& s) {
  if (display_width(s) <= kMaxCell) return s;
  std::string out;
  std::size_t shown = 0;
  for (char c : s) {
    const bool starts = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts && ++shown > kMaxCell - 1) break;
    out += c;
  }
  return out + "…";
}

const Column* column_named(const std::string& name) {
  for (const Column& c : result_columns()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A short header for a column the markdown table does not show.
std::string header_of(const Column& c) {
  static const std::map<std::string, std::string> kShort = {
      {"prompt_tokens", "prompt"},  {"gen_tokens", "gen"},          {"drive_layout", "layout"},
      {"drive_throttle_bytes_s", "throttle B/s"}, {"cache_policy", "cache"}};
  if (!c.md_header.empty()) return c.md_header;
  auto it = kShort.find(c.name);
  return it == kShort.end() ? c.name : it->second;
}

// The column table is built once (result_columns), so these stay valid.
const Column& decode_column() {
  static const Column& c = *column_named("decode_tok_s");
  return c;
}

bool noisy(const ResultRow& row) {
  static const Column* const spread = column_named("decode_tok_s_rel_mad_pct");
  const Cell v = spread ? spread->get(row) : Cell{};
  return std::holds_alternative<double>(v) && std::get<double>(v) > kNoisyPct;
}

bool disturbed(const ResultRow& row) { return row.disturbed_repetitions().value_or(0) > 0; }

struct Table {
  std::vector<std::string> headers;
  std::vector<std::string> names;   // column names ("#" for the first)
  std::vector<bool> right;
  std::vector<std::size_t> width;   // per column: its widest cell or header
  std::vector<std::vector<std::string>> cells;  // per row
};

std::size_t table_width(const Table& t) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < t.width.size(); ++i) total += t.width[i] + (i ? 2 : 0);
  return total;
}

bool is_axis(const std::string& name) {
  return name == "ram_budget_bytes" || name == "drives" || name == "context_tokens" || name == "engine";
}

bool column_varies(const Table& t, std::size_t i) {
  return std::any_of(t.cells.begin(), t.cells.end(), [&](const auto& row) { return row[i] != t.cells.front()[i]; });
}

void drop_column(Table& t, std::size_t i) {
  const auto at = static_cast<std::ptrdiff_t>(i);
  t.headers.erase(t.headers.begin() + at);
  t.names.erase(t.names.begin() + at);
  t.right.erase(t.right.begin() + at);
  t.width.erase(t.width.begin() + at);
  for (auto& r : t.cells) r.erase(r.begin() + at);
}

Table build_table(const RunResults& r) {
  Table t;
  t.headers.push_back("#");
  t.names.push_back("#");
  t.right.push_back(true);
  t.width.push_back(1);
  for (const ResultRow& row : r.rows) {
    t.cells.push_back({std::to_string(row.point.number()) + (disturbed(row) ? "~" : "") + (noisy(row) ? "!" : "")});
    t.width[0] = std::max(t.width[0], display_width(t.cells.back()[0]));
  }
  auto add = [&](const Column& c) {
    std::vector<std::string> col;
    bool any = false;
    std::size_t w = display_width(header_of(c));
    for (const ResultRow& row : r.rows) {
      const Cell v = c.get(row);
      any = any || !std::holds_alternative<std::monostate>(v);
      col.push_back(cut(human_cell(c, v)));
      w = std::max(w, display_width(col.back()));
    }
    if (!any) return;
    t.width.push_back(w);
    t.headers.push_back(header_of(c));
    t.names.push_back(c.name);
    t.right.push_back(c.type != ColumnType::kString);
    for (std::size_t i = 0; i < col.size(); ++i) t.cells[i].push_back(col[i]);
  };
  for (const char* name : kVaryingAxes) {
    const Column* c = column_named(name);
    if (!c) continue;
    std::set<std::string> values;
    for (const ResultRow& row : r.rows) values.insert(human_cell(*c, c->get(row)));
    if (values.size() > 1) add(*c);
  }
  for (const char* name : kCore) {
    if (const Column* c = column_named(name)) add(*c);
  }
  return t;
}

// The one line that answers first.
std::string answer_line(const RunResults& r) {
  std::map<std::string, int> status;
  double lo = 0, hi = 0;
  int rated = 0, noisy_rows = 0, disturbed_rows = 0;
  for (const ResultRow& row : r.rows) {
    ++status[to_string(row.status)];
    noisy_rows += noisy(row) ? 1 : 0;
    disturbed_rows += disturbed(row) ? 1 : 0;
    const Cell v = decode_column().get(row);
    if (!std::holds_alternative<double>(v)) continue;
    const double x = std::get<double>(v);
    lo = rated ? std::min(lo, x) : x;
    hi = rated ? std::max(hi, x) : x;
    ++rated;
  }
  std::vector<std::string> parts;
  for (const auto& [s, n] : status) parts.push_back(std::to_string(n) + " " + s);
  std::string out = fmt::format("{}: {} of {} points ({})", r.sweep.name, r.rows.size(), r.sweep.points_total,
                                parts.empty() ? "none finished" : join(parts, ", "));
  if (rated) {
    out += fmt::format(" · decode {}–{} tok/s", human_cell(decode_column(), Cell(lo)), human_cell(decode_column(), Cell(hi)));
  }
  if (noisy_rows) out += fmt::format(" · {} with a decode spread over {:.0f} % (!)", noisy_rows, kNoisyPct);
  if (disturbed_rows) out += fmt::format(" · {} measured while other work ran (~)", disturbed_rows);
  return out;
}

}  // namespace

std::string write_terminal_table(const RunResults& r, std::size_t width) {
  std::string out = answer_line(r) + "\n";
  if (r.rows.empty()) return out;
  Table t = build_table(r);
  std::vector<std::string> hidden;
  for (const char* name : kDropOrder) {
    if (table_width(t) <= width) break;
    auto it = std::find(t.names.begin(), t.names.end(), name);
    if (it == t.names.end()) continue;
    const std::size_t i = static_cast<std::size_t>(it - t.names.begin());
    if (is_axis(name) && column_varies(t, i)) continue;
    hidden.push_back(t.headers[i]);
    drop_column(t, i);
  }
  const std::vector<std::size_t>& w = t.width;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(w[i] - display_width(cells[i]), ' ');
      s += (i ? "  " : "") + (t.right[i] ? pad + cells[i] : cells[i] + (i + 1 < cells.size() ? pad : ""));
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  out += "\n" + line(t.headers);
  for (const auto& row : t.cells) out += line(row);
  if (const std::vector<std::string> effects = axis_effect_lines(r); !effects.empty()) {
    out += "\n";
    for (const std::string& e : effects) out += e + "\n";
  }
  std::string foot = "\n# = point number (as --points counts); ~ measured while other work ran; ! decode spread over " +
                     fmt::format("{:.0f}", kNoisyPct) + " %.";
  if (!hidden.empty()) foot += " Not shown at " + std::to_string(width) + " columns: " + join(hidden, ", ") + ".";
  foot += " Every column, the notes and the legend: --print md, and the result files.\n";
  return out + foot;
}

}  // namespace moebench
