// reproduce.h — `moebench reproduce CLAIM_ID` as a library: the sweep that
// emulates a published claim on this machine, and the verdict on its rows.
//
// A claim was measured on a machine moebench does not have, usually much
// faster than this one. The emulation is time-dilated: this machine's
// kernels run at their own speed, and every drive is throttled so that I/O
// keeps the proportion to compute that it had on the claimed machine.
//   dilation D    the claimed machine's decode kernel throughput ÷ this
//                 machine's, for the case's expert quant (cost_model.h:
//                 matvec_rate — the probe's kernel figure here, the
//                 profile's memory / FLOP figures × its decode efficiency
//                 there). Everything here takes D× as long as there.
//   drives        the claimed drive set's read rate at the expert record's
//                 size (QD32), ÷ D, split over the same number of drive
//                 directories: each directory's throttle. Refused when this
//                 machine's drives (the probe's best repeat at that read
//                 size, × the calibrated I/O efficiency when `calibrate`
//                 measured one, × a 0.9 headroom so that the throttle, not
//                 the disk, binds) cannot deliver it; after the run, a row
//                 whose drives read slower than the throttle says so.
//   card          scaled to fit this machine's disk and time (default
//                 layers=2, experts=64; --scale): every tensor keeps its
//                 shape, so one layer costs what it costs in the full model.
//   memory        the claimed case's split (setup_model.h: estimate_case)
//                 carried over: the head and KV stay; the trunk is pinned or
//                 streamed as the case has most of it (the scaled card's
//                 two layers cannot pin a fraction: the derivation says so);
//                 the expert cache keeps its share of the expert pool, at
//                 least one layer's top-k. The budget is the smallest that
//                 gives those slots on this machine's cost model.
//   conditions    stated ones as stated; unstated ones over the model's
//                 plausible sets (setup_model.h: plausible_cases); of the
//                 cases the engines can run, the slowest and the fastest by
//                 the setup model's realistic figure are run: the
//                 reproduction is a band when conditions are unstated.
// After the run, each row's full-model figure (harness/full_model.h, with
// the full case's cache slots) ÷ D is the claimed machine's decode rate.
// Refusals ("cannot be emulated here") name the reason: no card or
// profile; GPUs or linked nodes (not emulable on one CPU host); speculative
// decoding; an aggregate serving figure; quants no engine kernel runs;
// drives or memory this machine lacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/claim_check.h"
#include "model/regime_fit.h"
#include "vocab/claim.h"
#include "vocab/engine_efficiency.h"
#include "vocab/expected.h"
#include "vocab/machine_profile.h"
#include "vocab/model_card.h"
#include "vocab/point.h"
#include "vocab/run_results.h"

namespace moebench {

struct ReproduceOptions {
  Scale scale;                      // a part left out: layers min(L, 2), experts min(E, 64)
  int repetitions = 2;
  std::int64_t gen_tokens = 8;      // decode window = gen − 1 tokens (the first leaves with prefill)
  std::int64_t max_prompt_tokens = 256;  // longer stated prompts run this many (TTFT then not compared)
  double tolerance = 0.25;          // reproduced: |reproduction − claim| ≤ this share of the claim
  double drive_headroom = 0.9;      // the throttled total may use this share of this machine's drives
  std::vector<std::string> drive_dirs;  // default moebench-drives/d0, d1, …
  std::uint64_t seed = 42;
  const RegimeFit* regimes = nullptr;  // prices each case as `claims` does (configs/fits/regimes.json); nullptr: `eff`
};

// One plausible case of the claim, as this machine runs it.
struct EmulatedCase {
  std::string label;                // the case's assumed values, or "as stated"
  std::string engine;               // engine spec: "streaming:trunk=stream", "resident"
  std::string quant, trunk_quant;   // engine quants (experts, trunk)
  std::optional<std::uint64_t> budget_bytes;  // the scaled budget (streaming)
  int drives = 1;
  std::optional<double> throttle_bytes_s;     // per drive directory, here
  std::int64_t context = 0, prompt = 8, gen = 8;
  int threads = 0;                  // engine threads here (the probe's kernel figure at this count)
  double dilation = 1;              // claimed machine's kernel throughput ÷ this machine's
  std::size_t full_slots = 0;       // the full model's expert-cache slots in this case (0: resident)
  double predicted_tok_s = 0;       // the setup model's realistic figure for this case, claimed machine
  std::vector<std::string> derivation;  // one line each, with units
};

struct ReproductionPlan {
  std::string claim_id;
  std::string cannot;               // not empty: cannot be emulated here, and why
  std::string scale;                // "layers=2,experts=64"
  std::vector<EmulatedCase> cases;  // the cases run (one, or the band's two ends)
  std::vector<std::string> skipped; // plausible cases not emulated, each with why
  std::string sweep_json;           // the sweep that runs the cases
  double predicted_run_s = 0;       // this machine's cost model over the sweep (containers not included)
  std::vector<std::string> notes;
};

// `card`: the claim's card (scaled as the claim says, never by the
// reproduction); `claimed`: its hardware profile; `here`: this machine's
// probe profile; `eff`: the engine family's efficiencies (the setup model's
// realistic figure per case). A plan whose `cannot` is set has no sweep.
Expected<ReproductionPlan> plan_reproduction(const Claim& claim, const ModelCard& card, const MachineProfile& claimed,
                                             const MachineProfile& here, const EngineEfficiency& eff,
                                             const ReproduceOptions& options);

// The case a point of the plan's sweep runs (nullptr for a foreign point).
const EmulatedCase* case_of_point(const ReproductionPlan& plan, const Point& p);

struct ReproducedCase {
  const EmulatedCase* c = nullptr;
  std::string status;               // the row's status ("ok", "failed: …", "missing")
  std::optional<double> here_full_tok_s;   // the full model on this machine, dilated
  std::optional<double> claimed_tok_s;     // ÷ D: the claimed machine
  std::optional<double> claimed_ttft_s;
  std::optional<double> scaled_tok_s;      // what the scaled card itself ran at
  std::optional<double> read_busy_bytes_s; // the drives' rate while reads were outstanding
  std::string caveat;                      // the disk, not the throttle, set the rate
};

struct ReproductionVerdict {
  std::string verdict;   // "reproduced" | "not reproduced" | "cannot be emulated here"
  std::string reason;    // one line
  double claim_tok_s = 0;
  std::optional<double> low_tok_s, high_tok_s;  // the reproduction (a band over cases)
  std::vector<ReproducedCase> cases;
};

// The verdict from the run's rows: the claim's decode figure (a whole-run
// average when the claim's figure is one and its lengths are stated) against
// the reproduction's, within the tolerance; `judged`: the setup model's
// prediction for the claim, printed beside it.
ReproductionVerdict judge_reproduction(const ReproductionPlan& plan, const Claim& claim, const RunResults& results,
                                       double tolerance);

// The side-by-side text: claim, reproduction, prediction, verdict; then the
// cases and their derivations.
std::string write_reproduction(const ReproductionPlan& plan, const Claim& claim, const ClaimJudgement& judged,
                               const ReproductionVerdict* verdict);

// The same as JSON (`reproduce --json`; reproduce_json.cpp): a figure that
// is not there (a dry run, a failed row) is null.
Json reproduction_json(const ReproductionPlan& plan, const Claim& claim, const ClaimJudgement& judged,
                       const ReproductionVerdict* verdict);

}  // namespace moebench
