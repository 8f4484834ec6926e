// sweep_session.h — `moebench run` and `moebench predict` as a library: the
// CLI parses its options into a SweepRequest and calls three steps.
//   plan_sweep          load and expand the sweep (and keep one shard's points
//                       under --shard), check and create the drive directories, state and check the containers' disk need,
//                       load the machine profile: everything known before a
//                       file is written.
//   open_sweep_session  capture the environment, make the results directory,
//                       refuse results paths that are symlinks or devices, open
//                       (or resume) the journal.
//   run_sweep_session   drive the points through the engines (the registry's,
//                       or its predicting engine for `predict`; the throttle
//                       decorator for --io-throttle) and write the results
//                       files every 2 s and at the end.
// explain_sweep_point gives `predict --explain N`'s derivation as text.
// Every error's message is the complete line the CLI prints; lines said on
// the way (created directories, the disk need, the build warning) go to the
// caller's `say`, in order, even when a later step fails.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engines/registry.h"
#include "harness/journal.h"
#include "harness/runner.h"
#include "harness/shard_plan.h"
#include "vocab/clock.h"
#include "vocab/config_store.h"
#include "vocab/dir_lock.h"
#include "vocab/environment.h"
#include "vocab/machine_profile.h"
#include "vocab/progress.h"
#include "vocab/sweep_spec.h"

namespace moebench {

struct SweepRequest {
  std::string command = "moebench run";  // begins every message
  std::string sweep = "quick";           // file, or name in configs/sweeps
  std::string out_dir;                   // empty: results/<sweep>[-predicted-<machine>]
  bool resume = false;
  bool fresh = false;
  bool retry_failed = false;             // with resume: failed points run again
  bool quiet = false;                    // no notes on the way
  std::string machine;                   // profile file or configs/hardware name
  std::string default_machine;           // predict: tried when `machine` is empty
  double timeout_s = 0;                  // 0: the sweep's
  double hard_grace_s = 30;
  std::vector<std::string> formats = {"md", "csv", "json", "jsonl"};
  std::vector<std::string> drive_dirs;   // replace the sweep's when given
  std::optional<double> io_cap_bytes_s;  // --io-throttle
  bool predict = false;                  // every point through the predicting engine
  std::string command_line;              // recorded in the environment
  // A sweep made by the caller (reproduce): its JSON text and a label for
  // messages; `sweep` is then not looked up.
  std::string sweep_text, sweep_label;
  std::optional<ShardSpec> shard;        // run one shard of the sweep (harness/shard_plan.h)
  // --points: only these points (1-based, sweep order), e.g. one point at a
  // time for a paired A/B gate; empty: all (of the shard).
  std::vector<std::size_t> points;
  // --repetitions / --warmup: the sweep's counts replaced (its digest then
  // says so, so a journal of the sweep as written is not resumed by it).
  std::optional<int> repetitions, warmup;
  bool dry_run = false;                  // plan only: no drive directory is created
  std::string provenance;                // rows' provenance ("" = the engine's): RunnerOptions
  std::function<std::optional<FullModelTarget>(const Point&)> full_model_target;  // RunnerOptions
};

using SayFn = std::function<void(const std::string& line)>;

// What is known before anything is written.
struct SweepPlan {
  SweepSpec spec;
  std::vector<Point> points;
  std::optional<MachineProfile> machine;
  std::string profile_label;  // "name (source)", empty without a profile
  std::string machine_label;  // the profile's name, empty without one
  std::string machine_source; // where the profile came from (ResolvedMachine::source)
  const EngineInfo* predictor = nullptr;  // predict: the registry's predicting engine
  std::size_t points_total = 0;           // the whole sweep's (points holds only a shard's)
  std::optional<ShardInfo> shard;         // --shard: which part `points` is
  std::optional<ScaleFit> scale_fit;      // configs/fits/scale.json when present: the full-model columns' bands

  // The engine table row that runs a point of engine `name` (the predictor
  // under predict); nullptr for an unknown name.
  const EngineInfo* runs_point(const std::string& name) const;
};

Expected<SweepPlan> plan_sweep(const SweepRequest& request, const ConfigStore& store, SweepContext ctx,
                               const SayFn& say);

// predict --explain N (1-based, sweep order): the derivation as text.
Expected<std::string> explain_sweep_point(const SweepRequest& request, const SweepPlan& plan,
                                          const ConfigStore& store, int n);

struct SweepSession {
  DirLock lock;  // one writer per results directory (released after the journal closes)
  Environment env;
  std::string machine_label;  // the profile's, or "unprofiled:<host>"
  std::string out_dir;
  Journal journal;
};

Expected<SweepSession> open_sweep_session(const SweepRequest& request, const SweepPlan& plan,
                                          const SayFn& say);

struct SweepRunEnd {
  Expected<RunOutcome> outcome;  // an error: the run stopped (rows so far are kept)
  Status written;                // the final results-files write
};

SweepRunEnd run_sweep_session(const SweepRequest& request, const SweepPlan& plan, const ConfigStore& store,
                              SweepSession& session, Clock& clock, Progress& progress,
                              std::atomic<bool>* interrupt);

// "OUT: journal.jsonl + results.{md,csv}" or the journal-only form after a failed write.
std::string sweep_files_written(const SweepRequest& request, const Status& written);

}  // namespace moebench
