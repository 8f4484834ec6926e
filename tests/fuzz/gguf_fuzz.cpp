// gguf_fuzz.cpp — libFuzzer target for the GGUF header reader and what
// prints a header: any byte string must parse or fail with an error, never
// crash, hang or allocate without bound; and whatever parses must print.
// `container inspect` shows every key, value and tensor name through
// gguf_printable / gguf_value_text, which must never throw and must give
// valid UTF-8 (checked here by a strict nlohmann dump, which throws
// type_error 316 on anything else). Error messages must be valid UTF-8 too
// (they reach JSON result rows).
//
// Built with -DMOEBENCH_GGUF_FUZZ_FULL (and linked with card_from_gguf.cpp,
// container_verify.cpp, container_plan.cpp and the harness vocabulary) it
// also runs what `card from-gguf` does (derive, dump strictly, load the card
// back) and what `container verify` reads before any tensor data (the
// checksum tables).
//
// Build and run (clang with libFuzzer, see README):
//   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DMOEBENCH_FUZZ=ON
//   cmake --build build-fuzz --target gguf_fuzz
//   build-fuzz/tests/fuzz/gguf_fuzz -max_total_time=300 -rss_limit_mb=2048 \
//       -max_len=65536 tests/fuzz/corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "engines/container/gguf.h"
#ifdef MOEBENCH_GGUF_FUZZ_FULL
#include "engines/container/card_from_gguf.h"
#include "engines/container/container.h"
#endif

namespace {

// Strict: throws (and so aborts the fuzzer) unless `s` is valid UTF-8.
void must_be_utf8(const std::string& s) { (void)moebench::Json(s).dump(); }

void print_value(const moebench::Json& v) {
  const std::string text = moebench::gguf_value_text(v);
  must_be_utf8(text);
  if (v.is_array()) {
    for (const moebench::Json& e : v) must_be_utf8(moebench::gguf_value_text(e));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moebench::GgufLimits limits;
  limits.max_string_bytes = 1u << 20;  // keep single inputs small under ASan
  limits.max_array_elements = 1u << 20;
  auto parsed = moebench::parse_gguf(data, size, "fuzz", limits);
  if (!parsed) {
    must_be_utf8(parsed.error().message);
    return 0;
  }
  // What `container inspect` prints.
  std::uint64_t total = 0;
  for (const auto& kv : parsed->kvs) {
    must_be_utf8(moebench::gguf_printable(kv.key));
    print_value(kv.value);
  }
  for (const auto& t : parsed->tensors) {
    must_be_utf8(moebench::gguf_printable(t.name));
    total += t.bytes + t.elements();
  }
  (void)parsed->get_string("general.architecture");
  (void)total;
#ifdef MOEBENCH_GGUF_FUZZ_FULL
  // What `card from-gguf` does with it.
  auto derived = moebench::card_from_gguf(*parsed);
  if (derived) {
    const std::string text = moebench::model_card_to_json(derived->card).dump(2);  // strict: must not throw
    auto back = moebench::load_config_text<moebench::ModelCard>(text, "derived", moebench::load_model_card);
    if (back) (void)back->parameter_counts().total();
    else must_be_utf8(back.error().message);
    for (const std::string& n : derived->notes) must_be_utf8(n);
  } else {
    must_be_utf8(derived.error().message);
  }
  // What `container verify` reads before the tensor data.
  auto sums = moebench::read_container_checksums(*parsed);
  if (!sums) must_be_utf8(sums.error().message);
#endif
  return 0;
}
