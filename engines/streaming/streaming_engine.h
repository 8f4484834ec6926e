// streaming_engine.h — trunk in RAM, routed experts read on demand from the
// drive set into a RAM expert cache, as a laptop running a model larger
// than its memory does.
//
// Set-up (once per container and drive set): the container is made or
// reused on the point's drive directories; every drive's file is opened and
// checked (replicas must carry the same identity and checksums, a stripe
// must hold each expert on its home drive); the trunk tensors at the front
// of drive 0's file are loaded with O_DIRECT.
//
// Each run: the expert cache gets what the RAM budget leaves after the
// process's resident memory (trunk, KV/state, executor buffers, this
// process's baseline) and a working margin; fewer slots than one layer's
// top-k makes the point `infeasible`, stating the minimum budget. The cache
// starts cold every run (prefill warms it). Reads go through ExpertIo
// (io_uring with the cache registered as fixed buffers, or pread threads),
// issued the moment a layer's router has chosen, for every missing expert
// of the layer at once; compute then takes the experts in order, so reads
// overlap the shared experts and the earlier experts' compute.
// prefetch=next-layer additionally reads, right after a layer's own reads,
// the experts the previous token used in the next layer (the guess a
// sticky or skewed routing rewards); a prefetched expert that is ready when
// needed is a miss hidden by prefetch.
//
// Options: packed=0|1 (one read per expert), qd=N (reads in flight, default
// 32), io=auto|io_uring|pread, fault=eio@N|short@N (fault injection, tests),
// chunk=N (prefill chunk, default 32).
#pragma once

#include <memory>
#include <string>

#include "engines/engine.h"
#include "engines/engine_options.h"

namespace moebench {

std::unique_ptr<Engine> make_streaming_engine(const EngineSpec& spec);
// Its options, as data (engines/engine_options.h).
const OptionTable& streaming_engine_options();

}  // namespace moebench
