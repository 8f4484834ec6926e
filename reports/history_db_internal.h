// history_db_internal.h — what the parts of HistoryDb share (history_db.cpp
// opens and adds, history_db_read.cpp reads back): the error wording for a
// failed statement. Internal to reports/; callers use history_db.h.
#pragma once

#include <string>

#include "vocab/expected.h"

namespace moebench::history_internal {

inline Error db_error(const std::string& label, const std::string& what, const Error& cause) {
  return make_error(label + ": " + what + " (" + cause.message + ")");
}

}  // namespace moebench::history_internal
