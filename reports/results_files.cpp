// results_files.cpp — see results_files.h.
#include "reports/results_files.h"

#include <algorithm>
#include <filesystem>

#include "reports/writers.h"

namespace moebench {
namespace {

bool wanted(const std::vector<std::string>& formats, const OutputFormat& f) {
  return std::find(formats.begin(), formats.end(), f.name) != formats.end();
}

std::string in_dir(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

}  // namespace

std::vector<std::string> results_file_paths(const std::string& dir, const std::vector<std::string>& formats) {
  std::vector<std::string> paths;
  for (const OutputFormat& f : output_formats()) {
    if (wanted(formats, f)) paths.push_back(in_dir(dir, f.file_name));
  }
  return paths;
}

std::vector<std::string> existing_results_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const OutputFormat& f : output_formats()) {
    std::error_code ec;
    const std::string p = in_dir(dir, f.file_name);
    if (std::filesystem::symlink_status(p, ec).type() != std::filesystem::file_type::not_found && !ec) {
      out.push_back(p);
    }
  }
  return out;
}

Status check_results_paths(const std::string& dir, const std::vector<std::string>& formats) {
  for (const std::string& p : results_file_paths(dir, formats)) {
    if (Status st = check_output_path(p); !st) return st;
  }
  return Status::success();
}

Status write_results_files(const RunResults& results, const std::string& dir,
                           const std::vector<std::string>& formats, const std::string& regenerate,
                           const AtomicFileOptions& options) {
  std::vector<FileContent> files;
  for (const OutputFormat& f : output_formats()) {
    if (!wanted(formats, f)) continue;
    const OutputFormat* format = &f;
    files.push_back({in_dir(dir, f.file_name), {}, [format, &results](const TextSink& emit) {
                       if (format->stream != nullptr) {
                         format->stream(results, emit);
                       } else {
                         emit(format->write(results));
                       }
                     }});
  }
  Status st = write_files_atomic(files, options);
  if (st) return st;
  return make_error("cannot write the results files: " + st.error().message + ". The journal " +
                    in_dir(dir, "journal.jsonl") + " holds every finished point: " + regenerate +
                    " to regenerate them");
}

}  // namespace moebench
