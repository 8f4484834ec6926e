// claim_check.cpp — see claim_check.h.
#include "engines/analytic/claim_check.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "vocab/quant_format.h"
#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

double storage_share(double model_bytes, double memory_bytes) {
  if (model_bytes <= 0) return 0;
  return std::clamp((model_bytes - memory_bytes) / model_bytes, 0.0, 1.0);
}

namespace {

double lo_of(const Figure& f) { return f.low.value_or(f.value); }
double hi_of(const Figure& f) { return f.high.value_or(f.value); }
std::string gb(double b) { return format_fixed(b / 1e9, 2) + " GB"; }
std::string gbs(double b) { return format_fixed(b / 1e9, 2) + " GB/s"; }
std::string tps(double t) { return format_fixed(t, t < 1 ? 3 : 2) + " tok/s"; }

struct ModelBytes {
  double trunk_total = 0, trunk_tok = 0, routed_total = 0, routed_tok = 0, kv_tok = 0, kv_total = 0;
  double k = 0, experts = 0, moe_layers = 0, expert_bytes = 0;
};

struct Conditions {
  double memory_cap = 0;  // RAM the engine may hold
  std::string memory_how;
  int drives = 1;
  bool gpus = false;
};

struct Evaluation {
  double t_fast = 0, t_slow = 0;       // s/token: upper-bound speed, lower-bound speed
  double storage_bytes = 0, memory_bytes = 0, fast_bytes = 0;
  bool fits = true;
  std::vector<Step> steps;
};

struct Tier {
  std::string name;
  double capacity, bw_lo, bw_hi;
  bool storage = false;
};

Evaluation evaluate(const ModelBytes& mb, const MachineProfile& m, const Conditions& c, double batch = 1) {
  Evaluation ev;
  std::vector<Tier> tiers;
  if (c.gpus && m.accelerators) {
    const AcceleratorInfo& a = *m.accelerators;
    // 90 %: the runtime, activations and the KV of other requests.
    // Fast end: tensor parallel, every device streams its share at once;
    // slow end: layers split across devices (pipeline), one at a time.
    tiers.push_back({std::to_string(a.count) + " × " + a.model + " memory", 0.9 * a.count * a.memory_bytes.value,
                     lo_of(a.memory_read_bytes_s), a.count * hi_of(a.memory_read_bytes_s)});
    double link_lo = lo_of(m.memory_read_bytes_s), link_hi = hi_of(m.memory_read_bytes_s);
    if (a.host_link_bytes_s) link_hi = std::max(link_hi, a.count * hi_of(*a.host_link_bytes_s));
    tiers.push_back({"host RAM", c.memory_cap, link_lo, link_hi});
  } else {
    // Linked machines: the whole setup's bandwidth at the fast end (tensor
    // parallel), one node's at the slow end (pipeline).
    tiers.push_back({"RAM", c.memory_cap, lo_of(m.memory_read_bytes_s) / std::max(1, m.nodes), hi_of(m.memory_read_bytes_s)});
  }
  double st_lo = 0, st_hi = 0;
  for (int i = 0; i < c.drives && !m.drives.empty(); ++i) {
    const DriveProfile& d = m.drives[static_cast<std::size_t>(std::min<int>(i, static_cast<int>(m.drives.size()) - 1))];
    st_lo += 0.85 * lo_of(d.seq_read_bytes_s);  // expert-sized random reads run a little below sequential
    st_hi += hi_of(d.seq_read_bytes_s);
  }
  if (st_hi > 0) tiers.push_back({std::to_string(c.drives) + " drive(s)", 1e30, st_lo, st_hi, true});

  // Placement: KV, then the trunk, then the experts, fastest tier first.
  double trunk_left = mb.trunk_total, routed_left = mb.routed_total, kv_left = mb.kv_total;
  const double routed_per_step = batch <= 1 ? mb.routed_tok
                                            : mb.moe_layers * mb.experts * (1 - std::pow(1 - mb.k / mb.experts, batch)) * mb.expert_bytes;
  for (const Tier& t : tiers) {
    double cap = t.capacity;
    const double kv_in = std::min(cap, kv_left);
    cap -= kv_in;
    kv_left -= kv_in;
    const double t_in = std::min(cap, trunk_left);
    cap -= t_in;
    trunk_left -= t_in;
    const double r_in = std::min(cap, routed_left);
    routed_left -= r_in;
    const double bytes = (mb.trunk_total > 0 ? mb.trunk_tok * t_in / mb.trunk_total : 0) +
                         (mb.routed_total > 0 ? routed_per_step * r_in / mb.routed_total : 0) +
                         (mb.kv_total > 0 ? mb.kv_tok * batch * kv_in / mb.kv_total : 0);
    if (bytes <= 0) continue;
    ev.t_fast = std::max(ev.t_fast, bytes / t.bw_hi);
    ev.t_slow += bytes / t.bw_lo;
    (t.storage ? ev.storage_bytes : ev.memory_bytes) += bytes;
    if (&t == &tiers.front()) ev.fast_bytes = bytes;
    ev.steps.push_back({"read from " + t.name + " per step", bytes, "B",
                        "holds " + gb(kv_in + t_in + r_in) + " (trunk " + gb(t_in) + ", experts " + gb(r_in) +
                            "); " + gbs(t.bw_lo) + " .. " + gbs(t.bw_hi)});
  }
  if (trunk_left + routed_left + kv_left > 1) {
    ev.fits = false;
    ev.steps.push_back({"does not fit", trunk_left + routed_left + kv_left, "B", "left over after every tier"});
  }
  if (m.nodes > 1 && m.sync_s_per_token) {
    ev.t_fast += lo_of(*m.sync_s_per_token);
    ev.t_slow += hi_of(*m.sync_s_per_token);
    ev.steps.push_back({"sync between " + std::to_string(m.nodes) + " nodes", m.sync_s_per_token->value, "s/token",
                        m.sync_s_per_token->source});
  }
  return ev;
}

bool mentions(const std::optional<std::string>& text, const char* word) {
  if (!text) return false;
  std::string t = *text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return t.find(word) != std::string::npos;
}

}  // namespace

