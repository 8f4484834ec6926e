// plan_view.h — a fixture, never compiled: a model header that reaches up
// into the harness, which cmake/check_layers.cmake must refuse (the model
// sits below the harness; a plan is the harness's use of the model).
#pragma once
#include "harness/machine_plan.h"
#include "model/setup_model.h"
