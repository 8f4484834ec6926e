// card_view.h — a fixture, never compiled: a vocabulary header that reaches
// up into the engines, which cmake/check_layers.cmake must refuse.
#pragma once
#include <string>
#include "engines/engine.h"
#include "vocab/model_card.h"