ClaimJudgement judge_claim(const Claim& claim, const ModelCard* card, const MachineProfile* machine) {
  ClaimJudgement j;
  j.id = claim.id;
  auto step = [&j](std::string name, double v, std::string unit, std::string how) {
    j.steps.push_back({std::move(name), v, std::move(unit), std::move(how)});
  };
  // Reported single-stream decode speed, as a range of tok/s.
  std::optional<Reported> tok;
  if (claim.decode_tok_s) {
    tok = claim.decode_tok_s;
    j.reported = claim.decode_tok_s->is_range() ? format_fixed(tok->low, 3) + "–" + format_fixed(tok->high, 3) + " tok/s"
                                                : format_fixed(tok->low, 3) + " tok/s";
  } else if (claim.s_per_token) {
    tok = Reported{1 / claim.s_per_token->high, 1 / claim.s_per_token->low};
    j.reported = format_fixed(claim.s_per_token->low, 2) + (claim.s_per_token->is_range() ? "–" + format_fixed(claim.s_per_token->high, 2) : "") +
                 " s/token";
  } else if (claim.aggregate_tok_s) {
    j.reported = format_fixed(claim.aggregate_tok_s->high, 1) + " tok/s aggregate";
  } else if (claim.prefill_tok_s) {
    j.reported = format_fixed(claim.prefill_tok_s->high, 1) + " tok/s prefill";
  } else if (claim.ttft_s) {
    j.reported = format_fixed(claim.ttft_s->high, 2) + " s TTFT";
  }
  if (tok) step("reported decode speed", tok->high, "tok/s", j.reported + " (the high end is judged)");
  if (!card) {
    j.verdict = "under-specified";
    j.reason = "no model card for \"" + claim.model + "\": its bytes per token are unknown";
    return j;
  }
  if (!machine) {
    j.verdict = "under-specified";
    j.reason = "machine \"" + claim.machine.value_or("not stated") + "\" is not in the hardware catalog";
    return j;
  }

  // 1. Bytes.
  const ParamCounts pc = card->parameter_counts();
  const double p_tot = static_cast<double>(pc.total()), p_rt = static_cast<double>(pc.routed_experts);
  const double p_ra = static_cast<double>(pc.routed_active), p_tr = static_cast<double>(pc.trunk());
  const double p_tr_tok = p_tr - static_cast<double>(pc.embedding) + card->hidden_size;  // one embedding row
  ModelBytes mb;
  std::string bits_how;
  const auto native = find_quant(card->expert_quant);
  double ebpw = native ? native->bits_per_weight() : 4.25;
  if (claim.expert_bits_per_weight) ebpw = *claim.expert_bits_per_weight;
  mb.routed_total = p_rt * ebpw / 8;
  if (claim.container_bytes && !claim.expert_bits_per_weight) {
    const double avg = static_cast<double>(*claim.container_bytes) * 8 / p_tot;
    mb.routed_total = p_rt * avg / 8;
    mb.trunk_total = p_tr * avg / 8;
    ebpw = avg;
    bits_how = "container " + gb(static_cast<double>(*claim.container_bytes)) + " over " +
               format_fixed(p_tot / 1e12, 3) + " T parameters: " + format_fixed(avg, 2) + " bits per weight everywhere";
  } else if (claim.trunk_bits_per_weight) {
    mb.trunk_total = p_tr * *claim.trunk_bits_per_weight / 8;
    bits_how = "experts at " + format_fixed(ebpw, 2) + " bits, trunk at " + format_fixed(*claim.trunk_bits_per_weight, 2) + " bits";
  } else if (claim.container_bytes && static_cast<double>(*claim.container_bytes) > mb.routed_total) {
    mb.trunk_total = static_cast<double>(*claim.container_bytes) - mb.routed_total;
    bits_how = "experts at " + format_fixed(ebpw, 2) + " bits; the trunk is the rest of the " +
               gb(static_cast<double>(*claim.container_bytes)) + " container";
  } else {
    mb.trunk_total = static_cast<double>(card->trunk().total());
    bits_how = "experts at " + format_fixed(ebpw, 2) + " bits; trunk in the card's " + card->trunk_quant;
  }
  mb.trunk_tok = mb.trunk_total * p_tr_tok / p_tr;
  mb.routed_tok = p_ra * ebpw / 8;
  mb.k = card->moe.active;
  mb.experts = card->moe.experts;
  mb.moe_layers = card->moe_layers();
  mb.expert_bytes = card->moe.experts > 0 && card->moe_layers() > 0 ? mb.routed_total / (mb.experts * mb.moe_layers) : 0;
  const double ctx = static_cast<double>(claim.context_tokens.value_or(0));
  mb.kv_tok = static_cast<double>(card->kv_bytes_per_token()) * ctx + static_cast<double>(card->linear_state_bytes());
  mb.kv_total = static_cast<double>(card->cache_bytes(static_cast<std::uint64_t>(ctx)));
  step("model", mb.trunk_total + mb.routed_total, "B", bits_how);
  step("bytes per token: trunk", mb.trunk_tok, "B", "trunk without the embedding table, one row of it");
  step("bytes per token: routed experts", mb.routed_tok, "B",
       format_fixed(mb.k, 0) + " of " + format_fixed(mb.experts, 0) + " experts × " + format_fixed(mb.moe_layers, 0) + " MoE layers");
  if (mb.kv_tok > 0) step("bytes per token: KV cache and state", mb.kv_tok, "B", "at context " + format_fixed(ctx, 0));

  // 2. Conditions (missing ones at their favourable end first).
  Conditions best;
  best.gpus = machine->accelerators.has_value();  // GPUs hold weights when the machine has them
  best.memory_cap = machine->memory_usable_bytes.value;
  best.memory_how = "usable memory of " + machine->name;
  if (claim.ram_budget_bytes) {
    best.memory_cap = std::min(best.memory_cap, static_cast<double>(*claim.ram_budget_bytes));
    best.memory_how = "the stated budget";
  } else if (claim.rss_bytes && !best.gpus) {
    // Linked machines report RSS per rank (node).
    best.memory_cap = std::min(best.memory_cap, static_cast<double>(*claim.rss_bytes) * std::max(1, machine->nodes));
    best.memory_how = machine->nodes > 1 ? "the stated RSS × " + std::to_string(machine->nodes) + " nodes (no budget given)"
                                         : "the stated RSS (no budget given)";
  }
  best.drives = claim.drives.value_or(static_cast<int>(std::max<std::size_t>(1, machine->drives.size())));
  step("memory for weights", best.memory_cap, "B", best.memory_how);
  step("drives", best.drives, "", claim.drives ? "stated" : "not stated: all of the machine's drives");
  const double model = mb.trunk_total + mb.routed_total;
  step("share read from storage (one division)", storage_share(model, best.memory_cap + (best.gpus ? 0.9 * machine->accelerators->count * machine->accelerators->memory_bytes.value : 0)), "",
       "(model − memory) ÷ model");

  auto finish_implied = [&](const Evaluation& ev, double reported) {
    if (ev.storage_bytes > 0) j.implied_storage_bytes_s = reported * ev.storage_bytes;
    j.implied_memory_bytes_s = reported * ev.fast_bytes;
  };

  if (!tok) {
    if (claim.aggregate_tok_s && claim.concurrency) {
      const double b = *claim.concurrency;
      Evaluation ev = evaluate(mb, *machine, best, b);
      for (Step& s : ev.steps) j.steps.push_back(s);
      j.predicted_low_tok_s = b / ev.t_slow;
      j.predicted_high_tok_s = b / ev.t_fast;
      step("aggregate bound", *j.predicted_high_tok_s, "tok/s", format_fixed(b, 0) + " streams share each weight pass");
      const double r = claim.aggregate_tok_s->high;
      finish_implied(ev, r / b);
      j.verdict = r > 1.5 * *j.predicted_high_tok_s ? "implausible" : r > 1.05 * *j.predicted_high_tok_s ? "optimistic" : "consistent";
      j.reason = "aggregate " + format_fixed(r, 1) + " tok/s at " + format_fixed(b, 0) + " streams vs a bound of " +
                 tps(*j.predicted_high_tok_s);
      return j;
    }
    j.verdict = "under-specified";
    j.reason = claim.aggregate_tok_s ? "an aggregate (serving) figure without the number of concurrent streams"
                                     : "only prefill/TTFT figures: compute-bound, and the catalog carries no compute throughput";
    return j;
  }

  // 3. Time per token.
  Evaluation ev = evaluate(mb, *machine, best);
  for (const Step& s : ev.steps) j.steps.push_back(s);
  if (!ev.fits) {
    j.verdict = "implausible";
    j.reason = "the model does not fit this machine's memory and drives as described";
    return j;
  }
  j.predicted_low_tok_s = 1 / ev.t_slow;
  j.predicted_high_tok_s = 1 / ev.t_fast;
  step("upper bound", *j.predicted_high_tok_s, "tok/s", "high spec figures, tiers overlapped: 1 ÷ slowest tier's time");
  step("lower end", *j.predicted_low_tok_s, "tok/s", "low spec figures, tiers one after another");
  finish_implied(ev, tok->high);
  if (j.implied_storage_bytes_s) step("implied storage rate", *j.implied_storage_bytes_s, "B/s", "reported tok/s × storage bytes per token");
  step("implied memory rate", *j.implied_memory_bytes_s, "B/s", "reported tok/s × bytes per token from the fastest tier");

  // 4. Verdict.
  const double hi = *j.predicted_high_tok_s;
  const double ratio = tok->high / hi;
  const std::string vs = "reported " + j.reported + " vs an upper bound of " + tps(hi);
  if (ratio > 1.05 && mentions(claim.notes, "speculative")) {
    j.verdict = "under-specified";
    j.reason = vs + "; speculative decoding multiplies tokens per weight pass by an acceptance rate the source does not give";
    return j;
  }
  if (tok->low > 1.5 * hi) {
    j.verdict = "implausible";
    j.reason = vs + " (×" + format_fixed(tok->low / hi, 1) + "): the machine cannot move the bytes";
    return j;
  }
  if (ratio > 1.05) {
    j.verdict = "optimistic";
    j.reason = vs + " (×" + format_fixed(ratio, 2) + ")";
    return j;
  }
  // Would a missing condition at its unfavourable end change that?
  std::vector<std::string> deciders;
  if (!claim.drives && best.drives > 1) {
    Conditions w = best;
    w.drives = 1;
    if (tok->high > 1.05 / evaluate(mb, *machine, w).t_fast) deciders.push_back("the drive count (too slow with 1)");
  }
  if (!claim.context_tokens && card->kv_bytes_per_token() > 0) {
    ModelBytes long_ctx = mb;
    long_ctx.kv_tok = static_cast<double>(card->kv_bytes_per_token()) * 131072 + static_cast<double>(card->linear_state_bytes());
    long_ctx.kv_total = static_cast<double>(card->cache_bytes(131072));
    if (tok->high > 1.05 / evaluate(long_ctx, *machine, best).t_fast) deciders.push_back("the context (too slow at 128K)");
  }
  if (!deciders.empty()) {
    j.verdict = "under-specified";
    j.reason = vs + " holds only if " + join(deciders, " and ") + " is favourable; the source leaves it out";
    return j;
  }
  j.verdict = "consistent";
  j.reason = vs + (tok->high < *j.predicted_low_tok_s ? " (below the lower end: the engine leaves ×" +
                                                           format_fixed(*j.predicted_low_tok_s / tok->high, 1) + " on the table)"
                                                     : "");
  return j;
}

