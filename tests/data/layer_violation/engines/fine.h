// fine.h — a fixture, never compiled: an engine header including only the
// vocabulary below it, which the layer check accepts.
#pragma once
#include "vocab/units.h"
