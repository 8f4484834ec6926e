// json_text_writer.h — JSON text written straight from values, byte for
// byte what nlohmann's dump(indent, ' ', false, replace) writes for the same
// tree (compact or indented, numbers by its own shortest-digits routine),
// without building the tree: for the records written once per point or row
// (journal lines, results files, point ids), where allocating a tree per
// record was most of the cost. The caller writes keys in the order the tree
// would hold them (std::map: sorted; ordered_json: as inserted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vocab/json_reader.h"

namespace moebench {

// Writes JSON text as nlohmann's dump(indent, ' ', false, replace) writes
// it: indent < 0 compact, else that many spaces per level, every line after
// the first indented by `base` spaces more (a value nested in a document).
class JsonTextWriter {
 public:
  explicit JsonTextWriter(std::string& out, int indent = -1, std::size_t base = 0)
      : out_(out), indent_(indent), base_(base) {}
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);
  void string(std::string_view s);
  void number(double v);  // NaN and infinities as null, as nlohmann writes them
  void integer(std::int64_t v);
  void unsigned_integer(std::uint64_t v);
  void null();

 private:
  void next_item();
  void value_start();
  void newline();
  void open(char bracket, bool array);
  void close(char bracket);
  std::string& out_;
  int indent_;
  std::size_t base_;
  std::vector<bool> in_array_;  // per open container
  bool first_ = true;           // nothing written yet in the innermost container
};

}  // namespace moebench
