// results_reader.h — reads a results.json written by `moebench run` or
// `moebench predict` back into RunResults (the inverse of write_json), for
// the commands that work on earlier results (calibrate, compare, history).
// Errors name the file and the JSON path.
#pragma once

#include <string>

#include "vocab/expected.h"
#include "vocab/run_results.h"

namespace moebench {

// Never throws: a file that is not JSON, holds a number no double holds
// (1e999), nests too deep, or whose records miss a field, have a wrong type
// or an out-of-range number (harness/journal.h: check_*_record) is an error
// naming the file and the JSON Pointer. `path` may be a run's --out
// directory: its results.json is read (every command that reads results
// takes either).
Expected<RunResults> load_results_file(const std::string& path);
// A results.json, or the one in the run directory `path` names.
std::string results_file_path(const std::string& path);
// The same for the text of a results.json (`path` labels it in errors).
Expected<RunResults> parse_results_text(const std::string& text, const std::string& path);

}  // namespace moebench
