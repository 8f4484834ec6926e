// analytic_engine.cpp — see analytic_engine.h.
#include "model/analytic_engine.h"

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

const EngineInfo* prediction_engine() {
  static const EngineInfo kRow{
      "analytic",
      "the cost model: predicts the measurement the point's real engine would give on a profiled machine "
      "(calibration applied), loading and reading nothing; rows carry provenance \"predicted\"",
      EngineCaps{false, false, false, true}, analytic_engine_options, nullptr,
      [](const EngineSpec&, const MachineProfile& machine) -> std::unique_ptr<Engine> {
        return make_analytic_engine(machine, profile_efficiency(machine));
      }};
  return &kRow;
}

}  // namespace moebench
