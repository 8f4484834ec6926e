// json_scan.h — reads a large JSON document without building its tree: the
// top-level object is scanned member by member, and the elements of one
// array member (a results file's "rows") are handed over one at a time as
// text, so memory holds one element, not the file. Each element is then
// parsed by the strict reader (json_reader.h), which gives every rule of
// that reader (duplicate keys, depth, 1e999) and line numbers.
//
// The scanner checks only the structure it walks (braces, brackets, commas,
// colons, strings and comments); what lies inside a value is the strict
// reader's business. A document whose top level is not an object, or whose
// streamed member is not an array, is handed back whole (see ScannedObject).
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "vocab/expected.h"

namespace moebench {

// One element of the streamed array: its text, the file line it starts on
// and its index.
using ElementSink = std::function<Status(std::string_view text, std::size_t line, std::size_t index)>;

struct ScannedObject {
  // The document with the streamed member's value replaced by [] (padded
  // with newlines, so every line before and after it keeps its number). It
  // is the whole document, untouched, when the top level is not an object or
  // the member holds no array: then no element was handed over.
  std::string rest;
  bool streamed = false;        // the member was found and its elements handed over
  std::size_t elements = 0;
};

// Scans the JSON text from `file` (read in blocks from its current
// position) or from `text`; `label` names it in errors ("FILE:LINE: ...").
// The first member named `key` whose value is an array is streamed into
// `sink`; an error from the sink stops the scan and is returned as is.
Expected<ScannedObject> scan_json_object(std::FILE* file, const std::string& label, std::string_view key,
                                         const ElementSink& sink);
Expected<ScannedObject> scan_json_object(std::string_view text, const std::string& label, std::string_view key,
                                         const ElementSink& sink);

}  // namespace moebench
