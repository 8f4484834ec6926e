// results_reader.cpp — see results_reader.h.
#include "reports/results_reader.h"

#include "harness/file_io.h"

namespace moebench {

Expected<RunResults> load_results_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  Json doc;
  try {
    doc = Json::parse(*text);
  } catch (const std::exception& e) {
    return make_error(path + ": not JSON (" + e.what() + "); expected the results.json of `moebench run`");
  }
  if (!doc.is_object() || !doc.contains("moebench_results_version")) {
    return make_error(path + ": no \"moebench_results_version\": not a moebench results.json (use the results.json "
                             "in a run's --out directory)");
  }
  if (doc["moebench_results_version"] != 1) {
    return make_error(path + ": results version " + doc["moebench_results_version"].dump() +
                      " is not one this build reads (1)");
  }
  RunResults r;
  if (!doc.contains("sweep")) return make_error(path + ": /sweep is missing");
  auto sweep = sweep_info_from_json(doc["sweep"]);
  if (!sweep) return make_error(path + ": /sweep: " + sweep.error().message);
  r.sweep = *sweep;
  if (doc.contains("environments") && doc["environments"].is_array()) {
    for (std::size_t i = 0; i < doc["environments"].size(); ++i) {
      auto e = environment_from_json(doc["environments"][i]);
      if (!e) return make_error(path + ": /environments/" + std::to_string(i) + ": " + e.error().message);
      r.environments.push_back(*e);
    }
  }
  if (!doc.contains("rows") || !doc["rows"].is_array()) return make_error(path + ": /rows is missing or not an array");
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    Json row = doc["rows"][i];
    if (row.is_object()) row.erase("columns");  // derived from the rest, written for readers
    auto parsed = row_from_json(row);
    if (!parsed) return make_error(path + ": /rows/" + std::to_string(i) + ": " + parsed.error().message);
    r.rows.push_back(std::move(*parsed));
  }
  return r;
}

}  // namespace moebench
