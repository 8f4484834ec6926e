// mutated_configs_test.cpp — a seeded mutator over the shipped inputs.
//
// Takes the shipped configs (configs/**/*.json, the cards, profiles, sweeps
// and broken configs under tests/data) and results files made at the start
// of the test (a run's results.json and journal.jsonl, a calibratable
// results.json), applies random mutations — hostile numbers (1e999, huge
// integers, -1), deleted and duplicated keys, flipped types, invalid UTF-8,
// wrapping in arrays, deep nesting, truncation, stray bytes, NUL bytes,
// rows of another run, sample arrays far past the runs — and feeds each
// mutant to the command that reads it: `validate` (every config), `report
// --machine` and `calibrate --machine` (profiles), `compare`, `report`,
// `history add` and `calibrate` (results), `run --resume` (journals).
//
// The property: the process never dies by a signal (no abort, no uncaught
// exception, no sanitizer trap), exits 0, 1, 2 or 3, and says why when it does not exit 0.
// The seed and the count are fixed so the test is deterministic; set
// MOEBENCH_MUTATIONS=N and MOEBENCH_MUTATOR_SEED=S for a longer campaign, and
// MOEBENCH_MUTATOR_KEEP=DIR to keep every mutant that broke the property.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "../unit/test_support.h"
#include "process.h"
#include "reports/results_reader.h"
#include "reports/writers.h"

using namespace moebench;
using namespace moebench::testing;
namespace fs = std::filesystem;

