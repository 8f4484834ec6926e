// json_scan.h — reads a large JSON document without building its tree: the
// top-level object is scanned member by member, and the elements of one
// array member (a results file's "rows") are handed over one at a time as
// text, so memory holds one element, not the file. Each element is then
// parsed by the strict reader (json_reader.h), which gives every rule of
// that reader (duplicate keys, depth, 1e999) and line numbers.
//
// The scanner checks only the structure it walks (braces, brackets, commas,
// colons, strings and comments, which it ends where the strict reader does);
// what lies inside a value is the strict reader's business. An element cut
// off by the end of the file is not handed over: the scan says the file is
// truncated. A document whose top level is not an object, or whose
// streamed member is not an array, is handed back whole (see ScannedObject).
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "vocab/expected.h"

namespace moebench {

// Where an element of the streamed array starts (its text's first byte, just
// after the '[' or ',' before it) and which it is.
struct ElementPlace {
  std::size_t line = 1;
  std::size_t column = 1;
  std::size_t index = 0;
};
// Receives each element's text: blanks and comments around the value
// included, so the strict reader checks them too.
using ElementSink = std::function<Status(std::string_view text, const ElementPlace& place)>;

struct ScannedObject {
  // The document with the streamed member's value replaced by [] (padded
  // with newlines and spaces, so what follows keeps its line and column). It
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