MachineEstimate estimate_machine(const ModelCard& card, const std::string& quant, const MachineProfile& machine,
                                 std::int64_t context, std::int64_t prompt, int drives) {
  MachineEstimate e;
  e.drives = drives;
  const auto qf = find_quant(quant);
  const ParamCounts pc = card.parameter_counts();
  const double p_tr = static_cast<double>(pc.trunk());
  ModelBytes mb;
  const double ebpw = qf ? qf->bits_per_weight() : 4.25;
  mb.routed_total = static_cast<double>(pc.routed_experts) * ebpw / 8;
  mb.trunk_total = static_cast<double>(card.trunk().total());
  mb.trunk_tok = mb.trunk_total * (p_tr - static_cast<double>(pc.embedding) + card.hidden_size) / p_tr;
  mb.routed_tok = static_cast<double>(pc.routed_active) * ebpw / 8;
  mb.k = card.moe.active;
  mb.experts = card.moe.experts;
  mb.moe_layers = card.moe_layers();
  mb.expert_bytes = mb.routed_total / std::max(1.0, mb.experts * mb.moe_layers);
  mb.kv_tok = static_cast<double>(card.kv_bytes_per_token()) * static_cast<double>(context) + static_cast<double>(card.linear_state_bytes());
  mb.kv_total = static_cast<double>(card.cache_bytes(static_cast<std::uint64_t>(context)));
  Conditions c;
  c.gpus = machine.accelerators.has_value();
  c.memory_cap = machine.memory_usable_bytes.value;
  c.drives = drives;
  const Evaluation ev = evaluate(mb, machine, c);
  e.steps = ev.steps;
  const double fast = c.gpus ? 0.9 * machine.accelerators->count * machine.accelerators->memory_bytes.value : 0;
  e.storage_share = storage_share(mb.trunk_total + mb.routed_total + mb.kv_total, c.memory_cap + fast);
  if (!ev.fits) {
    e.fits = false;
    e.why = machine.drives.empty() ? "model + KV (" + gb(mb.trunk_total + mb.routed_total + mb.kv_total) +
                                         ") exceeds memory and the profile lists no drive to stream from"
                                   : "does not fit";
    return e;
  }
  if (mb.trunk_total + mb.kv_total > c.memory_cap + fast) {
    e.fits = false;
    e.why = "the trunk and KV (" + gb(mb.trunk_total + mb.kv_total) + ") alone exceed memory (" + gb(c.memory_cap + fast) + ")";
    return e;
  }
  e.tok_s_low = 1 / ev.t_slow;
  e.tok_s_high = 1 / ev.t_fast;
  // Prefill lower bound: every weight once per 512-token chunk (the experts a
  // chunk touches: nearly all of them), at the fast end of the tiers.
  const double chunks = std::ceil(static_cast<double>(std::max<std::int64_t>(1, prompt)) / 512.0);
  const Evaluation pf = evaluate(mb, machine, c, std::min<double>(512, static_cast<double>(std::max<std::int64_t>(1, prompt))));
  e.ttft_low_s = chunks * pf.t_fast;
  return e;
}

}  // namespace moebench
