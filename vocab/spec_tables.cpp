// spec_tables.cpp — see spec_tables.h.
#include "vocab/spec_tables.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "vocab/text.h"

namespace moebench {

namespace {

const std::array<const char*, 7> kTables = {"cpus", "gpus", "memory_kinds", "drives", "enclosures", "links", "os"};

// Vendor words dropped before matching (a buyer writes "EPYC 9654" or "AMD
// EPYC 9654"; "RTX 4090" or "NVIDIA GeForce RTX 4090").
const std::array<const char*, 20> kVendorWords = {"amd",     "intel",    "nvidia", "apple",   "geforce",  "samsung",  "wd",
                                                  "western", "digital",  "crucial", "micron", "kioxia",  "solidigm", "sk",
                                                  "hynix",   "kingston", "sabrent", "qualcomm", "mediatek", "aws"};

void flatten(const Json& v, const std::string& key, const std::string& ptr, SpecRow& row, Diagnostics& d) {
  if (v.is_number()) {
    row.numbers[key] = v.get<double>();
  } else if (v.is_string()) {
    row.texts[key] = v.get<std::string>();
  } else if (v.is_boolean()) {
    row.texts[key] = v.get<bool>() ? "true" : "false";
  } else if (v.is_null()) {
    // a field the source does not give, written as null: absent
  } else if (v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_number(); })) {
    std::vector<double> xs;
    for (const Json& x : v) xs.push_back(x.get<double>());
    row.lists[key] = xs;
  } else if (v.is_array() && std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_string(); })) {
    std::vector<std::string> xs;
    for (const Json& x : v) xs.push_back(x.get<std::string>());
    row.texts[key] = join(xs, ", ");
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      flatten(v[i], key + "[" + std::to_string(i) + "]", json_pointer_append(ptr, i), row, d);
    }
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      flatten(it.value(), key + "." + it.key(), json_pointer_append(ptr, it.key()), row, d);
    }
  } else {
    d.add(ptr, "expected a number, a text, a list or an object");
  }
}

// Whether a source's `fields` or a derivation covers the flattened key
// "a.b[0].c": the key itself, any prefix of it, or its last name.
bool covers(const std::vector<std::string>& names, const std::string& key) {
  std::string stripped;  // "gpu_wired_fraction[1].fraction" → "gpu_wired_fraction.fraction"
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '[') {
      while (i < key.size() && key[i] != ']') ++i;
      continue;
    }
    stripped += key[i];
  }
  const std::string last = stripped.substr(stripped.rfind('.') == std::string::npos ? 0 : stripped.rfind('.') + 1);
  for (const std::string& n : names) {
    if (n == key || n == stripped || n == last) return true;
    for (const std::string& k : {key, stripped}) {
      if (k.size() > n.size() && k.compare(0, n.size(), n) == 0 && (k[n.size()] == '.' || k[n.size()] == '[')) return true;
    }
  }
  return false;
}

