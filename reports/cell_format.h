// cell_format.h — how a cell is spelled: exactly (CSV/JSON: shortest
// round-trip decimal) or for people (markdown: 4 significant digits, binary
// sizes, percentages). Both are locale-independent.
#pragma once

#include <string>

#include "vocab/columns.h"

namespace moebench {

std::string exact_number(double v);          // shortest round-trip, "0.1", "1e+21"
std::string human_cell(const Column& col, const Cell& cell);
std::string exact_cell(const Cell& cell);    // "" for absent
nlohmann::ordered_json cell_to_json(const Cell& cell);  // null for absent
// Text made safe for one markdown table cell: '|' escaped, newlines as spaces.
std::string escape_markdown_cell(const std::string& text);

}  // namespace moebench
