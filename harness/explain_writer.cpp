// explain_writer.cpp — see explain_writer.h.
#include "harness/explain_writer.h"

#include <fmt/format.h>

#include "vocab/text.h"
#include "vocab/units.h"

namespace moebench {

namespace {

// Left-aligned in `width` bytes, as printf's %-Ns (fmt would count display
// width, and step names hold multi-byte characters).
std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string prediction_step_value(const Step& st) {
  if (st.unit == "B") return format_bytes(st.value);
  if (st.unit == "B/s") return format_rate(st.value);
  return format_fixed(st.value, 4) + (st.unit.empty() ? "" : " " + st.unit);
}

std::string claim_step_value(const Step& s) {
  if (s.unit == "B") return format_bytes(s.value) + " (" + format_fixed(s.value / 1e9, 2) + " GB)";
  if (s.unit == "B/s") return format_fixed(s.value / 1e9, 2) + " GB/s";
  if (s.unit.empty()) return format_fixed(s.value, s.value < 10 ? 3 : 0);
  return format_fixed(s.value, s.value < 10 ? 3 : 2) + " " + s.unit;
}

}  // namespace

std::string write_prediction_explain(int point_number, const std::string& point_label,
                                     const std::string& profile_label, const Prediction& pred) {
  std::string out = fmt::format("point {}: {} on {}\n", point_number, point_label, profile_label);
  for (const Step& st : pred.steps) {
    out += fmt::format("  {} {} {}\n", pad(st.name, 36), pad(prediction_step_value(st), 14), st.how);
  }
  if (pred.m.status != RowStatus::kOk) {
    out += fmt::format("status {}: {}\n", to_string(pred.m.status), pred.m.reason);
  } else {
    out += fmt::format("decode {} tok/s, TTFT {} s\n", format_fixed(1 / pred.t_token_s, 3), format_fixed(pred.m.prefill_s, 3));
  }
  for (const std::string& n : pred.m.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string claim_rate_or_dash(const std::optional<double>& v) {
  return v ? format_fixed(*v / 1e9, 2) + " GB/s" : "–";
}

std::string claim_predicted_text(const ClaimJudgement& j) {
  if (!j.predicted_high_tok_s) return "–";
  std::string out = format_fixed(*j.predicted_low_tok_s, 3) + "–" + format_fixed(*j.predicted_high_tok_s, 3) + " tok/s (×" +
                    format_fixed(j.band_ratio(), 1);
  if (!j.regime.empty()) out += ", " + j.regime;
  return out + ")";
}

std::string write_claim_explain(const Claim& c, const ClaimJudgement& j) {
  std::string out = fmt::format("{}\n{}\n\nsource: {}\n  \"{}\"\n", c.id, c.title, c.source_label(), c.source_quote);
  out += fmt::format("model: {} (card {}); machine: {} (profile {}); engine: {}; quant: {}\n", c.model,
                     c.card.value_or("none"), c.machine.value_or("not stated"), c.hardware.value_or("none"),
                     c.engine.value_or("not stated"), c.quant.value_or("not stated"));
  out += fmt::format("left out by the source: {}\n", c.missing.empty() ? std::string("nothing") : join(c.missing, ", "));
  if (c.notes) out += fmt::format("notes: {}\n", *c.notes);
  out += "\nderivation:\n";
  int n = 0;
  for (const Step& s : j.steps) {
    out += fmt::format("  {:2}. {} {}\n      {}\n", ++n, pad(s.name, 44), claim_step_value(s), s.how);
  }
  if (!j.cases.empty()) {
    out += "\nplausible cases (conditions the source leaves out take each declared value):\n";
    for (const CaseBand& b : j.cases) {
      out += fmt::format("  {}: {} tok/s (band {} .. {})\n", pad(b.label, 56), format_fixed(b.real_tok_s, 3),
                         format_fixed(b.slow_tok_s, 3), format_fixed(b.fast_tok_s, 3));
    }
  }
  out += fmt::format("\npredicted {}; implied storage {}, memory {}\nverdict: {} — {}\n", claim_predicted_text(j),
                     claim_rate_or_dash(j.implied_storage_bytes_s), claim_rate_or_dash(j.implied_memory_bytes_s),
                     j.verdict, j.reason);
  return out;
}

}  // namespace moebench
