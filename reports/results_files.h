// results_files.h — the results files of a run (results.md, .csv, .json,
// .jsonl in the results directory) written as one set, so they never
// disagree: every file's temporary is written and fsynced before the first
// rename (vocab/file_io.h write_files_atomic). When any write fails (a
// full disk), no file is replaced: the previous set stays intact and the
// message names the failing file and says how to regenerate them from the
// journal, which holds every finished point.
#pragma once

#include <string>
#include <vector>

#include "vocab/expected.h"
#include "vocab/file_io.h"
#include "vocab/run_results.h"

namespace moebench {

// The paths `formats` ("md", "csv", "json", "jsonl"; output_formats() order)
// name in `dir`.
std::vector<std::string> results_file_paths(const std::string& dir, const std::vector<std::string>& formats);
// The results files of any format that exist in `dir` (a run's output).
std::vector<std::string> existing_results_files(const std::string& dir);

// Fails up front when an output path is a symlink, device node, FIFO or
// directory (vocab/file_io.h check_output_path), before hours of running.
Status check_results_paths(const std::string& dir, const std::vector<std::string>& formats);

// `regenerate` says how to get the files back, e.g. "run the same command
// with --resume"; `options` lets tests inject a failing write.
Status write_results_files(const RunResults& results, const std::string& dir,
                           const std::vector<std::string>& formats, const std::string& regenerate,
                           const AtomicFileOptions& options = {});

}  // namespace moebench
