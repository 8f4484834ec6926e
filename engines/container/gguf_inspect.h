// gguf_inspect.h — a GGUF file's header as text, for `moebench container
// inspect`: version, alignment, which part of a moebench container it is
// (trunk or experts), every metadata entry with its type (values shortened,
// invalid UTF-8 shown as U+FFFD), and the tensor table with file offsets.
// Works on any GGUF file, moebench's or llama.cpp's. Pure: reads nothing.
#pragma once

#include <string>

#include "engines/container/gguf.h"

namespace moebench {

std::string inspect_gguf(const GgufFile& f);

}  // namespace moebench