namespace {

// A file to mutate: its text and what reads it.
struct Subject {
  std::string kind;  // models | hardware | sweeps | claims | results | calibrate | journal
  std::string name;  // file name of the original
  std::string text;
};

const char* const kHostileNumbers[] = {
    "1e999", "-1e999", "1e308", "-1.7976931348623157e308", "4.9e-324", "-0", "-1", "0", "0.5", "1e10",
    "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "123456789012345678901234567890", "1e20", "1073741824", "1099511627776", "3.5"};

const char* const kHostileStrings[] = {
    "\"1e300GB/s\"", "\"1e999\"", "\"-1GiB\"", "\"nan\"", "\"inf\"", "\"18446744073709551616\"",
    "\"0.5B\"", "\"\"", "\"99999999999999999999TiB\"", "\"1e19B\"", "\"16EiB\"", "\"1e-300GB/s\"",
    "\"\xff\xfe not utf-8 \xc3\"", "\"\xed\xa0\x80\"", "\"a\\u0000b\"", "\"unlimited\"", "\"all\"",
    "\"zipf:1e999\"", "\"pregate:nan\"", "\"trace:/dev/null\"", "\"null:sleep_ms=1e999\""};

const char* const kHostileValues[] = {"null", "true", "false", "[]", "{}", "[1]", "\"x\"", "[[[[]]]]",
                                      "{\"\":{}}", "[null, null]"};

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T, std::size_t N>
  const T& pick(const T (&a)[N]) { return a[below(N)]; }

  // One to three mutations; `what` says which, for the failure report.
  std::string mutate(const Subject& s, std::string& what) {
    if (s.kind == "journal") return mutate_journal(s.text, what);
    std::string text = s.text;
    if ((s.kind == "results" || s.kind == "calibrate") && chance(0.1)) {
      what += "200000 samples; ";
      text = with_huge_samples(text);
    }
    const std::size_t n = 1 + below(3);
    for (std::size_t i = 0; i < n; ++i) {
      text = chance(0.75) ? mutate_structure(text, what) : mutate_text(text, what);
    }
    return text;
  }

 private:
  // Byte-level damage: anything a text editor or a torn write could do.
  std::string mutate_text(std::string text, std::string& what) {
    switch (below(8)) {
      case 0: {
        const std::size_t at = below(text.size() + 1);
        what += "truncate@" + std::to_string(at) + "; ";
        return text.substr(0, at);
      }
      case 1: {
        static const char kBytes[] = {'\xff', '\0', '{', '}', '[', ']', '"', ',', ':', '\\', '\x80', '-', 'e'};
        const std::size_t at = below(text.size() + 1);
        what += "insert-byte@" + std::to_string(at) + "; ";
        return text.insert(at, 1, kBytes[below(sizeof kBytes)]);
      }
      case 2: {
        const std::size_t at = below(text.size() + 1);
        what += "erase@" + std::to_string(at) + "; ";
        return text.erase(at, 1 + below(20));
      }
      case 3: {
        what += "wrap-array; ";
        return "[" + text + "]";
      }
      case 4: {
        const std::size_t depth = chance(0.5) ? 600 : 100000;
        what += "deep-nesting-" + std::to_string(depth) + "; ";
        return std::string(depth, '[') + std::string(depth, ']');
      }
      case 5: {  // a number token in the text replaced by a hostile one
        std::vector<std::size_t> starts;
        for (std::size_t i = 0; i < text.size(); ++i) {
          if ((text[i] >= '0' && text[i] <= '9') && (i == 0 || text[i - 1] == ' ' || text[i - 1] == ':' ||
                                                     text[i - 1] == '[' || text[i - 1] == ',')) {
            starts.push_back(i);
          }
        }
        if (starts.empty()) return text;
        const std::size_t at = starts[below(starts.size())];
        std::size_t end = at;
        while (end < text.size() && std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos) ++end;
        const std::string num = pick(kHostileNumbers);
        what += "number@" + std::to_string(at) + "=" + num + "; ";
        return text.replace(at, end - at, num);
      }
      case 6: {
        what += "duplicate-line; ";
        std::vector<std::string> lines;
        std::size_t pos = 0;
        while (pos <= text.size()) {
          const std::size_t nl = text.find('\n', pos);
          lines.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
          if (nl == std::string::npos) break;
          pos = nl + 1;
        }
        const std::size_t l = below(lines.size());
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), lines[l]);
        std::string out;
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
        return out;
      }
      default: {
        what += "invalid-utf8-anywhere; ";
        return text.insert(below(text.size() + 1), "\xc3\x28\xff");
      }
    }
  }

  // Deepest bracket nesting of a text (strings skipped, roughly).
  static std::size_t nesting(const std::string& text) {
    std::size_t level = 0, deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        deepest = std::max(deepest, ++level);
      } else if ((c == ']' || c == '}') && level > 0) {
        --level;
      }
    }
    return deepest;
  }

  // Every node of a document, as JSON Pointers.
  static void collect(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>& out, int depth) {
    out.push_back(at);
    if (depth > 12) return;
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), at / it.key(), out, depth + 1);
    } else if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) collect(j[i], at / i, out, depth + 1);
    }
  }

  // A node replaced, removed, duplicated or retyped. Values a Json cannot
  // hold (1e999, invalid UTF-8) go in as placeholders replaced after dump().
  std::string mutate_structure(const std::string& text, std::string& what) {
    if (nesting(text) > 64) return mutate_text(text, what);  // dump() below would recurse that deep
    Json doc = Json::parse(text, nullptr, false, /*ignore_comments=*/true);
    if (doc.is_discarded()) return mutate_text(text, what);
    std::vector<Json::json_pointer> nodes;
    collect(doc, Json::json_pointer(), nodes, 0);
    const Json::json_pointer at = nodes[below(nodes.size())];
    Json& node = doc[at];
    std::map<std::string, std::string> raw;  // placeholder → raw JSON text
    auto placeholder = [&raw](const std::string& raw_text) {
      const std::string key = "@@MUT" + std::to_string(raw.size()) + "@@";
      raw[key] = raw_text;
      return Json(key);
    };
    const std::string where = at.to_string().empty() ? "(root)" : at.to_string();
    switch (below(11)) {
      case 0:
      case 1: {
        const std::string v = pick(kHostileNumbers);
        what += where + "=" + v + "; ";
        node = placeholder(v);
        break;
      }
      case 2: {
        const std::string v = pick(kHostileStrings);
        what += where + "=" + v + "; ";
        node = placeholder(v);
        break;
      }
      case 3: {
        const std::string v = pick(kHostileValues);
        what += where + "=" + v + "; ";
        node = placeholder(v);
        break;
      }
      case 4: {  // delete
        if (at.empty()) return text;
        Json& parent = doc[at.parent_pointer()];
        what += "delete " + where + "; ";
        if (parent.is_object()) {
          parent.erase(at.back());
        } else if (parent.is_array()) {
          parent.erase(static_cast<std::size_t>(std::stoul(at.back())));
        }
        break;
      }
      case 5: {  // duplicate a key of an object (textual: a Json keeps one)
        if (!node.is_object() || node.empty()) return mutate_text(text, what);
        auto it = node.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(below(node.size())));
        what += "duplicate key " + where + "/" + it.key() + "; ";
        const std::string key = "@@DUP" + std::to_string(raw.size()) + "@@";
        raw[key] = Json(it.key()).dump();
        node[key] = it.value();  // a key: its quotes are replaced below too
        break;
      }
      case 6: {  // flip the type
        what += "flip-type " + where + "; ";
        if (node.is_number()) {
          node = node.dump();
        } else if (node.is_string()) {
          node = placeholder(node.get<std::string>().empty() ? "0" : "12345");
        } else if (node.is_object()) {
          Json arr = Json::array();
          for (auto& v : node) arr.push_back(v);
          node = arr;
        } else if (node.is_array()) {
          Json obj = Json::object();
          for (std::size_t i = 0; i < node.size(); ++i) obj[std::to_string(i)] = node[i];
          node = obj;
        } else {
          node = "flipped";
        }
        break;
      }
      case 7: {
        what += "wrap-in-array " + where + "; ";
        node = Json::array({node});
        break;
      }
      case 8: {
        what += "wrap-in-object " + where + "; ";
        node = Json{{"value", node}};
        break;
      }
      case 9: {
        const std::size_t depth = chance(0.5) ? 300 : 50000;
        what += "deep-nesting-" + std::to_string(depth) + " " + where + "; ";
        node = placeholder(std::string(depth, '[') + "1" + std::string(depth, ']'));
        break;
      }
      default: {  // an invalid UTF-8 key beside the others
        if (!node.is_object()) return mutate_text(text, what);
        what += "invalid-utf8-key " + where + "; ";
        const std::string key = "@@DUP" + std::to_string(raw.size()) + "@@";
        raw[key] = "\"k\xff\xfe\"";
        node[key] = 1;
        break;
      }
    }
    std::string out = doc.dump(chance(0.5) ? 2 : -1);
    for (const auto& [key, value] : raw) {
      const std::string quoted = "\"" + key + "\"";
      for (std::size_t p = out.find(quoted); p != std::string::npos; p = out.find(quoted, p + value.size())) {
        out.replace(p, quoted.size(), value);
      }
    }
    return out;
  }

  // A journal: one line damaged, replaced or retyped, or the file torn.
  // Every "samples" array of a metric starts with 200,000 more numbers.
  static std::string with_huge_samples(std::string text) {
    std::string many;
    for (int i = 0; i < 200000; ++i) many += "1.5,";
    for (std::size_t at = text.find("\"decode_tok_s\":["); at != std::string::npos;
         at = text.find("\"decode_tok_s\":[", at + many.size())) {
      text.insert(at + 16, many);
    }
    return text;
  }

  std::string mutate_journal(const std::string& text, std::string& what) {
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);
      lines.push_back(text.substr(pos, nl - pos));
      pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    if (lines.empty()) return text;
    const std::size_t l = below(lines.size());
    static const char* const kLines[] = {"[1]", "3", "\"x\"", "{}", "null", "true", "[]", "{\"type\": 1}",
                                         "{\"type\": \"row\"}", "{\"type\": \"row\", \"row\": []}",
                                         "{\"type\": \"segment\", \"environment\": 7}",
                                         "{\"type\": \"header\", \"journal_version\": 1}", "1e999"};
    switch (below(6)) {
      case 4: {  // a row another run wrote, appended (its run id is no segment's)
        const std::size_t at = lines[l].find("\"run_id\":\"");
        if (at == std::string::npos) break;
        what += "line " + std::to_string(l + 1) + " appended as another run's; ";
        std::string foreign = lines[l];
        foreign.insert(at + 10, "other-");
        lines.push_back(foreign);
        break;
      }
      case 5: {  // a row whose samples far outnumber its runs
        what += "line " + std::to_string(l + 1) + " with 200000 samples; ";
        lines[l] = with_huge_samples(lines[l]);
        break;
      }
      case 0: {
        lines[l] = kLines[below(13)];
        what += "line " + std::to_string(l + 1) + " = " + lines[l] + "; ";
        break;
      }
      case 1: {
        what += "line " + std::to_string(l + 1) + ": ";
        lines[l] = mutate_structure(lines[l], what);
        // a dump(2) would split the record over lines: keep it on one
        lines[l].erase(std::remove(lines[l].begin(), lines[l].end(), '\n'), lines[l].end());
        break;
      }
      case 2: {
        what += "line " + std::to_string(l + 1) + " doubled; ";
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(l), lines[l]);
        break;
      }
      default: {
        std::string joined;
        for (const std::string& s : lines) joined += s + "\n";
        return mutate_text(joined, what);
      }
    }
    std::string out;
    for (const std::string& s : lines) out += s + "\n";
    return out;
  }

  std::mt19937_64 rng_;
};

