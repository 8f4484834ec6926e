// point.h — Point: one combination of a sweep's axes, and its identity.
//
// A point's identity is its canonical key (every axis value, normalized):
// the same point in two runs has the same id, which is how the journal skips
// finished points on --resume and how compare matches rows across runs. The
// setup key groups points that share a container and loaded weights.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "vocab/json_reader.h"
#include "vocab/model_card.h"

namespace moebench {

struct EngineSpec {
  std::string name;                           // "null", "resident", ...
  std::map<std::string, std::string> options; // "null:sleep_ms=5" → {sleep_ms: 5}
  std::string to_string() const;              // canonical, options sorted
};

// Parses "name" or "name:key=value,key=value".
Expected<EngineSpec> parse_engine_spec(const std::string& text);

struct DriveSpec {
  int count = 1;
  std::string layout = "replicate";         // "replicate" | "stripe"
  std::optional<double> throttle_bytes_s;   // per-drive token-bucket cap
  std::string to_string() const;            // "2×replicate", "2×stripe@200MB/s"
};

class JsonTextWriter;

struct Point {
  std::size_t index = 0;  // position in sweep order (0-based)
  // The point's number as people see it everywhere (--points, --explain,
  // progress, tables, notes): 1-based.
  std::size_t number() const { return index + 1; }
  EngineSpec engine;
  std::string model;      // card name
  Scale scale;
  std::string quant;      // resolved (never "native")
  // Quant of the trunk's matrices, resolved (never "native"). Empty only in
  // a row read back from a journal written before the axis existed (the
  // card's trunk quant then). In the key only when it differs from the
  // card's own trunk quant, so points of older sweeps keep their ids.
  std::string trunk_quant;
  bool trunk_quant_is_card = true;  // trunk_quant is the card's own
  std::optional<std::uint64_t> ram_budget_bytes;  // nullopt = unlimited
  DriveSpec drives;
  std::int64_t context_tokens = 0;
  std::int64_t prompt_tokens = 16;
  std::int64_t gen_tokens = 16;
  int threads = 0;        // 0 = all hardware threads
  std::string routing = "uniform";
  std::string cache_policy = "lru";
  std::string prefetch = "off";
  std::string hot_set = "off";  // vocab/hot_set_spec.h; in the key only when set

  // Canonical key: an object with every axis, fixed key order.
  Json key_json() const;
  std::string key_text() const;   // key_json().dump(), without the tree
  std::string id() const;         // 16 hex digits, stable across runs
  std::string label() const;      // short, for progress lines
  std::string setup_key() const;  // container + drive identity
};

Expected<Point> point_from_key_json(const Json& key);

// The card a point runs: `card` scaled as the point says, with the point's
// trunk quant (when set) as its trunk_quant — so the container, its trunk
// file name and identity, and every derived byte count follow the axis.
Expected<ModelCard> point_card(const ModelCard& card, const Point& p);

// The point's key (key_json's members, in its order) into a writer.
void write_point_key(JsonTextWriter& w, const Point& p);

}  // namespace moebench
