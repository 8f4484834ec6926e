// quant_names_test.cpp — the bits per weight of quant names as published
// sources write them: the listed types, and the GGUF names built around a
// base type (Unsloth's dynamic "UD-…_XL" mixes, ik_llama.cpp's "_R4"
// repacks, "mix-" and version tags) read as that base type; a K-quant mix
// the table does not list, and a name nobody lists, stay unknown.
#include <catch2/catch.hpp>

#include "vocab/quant_format.h"

using namespace moebench;

TEST_CASE("a listed quant name gives its bits per weight", "[quant]") {
  CHECK(published_quant_bits("q8_0") == Approx(8.5));     // 34 bytes per 32 weights
  CHECK(published_quant_bits("q2_k") == Approx(2.625));   // 84 bytes per 256
  CHECK(published_quant_bits("iq4_k") == Approx(4.5));    // ik_llama.cpp's llama-quantize list
  CHECK(published_quant_bits("iq2_kl") == Approx(2.6875));  // 86 bytes per 256
}

TEST_CASE("GGUF names around a base type read as the base type", "[quant]") {
  // Unsloth Dynamic: the bulk of the weights in the base type.
  CHECK(published_quant_bits(quant_name_of("UD-Q2_K_XL (GGUF)")) == Approx(2.625));
  CHECK(published_quant_bits(quant_name_of("UD-Q3_K_XL")) == Approx(3.4375));
  CHECK(published_quant_bits(quant_name_of("UD-IQ1_S (GGUF, 1-bit dynamic)")) == Approx(1.5625));
  CHECK(published_quant_bits(quant_name_of("UD-IQ4_XS (GGUF), KV q8_0")) == Approx(4.25));
  // ik_llama.cpp's row-interleaved repacks keep their base type's bytes.
  CHECK(published_quant_bits(quant_name_of("Q4_K_R4 (repacked at load, -rtr)")) == Approx(4.5));
  CHECK(published_quant_bits(quant_name_of("IQ2_K_R4 (ubergarm), KV q8_0")) == Approx(2.375));
  CHECK(published_quant_bits(quant_name_of("IQ4_KS_R4 (ubergarm), KV f16")) == Approx(4.25));
  CHECK(published_quant_bits("q4_0_r8") == Approx(4.5));
  CHECK(published_quant_bits("iq2_k_r16") == Approx(2.375));
  CHECK(published_quant_bits("q4_k_xl_r4") == Approx(4.5));
  // A mix named by its main type, a version tag.
  CHECK(published_quant_bits(quant_name_of("mix-IQ3_K (ubergarm), KV q8_0")) == Approx(3.4375));
  CHECK(published_quant_bits(quant_name_of("Q4_K_M-V2 (bartowski), -rtr")) == Approx(4.8));
  // A K-quant's _s/_m/_l mix averages more than its base type: listed
  // (q4_k_m, q3_k_m) or unknown, never read as the base type.
  CHECK(published_quant_bits("q4_k_m") == Approx(4.8));
  CHECK(published_quant_bits("q3_k_m") == Approx(3.9));
  CHECK_FALSE(published_quant_bits(quant_name_of("Q5_K_M (GGUF)")));
  CHECK_FALSE(published_quant_bits("q3_k_l"));
}

TEST_CASE("llama-quantize's types and the GGUF names built on them are told from other formats", "[quant]") {
  for (const char* gguf : {"q4_k_m", "q8_0", "q2_k", "iq2_xxs", "iq4_k_r4", "ud-q2_k_xl", "ud-iq1_s", "mix-iq3_k", "q4_k_m-v2"}) {
    INFO(gguf);
    CHECK(llama_quantize_type(gguf));
  }
  // MXFP4 checkpoints keep a bf16 trunk (Kimi K3 as released); FP8, int4 and
  // engines' own formats say nothing of theirs.
  for (const char* other : {"mxfp4", "fp8", "int4", "int8", "bf16", "f16", "q4g", "q3g", "vq3r", "mlx_q8", "4bit", "", "q", "iq"}) {
    INFO(other);
    CHECK_FALSE(llama_quantize_type(other));
  }
}

TEST_CASE("a name nobody lists stays unknown", "[quant]") {
  CHECK_FALSE(published_quant_bits(""));
  CHECK_FALSE(published_quant_bits("ubergarm"));
  CHECK_FALSE(published_quant_bits("ud-"));
  CHECK_FALSE(published_quant_bits("_r4"));
  CHECK_FALSE(published_quant_bits("q7_k_xl"));
  CHECK_FALSE(published_quant_bits("mixed"));
  CHECK_FALSE(published_quant_bits("k_m"));
}