std::optional<SpecRow> load_row(const Json& j, const std::string& table, const std::string& path, Diagnostics& d) {
  if (!j.is_object()) {
    d.add(path, "a spec row is an object, got " + json_type_phrase(j));
    return std::nullopt;
  }
  SpecRow row;
  row.table = table;
  row.file = d.file();
  const std::size_t before = d.issues().size();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string ptr = json_pointer_append(path, key);
    const Json& v = it.value();
    if (key == "name") {
      if (!v.is_string() || v.get<std::string>().empty()) d.add(ptr, "the part's name, a non-empty string");
      else row.name = v.get<std::string>();
    } else if (key == "aliases") {
      if (!v.is_array()) d.add(ptr, "a list of other names");
      for (std::size_t i = 0; v.is_array() && i < v.size(); ++i) {
        if (auto s = read_string(v[i], json_pointer_append(ptr, i), d)) row.aliases.push_back(*s);
      }
    } else if (key == "notes") {
      read_string(v, ptr, d);
    } else if (key == "derived") {
      if (!v.is_object()) d.add(ptr, "an object: field → the arithmetic that gives it, in words");
      for (auto dv = v.begin(); v.is_object() && dv != v.end(); ++dv) {
        if (auto s = read_string(dv.value(), json_pointer_append(ptr, dv.key()), d)) row.derived[dv.key()] = *s;
      }
    } else if (key == "sources") {
      if (!v.is_array() || v.empty()) d.add(ptr, "a non-empty list of {page or repository+path, quote, fields}");
      for (std::size_t i = 0; v.is_array() && i < v.size(); ++i) {
        ObjectReader s(v[i], json_pointer_append(ptr, i), d);
        if (!s.is_object()) continue;
        SpecSource src;
        const auto page = s.string("page", false);
        const auto repo = s.string("repository", false);
        const auto file = s.string("path", false);
        const auto doc = s.string("document", false);
        // Where in the source: a secondary copy the quote was read in, the
        // commit, a table's row and columns, the original wording, a note.
        for (const char* k : {"via", "commit", "row", "original", "note"}) s.string(k, false);
        s.get("columns", false);
        src.where = page ? *page : repo ? *repo + (file ? "/" + *file : std::string()) : doc.value_or("");
        if (src.where.empty()) d.add(s.path(), "a source names a \"page\", a \"repository\" with \"path\", or a \"document\"");
        src.quote = s.string("quote", true).value_or("");
        if (const Json* f = s.array("fields", true, false)) {
          for (std::size_t k = 0; k < f->size(); ++k) {
            if (auto n = read_string((*f)[k], json_pointer_append(s.path_of("fields"), k), d)) src.fields.push_back(*n);
          }
        }
        s.finish();
        row.sources.push_back(std::move(src));
      }
    } else {
      flatten(v, key, ptr, row, d);
    }
  }
  if (row.name.empty() && !j.contains("name")) d.add(path, "a spec row needs a \"name\"");
  if (!j.contains("sources")) d.add(path, "a spec row needs \"sources\" (page, quote, fields): a figure without its source cannot be used");
  std::vector<std::string> cited;
  for (const SpecSource& s : row.sources) cited.insert(cited.end(), s.fields.begin(), s.fields.end());
  std::vector<std::string> explained;
  for (const auto& [k, _] : row.derived) explained.push_back(k);
  auto check = [&](const std::string& key) {
    // "x_range" is the uncertainty of "x": covered where x is.
    const std::string stem = key.size() > 6 && key.compare(key.size() - 6, 6, "_range") == 0 ? key.substr(0, key.size() - 6) : key;
    if (!covers(cited, key) && !covers(explained, key) && !covers(cited, stem) && !covers(explained, stem)) {
      d.add(path, row.name + ": \"" + key + "\" has no source (no source lists it in \"fields\", no \"derived\" entry explains it)");
    }
  };
  for (const auto& [k, _] : row.numbers) check(k);
  for (const auto& [k, _] : row.lists) check(k);
  if (d.issues().size() != before) return std::nullopt;
  return row;
}

}  // namespace

