// spec_tables.h — the cited spec tables a machine is built from
// (configs/specs/*.json): CPUs and SoCs, memory kinds, GPUs, drives,
// enclosures, link rates and OS memory limits, one row per part.
//
// A row is read generically: `name`, `aliases`, `sources` (each with a page
// or repository path, a short exact quote and the `fields` it supports),
// `derived` (field → the arithmetic in words), `notes`, and every other key
// flattened to a path ("unified_memory.bandwidth_gb_s") holding a number, a
// list of numbers or a text. The loader refuses a numeric field that no
// source supports and no derivation explains: a figure without its source
// cannot enter a prediction.
//
// Names are matched on letters and digits only, case-folded, with vendor
// words dropped ("AMD EPYC 9654" = "epyc 9654" = "EPYC-9654"); a name two
// rows answer is an error naming both.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vocab/config_store.h"
#include "vocab/expected.h"
#include "vocab/json_reader.h"

namespace moebench {

struct SpecSource {
  std::string where;  // the page, or repository/path
  std::string quote;
  std::vector<std::string> fields;
};

struct SpecRow {
  std::string table;  // "cpus", "gpus", "memory_kinds", "drives", "enclosures", "links", "os"
  std::string file;   // the label of the file it came from
  std::string name;
  std::vector<std::string> aliases;
  std::map<std::string, double> numbers;               // flattened path → value
  std::map<std::string, std::vector<double>> lists;    // flattened path → numbers
  std::map<std::string, std::string> texts;            // flattened path → text
  std::map<std::string, std::string> derived;          // field → arithmetic in words
  std::vector<SpecSource> sources;

  std::optional<double> number(const std::string& key) const;
  std::optional<std::string> text(const std::string& key) const;
  // Where `key`'s value comes from: "FILE ‹name›: PAGE: “quote”" or the
  // derivation; every numeric key has one (the loader checks).
  std::string cite(const std::string& key) const;
};

struct SpecTables {
  std::vector<SpecRow> rows;
  // The row of `table` that `name` names; an error listing the closest
  // names when none does, or the rows when several do.
  Expected<const SpecRow*> find(const std::string& table, const std::string& name) const;
  std::vector<const SpecRow*> table(const std::string& table) const;
};

// Letters and digits, lowercased, vendor words dropped.
std::string spec_match_key(const std::string& name);

// One file's rows: {"<table>": [rows], ...} for the known tables.
std::optional<std::vector<SpecRow>> load_spec_rows(const Json& j, Diagnostics& d);
// Every configs/specs/*.json the store finds (cpus, gpus, memory, drives, os).
Expected<SpecTables> load_spec_tables(const ConfigStore& store);

}  // namespace moebench
