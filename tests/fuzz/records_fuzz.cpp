// records_fuzz.cpp — libFuzzer target for the readers of results files. The
// first byte picks the reader ('r' a results.json as compare, report, history
// and calibrate read it; 'j' a run journal as `run --resume` reads it; 'w'
// one row, read on the fast path (vocab/row_text.h) and the strict one, which
// must agree to the bit whenever the fast path reads it; any other byte: its
// value mod 3), the rest is the file's text. What loads is
// compared with itself (reports/compare.h) and written back in every results
// format, as the commands that read it would. Never a crash, hang, overflow
// or out-of-bounds read (ASan + UBSan, with UB fatal). Seeds:
// tests/fuzz/corpus/records_fuzz. Build and run: see docs/architecture.md,
// "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "vocab/journal_format.h"
#include "vocab/json_reader.h"
#include "vocab/row_text.h"
#include "reports/compare.h"
#include "reports/results_reader.h"
#include "reports/writers.h"

using namespace moebench;

namespace {

void use(const RunResults& r) {
  CompareOptions o;
  o.resamples = 50;  // the bootstrap's cost is linear in it; 50 exercises the same code
  o.cross_machine = true;
  auto c = compare_results(r, r, o, "base.json", "new.json");
  if (c) {
    (void)comparison_to_json(*c);
    (void)comparison_to_markdown(*c);
  }
  (void)write_json(r);
  (void)write_jsonl(r);
  (void)write_csv(r);
  (void)write_markdown(r);
}

// Every field a writer prints, and every sample to the bit.
std::string fingerprint(const ResultRow& r) {
  std::string out = row_to_json(r).dump();
  for (const auto& [name, values] : r.samples) {
    for (double v : values) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      out += " " + std::to_string(bits);
    }
  }
  return out;
}

void fast_against_strict(const std::string& text) {
  const auto fast = fast_row_from_text(text);
  if (!fast) return;  // handed back: the strict reader reads it in the file readers above
  auto tree = parse_json_text(text, "row");
  if (!tree) __builtin_trap();  // the fast path read a row that is not JSON
  Diagnostics d("row");
  check_row_record(*tree, "", d);
  if (!d.ok()) __builtin_trap();  // ... or one the checks refuse
  auto strict = row_from_json(*tree);
  if (!strict || fingerprint(*strict) != fingerprint(*fast)) __builtin_trap();  // ... or read it differently
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t kind = std::string_view("rjw").find(static_cast<char>(data[0]));
  if (kind == std::string_view::npos) kind = data[0] % 3;
  if (kind == 2) {
    fast_against_strict(text);
    return 0;
  }
  auto results = kind == 0 ? parse_results_text(text, "results.json") : parse_journal_text(text, "journal.jsonl");
  if (results) use(*results);
  return 0;
}
