// resident_engine.h — every weight in RAM: the container (all drive files of
// the point) is read into anonymous memory once per set-up (O_DIRECT, or
// buffered where refused; mlock when `mlock=1` and allowed — the method is
// noted in the row), then each run executes the model over it. A container
// plus KV state that does not fit in usable memory is refused (infeasible)
// with both figures.
//
// Options: packed=0|1 (container layout, default 0 = llama.cpp's split
// tensors), mlock=0|1 (default 0), chunk=N (prefill chunk, default 32).
#pragma once

#include <memory>

#include "engines/engine.h"
#include "engines/engine_options.h"

namespace moebench {

std::unique_ptr<Engine> make_resident_engine(const EngineSpec& spec);
// Its options, as data (engines/engine_options.h).
const OptionTable& resident_engine_options();

}  // namespace moebench
