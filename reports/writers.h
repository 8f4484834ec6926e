// writers.h — the results writers: pure functions from RunResults to bytes.
//
// Every writer reads the column table (vocab/columns.h), so a column is
// declared once and appears everywhere. Numbers are printed with
// locale-independent code (std::to_chars / "C" formatting), so output is the
// same whatever LC_NUMERIC says.
//   markdown — for people: conditions, the key columns, status summary, legend
//   terminal — for a terminal: one answer line, an aligned table, no legend
//   csv      — every column, one row per point, raw numbers (RFC 4180 quoting)
//   json     — sweep + environments + rows with summaries and raw samples
//   jsonl    — one self-describing JSON object per row (every column + point key)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vocab/file_io.h"
#include "vocab/run_results.h"

namespace moebench {

std::string write_markdown(const RunResults& results);
// For a terminal (terminal_table.cpp): a one-line answer, then an aligned
// table of at most `width` characters — the axes that differ between rows,
// the columns that answer a sweep, marks for noisy and disturbed rows — and a
// footer naming what it left out.
std::string write_terminal_table(const RunResults& results, std::size_t width = 120);
std::string write_csv(const RunResults& results);
std::string write_json(const RunResults& results);
std::string write_jsonl(const RunResults& results);
// The same bytes handed to `emit` piece by piece (a row at a time), for files
// too large to hold as one string.
void write_json_to(const RunResults& results, const TextSink& emit);
void write_jsonl_to(const RunResults& results, const TextSink& emit);

// The column table itself, for `moebench schema` (markdown, csv or json).
std::string write_schema(const std::string& format);

struct OutputFormat {
  std::string name;       // "md"
  std::string file_name;  // "results.md"
  std::string (*write)(const RunResults&);
  void (*stream)(const RunResults&, const TextSink&);  // piece by piece, or nullptr: use write
};
const std::vector<OutputFormat>& output_formats();

}  // namespace moebench
