// table_writers.cpp — CSV, JSON and JSONL writers and the schema printer
// (see writers.h). Machine-readable outputs carry every column at full
// precision; JSON adds the per-metric summaries and raw repetition samples.
#include <cmath>
#include <variant>

#include "vocab/columns.h"
#include "vocab/row_text.h"
#include "vocab/text.h"
#include "reports/cell_format.h"
#include "reports/writers.h"

namespace moebench {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

using OrderedJson = nlohmann::ordered_json;
// Rows carry text from outside (reasons quoting paths, the command line):
// invalid UTF-8 is written as U+FFFD instead of throwing.
constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;

// Columns in table order (an ordered object, unlike Json's sorted keys).
// The columns as members of an open object, in column order, each value as
// cell_to_json gives it.
void write_column_members(JsonTextWriter& w, const ResultRow& row) {
  for (const Column& c : result_columns()) {
    w.key(c.name);
    const Cell cell = c.get(row);
    if (const auto* s = std::get_if<std::string>(&cell)) {
      w.string(*s);
    } else if (const auto* v = std::get_if<double>(&cell); v != nullptr && std::isfinite(*v)) {
      if (*v == std::floor(*v) && std::fabs(*v) < 9.007199254740992e15) {
        w.integer(static_cast<std::int64_t>(*v));
      } else {
        w.number(*v);
      }
    } else {
      w.null();
    }
  }
}

}  // namespace

std::string write_csv(const RunResults& r) {
  std::string out;
  const auto& cols = result_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + csv_field(cols[i].name);
  out += "\n";
  for (const ResultRow& row : r.rows) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      out += (i ? "," : "") + csv_field(exact_cell(cols[i].get(row)));
    }
    out += "\n";
  }
  return out;
}

void write_json_to(const RunResults& r, const TextSink& emit) {
  auto ordered = [](const Json& j) { return OrderedJson::parse(j.dump(-1, ' ', false, kReplace)); };
  OrderedJson envs = OrderedJson::array();
  for (const Environment& e : r.environments) envs.push_back(ordered(environment_to_json(e)));
  OrderedJson units = OrderedJson::object();
  for (const Column& c : result_columns()) units[c.name] = c.unit;
  OrderedJson doc = OrderedJson::object();
  doc["moebench_results_version"] = 1;
  doc["sweep"] = ordered(sweep_info_to_json(r.sweep));
  doc["environments"] = envs;
  doc["column_units"] = units;
  doc["rows"] = OrderedJson::array();
  std::string head = doc.dump(2, ' ', false, kReplace) + "\n";
  if (r.rows.empty()) {
    emit(head);
    return;
  }
  // The rows are emitted one at a time, as dump(2) would nest them, so the
  // document is never held as a tree or a text of every row (10^5 rows:
  // 700 MB of text, gigabytes of tree).
  const std::string empty_rows = "\"rows\": []\n}\n";
  head.resize(head.size() - empty_rows.size());
  head += "\"rows\": [\n";
  emit(head);
  // A row is its record's members in key order (row_to_json's map sorts
  // them), then "columns", written straight from the row (no tree).
  std::string one;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    one = "    ";
    JsonTextWriter w(one, 2, 4);
    w.begin_object();
    write_row_members(w, r.rows[i]);
    w.key("columns");
    w.begin_object();
    write_column_members(w, r.rows[i]);
    w.end_object();
    w.end_object();
    one += i + 1 < r.rows.size() ? ",\n" : "\n";
    emit(one);
  }
  emit("  ]\n}\n");
}

void write_jsonl_to(const RunResults& r, const TextSink& emit) {
  std::string line;
  for (const ResultRow& row : r.rows) {
    line.clear();
    JsonTextWriter w(line);
    w.begin_object();
    w.key("sweep");
    w.string(r.sweep.name);
    write_column_members(w, row);
    w.end_object();
    line += '\n';
    emit(line);
  }
}

std::string write_json(const RunResults& r) {
  std::string out;
  write_json_to(r, [&out](std::string_view piece) { out += piece; });
  return out;
}

std::string write_jsonl(const RunResults& r) {
  std::string out;
  write_jsonl_to(r, [&out](std::string_view piece) { out += piece; });
  return out;
}

std::string write_schema(const std::string& format) {
  const auto& cols = result_columns();
  if (format == "json") {
    Json arr = Json::array();
    for (const Column& c : cols) {
      arr.push_back({{"name", c.name}, {"unit", c.unit}, {"type", to_string(c.type)},
                     {"group", to_string(c.group)}, {"description", c.description},
                     {"in_markdown", c.markdown}});
    }
    return arr.dump(2) + "\n";
  }
  if (format == "csv") {
    std::string out = "name,unit,type,group,description\n";
    for (const Column& c : cols) {
      out += csv_field(c.name) + "," + csv_field(c.unit) + "," + to_string(c.type) + "," +
             csv_field(to_string(c.group)) + "," + csv_field(c.description) + "\n";
    }
    return out;
  }
  std::string out = "| column | unit | type | group | meaning |\n|---|---|---|---|---|\n";
  for (const Column& c : cols) {
    out += "| `" + c.name + "` | " + (c.unit.empty() ? "-" : c.unit) + " | " + to_string(c.type) + " | " +
           to_string(c.group) + " | " + c.description + " |\n";
  }
  return out;
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kFormats = {
      {"md", "results.md", write_markdown, nullptr},
      {"csv", "results.csv", write_csv, nullptr},
      {"json", "results.json", write_json, write_json_to},
      {"jsonl", "results.jsonl", write_jsonl, write_jsonl_to},
  };
  return kFormats;
}

}  // namespace moebench
