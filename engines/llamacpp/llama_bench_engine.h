// llama_bench_engine.h — llama.cpp as a sweep engine ("llama-bench" with
// option path=BINARY): the point's container exported as a GGUF llama.cpp
// loads (gguf_export.h), llama-bench run on it with the point's conditions
// (threads, prompt and generation lengths, context depth -d, load mode,
// ubatch; a RAM budget through a memory cgroup where one is writable), and
// its JSON turned into the point's Measurement (llama_bench.h). Rows carry
// provenance "measured" and name llama.cpp's build.
#pragma once

#include <memory>

#include "engines/engine.h"
#include "engines/engine_options.h"

namespace moebench {

const OptionTable& llama_bench_engine_options();

// The GGUF llama.cpp would load for `point` (its container made or reused on
// ctx's first drive, then exported): the path, for sizing a budget by it.
Expected<std::string> llama_export_for(const Point& point, RunContext& ctx);
std::unique_ptr<Engine> make_llama_bench_engine(const EngineSpec& spec);

}  // namespace moebench
