// journal_format.h — the journal's on-disk format (JSONL), read and built:
// line 1 a "header" record (journal version, sweep, environment), a
// "segment" record per resumed invocation, a "row" record per finished
// point. The writer that appends and fsyncs them is harness/journal.h; this
// half is vocabulary, read by reports, compare and --resume alike.
#pragma once

#include <cstdint>
#include <string>

#include "vocab/json_reader.h"
#include "vocab/run_results.h"

namespace moebench {

inline constexpr int kJournalVersion = 1;

// A journal's intact prefix: its records, and how many bytes of the text
// they span (a torn last line is outside it).
struct JournalPrefix {
  RunResults results;
  std::uint64_t good_bytes = 0;
  bool has_header = false;
};
// Parses what a journal holds; a torn last line is dropped, every other
// problem is an error naming `path`, the line and the JSON Pointer. A row
// must belong to the journal: written by a run a header or segment line
// above it started, for a point of the sweep (of the shard, if one).
// Two different rows for one point are refused, except a retry that
// replaces a failed one.
Expected<JournalPrefix> parse_journal_prefix(const std::string& path, const std::string& text);

// The lines a journal is made of, each ending in a newline.
std::string journal_header_line(const SweepInfo& sweep, const Environment& env);
std::string journal_segment_line(const Environment& env);
// A row with `replaces_failed` is a retry (--retry-failed): it replaces the
// point's earlier row if that one failed. Any other second row for a point
// must repeat the first exactly, else the journal is refused as damaged.
std::string journal_row_line(const ResultRow& row, bool replaces_failed = false);

// Reads a journal without opening it for writing (for `report`-style tools
// and tests). Drops a torn last line (one without its newline, or a last
// line that is not JSON). Every other problem is an error naming the file,
// the line and the JSON Pointer: a line that is not JSON, or JSON that is
// not a record (`[1]`, `3`), a record of an unknown type, a field missing,
// of the wrong type or out of range. Never throws.
Expected<RunResults> read_journal(const std::string& path);
// The same for a journal's text (`label` names it in errors).
Expected<RunResults> parse_journal_text(const std::string& text, const std::string& label);

// Checks of the records a journal line or a results.json holds, made before
// the decoders (sweep_info_from_json, environment_from_json, row_from_json)
// see them: every field they read is present with its type, and every number
// is in the range of the field that holds it (a row's point is one a sweep
// could have made: see the limits in sweep_spec.h). Issues go to `d` at JSON
// Pointers under `path`; unknown keys are allowed (newer writers may add).
void check_sweep_record(const Json& j, const std::string& path, Diagnostics& d);
void check_environment_record(const Json& j, const std::string& path, Diagnostics& d);
void check_row_record(const Json& j, const std::string& path, Diagnostics& d);

}  // namespace moebench
