// cmd_plan.cpp — `moebench plan`: which machine to buy (or rent) for a model
// at a target decode speed. Ranks the hardware catalog and this machine's
// probe profile (when present): fits or not and why, predicted decode tok/s
// (a range from the spec uncertainty), a memory-bound TTFT lower bound, the
// drives needed to reach the target, price and price per tok/s.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "engines/analytic/claim_check.h"
#include "vocab/quant_format.h"
#include "cli/commands.h"
#include "vocab/text.h"
#include "vocab/units.h"

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
};

struct Row {
  std::string name, price_text;
  MachineEstimate e;
  bool meets = false;
  std::string reason;
  double price = 0, price_per = 0;
  bool hourly = false;
};

int plan_command(const PlanArgs& a, const CliState& state) {
  auto fail = [](const std::string& m) {
    std::fprintf(stderr, "moebench plan: %s\n", m.c_str());
    return 1;
  };
  const ConfigStore store = state.store();
  auto card = store.card(a.model);
  if (!card) return fail(card.error().message);
  const std::string quant = a.quant.empty() ? card->expert_quant : a.quant;
  if (!find_quant(quant)) return fail("--quant: unknown quant \"" + quant + "\" (moebench card show lists them)");
  std::vector<std::string> sources = store.names("hardware");
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const std::string probe = "results/probe-" + std::string(host) + ".json";
  if (std::filesystem::exists(probe)) sources.push_back(probe);
  for (const std::string& m : a.machines) sources.push_back(m);
  std::vector<Row> rows;
  for (const std::string& name : sources) {
    auto src = store.find("hardware", name);
    if (!src) return fail(src.error().message);
    auto profile = load_config_text<MachineProfile>(src->text, src->label, load_machine_profile);
    if (!profile) return fail(profile.error().message);
    Row r;
    r.name = profile->name + (name == probe ? " (this machine)" : "");
    const int max_drives = static_cast<int>(std::max<std::size_t>(1, profile->drives.size()));
    // The fewest drives that reach the target (all of them if none does).
    for (int d = 1; d <= max_drives; ++d) {
      r.e = estimate_machine(*card, quant, *profile, a.context, a.prompt, d);
      if (!r.e.fits || r.e.tok_s_high >= a.min_tok_s) break;
    }
    if (!r.e.fits) {
      r.reason = "does not fit: " + r.e.why;
    } else if (r.e.tok_s_high < a.min_tok_s) {
      r.reason = "too slow: at most " + format_fixed(r.e.tok_s_high, 3) + " tok/s" +
                 (r.e.storage_share > 0 ? " (" + format_fixed(100 * r.e.storage_share, 0) + " % of the model read from storage per token)" : "");
    } else if (a.max_ttft_s > 0 && r.e.ttft_low_s > a.max_ttft_s) {
      r.reason = "TTFT at least " + format_fixed(r.e.ttft_low_s, 2) + " s for " + std::to_string(a.prompt) + " tokens";
    } else {
      r.meets = true;
      r.reason = r.e.storage_share > 0 ? "streams " + format_fixed(100 * r.e.storage_share, 0) + " % of the model per token from " +
                                             std::to_string(r.e.drives) + " drive(s)"
                                       : "holds the whole model in memory";
    }
    if (profile->price_usd) {
      r.price = profile->price_usd->value;
      r.hourly = profile->price_basis.value_or("purchase") == "hourly";
      r.price_text = "$" + format_fixed(r.price, r.hourly ? 2 : 0) + (r.hourly ? "/h" : "");
      if (r.e.fits && r.e.tok_s_high > 0) r.price_per = r.price / r.e.tok_s_high;
    } else {
      r.price_text = "–";
    }
    rows.push_back(r);
  }
  // Meeting the target first (cheapest per tok/s, unpriced last), then the rest by speed.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    if (x.meets != y.meets) return x.meets;
    if (x.meets) {
      if ((x.price_per > 0) != (y.price_per > 0)) return x.price_per > 0;
      if (x.hourly != y.hourly) return !x.hourly;
      if (x.price_per > 0 && x.price_per != y.price_per) return x.price_per < y.price_per;
    }
    return x.e.tok_s_high > y.e.tok_s_high;
  });
  std::printf("moebench plan: %s, experts in %s, context %lld, target >= %s tok/s decode%s\n\n", a.model.c_str(), quant.c_str(),
              static_cast<long long>(a.context), format_fixed(a.min_tok_s, 3).c_str(),
              a.max_ttft_s > 0 ? (", TTFT <= " + format_fixed(a.max_ttft_s, 1) + " s").c_str() : "");
  std::printf("| rank | machine | meets | decode tok/s (predicted) | TTFT lower bound | drives | price | price per tok/s | why |\n"
              "|---:|---|---|---|---:|---:|---:|---:|---|\n");
  int rank = 0;
  for (const Row& r : rows) {
    std::printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", ++rank, r.name.c_str(), r.meets ? "yes" : "no",
                r.e.fits ? (format_fixed(r.e.tok_s_low, 3) + "–" + format_fixed(r.e.tok_s_high, 3)).c_str() : "–",
                r.e.fits ? (format_fixed(r.e.ttft_low_s, 2) + " s").c_str() : "–",
                r.e.fits ? std::to_string(r.e.drives).c_str() : "–", r.price_text.c_str(),
                r.price_per > 0 ? ("$" + format_fixed(r.price_per, r.hourly ? 2 : 0) + (r.hourly ? "/h" : "")).c_str() : "–",
                r.reason.c_str());
  }
  std::printf("\nPredicted from each profile's figures (spec ranges; measured for a probed machine): tiers of memory and "
              "drives, the model's bytes per token, best case with reads overlapped. TTFT is a memory-bound lower bound "
              "for a %lld-token prompt (compute is not modelled for catalog machines).\n",
              static_cast<long long>(a.prompt));
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CliState& state) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Rank machines for a model at a target decode speed (fits, tok/s, drives, price).");
  cmd->footer("Example:\n"
      "  moebench plan --model kimi-k3 --quant mxfp4 --min-decode-tok-s 1\n"
      "  moebench plan --model deepseek-v3-671b --min-decode-tok-s 5 --context 32768 --max-ttft 10");
  cmd->add_option("--model", args->model, "model card")->required();
  cmd->add_option("--quant", args->quant, "expert quant (default: the card's native)");
  cmd->add_option("--min-decode-tok-s", args->min_tok_s, "target single-stream decode speed")->required()->check(positive_number());
  cmd->add_option("--context", args->context, "context length in tokens (default 4096)")->check(CLI::Range(0, 1 << 24));
  cmd->add_option("--prompt", args->prompt, "prompt length for the TTFT bound (default 1000)")->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--max-ttft", args->max_ttft_s, "TTFT limit in seconds")->check(positive_number());
  cmd->add_option("--machine", args->machines, "also rank this profile file (repeatable)");
  cmd->callback([args, &state] { state.exit_code = plan_command(*args, state); });
}

}  // namespace moebench
