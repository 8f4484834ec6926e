// cmd_plan.cpp — `moebench plan`: which machine to buy (or rent) for a model
// at a target decode speed. Ranks the hardware catalog and this machine's
// probe profile (when present): fits or not and why, predicted decode tok/s
// (a range from the spec uncertainty), a memory-bound TTFT lower bound, the
// drives needed to reach the target, price and price per tok/s
// (harness/machine_plan.h ranks and writes).
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.h"
#include "harness/claim_review.h"
#include "harness/machine_plan.h"
#include "harness/token_cost.h"
#include "model/engine_families.h"
#include "reports/history_db.h"
#include "vocab/units.h"
#include "vocab/quant_format.h"
#include "vocab/text.h"

namespace moebench {
namespace {

struct PlanArgs {
  std::string model;
  std::string quant;
  double min_tok_s = 0;
  std::int64_t context = 4096;
  std::int64_t prompt = 1000;
  double max_ttft_s = 0;
  std::vector<std::string> machines;  // extra profiles (files)
  std::string trunk_quant;
  std::string budget;
  // The cost table (harness/token_cost.h): shown when --kwh-price or --api-price is given.
  double kwh_price = -1;
  std::string api_price;
  double hours_per_day = 24;
  double years = 3;
  std::string measured_db;  // history database with measured rows
  std::string engine = "any";
  int drives = 0;           // 0: the fewest that reach the target
  double expert_bits = 0;   // 0: the quant's
  bool json = false;        // the ranking (and cost table) as JSON on stdout
};

Expected<int> plan_command(const PlanArgs& a, const CliState& state) {
  const ConfigStore store = state.store();
  auto card = store.card(a.model);
  if (!card) return fail(card.error().message);
  PlanRequest req;
  req.model = a.model;
  req.quant = a.quant.empty() ? card->expert_quant : a.quant;
  req.min_tok_s = a.min_tok_s;
  req.context = a.context;
  req.prompt = a.prompt;
  req.max_ttft_s = a.max_ttft_s;
  req.engine_family = engine_family(a.engine);
  if (a.drives > 0) req.drives = a.drives;
  if (a.expert_bits > 0) req.expert_bits = a.expert_bits;
  if (!find_quant(req.quant)) return fail("--quant: unknown quant \"" + req.quant + "\" (moebench card show lists them)");
  req.trunk_quant = a.trunk_quant;
  for (char& ch : req.trunk_quant) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (!req.trunk_quant.empty() && !published_quant_bits(req.trunk_quant)) {
    return fail("--trunk-quant: unknown quant \"" + req.trunk_quant + "\"; known: " + join(published_quant_names(), ", ") +
                " (and GGUF names built on one: ud-, mix-, _r4, _xl)");
  }
  if (!a.budget.empty()) {
    auto b = parse_size_bytes(a.budget);
    if (!b) return fail("--budget: " + b.error().message);
    if (*b == 0) return fail("--budget: \"" + a.budget + "\" is less than one byte");
    req.budget_bytes = static_cast<double>(*b);
  }
  auto eff = stored_efficiency(store);
  if (!eff) return fail(eff.error().message);
  // The catalog, this machine's probe profile when present, then --machine files.
  std::vector<std::string> sources = store.names("hardware");
  const std::string probe = default_probe_path();
  if (std::filesystem::exists(probe)) sources.push_back(probe);
  for (const std::string& m : a.machines) sources.push_back(m);
  auto regimes = stored_regimes(store);
  if (!regimes) return fail(regimes.error().message);
  auto rows = plan_machines(store, *card, req, sources, probe, &*eff, *regimes ? &**regimes : nullptr);
  if (!rows) return fail(rows.error().message);
  if (!a.measured_db.empty()) {
    auto db = HistoryDb::open(a.measured_db, HistoryDb::Mode::kReadOnly);
    if (!db) return fail("--measured-db: " + db.error().message);
    auto measured = measured_from_history(*db, req, *rows);
    if (!measured) return fail("--measured-db: " + measured.error().message);
    rank_measured_first(*rows, *measured, req);
    say("moebench plan: {} of {} machines measured in {}", measured->size(), rows->size(), db->path());
  }
  std::optional<CostRequest> cost;
  if (a.kwh_price >= 0 || !a.api_price.empty()) {
    if (a.kwh_price < 0 || a.api_price.empty()) return fail("the cost table needs both --kwh-price and --api-price");
    auto api = parse_api_price(a.api_price);
    if (!api) return fail("--api-price: " + api.error().message);
    cost = CostRequest{a.kwh_price, api->first, api->second, a.hours_per_day, a.years};
  }
  if (a.json) {
    Json out = plan_json(req, *rows);
    if (cost) out["cost"] = cost_json(*rows, *cost, a.prompt);
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("{}", write_plan_table(req, *rows));
  if (cost) fmt::print("{}", write_cost_table(*rows, *cost, a.prompt));
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Rank machines for a model at a target decode speed (fits, tok/s, drives, price).");
  cmd->footer("Example:\n"
      "  moebench plan --model kimi-k3 --quant mxfp4 --min-decode-tok-s 1\n"
      "  moebench plan --model kimi-k3 --expert-bits 2.8 --trunk-quant q4g --engine waste --budget 29.06GB --drives 1 --min-decode-tok-s 0.5\n"
      "  moebench plan --model deepseek-v3-671b --min-decode-tok-s 5 --context 32768 --max-ttft 10\n"
      "  moebench plan --model kimi-k3 --min-decode-tok-s 1 --kwh-price 0.30 --api-price 3/15 --hours-per-day 8 --years 3\n"
      "  moebench plan --model kimi-k3 --min-decode-tok-s 1 --measured-db postgresql://moebench@db.lab/moebench");
  cmd->add_option("--model", args->model, "model card")->required();
  cmd->add_option("--quant", args->quant, "expert quant (default: the card's native)");
  cmd->add_option("--min-decode-tok-s", args->min_tok_s, "target single-stream decode speed")->required()->check(positive_number());
  cmd->add_option("--context", args->context, "context length in tokens (default 4096)")->check(CLI::Range(0, 1 << 24));
  cmd->add_option("--prompt", args->prompt, "prompt length for the TTFT bound (default 1000)")->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--max-ttft", args->max_ttft_s, "TTFT limit in seconds")->check(positive_number());
  cmd->add_option("--machine", args->machines, "also rank this profile file (repeatable)");
  cmd->add_option("--measured-db", args->measured_db,
                  "history database (SQLite file or postgresql:// URL): machines measured with this model and quant "
                  "rank first, on their measured decode rate, marked \"measured\"; the rest follow, predicted");
  cmd->add_option("--trunk-quant", args->trunk_quant, "quant of the trunk (default: the card's)");
  cmd->add_option("--engine", args->engine,
                  "engine family whose fitted efficiencies and defaults apply, e.g. llama.cpp, ik_llama.cpp, waste, mlx-lm "
                  "(default any: the pooled fit)");
  cmd->add_option("--drives", args->drives, "drives to stream from (default: the fewest that reach the target)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--expert-bits", args->expert_bits,
                  "bits per routed-expert weight instead of the quant's (a vector-quantized container, as a claim's "
                  "expert_bits_per_weight)")
      ->check(CLI::Range(1.0, 32.0));
  cmd->add_option("--budget", args->budget, "RAM budget for weights and cache, e.g. 48GiB (default: usable memory)");
  cmd->add_option("--kwh-price", args->kwh_price, "electricity price in $ per kWh: adds the cost table (with --api-price)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--api-price", args->api_price, "API price IN/OUT in $ per million tokens, e.g. 3/15");
  cmd->add_option("--hours-per-day", args->hours_per_day, "hours a day the machine works (default 24)")
      ->check(CLI::Range(0.1, 24.0));
  cmd->add_flag("--json", args->json, "the ranking as JSON instead of the markdown table (figures a row lacks are null)");
  cmd->add_option("--years", args->years, "years the hardware's price is spread over (default 3)")->check(CLI::Range(0.1, 50.0));
  cmd->callback([args, &state] { finish(state, "plan", plan_command(*args, state)); });
}

}  // namespace moebench
