// row_text.h — a result row decoded straight from its JSON text, for files of
// many rows.
//
// Most of a row's text is its bulk: the metric summaries, the samples and the
// derived "columns". Building an nlohmann tree of them costs most of a
// results file's read. This reads them with a small strict scanner into the
// row itself, and hands only the rest (point, notes, names, counts) to the
// strict reader and its checks (check_row_record, row_from_json), so that
// every rule has one home.
//
// And back: a row's text written straight from the row, byte for byte what
// nlohmann's dump of row_to_json gives (compact or indented), without the
// tree (allocating it was most of writing a results file).
//
// The reader is a fast path, not a second reader: it accepts only text written the
// way moebench writes it (no comments, no escapes in the bulk's keys, no
// duplicate keys, numbers in double range, metric summaries with exactly
// their fields, at most one sample per run) and gives up on anything else.
// On a give-up the caller reads the row the strict way, which names the
// problem. A row it accepts decodes to exactly what the strict way gives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/json_text_writer.h"
#include "vocab/result_row.h"

namespace moebench {

// The row held by `text` (one element of a results file's "rows", or the
// value of a journal line's "row"), or nullopt: read it the strict way.
std::optional<ResultRow> fast_row_from_text(std::string_view text);

// The members of row_to_json(row), in its key order, into an open object.
void write_row_members(JsonTextWriter& w, const ResultRow& row);
// row_to_json(row).dump(indent) without the tree.
std::string row_text(const ResultRow& row, int indent = -1);

}  // namespace moebench
