// analytic_engine.cpp — see analytic_engine.h.
#include "engines/analytic/analytic_engine.h"

namespace moebench {

namespace {

class AnalyticEngine final : public Engine {
 public:
  AnalyticEngine(MachineProfile profile, Efficiency eff) : profile_(std::move(profile)), eff_(eff) {}
  std::string_view name() const override { return "analytic"; }
  Expected<Measurement> run(const Point& point, RunContext& ctx) override {
    PredictContext pc;
    pc.seed = ctx.seed;
    pc.repetition = ctx.repetition;
    auto p = predict_point(profile_, ctx.card, point, eff_, pc);
    if (!p) return p.error();
    return p->m;
  }

 private:
  MachineProfile profile_;
  Efficiency eff_;
};

}  // namespace

const OptionTable& analytic_engine_options() {
  static const OptionTable kNone;
  return kNone;
}

std::unique_ptr<Engine> make_analytic_engine(MachineProfile profile, Efficiency eff) {
  return std::make_unique<AnalyticEngine>(std::move(profile), eff);
}

}  // namespace moebench