std::optional<double> SpecRow::number(const std::string& key) const {
  auto it = numbers.find(key);
  if (it == numbers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> SpecRow::text(const std::string& key) const {
  auto it = texts.find(key);
  if (it == texts.end()) return std::nullopt;
  return it->second;
}

std::string SpecRow::cite(const std::string& key) const {
  const std::string head = file + " ‹" + name + "›";
  for (const SpecSource& s : sources) {
    if (covers(s.fields, key)) return head + ": " + s.where + ": “" + s.quote + "”";
  }
  for (const auto& [k, how] : derived) {
    if (covers({k}, key)) return head + ": " + how;
  }
  return head;
}

std::string spec_match_key(const std::string& name) {
  std::vector<std::string> words;
  std::string w;
  for (char ch : name) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isalnum(u)) {
      w += static_cast<char>(std::tolower(u));
    } else if (!w.empty()) {
      words.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(w);
  std::string key;
  for (const std::string& word : words) {
    const bool vendor = std::any_of(kVendorWords.begin(), kVendorWords.end(), [&](const char* v) { return word == v; });
    if (!vendor || words.size() == 1) key += word;
  }
  return key;
}

std::vector<const SpecRow*> SpecTables::table(const std::string& t) const {
  std::vector<const SpecRow*> out;
  for (const SpecRow& r : rows) {
    if (r.table == t) out.push_back(&r);
  }
  return out;
}

Expected<const SpecRow*> SpecTables::find(const std::string& t, const std::string& name) const {
  const std::string key = spec_match_key(name);
  std::vector<const SpecRow*> by_name, by_alias;
  for (const SpecRow* r : table(t)) {
    if (spec_match_key(r->name) == key) by_name.push_back(r);
    for (const std::string& a : r->aliases) {
      if (spec_match_key(a) == key) {
        by_alias.push_back(r);
        break;
      }
    }
  }
  const std::vector<const SpecRow*>& hits = by_name.empty() ? by_alias : by_name;
  if (hits.size() == 1) return hits.front();
  if (hits.size() > 1) {
    std::vector<std::string> names;
    for (const SpecRow* r : hits) names.push_back("\"" + r->name + "\"");
    return make_error("\"" + name + "\" names several rows of the " + t + " table (" + join(names, ", ") + "): use one of those names");
  }
  // The closest names: those sharing the longest prefix of the key.
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const SpecRow* r : table(t)) {
    const std::string k = spec_match_key(r->name);
    std::size_t n = 0;
    while (n < k.size() && n < key.size() && k[n] == key[n]) ++n;
    near.push_back({n, r->name});
  }
  std::sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < near.size() && i < 4 && near[i].first > 0; ++i) shown.push_back("\"" + near[i].second + "\"");
  return make_error("no row of the " + t + " table (configs/specs/) is \"" + name + "\"" +
                    (shown.empty() ? std::string() : "; closest: " + join(shown, ", ")) +
                    ": add a cited row for it, or name the part as the table does");
}

std::optional<std::vector<SpecRow>> load_spec_rows(const Json& j, Diagnostics& d) {
  if (!j.is_object()) {
    d.add("", "a spec table file is an object: {\"cpus\": [...]} (or gpus, memory_kinds, drives, enclosures, links, os)");
    return std::nullopt;
  }
  std::vector<SpecRow> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const bool known = std::any_of(kTables.begin(), kTables.end(), [&](const char* t) { return it.key() == t; });
    const std::string ptr = json_pointer_append("", it.key());
    if (!known) {
      d.add(ptr, "unknown table; a spec file holds cpus, gpus, memory_kinds, drives, enclosures, links or os");
      continue;
    }
    if (!it.value().is_array()) {
      d.add(ptr, "a table is a list of rows");
      continue;
    }
    std::set<std::string> keys;
    for (std::size_t i = 0; i < it.value().size(); ++i) {
      auto row = load_row(it.value()[i], it.key(), json_pointer_append(ptr, i), d);
      if (!row) continue;
      if (!keys.insert(spec_match_key(row->name)).second) {
        d.add(json_pointer_append(ptr, i), "\"" + row->name + "\" is already a row of this table");
      }
      out.push_back(std::move(*row));
    }
  }
  if (!d.ok()) return std::nullopt;
  return out;
}

Expected<SpecTables> load_spec_tables(const ConfigStore& store) {
  SpecTables t;
  for (const std::string& name : store.names("specs")) {
    auto src = store.find("specs", name);
    if (!src) return src.error();
    auto rows = load_config_text<std::vector<SpecRow>>(src->text, src->label, load_spec_rows);
    if (!rows) return rows.error();
    for (SpecRow& r : *rows) t.rows.push_back(std::move(r));
  }
  if (t.table("cpus").empty()) return make_error("no CPU spec table (configs/specs/cpus.json) was found");
  return t;
}

}  // namespace moebench
