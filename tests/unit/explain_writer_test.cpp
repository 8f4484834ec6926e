// explain_writer_test.cpp — the --explain writers on small fixed
// derivations: the exact text (byte-wise padding, units, outcome lines).
#include <catch2/catch.hpp>

#include "harness/explain_writer.h"

using namespace moebench;

namespace {

Prediction small_prediction() {
  Prediction p;
  p.steps = {{"experts read / token", 3 * 1048576.0, "B", "k × layers × expert bytes"},
             {"drive set read bw", 2.5e9, "B/s", "1 drive × 2.5 GB/s"},
             {"hit rate", 0.25, "", "cache ÷ routed bytes"},
             {"decode time / token", 0.5, "s", "max(I/O, compute)"}};
  p.t_token_s = 0.5;
  p.m.prefill_s = 1.25;
  p.m.notes = {"predicted on test-box"};
  return p;
}

}  // namespace

TEST_CASE("predict --explain: steps padded by bytes, the outcome and the notes", "[explain]") {
  const std::string want =
      "point 3: streaming tiny-moe on test-box (t.json)\n"
      "  experts read / token                 3.00 MiB       k × layers × expert bytes\n"
      "  drive set read bw                    2.50 GB/s      1 drive × 2.5 GB/s\n"
      "  hit rate                             0.2500         cache ÷ routed bytes\n"
      "  decode time / token                  0.5000 s       max(I/O, compute)\n"
      "decode 2.000 tok/s, TTFT 1.250 s\n"
      "note: predicted on test-box\n";
  CHECK(write_prediction_explain(3, "streaming tiny-moe", "test-box (t.json)", small_prediction()) == want);
}

TEST_CASE("predict --explain: a point that is not ok says its status instead of a speed", "[explain]") {
  Prediction p = small_prediction();
  p.steps.resize(1);
  p.m.status = RowStatus::kInfeasible;
  p.m.reason = "budget below the trunk";
  p.m.notes.clear();
  CHECK(write_prediction_explain(1, "x", "m", p) ==
        "point 1: x on m\n"
        "  experts read / token                 3.00 MiB       k × layers × expert bytes\n"
        "status infeasible: budget below the trunk\n");
}

TEST_CASE("claims --explain: the claim, the numbered derivation and the verdict", "[explain]") {
  Claim c;
  c.id = "c1";
  c.title = "A laptop streams a big model";
  c.model = "Big-MoE";
  c.card = "big-moe";
  c.hardware = "laptop";
  c.source_document = "blog post";
  c.source_quote = "it runs at 5 tok/s";
  c.missing = {"context_tokens", "drives"};
  ClaimJudgement j;
  j.id = "c1";
  j.predicted_low_tok_s = 1.5;
  j.predicted_high_tok_s = 2.25;
  j.implied_storage_bytes_s = 12.5e9;
  j.verdict = "implausible";
  j.reason = "above 1.5 × the upper bound";
  j.steps = {{"bytes / token", 2 * 1073741824.0, "B", "trunk + k × experts"},
             {"storage bw", 7e9, "B/s", "one NVMe"},
             {"experts per token", 8, "", "k"},
             {"upper bound", 2.25, "tok/s", "slowest tier alone"}};
  CHECK(write_claim_explain(c, j) ==
        "c1\nA laptop streams a big model\n\nsource: blog post\n  \"it runs at 5 tok/s\"\n"
        "model: Big-MoE (card big-moe); machine: not stated (profile laptop); engine: not stated; quant: not stated\n"
        "left out by the source: context_tokens, drives\n"
        "\nderivation:\n"
        "   1. bytes / token                                2.00 GiB (2.15 GB)\n      trunk + k × experts\n"
        "   2. storage bw                                   7.00 GB/s\n      one NVMe\n"
        "   3. experts per token                            8.000\n      k\n"
        "   4. upper bound                                  2.250 tok/s\n      slowest tier alone\n"
        "\npredicted 1.500–2.250 tok/s (×1.5); implied storage 12.50 GB/s, memory –\n"
        "verdict: implausible — above 1.5 × the upper bound\n");
}
