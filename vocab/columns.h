// columns.h — the single column table of the results schema.
//
// Every writer (markdown, CSV, JSON, JSONL) and `moebench schema` read this
// table; a column is declared once with its name (units in the name), unit,
// type, meaning and getter. Metric columns print the median over repetitions;
// the spread is in *_rel_mad_pct columns and the raw samples in JSON output.
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "vocab/result_row.h"

namespace moebench {

enum class ColumnType { kString, kInteger, kNumber, kBytes, kFraction };
const char* to_string(ColumnType t);

enum class ColumnGroup { kKey, kStatus, kMetric, kCondition };
const char* to_string(ColumnGroup g);

// A cell: absent (not applicable / not measured), text, or a number.
using Cell = std::variant<std::monostate, std::string, double>;

struct Column {
  std::string name;
  std::string unit;         // "bytes", "tokens/s", "s", "fraction", "" for text
  ColumnType type;
  ColumnGroup group;
  std::string description;
  std::function<Cell(const ResultRow&)> get;
  bool markdown = false;    // shown in the human table (all columns go to CSV/JSON)
  std::string md_header;    // short header for the human table
};

const std::vector<Column>& result_columns();

}  // namespace moebench
