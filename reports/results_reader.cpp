// results_reader.cpp — see results_reader.h.
#include "reports/results_reader.h"

#include "vocab/file_io.h"
#include "vocab/journal_format.h"
#include "vocab/json_reader.h"

namespace moebench {

namespace {
const char* kWhatToDo = " (the file is damaged or was edited by hand; use the results.json a run wrote, or re-run)";
}  // namespace

Expected<RunResults> parse_results_text(const std::string& text, const std::string& path) {
  auto parsed = parse_json_text(text, path);  // never throws: 1e999, deep nesting, duplicates are errors
  if (!parsed) return make_error(parsed.error().message + "; expected the results.json of `moebench run`");
  const Json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("moebench_results_version")) {
    return make_error(path + ": no \"moebench_results_version\": not a moebench results.json (use the results.json "
                             "in a run's --out directory)");
  }
  const Json& version = doc.at("moebench_results_version");
  if (!(version.is_number_integer() && version.get<std::int64_t>() == 1)) {
    return make_error(path + ": /moebench_results_version: results version " + utf8_prefix(dump_untrusted(version), 40) +
                      " is not one this build reads (1)");
  }
  // Every field the decoders read is checked first, so that each problem is
  // named by its JSON Pointer (and no decoder meets a type it cannot take).
  Diagnostics d(path);
  ObjectReader r(doc, "", d);
  const Json* sweep = r.object("sweep", true);
  if (sweep != nullptr) check_sweep_record(*sweep, "/sweep", d);
  const Json* envs = r.get("environments", false);
  if (envs != nullptr && !envs->is_array()) {
    d.add("/environments", "expected an array, got " + json_type_phrase(*envs));
    envs = nullptr;
  }
  if (envs != nullptr) {
    for (std::size_t i = 0; i < envs->size(); ++i) check_environment_record((*envs)[i], json_pointer_append("/environments", i), d);
  }
  const Json* rows = r.array("rows", true, false);
  if (rows != nullptr) {
    for (std::size_t i = 0; i < rows->size(); ++i) check_row_record((*rows)[i], json_pointer_append("/rows", i), d);
  }
  if (!d.ok()) return make_error(d.render() + kWhatToDo);

  RunResults out;
  auto s = sweep_info_from_json(*sweep);
  if (!s) return make_error(path + ": /sweep: " + s.error().message);
  out.sweep = *s;
  if (envs != nullptr) {
    for (std::size_t i = 0; i < envs->size(); ++i) {
      auto e = environment_from_json((*envs)[i]);
      if (!e) return make_error(path + ": /environments/" + std::to_string(i) + ": " + e.error().message);
      out.environments.push_back(*e);
    }
  }
  for (std::size_t i = 0; i < rows->size(); ++i) {
    // "columns" is derived from the rest (written for readers) and not read.
    auto row = row_from_json((*rows)[i]);
    if (!row) return make_error(path + ": /rows/" + std::to_string(i) + ": " + row.error().message + kWhatToDo);
    out.rows.push_back(std::move(*row));
  }
  return out;
}

Expected<RunResults> load_results_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_results_text(*text, path);
}

}  // namespace moebench