std::string kind_of_dir(const fs::path& dir) {
  const std::string d = dir.filename().string();
  if (d == "models" || d == "cards") return "models";
  if (d == "hardware" || d == "profiles") return "hardware";
  if (d == "sweeps") return "sweeps";
  if (d == "claims") return "claims";
  return "";
}

void add_configs(const std::string& root, std::vector<Subject>& out) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  for (const fs::path& p : files) {
    const std::string kind = kind_of_dir(p.parent_path());
    if (kind.empty()) continue;
    out.push_back({kind, p.filename().string(), read_file(p.string()).value()});
  }
}

struct Outcome {
  std::size_t runs = 0, signalled = 0, bad_exit = 0, silent = 0;
  std::vector<std::string> failures;  // first few, for the report
};

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace

TEST_CASE("mutated configs and results and journals never crash a reader", "[integration][mutator]") {
  TempDir dir;
  // The results inputs: a run (results.json and its journal), and a predicted
  // run relabelled measured so that calibrate fits it.
  const std::string sweep = dir.file("null-sweep.json");
  REQUIRE(write_file_atomic(sweep, R"({"name": "mut", "repetitions": 2, "warmup": 0, "seed": 5,
    "axes": {"engine": ["null"], "model": ["tiny-moe"], "quant": ["mxfp4"], "ram_budget": ["1MiB", "4MiB"],
             "gen_tokens": [4]}})").ok());
  const std::string base_dir = dir.file("base");
  Finished run = run_moebench({"run", sweep, "--out", base_dir, "--quiet", "--print", "none"}, dir.path(), "base");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string pred_sweep = dir.file("pred-sweep.json");
  REQUIRE(write_file_atomic(pred_sweep, R"({"name": "pred", "repetitions": 1, "warmup": 0, "seed": 3,
    "axes": {"engine": ["resident", "streaming"], "model": ["tiny-moe"], "quant": ["mxfp4"],
             "ram_budget": ["1GiB"], "gen_tokens": [4]}})").ok());
  Finished pred = run_moebench({"predict", pred_sweep, "--machine", "macbook-pro-m5-pro-64gb", "--out",
                                dir.file("pred"), "--quiet", "--print", "none"}, dir.path(), "pred");
  INFO(pred.err);
  REQUIRE(pred.exit_code == 0);
  auto predicted = load_results_file(dir.file("pred/results.json"));
  REQUIRE(predicted.ok());
  for (ResultRow& r : predicted->rows) r.provenance = "measured";
  const std::string calib_base = dir.file("calib.json");
  REQUIRE(write_file_atomic(calib_base, write_json(*predicted)).ok());
  Finished calib = run_moebench({"calibrate", calib_base, "--machine", "macbook-pro-m5-pro-64gb", "--dry-run"},
                                dir.path(), "calib");
  INFO(calib.err);
  REQUIRE(calib.exit_code == 0);  // the unmutated input calibrates, so mutants reach the fit

  std::vector<Subject> subjects;
  add_configs(std::string(MOEBENCH_SOURCE_DIR) + "/configs", subjects);
  add_configs(std::string(MOEBENCH_TEST_DATA), subjects);
  const std::size_t configs = subjects.size();
  REQUIRE(configs >= 40);
  subjects.push_back({"results", "results.json", read_file(base_dir + "/results.json").value()});
  subjects.push_back({"results", "golden-results.json", read_file(std::string(MOEBENCH_GOLDEN_DIR) + "/results.json").value()});
  subjects.push_back({"calibrate", "calib.json", read_file(calib_base).value()});
  subjects.push_back({"journal", "journal.jsonl", read_file(base_dir + "/journal.jsonl").value()});

  const std::uint64_t seed = env_number("MOEBENCH_MUTATOR_SEED", 20261201);
  const std::size_t count = env_number("MOEBENCH_MUTATIONS", 300);
  const char* keep = std::getenv("MOEBENCH_MUTATOR_KEEP");
  Mutator m(seed);
  Outcome o;
  const std::string db = dir.file("history.sqlite");

  auto judge = [&](const std::vector<std::string>& args, const std::string& input, const std::string& what,
                   bool message_on_stdout) {
    Finished f = run_moebench(args, dir.path(), "mut");
    ++o.runs;
    std::string problem;
    if (f.signal != 0) {
      ++o.signalled;
      problem = "signal " + std::to_string(f.signal);
    } else if (f.exit_code < 0 || f.exit_code > 3) {  // 0 done, 1 no, 2 bad input, 3 inconclusive
      ++o.bad_exit;
      problem = "exit " + std::to_string(f.exit_code);
    } else if (f.exit_code != 0 && f.err.empty() && !(message_on_stdout && !f.out.empty())) {
      ++o.silent;
      problem = "exit " + std::to_string(f.exit_code) + " without a message";
    }
    if (problem.empty()) return;
    std::string cmd;
    for (const std::string& a : args) cmd += " " + a;
    if (o.failures.size() < 12) {
      o.failures.push_back(problem + ":" + cmd + "\n    mutation: " + what + "\n    stderr: " + f.err.substr(0, 300));
    }
    if (keep != nullptr) {
      std::error_code ec;
      fs::create_directories(keep, ec);
      const std::string name = std::string(keep) + "/mutant-" + std::to_string(o.runs) + fs::path(input).extension().string();
      (void)fs::copy_file(input, name, fs::copy_options::overwrite_existing, ec);
      (void)write_file_atomic(name + ".txt", problem + ":" + cmd + "\n" + what + "\n" + f.err);
    }
  };

  for (std::size_t i = 0; i < count; ++i) {
    // Three in four mutants are configs; the rest are results and journals.
    const std::size_t pick = m.chance(0.75) ? m.below(configs) : configs + m.below(subjects.size() - configs);
    const Subject& s = subjects[pick];
    std::string what = s.kind + "/" + s.name + ": ";
    const std::string text = m.mutate(s, what);
    const std::string sub = dir.file("m/" + (s.kind == "calibrate" ? std::string("results") : s.kind));
    REQUIRE(ensure_directory(sub).ok());
    if (s.kind == "journal") {
      const std::string out = dir.file("resume");
      std::error_code ec;
      fs::remove_all(out, ec);
      REQUIRE(ensure_directory(out).ok());
      REQUIRE(write_file_atomic(out + "/journal.jsonl", text).ok());
      judge({"run", sweep, "--out", out, "--resume", "--quiet", "--print", "none"}, out + "/journal.jsonl", what,
            false);
      continue;
    }
    const std::string file = sub + "/" + s.name;
    REQUIRE(write_file_atomic(file, text).ok());
    if (s.kind == "results") {
      judge({"compare", base_dir, file}, file, what, false);
      judge({"report", file, "--html", dir.file("r.html"), "--quiet"}, file, what, false);
      judge({"history", "add", file, "--db", db}, file, what, false);
    } else if (s.kind == "calibrate") {
      judge({"calibrate", file, "--machine", "macbook-pro-m5-pro-64gb", "--dry-run"}, file, what, false);
    } else {
      judge({"validate", file}, file, what, true);
      if (s.kind == "hardware" && m.chance(0.3)) {
        judge({"calibrate", calib_base, "--machine", file, "--dry-run"}, file, what, false);
      }
    }
  }
  // History locations a careless user types: none is taken as a SQLite file
  // name, none prints its password.
  for (const std::string& url : {std::string("PostgreSQL://u:s3cr3t@127.0.0.1:1/x"), std::string("pg://u:s3cr3t@h/x"),
                                 std::string("postgressql://u:s3cr3t@h/x"), std::string("postgresql:u:s3cr3t@h"),
                                 std::string("host=127.0.0.1 password=s3cr3t dbname=x"),
                                 std::string("postgresql://u:s3@cr3t@127.0.0.1:1/x")}) {
    Finished f = run_moebench({"history", "show", "--db", url}, dir.path(), "url");
    ++o.runs;
    INFO(url << " → " << f.err);
    CHECK(f.exit_code == 2);
    CHECK(f.err.find("s3cr3t") == std::string::npos);
    CHECK(f.err.find("cr3t@") == std::string::npos);
    CHECK_FALSE(fs::exists(dir.file(url)));
  }

  std::string report;
  for (const std::string& f : o.failures) report += "\n  " + f;
  INFO(o.runs << " runs of " << count << " mutants (seed " << seed << "): " << o.signalled << " killed by a signal, "
                << o.bad_exit << " other exit codes, " << o.silent << " silent failures" << report);
  WARN("mutator: " << o.runs << " runs, " << o.signalled << " signalled, " << o.bad_exit << " bad exit, " << o.silent
                   << " silent");
  CHECK(o.signalled == 0);
  CHECK(o.bad_exit == 0);
  CHECK(o.silent == 0);
}
