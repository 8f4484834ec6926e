// result_row.cpp — JSON round trip of ResultRow (the journal relies on it
// being lossless for every field a writer prints).
#include "vocab/result_row.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vocab/metrics.h"

namespace moebench {

std::optional<double> ResultRow::median(std::string_view metric) const {
  auto it = metrics.find(metric);
  if (it == metrics.end() || it->second.n == 0 || !std::isfinite(it->second.median)) {
    return std::nullopt;
  }
  return it->second.median;
}

std::optional<std::size_t> ResultRow::disturbed_repetitions() const {
  auto it = samples.find(metric::kDisturbed);
  if (it == samples.end()) return std::nullopt;
  return static_cast<std::size_t>(std::count_if(it->second.begin(), it->second.end(), [](double v) { return v > 0; }));
}

Json row_to_json(const ResultRow& row) {
  Json metrics = Json::object();
  for (const auto& [name, s] : row.metrics) metrics[name] = summary_to_json(s);
  Json samples = Json::object();
  for (const auto& [name, v] : row.samples) {
    Json arr = Json::array();
    for (double x : v) arr.push_back(std::isfinite(x) ? Json(x) : Json(nullptr));
    samples[name] = arr;
  }
  Json j = Json{{"point_id", row.point.id()},   {"index", row.point.index},
              {"point", row.point.key_json()}, {"status", to_string(row.status)},
              {"reason", row.reason},          {"notes", row.notes},
              {"provenance", row.provenance},  {"run_id", row.run_id},
              {"machine", row.machine},        {"build", row.build},
              {"repetitions", row.repetitions}, {"warmup", row.warmup},
              {"wall_s", row.wall_s},          {"metrics", metrics},
              {"samples", samples}};
  if (row.min_budget_bytes) j["min_budget_bytes"] = *row.min_budget_bytes;
  // The resolved trunk quant (the point key holds it only when it is not the card's).
  if (!row.point.trunk_quant.empty()) j["trunk_quant"] = row.point.trunk_quant;
  return j;
}

namespace {
double num_or_nan(const Json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

Expected<ResultRow> row_from_json(const Json& j) {
  try {
    ResultRow row;
    auto p = point_from_key_json(j.at("point"));
    if (!p) return p.error();
    row.point = *p;
    row.point.index = j.at("index").get<std::size_t>();
    if (row.point.trunk_quant.empty() && j.contains("trunk_quant") && j.at("trunk_quant").is_string()) {
      row.point.trunk_quant = j.at("trunk_quant").get<std::string>();
    }
    if (row.point.id() != j.at("point_id").get<std::string>()) {
      return make_error("row point_id does not match its point key (edited by hand?)");
    }
    if (!parse_row_status(j.at("status").get<std::string>(), row.status)) {
      return make_error("unknown row status " + j.at("status").dump());
    }
    row.reason = j.at("reason").get<std::string>();
    if (j.contains("min_budget_bytes")) row.min_budget_bytes = j.at("min_budget_bytes").get<std::uint64_t>();
    row.notes = j.at("notes").get<std::vector<std::string>>();
    row.provenance = j.at("provenance").get<std::string>();
    row.run_id = j.at("run_id").get<std::string>();
    row.machine = j.at("machine").get<std::string>();
    row.build = j.at("build").get<std::string>();
    row.repetitions = j.at("repetitions").get<int>();
    row.warmup = j.at("warmup").get<int>();
    row.wall_s = j.at("wall_s").get<double>();
    for (auto it = j.at("metrics").begin(); it != j.at("metrics").end(); ++it) {
      const Json& s = it.value();
      Summary sum;
      sum.n = s.at("n").get<std::size_t>();
      sum.median = num_or_nan(s.at("median"));
      sum.min = num_or_nan(s.at("min"));
      sum.max = num_or_nan(s.at("max"));
      sum.mean = num_or_nan(s.at("mean"));
      sum.stddev = num_or_nan(s.at("stddev"));
      sum.p10 = num_or_nan(s.at("p10"));
      sum.p90 = num_or_nan(s.at("p90"));
      sum.mad = num_or_nan(s.at("mad"));
      row.metrics[it.key()] = sum;
    }
    for (auto it = j.at("samples").begin(); it != j.at("samples").end(); ++it) {
      std::vector<double> v;
      for (const Json& x : it.value()) v.push_back(num_or_nan(x));
      row.samples[it.key()] = v;
    }
    return row;
  } catch (const Json::exception& e) {
    return make_error(std::string("malformed result row: ") + e.what());
  }
}

}  // namespace moebench
