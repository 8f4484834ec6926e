// results_reader.h — reads a results.json written by `moebench run` or
// `moebench predict` back into RunResults (the inverse of write_json), for
// the commands that work on earlier results (calibrate, compare, history).
// Errors name the file and the JSON path.
#pragma once

#include <string>

#include "harness/expected.h"
#include "harness/run_results.h"

namespace moebench {

Expected<RunResults> load_results_file(const std::string& path);

}  // namespace moebench
