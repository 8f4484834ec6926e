// machine_plan.cpp — see machine_plan.h.
#include "harness/machine_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "vocab/machine_profile.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

Expected<std::vector<PlanRow>> plan_machines(const ConfigStore& store, const ModelCard& card, const PlanRequest& a,
                                             const std::vector<std::string>& sources, const std::string& this_machine) {
  std::vector<PlanRow> rows;
  for (const std::string& name : sources) {
    auto src = store.find("hardware", name);
    if (!src) return src.error();
    auto profile = load_config_text<MachineProfile>(src->text, src->label, load_machine_profile);
    if (!profile) return profile.error();
    PlanRow r;
    r.name = profile->name + (name == this_machine ? " (this machine)" : "");
    const int max_drives = static_cast<int>(std::max<std::size_t>(1, profile->drives.size()));
    // The fewest drives that reach the target (all of them if none does).
    for (int d = 1; d <= max_drives; ++d) {
      r.e = estimate_machine(card, a.quant, *profile, a.context, a.prompt, d);
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
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& x, const PlanRow& y) {
    if (x.meets != y.meets) return x.meets;
    if (x.meets) {
      if ((x.price_per > 0) != (y.price_per > 0)) return x.price_per > 0;
      if (x.hourly != y.hourly) return !x.hourly;
      if (x.price_per > 0 && x.price_per != y.price_per) return x.price_per < y.price_per;
    }
    return x.e.tok_s_high > y.e.tok_s_high;
  });
  return rows;
}

std::string write_plan_table(const PlanRequest& a, const std::vector<PlanRow>& rows) {
  std::string out = fmt::format("moebench plan: {}, experts in {}, context {}, target >= {} tok/s decode{}\n\n", a.model,
                                a.quant, a.context, format_fixed(a.min_tok_s, 3),
                                a.max_ttft_s > 0 ? ", TTFT <= " + format_fixed(a.max_ttft_s, 1) + " s" : std::string());
  out += "| rank | machine | meets | decode tok/s (predicted) | TTFT lower bound | drives | price | price per tok/s | why |\n"
         "|---:|---|---|---|---:|---:|---:|---:|---|\n";
  int rank = 0;
  for (const PlanRow& r : rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", ++rank, r.name, r.meets ? "yes" : "no",
                       r.e.fits ? format_fixed(r.e.tok_s_low, 3) + "–" + format_fixed(r.e.tok_s_high, 3) : "–",
                       r.e.fits ? format_fixed(r.e.ttft_low_s, 2) + " s" : "–",
                       r.e.fits ? std::to_string(r.e.drives) : "–", r.price_text,
                       r.price_per > 0 ? "$" + format_fixed(r.price_per, r.hourly ? 2 : 0) + (r.hourly ? "/h" : "") : "–",
                       r.reason);
  }
  out += fmt::format("\nPredicted from each profile's figures (spec ranges; measured for a probed machine): tiers of memory "
                     "and drives, the model's bytes per token, best case with reads overlapped. TTFT is a memory-bound "
                     "lower bound for a {}-token prompt (compute is not modelled for catalog machines).\n",
                     a.prompt);
  return out;
}

}  // namespace moebench
